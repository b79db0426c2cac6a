//! Scheduled rounds: players who name a scheduled game wait for its next round; at the
//! round time all of them are paired at once ([`super::schedule`]) and every game is
//! proposed; `%%FLOODGATE` says when the next rounds are and who waits; `%%RATING` lists
//! the ratings the driver last computed from the stored games.
//!
//! [`Schedules`] decides, as an event does ([`super::events`]): shown who waits
//! ([`Field::queue`]), it asks for games in [`Step`]s; the lobby's part (the end of this
//! file) shows it the lobby, carries the steps out, and answers the queries.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::NaiveDateTime;
use gyoku_proto::csa_line::{ServerLine, X1Tag};

use super::Lobby;
use super::conns::Status;
use super::field::{Field, LobbyField, Step, Waiter};
pub use super::io::Ratings;
use super::io::{Config, ConnId, Millis, Now, Output, tell_lines};
use super::schedule::{Schedule, Waiting, pair_round};

/// Every scheduled game's rounds, and what pairing keeps between them.
#[derive(Debug)]
pub(super) struct Schedules {
    /// Scheduled games, by name.
    pub(super) rounds: BTreeMap<String, Rounds>,
    /// Each player's (id) last scheduled opponent (id), whether it had Black, and its
    /// Blacks less its Whites in scheduled games.
    last_scheduled: HashMap<String, LastScheduled>,
    /// The latest rating list ([`super::Input::Ratings`]).
    pub(super) ratings: Ratings,
}

/// A scheduled game's state.
#[derive(Clone, Debug)]
pub(super) struct Rounds {
    pub(super) schedule: Schedule,
    /// The next round's time (set at the first input after start).
    pub(super) next: Option<NaiveDateTime>,
    /// Rounds played.
    pub(super) played: u32,
    /// When the latest round was paired (none since the start).
    pub(super) paired_at: Option<NaiveDateTime>,
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

impl Schedules {
    /// The schedules `config` names, no round played.
    pub(super) fn new(config: &Config) -> Schedules {
        let rounds = config
            .schedules
            .iter()
            .map(|(game, schedule)| {
                let r = Rounds {
                    schedule: schedule.clone(),
                    next: None,
                    played: 0,
                    paired_at: None,
                    sat_out: HashMap::new(),
                    stranded: HashSet::new(),
                    before: HashMap::new(),
                };
                (game.clone(), r)
            })
            .collect();
        Schedules {
            rounds,
            last_scheduled: HashMap::new(),
            ratings: Ratings::new(),
        }
    }

    /// The games whose round is due at `now`, each one's next round time set.
    pub(super) fn due(&mut self, now: Now) -> Vec<String> {
        self.rounds
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
            .collect()
    }

    /// When the next round is due, in monotonic milliseconds.
    pub(super) fn deadline(&self, now: Now) -> Option<Millis> {
        self.rounds
            .values()
            .filter_map(|r| r.next)
            .map(|next| {
                let ahead = (next - now.wall).num_milliseconds().max(0);
                now.mono + u64::try_from(ahead).unwrap_or(0)
            })
            .min()
    }

    /// Pairs everyone in `field`'s queue for `game` and asks for their games.
    pub(super) fn run_round(&mut self, game: &str, field: &dyn Field, steps: &mut Vec<Step>) {
        let waiting = field.queue();
        let round = {
            let r = self.rounds.get_mut(game).expect("a scheduled game");
            r.played += 1;
            r.stranded.clear();
            r.before.clear();
            r.played
        };
        let pairing: Vec<Waiting> = waiting
            .iter()
            .map(|w| {
                let rated = self.ratings.get(&w.id).copied();
                let sat = self.rounds[game].sat_out.get(&w.id).copied();
                let last = self.last_scheduled.get(&w.id);
                Waiting {
                    rating: rated.unwrap_or(UNRATED),
                    estimated: rated.is_none(),
                    last: last.map(|(o, b, _)| (o.clone(), *b)),
                    balance: last.map_or(0, |l| l.2),
                    since_sat_out: sat.map_or(u32::MAX, |s| round - s),
                    id: w.id.clone(),
                }
            })
            .collect();
        let (pairs, out_of_round) = pair_round(&pairing);
        if let Some(k) = out_of_round {
            let r = self.rounds.get_mut(game).expect("a scheduled game");
            r.sat_out.insert(pairing[k].id.clone(), round);
        }
        for (b, w) in pairs {
            let ids = [pairing[b].id.clone(), pairing[w].id.clone()];
            let balances = [pairing[b].balance, pairing[w].balance];
            let players = [waiting[b].conn, waiting[w].conn];
            self.propose(game, players, ids, balances, steps);
        }
    }

    /// Asks for a scheduled game between `players` (Black, White; their ids and colour
    /// balances), each one's pairing history updated (and what it was kept, should the
    /// proposal be withdrawn).
    fn propose(
        &mut self,
        game: &str,
        players: [ConnId; 2],
        [black_id, white_id]: [String; 2],
        [bb, wb]: [i32; 2],
        steps: &mut Vec<Step>,
    ) {
        let r = self.rounds.get_mut(game).expect("a scheduled game");
        for id in [&black_id, &white_id] {
            r.before
                .entry(id.clone())
                .or_insert_with(|| self.last_scheduled.get(id).cloned());
        }
        self.last_scheduled
            .insert(black_id.clone(), (white_id.clone(), true, bb + 1));
        self.last_scheduled
            .insert(white_id, (black_id, false, wb - 1));
        steps.push(Step::Propose(players));
    }

    /// A proposal of `game` to the players `ids` was withdrawn: it was never a game, so
    /// their pairing history is as before it.
    pub(super) fn withdrawn(&mut self, game: &str, ids: impl IntoIterator<Item = String>) {
        let Some(r) = self.rounds.get_mut(game) else {
            return;
        };
        for id in ids {
            match r.before.remove(&id) {
                Some(Some(last)) => self.last_scheduled.insert(id, last),
                Some(None) => self.last_scheduled.remove(&id),
                None => None,
            };
        }
    }

    /// The player `id` played no game of `game` this round because the other side
    /// withdrew its proposal: it may be paired again before the next round.
    pub(super) fn strand(&mut self, game: &str, id: String) {
        if let Some(r) = self.rounds.get_mut(game) {
            r.stranded.insert(id);
        }
    }

    /// If `me` (waiting for the scheduled `game`) was stranded this round, asks for a game
    /// with another in `field`'s queue who waits without a game from the round: stranded
    /// too, or the one the round left out. Nobody else is paired between rounds.
    pub(super) fn stand_in(
        &mut self,
        game: &str,
        me: &Waiter,
        field: &dyn Field,
        steps: &mut Vec<Step>,
    ) {
        let Some(r) = self.rounds.get(game) else {
            return;
        };
        if !r.stranded.contains(&me.id) {
            return;
        }
        let of_the_round =
            |id: &String| r.stranded.contains(id) || r.sat_out.get(id) == Some(&r.played);
        let Some(other) = field
            .queue()
            .into_iter()
            .filter(|w| w.conn != me.conn && w.who != me.who)
            .find(|w| w.id != me.id && of_the_round(&w.id))
        else {
            return;
        };
        let r = self.rounds.get_mut(game).expect("a scheduled game");
        r.stranded.remove(&me.id);
        r.stranded.remove(&other.id);
        if r.sat_out.get(&other.id) == Some(&r.played) {
            r.sat_out.remove(&other.id);
        }
        let balance = |id: &String| self.last_scheduled.get(id).map_or(0, |l| l.2);
        let (mine, theirs) = (balance(&me.id), balance(&other.id));
        // The one with fewer Blacks has Black; between equals, the one who waited longer.
        if theirs <= mine {
            let ids = [other.id, me.id.clone()];
            self.propose(game, [other.conn, me.conn], ids, [theirs, mine], steps);
        } else {
            let ids = [me.id.clone(), other.id];
            self.propose(game, [me.conn, other.conn], ids, [mine, theirs], steps);
        }
    }

    /// Takes up a scheduled game played before a restart between `black` and `white`
    /// (their ids): each one's last opponent, last colour and colour balance.
    fn remember(&mut self, black: String, white: String) {
        let balance = |me: &String| self.last_scheduled.get(me).map_or(0, |l| l.2);
        let (bb, wb) = (balance(&black), balance(&white));
        self.last_scheduled
            .insert(black.clone(), (white.clone(), true, bb + 1));
        self.last_scheduled.insert(white, (black, false, wb - 1));
    }
}

/// The lobby's side: it shows the schedules who waits, carries out the games they ask for,
/// and answers the queries about them.
impl Lobby {
    /// Whether `game` is played in scheduled rounds.
    pub(super) fn is_scheduled(&self, game: &str) -> bool {
        self.competitions.schedules.rounds.contains_key(game)
    }

    /// A player's id for ratings and pairing: its rating id, else its name.
    fn player_id(&self, conn: ConnId) -> String {
        self.people.conns[&conn].pairing_id()
    }

    /// Runs every round that is due at `now`.
    pub(super) fn run_due_rounds(&mut self, now: Now, out: &mut Vec<Output>) {
        for game in self.competitions.schedules.due(now) {
            let mut steps = Vec::new();
            let field = LobbyField {
                people: &self.people,
                rooms: &self.rooms,
                game: &game,
            };
            self.competitions
                .schedules
                .run_round(&game, &field, &mut steps);
            if let Some(r) = self.competitions.schedules.rounds.get_mut(&game) {
                r.paired_at = Some(now.wall);
            }
            self.carry_out(&game, steps, now, out);
        }
    }

    /// When the next round is due, in monotonic milliseconds.
    pub(super) fn next_round_deadline(&self) -> Option<Millis> {
        self.competitions.schedules.deadline(self.last_now?)
    }

    /// A scheduled proposal to `players` was withdrawn: it was never a game, so their
    /// pairing history is as before it.
    pub(super) fn unpropose_scheduled(&mut self, game: &str, players: [ConnId; 2]) {
        let ids: Vec<String> = players
            .into_iter()
            .filter(|conn| self.people.conns.contains_key(conn))
            .map(|conn| self.player_id(conn))
            .collect();
        self.competitions.schedules.withdrawn(game, ids);
    }

    /// `conn` played no game this round because the other side withdrew its proposal. It
    /// waits for the game again (a CSA-mode player at once; one in x1 mode when it says
    /// `%%GAME` again, as after any game) and is paired at once if someone else of the
    /// round is waiting without a game.
    pub(super) fn strand(&mut self, conn: ConnId, game: &str, now: Now, out: &mut Vec<Output>) {
        if !self.people.conns.contains_key(&conn) || !self.is_scheduled(game) {
            return;
        }
        let id = self.player_id(conn);
        self.competitions.schedules.strand(game, id);
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        if c.x1 {
            return;
        }
        c.game_name = game.to_string();
        c.sente = None;
        self.people.set_status(conn, Status::GameWaiting);
        self.stand_in(conn, game, now, out);
    }

    /// If `conn` (waiting for the scheduled `game`) was stranded this round, pairs it with
    /// another of the round who waits without a game ([`Schedules::stand_in`]).
    pub(super) fn stand_in(&mut self, conn: ConnId, game: &str, now: Now, out: &mut Vec<Output>) {
        let c = &self.people.conns[&conn];
        let me = Waiter {
            conn,
            id: c.pairing_id(),
            who: c.who.clone(),
        };
        let mut steps = Vec::new();
        let field = LobbyField {
            people: &self.people,
            rooms: &self.rooms,
            game,
        };
        self.competitions
            .schedules
            .stand_in(game, &me, &field, &mut steps);
        self.carry_out(game, steps, now, out);
    }

    /// `%%FLOODGATE`: each scheduled game, its next round, and who waits.
    pub(super) fn floodgate_query(&self, conn: ConnId, out: &mut Vec<Output>) {
        let mut lines = Vec::new();
        for (game, r) in &self.competitions.schedules.rounds {
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
        let mut rated: Vec<(&String, &i64)> = self.competitions.schedules.ratings.iter().collect();
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
            self.competitions.schedules.remember(id(0), id(1));
        }
    }

    /// The scheduled game names.
    pub fn scheduled_games(&self) -> Vec<String> {
        self.competitions.schedules.rounds.keys().cloned().collect()
    }

    /// Whether any game is scheduled.
    pub fn has_schedules(&self) -> bool {
        !self.competitions.schedules.rounds.is_empty()
    }

    /// The names in `game`'s games being agreed or played: those here (`away` false), or
    /// those whose connection was lost within the grace to come back (`away` true).
    fn players_of(&self, game: &str, away: bool) -> Vec<String> {
        let mut names: Vec<String> = self
            .rooms
            .games
            .values()
            .filter(|r| r.name == game)
            .flat_map(|r| r.names.iter().zip(&r.seats))
            .filter(|(_, seat)| seat.away_until.is_some() == away)
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    }

    /// The scheduled games as the web page shows them: next round, rounds played, who
    /// waits, plays and is away.
    pub fn scheduled_view(&self) -> Vec<crate::league::Scheduled> {
        self.competitions
            .schedules
            .rounds
            .iter()
            .map(|(game, r)| crate::league::Scheduled {
                game: game.clone(),
                next: r.next.map(|t| t.format("%Y/%m/%d %H:%M:%S").to_string()),
                rounds: r.played,
                paired_at: r
                    .paired_at
                    .map(|t| t.format("%Y/%m/%d %H:%M:%S").to_string()),
                waiting: self
                    .people
                    .waiting
                    .for_game(game)
                    .filter_map(|id| self.people.conns.get(&id).map(|c| c.name().to_string()))
                    .collect(),
                playing: self.players_of(game, false),
                away: self.players_of(game, true),
            })
            .collect()
    }
}
