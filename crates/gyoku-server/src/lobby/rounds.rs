//! Scheduled rounds in the lobby: players who name a scheduled game wait for its next
//! round; at the round time all of them are paired at once ([`super::schedule`]) and every
//! game is proposed; `%%FLOODGATE` says when the next rounds are and who waits; `%%RATING`
//! lists the ratings the driver last computed from the stored games.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDateTime;
use gyoku_proto::csa_line::{ServerLine, X1Tag};

use super::Lobby;
use super::conns::Status;
pub use super::io::Ratings;
use super::io::{ConnId, Millis, Now, Output, tell_lines};
use super::schedule::{Schedule, Waiting, pair_round};

/// A scheduled game's state.
#[derive(Clone, Debug)]
pub(super) struct Rounds {
    pub(super) schedule: Schedule,
    /// The next round's time (set at the first input after start).
    pub(super) next: Option<NaiveDateTime>,
    /// Rounds played.
    pub(super) played: u32,
    /// The round each player (id) last sat out.
    pub(super) sat_out: HashMap<String, u32>,
    /// This round's players (ids) whose proposal the other side withdrew (rejected it,
    /// left, or let it lapse): paired again at once, with one another or with the
    /// round's sat-out player, instead of waiting for the next round.
    pub(super) stranded: HashSet<String>,
    /// What each player this round paired had in `last_scheduled` before: a withdrawn
    /// proposal was never a game, so it puts that back.
    pub(super) before: HashMap<String, Option<LastScheduled>>,
}

/// A player's last scheduled opponent (id), whether it had Black, and its Blacks less its
/// Whites in scheduled games.
pub(super) type LastScheduled = (String, bool, i32);

/// The rating an unrated player is paired with: the rating list's mean.
pub const UNRATED: i64 = 1000;

/// The most lines `%%RATING` answers.
const MAX_RATING_LINES: usize = 10_000;

impl Lobby {
    /// Whether `game` is played in scheduled rounds.
    pub(super) fn is_scheduled(&self, game: &str) -> bool {
        self.competitions.rounds.contains_key(game)
    }

    /// A player's id for ratings and pairing: its rating id, else its name.
    fn player_id(&self, conn: ConnId) -> String {
        let c = &self.people.conns[&conn];
        c.rating_id()
            .map_or_else(|| c.name().to_string(), |k| k.as_str().to_string())
    }

    /// Runs every round that is due at `now`, and sets each next round time.
    pub(super) fn run_due_rounds(&mut self, now: Now, out: &mut Vec<Output>) {
        let due: Vec<String> = self
            .competitions
            .rounds
            .iter_mut()
            .filter_map(|(game, r)| {
                let next = *r
                    .next
                    .get_or_insert_with(|| r.schedule.next_after(now.wall));
                (next <= now.wall).then(|| {
                    r.next = Some(r.schedule.next_after(now.wall));
                    game.clone()
                })
            })
            .collect();
        for game in due {
            self.run_round(&game, now, out);
        }
    }

    /// When the next round is due, in monotonic milliseconds.
    pub(super) fn next_round_deadline(&self) -> Option<Millis> {
        let now = self.last_now?;
        self.competitions
            .rounds
            .values()
            .filter_map(|r| r.next)
            .map(|next| {
                let ahead = (next - now.wall).num_milliseconds().max(0);
                now.mono + u64::try_from(ahead).unwrap_or(0)
            })
            .min()
    }

    /// Pairs everyone waiting for `game` and proposes their games.
    fn run_round(&mut self, game: &str, now: Now, out: &mut Vec<Output>) {
        let waiting: Vec<ConnId> = self
            .people
            .waiting
            .for_game(game)
            .filter(|id| {
                self.people
                    .conns
                    .get(id)
                    .is_some_and(|c| c.status == Status::GameWaiting)
            })
            .collect();
        let round = {
            let r = self
                .competitions
                .rounds
                .get_mut(game)
                .expect("a scheduled game");
            r.played += 1;
            r.stranded.clear();
            r.before.clear();
            r.played
        };
        let field: Vec<Waiting> = waiting
            .iter()
            .map(|&conn| {
                let id = self.player_id(conn);
                let rated = self.competitions.ratings.get(&id).copied();
                let sat = self.competitions.rounds[game].sat_out.get(&id).copied();
                Waiting {
                    rating: rated.unwrap_or(UNRATED),
                    estimated: rated.is_none(),
                    last: self
                        .competitions
                        .last_scheduled
                        .get(&id)
                        .map(|(o, b, _)| (o.clone(), *b)),
                    balance: self.competitions.last_scheduled.get(&id).map_or(0, |l| l.2),
                    since_sat_out: sat.map_or(u32::MAX, |s| round - s),
                    id,
                }
            })
            .collect();
        let (pairs, out_of_round) = pair_round(&field);
        if let Some(k) = out_of_round {
            let id = field[k].id.clone();
            self.competitions
                .rounds
                .get_mut(game)
                .expect("a scheduled game")
                .sat_out
                .insert(id, round);
        }
        for (b, w) in pairs {
            let ids = [field[b].id.clone(), field[w].id.clone()];
            let balances = [field[b].balance, field[w].balance];
            self.propose_scheduled(game, [waiting[b], waiting[w]], ids, balances, now, out);
        }
    }

    /// Proposes a scheduled game to `players` (Black, White; their ids and colour
    /// balances), each one's pairing history updated (and what it was kept, should the
    /// proposal be withdrawn).
    fn propose_scheduled(
        &mut self,
        game: &str,
        players: [ConnId; 2],
        [black_id, white_id]: [String; 2],
        [bb, wb]: [i32; 2],
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let r = self
            .competitions
            .rounds
            .get_mut(game)
            .expect("a scheduled game");
        for id in [&black_id, &white_id] {
            r.before
                .entry(id.clone())
                .or_insert_with(|| self.competitions.last_scheduled.get(id).cloned());
        }
        self.competitions
            .last_scheduled
            .insert(black_id.clone(), (white_id.clone(), true, bb + 1));
        self.competitions
            .last_scheduled
            .insert(white_id, (black_id, false, wb - 1));
        for conn in players {
            // Out of the queue: the proposal opens the game.
            self.people.set_status(conn, Status::Connected);
            let c = self
                .people
                .conns
                .get_mut(&conn)
                .expect("waiting players are logged in");
            c.game_name = game.to_string();
        }
        self.propose(game, players, Vec::new(), None, now, out);
    }

    /// A scheduled proposal to `players` was withdrawn: it was never a game, so their
    /// pairing history is as before it.
    pub(super) fn unpropose_scheduled(&mut self, game: &str, players: [ConnId; 2]) {
        for conn in players {
            if !self.people.conns.contains_key(&conn) {
                continue;
            }
            let id = self.player_id(conn);
            let Some(before) = self
                .competitions
                .rounds
                .get_mut(game)
                .and_then(|r| r.before.remove(&id))
            else {
                continue;
            };
            match before {
                Some(last) => self.competitions.last_scheduled.insert(id, last),
                None => self.competitions.last_scheduled.remove(&id),
            };
        }
    }

    /// `conn` played no game this round because the other side withdrew its proposal. It
    /// waits for the game again (a CSA-mode player at once; one in x1 mode when it says
    /// `%%GAME` again, as after any game) and is paired at once if someone else of the
    /// round is waiting without a game.
    pub(super) fn strand(&mut self, conn: ConnId, game: &str, now: Now, out: &mut Vec<Output>) {
        if !self.people.conns.contains_key(&conn) {
            return;
        }
        let id = self.player_id(conn);
        let Some(r) = self.competitions.rounds.get_mut(game) else {
            return;
        };
        r.stranded.insert(id);
        let Some(c) = self.people.conns.get_mut(&conn) else {
            return;
        };
        if c.x1 {
            return;
        }
        c.game_name = game.to_string();
        c.sente = None;
        self.people.set_status(conn, Status::GameWaiting);
        self.stand_in(conn, game, now, out);
    }

    /// If `conn` (waiting for the scheduled `game`) was stranded this round, pairs it with
    /// another of the round who waits without a game: stranded too, or the one the round
    /// left out. Nobody else is paired between rounds.
    pub(super) fn stand_in(&mut self, conn: ConnId, game: &str, now: Now, out: &mut Vec<Output>) {
        let me = self.player_id(conn);
        let Some(r) = self.competitions.rounds.get(game) else {
            return;
        };
        if !r.stranded.contains(&me) {
            return;
        }
        let of_the_round =
            |id: &String| r.stranded.contains(id) || r.sat_out.get(id) == Some(&r.played);
        let who = self.people.conns[&conn].who.clone();
        let Some((other, other_id)) = self
            .people
            .waiting
            .for_game(game)
            .filter(|&id| id != conn)
            .filter(|id| {
                self.people
                    .conns
                    .get(id)
                    .is_some_and(|c| c.status == Status::GameWaiting && c.who != who)
            })
            .map(|id| (id, self.player_id(id)))
            .find(|(_, id)| *id != me && of_the_round(id))
        else {
            return;
        };
        let r = self
            .competitions
            .rounds
            .get_mut(game)
            .expect("a scheduled game");
        r.stranded.remove(&me);
        r.stranded.remove(&other_id);
        if r.sat_out.get(&other_id) == Some(&r.played) {
            r.sat_out.remove(&other_id);
        }
        let balance = |id: &String| self.competitions.last_scheduled.get(id).map_or(0, |l| l.2);
        let (mine, theirs) = (balance(&me), balance(&other_id));
        // The one with fewer Blacks has Black; between equals, the one who waited longer.
        let players = if theirs <= mine {
            ([other, conn], [other_id, me], [theirs, mine])
        } else {
            ([conn, other], [me, other_id], [mine, theirs])
        };
        self.propose_scheduled(game, players.0, players.1, players.2, now, out);
    }

    /// `%%FLOODGATE`: each scheduled game, its next round, and who waits.
    pub(super) fn floodgate_query(&self, conn: ConnId, out: &mut Vec<Output>) {
        let mut lines = Vec::new();
        for (game, r) in &self.competitions.rounds {
            let next = r.next.map_or("-".to_string(), |t| {
                t.format("%Y/%m/%d %H:%M:%S").to_string()
            });
            let waiting: Vec<String> = self
                .people
                .waiting
                .for_game(game)
                .filter_map(|id| self.people.conns.get(&id).map(|c| c.name().to_string()))
                .collect();
            lines.push(ServerLine::X1 {
                tag: X1Tag::Floodgate,
                text: format!(
                    "{game} next {next} rounds {} waiting {}: {}",
                    r.played,
                    waiting.len(),
                    waiting.join(" ")
                ),
            });
        }
        lines.push(ServerLine::X1 {
            tag: X1Tag::Floodgate,
            text: "+OK".into(),
        });
        tell_lines(out, conn, lines);
    }

    /// `%%RATING`: the rated players, highest first: `id \t rate`.
    pub(super) fn rating_query(&self, conn: ConnId, out: &mut Vec<Output>) {
        let mut rated: Vec<(&String, &i64)> = self.competitions.ratings.iter().collect();
        rated.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let lines = rated
            .into_iter()
            .take(MAX_RATING_LINES)
            .map(|(id, rate)| ServerLine::X1 {
                tag: X1Tag::Rating,
                text: format!("{id} \t {rate:4}"),
            })
            .chain([ServerLine::X1 {
                tag: X1Tag::Rating,
                text: "+OK".into(),
            }]);
        tell_lines(out, conn, lines.collect::<Vec<_>>());
    }

    /// Takes up the scheduled games played before a restart (each game's players, oldest
    /// first): each player's last opponent, last colour and colour balance, as the rounds
    /// that paired them left them. Ids as pairing uses them: the rating id, else the name.
    pub fn remember_scheduled(&mut self, games: &[crate::store::NamedGame]) {
        for (names, rating_ids) in games {
            let id = |k: usize| match &rating_ids[k] {
                Some(r) if !r.is_empty() => r.clone(),
                _ => names[k].clone(),
            };
            let (black, white) = (id(0), id(1));
            let balance = |me: &String| self.competitions.last_scheduled.get(me).map_or(0, |l| l.2);
            let (bb, wb) = (balance(&black), balance(&white));
            self.competitions
                .last_scheduled
                .insert(black.clone(), (white.clone(), true, bb + 1));
            self.competitions
                .last_scheduled
                .insert(white, (black, false, wb - 1));
        }
    }

    /// The scheduled game names.
    pub fn scheduled_games(&self) -> Vec<String> {
        self.competitions.rounds.keys().cloned().collect()
    }

    /// Whether any game is scheduled.
    pub fn has_schedules(&self) -> bool {
        !self.competitions.rounds.is_empty()
    }

    /// The scheduled games as the web page shows them: next round, rounds played, who
    /// waits.
    pub fn scheduled_view(&self) -> Vec<crate::league::Scheduled> {
        self.competitions
            .rounds
            .iter()
            .map(|(game, r)| crate::league::Scheduled {
                game: game.clone(),
                next: r.next.map(|t| t.format("%Y/%m/%d %H:%M:%S").to_string()),
                rounds: r.played,
                waiting: self
                    .people
                    .waiting
                    .for_game(game)
                    .filter_map(|id| self.people.conns.get(&id).map(|c| c.name().to_string()))
                    .collect(),
            })
            .collect()
    }
}
