//! A dropped connection is not a lost game (issue 42): with a grace
//! ([`super::Config::reconnect_grace_ms`]), each player's Game_Summary ends with a
//! `Reconnect_Token:` (128 random bits, kept only as a digest). A player whose connection
//! drops mid-game is away: the opponent hears `##[DISCONNECTED] <name> <seconds>`, the
//! clocks run as ever (the away side's too, when it is to move), and the game waits. Logged
//! in again with `LOGIN <name> <password> reconnect:<game_id>+<token>` within the grace, the
//! player gets the Game_Summary of the game so far (with a new token) and a
//! `Reconnect_State` block, and plays on; past the grace the player loses as one who left.
//! A connection that had not yet been seen to drop is closed when its player comes back.

use std::collections::VecDeque;

use gyoku::Color;
use gyoku_proto::csa::Reconnect;
use gyoku_proto::csa_line::{ReconnectRefusal, ReconnectState, ServerLine};

use super::Lobby;
use super::conns::{Conn, Status};
use super::ending::Ending;
use super::io::{CheckedLogin, ConnId, Now, Output, tell};
use super::room::{Phase, Room};
use crate::tickets::{SecretDigest, digest, new_secret, same_digest};

/// Games that ended while a player was away, remembered for `reconnect_aborted`.
pub(super) const MAX_ENDED_AWAY: usize = 1024;

/// A game that ended while a player was away: its id and each side's tokens.
#[derive(Debug)]
pub(super) struct EndedAway {
    id: String,
    tokens: Vec<SecretDigest>,
}

/// The games that ended while a player was away, newest last.
pub(super) type EndedAways = VecDeque<EndedAway>;

impl Room {
    /// Gives both sides new tokens (kept as digests); the tokens themselves, to send once.
    pub(super) fn issue_tokens(&mut self) -> [String; 2] {
        let tokens = [new_secret(), new_secret()];
        for (seat, token) in self.seats.iter_mut().zip(&tokens) {
            seat.token = Some(digest(token));
        }
        tokens
    }

    /// The side whose grace has run out at `now`, if any (the earlier, if both).
    pub(super) fn away_expired(&self, now: Now) -> Option<Color> {
        [Color::Black, Color::White]
            .into_iter()
            .filter(|c| {
                self.seats[c.index()]
                    .away_until
                    .is_some_and(|t| t <= now.mono)
            })
            .min_by_key(|c| self.seats[c.index()].away_until)
    }

    /// Whether `token` takes `color`'s seat: its current token, or the one it used last
    /// while it is away again (it came back and dropped before it could read the new
    /// one). `Err`: a token it used already (resumed), or none of its.
    fn admits(&self, color: Color, token: &SecretDigest) -> Result<(), ReconnectRefusal> {
        let seat = &self.seats[color.index()];
        if seat.token.is_some_and(|t| same_digest(&t, token)) {
            return Ok(());
        }
        let last = seat.spent.last().is_some_and(|t| same_digest(t, token));
        if last && seat.away_until.is_some() {
            return Ok(());
        }
        if seat.spent.iter().any(|t| same_digest(t, token)) {
            return Err(ReconnectRefusal::AlreadyResumed);
        }
        Err(ReconnectRefusal::Rejected)
    }

    /// Where the game stands, for a player who comes back at `now`.
    fn state_at(&self, now: Now) -> ReconnectState {
        let turn = self.referee.turn();
        let left = |c: Color| self.time_left(c, now);
        ReconnectState {
            turn,
            black_ms: left(Color::Black),
            white_ms: left(Color::White),
            last_move: self
                .moves
                .last()
                .map(|(m, _, _)| m.clone())
                .or_else(|| self.initial_moves.last().map(|(m, _)| m.clone())),
        }
    }
}

impl Lobby {
    /// The side of the suspended game `game_id` that `login`'s name played, if `token` is
    /// the reconnect token it last held.
    fn suspended_seat_of(
        &self,
        game_id: &str,
        login: &CheckedLogin,
        token: &SecretDigest,
    ) -> Option<Color> {
        let spec = self.suspended.get(game_id)?;
        [Color::Black, Color::White].into_iter().find(|c| {
            spec.names[c.index()] == login.who.shown()
                && spec.kinds[c.index()] == login.who.kind()
                && spec.resume_keys[c.index()]
                    .as_ref()
                    .is_some_and(|key| same_digest(key, token))
        })
    }

    /// A player logs in with its suspended game's reconnect token: logged in as any login
    /// is, proven to be that game's player; in CSA mode it asks for the game at once, in
    /// x1 mode it does with `%%GAME`.
    fn log_in_to_resume(
        &mut self,
        conn: ConnId,
        mut login: CheckedLogin,
        game_id: &str,
        color: Color,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        login.reconnect = None;
        if !login.x1 {
            let name = self.suspended.get(game_id).map(|s| s.name.clone());
            login.game = name.map(|n| (n.into(), Some(color)));
        }
        self.people.resume_proofs.insert(conn, game_id.to_string());
        self.logged_in(conn, login, now, out);
        if !self.people.conns.contains_key(&conn) {
            // Refused (its name is in a game on another connection).
            self.people.resume_proofs.remove(&conn);
        }
    }

    /// `conn`, playing `color` in the game `key`, dropped: with a grace the player is away
    /// and the game waits; without one (or for a game not yet started) as before.
    /// Whether the game waits.
    pub(super) fn away(
        &mut self,
        key: u64,
        conn: ConnId,
        color: Color,
        now: Now,
        out: &mut Vec<Output>,
    ) -> bool {
        let Some(name) = self.rooms.games.get(&key).map(|r| r.name.clone()) else {
            return false;
        };
        let grace = self.reconnect_grace(&name);
        let Some(room) = self.rooms.games.get_mut(&key) else {
            return false;
        };
        // A web seat's connection is inside the server (it drops only when the seat goes),
        // and the page's engines do not come back by themselves yet: only a CSA client
        // is waited for.
        let csa = room.kind_of(color) == crate::identity::PlayerKind::Csa;
        if grace == 0 || !csa || room.seats[color.index()].token.is_none() {
            return false;
        }
        room.seats[color.index()].away_until = Some(now.mono + grace);
        let other = room.players[(!color).index()];
        let name = room.names[color.index()].clone();
        self.remove_conn(conn);
        tell(
            out,
            other,
            ServerLine::Disconnected {
                name,
                seconds: grace.div_ceil(1000),
            },
        );
        self.schedule(key);
        true
    }

    /// Remembers the ended game `room` if a player was away from it, for
    /// `reconnect_aborted`.
    pub(super) fn remember_if_away(&mut self, room: &Room) {
        if room.seats.iter().all(|s| s.away_until.is_none()) {
            return;
        }
        if self.ended_away.len() >= MAX_ENDED_AWAY {
            self.ended_away.pop_front();
        }
        self.ended_away.push_back(EndedAway {
            id: room.id.clone(),
            tokens: room
                .seats
                .iter()
                .flat_map(|s| s.token.iter().chain(&s.spent).copied())
                .collect(),
        });
    }

    /// Ends the games whose away player's grace ran out: they lose as players who left.
    pub(super) fn end_abandoned(&mut self, key: u64, now: Now, out: &mut Vec<Output>) {
        let Some(color) = self.rooms.games.get(&key).and_then(|r| r.away_expired(now)) else {
            return;
        };
        self.end(key, Ending::Left(color), now, out);
    }

    /// A player logs in to take up its game again (`reconnect:<game_id>+<token>`).
    pub(super) fn reconnect(
        &mut self,
        conn: ConnId,
        login: CheckedLogin,
        r: &Reconnect,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let token = digest(&r.token);
        let name = login.who.shown().to_string();
        let refuse = |out: &mut Vec<Output>, why| {
            tell(out, conn, ServerLine::ReconnectRefused(why));
            out.push(Output::Close(conn));
        };
        let found = self.rooms.by_id.get(&r.game_id).copied().and_then(|key| {
            let room = self.rooms.games.get(&key)?;
            let color = [Color::Black, Color::White]
                .into_iter()
                .find(|c| room.names[c.index()] == name && room.kind_of(*c) == login.who.kind())?;
            matches!(room.phase, Phase::Playing).then_some((key, color))
        });
        let Some((key, color)) = found else {
            if let Some(color) = self.suspended_seat_of(&r.game_id, &login, &token) {
                return self.log_in_to_resume(conn, login, &r.game_id, color, now, out);
            }
            let ended = self
                .ended_away
                .iter()
                .any(|e| e.id == r.game_id && e.tokens.iter().any(|t| same_digest(t, &token)));
            refuse(
                out,
                if ended {
                    ReconnectRefusal::Aborted
                } else {
                    ReconnectRefusal::Rejected
                },
            );
            return;
        };
        let room = &self.rooms.games[&key];
        if let Err(why) = room.admits(color, &token) {
            return refuse(out, why);
        }
        // The name's other connection: the dropped one not yet seen to drop (closed now),
        // or one that logged in meanwhile outside any game (replaced). One in another
        // game is not taken from it.
        let old = room.players[color.index()];
        if let Some(&other) = self.people.names.get(&name) {
            let busy = self
                .people
                .conns
                .get(&other)
                .is_some_and(|c| c.status != Status::Connected && other != old);
            if busy {
                return refuse(out, ReconnectRefusal::Rejected);
            }
            self.remove_conn(other);
            out.push(Output::Close(other));
        }
        if self.people.conns.contains_key(&old) {
            self.remove_conn(old);
            out.push(Output::Close(old));
        }
        self.take_seat(conn, login, key, color, now, out);
    }

    /// Seats `conn` at `color` in the game `key` and tells both where it stands.
    fn take_seat(
        &mut self,
        conn: ConnId,
        login: CheckedLogin,
        key: u64,
        color: Color,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let name = login.who.shown().to_string();
        tell(out, conn, ServerLine::LoginOk(name.clone()));
        // Only a CSA login goes by its name (as at login).
        if login.who.kind() == crate::identity::PlayerKind::Csa {
            self.people.names.insert(name.clone(), conn);
        }
        let room = self.rooms.games.get_mut(&key).expect("found");
        // Who it is, as the game was started with it: its token proved it, no password
        // was checked (a CSA client's rating key is the game's).
        let who = match login.who {
            crate::identity::Identity::Csa { name, .. } => crate::identity::Identity::Csa {
                name,
                rating_key: room
                    .rating_id_of(color)
                    .map(crate::identity::RatingKey::from),
            },
            other => other,
        };
        let game_name = room.name.clone();
        self.people.conns.insert(
            conn,
            Conn {
                who,
                x1: false,
                status: Status::Game,
                game_name,
                sente: Some(color == Color::Black),
                game: Some(key),
                deferred: VecDeque::new(),
                monitoring: Vec::new(),
                listed_at: None,
                address: login.address,
            },
        );
        room.players[color.index()] = conn;
        let seat = &mut room.seats[color.index()];
        seat.away_until = None;
        if let Some(used) = seat.token.take()
            && seat.spent.len() < 64
        {
            seat.spent.push(used);
        }
        let fresh = new_secret();
        seat.token = Some(digest(&fresh));
        let mut summary = room.summary_so_far(Some(color), true);
        summary.trailer.push(("Reconnect_Token".into(), fresh));
        out.push(Output::Summary(conn, Box::new(summary)));
        tell(out, conn, ServerLine::ReconnectState(room.state_at(now)));
        tell(
            out,
            room.players[(!color).index()],
            ServerLine::Reconnected(name),
        );
        self.schedule(key);
    }
}

#[cfg(test)]
mod tests {
    use super::super::io::{Config, Input, Millis};
    use super::super::tests::{Transcript, sent};
    use super::*;
    use crate::identity::Identity;

    const GRACE: Millis = 30_000;

    /// Two x1 players in a started game with a grace; their tokens and the Game_ID.
    fn game() -> (Transcript, [String; 2], String) {
        let mut t = Transcript::with(Config {
            reconnect_grace_ms: GRACE,
            ..Config::default()
        });
        t.login_x1(1, "a");
        t.login_x1(2, "b");
        t.line(1, "%%GAME g-600-10 +");
        let proposed = t.line(2, "%%GAME g-600-10 -");
        let field = |conn: ConnId, key: &str| {
            let text = &proposed
                .iter()
                .find(|(c, _)| *c == conn)
                .expect("proposed")
                .1;
            let line = text.lines().find(|l| l.starts_with(key)).expect(key);
            line[key.len()..].to_string()
        };
        let tokens = [field(1, "Reconnect_Token:"), field(2, "Reconnect_Token:")];
        assert_ne!(tokens[0], tokens[1]);
        assert_eq!(tokens[0].len(), 32);
        let id = field(1, "Game_ID:");
        t.line(1, "AGREE");
        t.line(2, "AGREE");
        (t, tokens, id)
    }

    fn back(t: &mut Transcript, conn: ConnId, name: &str, id: &str, token: &str) -> Vec<Output> {
        t.input(Input::LoggedIn(
            conn,
            CheckedLogin {
                who: Identity::csa(name),
                x1: false,
                game: None,
                address: None,
                reconnect: Some(Reconnect {
                    game_id: id.into(),
                    token: token.into(),
                }),
            },
        ))
    }

    fn to(out: &[(ConnId, String)], conn: ConnId) -> String {
        out.iter()
            .filter(|(c, _)| *c == conn)
            .map(|(_, t)| t.as_str())
            .collect()
    }

    fn closed(out: &[Output], conn: ConnId) -> bool {
        out.iter()
            .any(|o| matches!(o, Output::Close(c) if *c == conn))
    }

    #[test]
    fn a_player_who_drops_comes_back_within_the_grace_and_plays_on() {
        let (mut t, tokens, id) = game();
        t.line(1, "+7776FU");
        t.line(2, "-3334FU");
        let left = sent(t.input(Input::Closed(1)));
        assert_eq!(left, [(2, "##[DISCONNECTED] a 30\n".to_string())]);
        // Black's clock runs while Black is away: 15 s later it comes back.
        t.now.mono += 15_000;
        assert!(sent(t.input(Input::Tick)).is_empty(), "the game waits");
        let out = back(&mut t, 3, "a", &id, &tokens[0]);
        let heard = sent(out);
        let mine = to(&heard, 3);
        assert!(
            mine.starts_with("LOGIN:a OK\nBEGIN Game_Summary\n"),
            "{mine}"
        );
        assert!(
            mine.contains("+7776FU,T0\n-3334FU,T0\n"),
            "the moves so far: {mine}"
        );
        let fresh = mine
            .lines()
            .find_map(|l| l.strip_prefix("Reconnect_Token:"))
            .expect("a new token");
        assert_ne!(fresh, tokens[0]);
        assert!(
            mine.ends_with(
                "BEGIN Reconnect_State\nCurrent_Turn:+\nBlack_Time_Remaining_Ms:585000\n\
                 White_Time_Remaining_Ms:600000\nLast_Move:-3334FU\nEND Reconnect_State\n"
            ),
            "{mine}"
        );
        assert_eq!(to(&heard, 2), "##[RECONNECTED] a\n");
        // The new connection plays; the 15 s away are charged to Black's move.
        let echo = t.line(3, "+2726FU");
        assert_eq!(
            echo,
            [(3, "+2726FU,T15\n".into()), (2, "+2726FU,T15\n".into())]
        );
    }

    #[test]
    fn past_the_grace_the_away_player_loses_and_cannot_come_back() {
        let (mut t, tokens, id) = game();
        t.line(1, "+7776FU");
        t.input(Input::Closed(2));
        t.now.mono += GRACE - 1;
        assert!(sent(t.input(Input::Tick)).is_empty());
        t.now.mono += 1;
        let out = t.input(Input::Tick);
        let ended = out.iter().find_map(|o| match o {
            Output::Store(super::super::change::Change::GameEnded { reason, result, .. }) => {
                Some((reason.clone(), result.clone()))
            }
            _ => None,
        });
        assert_eq!(ended, Some(("abnormal".into(), Some("black".into()))));
        let told = to(&sent(out), 1);
        assert!(told.ends_with("#RESIGN\n#WIN\n"), "{told}");
        let late = sent(back(&mut t, 3, "b", &id, &tokens[1]));
        assert_eq!(
            late,
            [(3, "LOGIN:incorrect reconnect_aborted\n".to_string())]
        );
    }

    #[test]
    fn a_wrong_token_anothers_token_or_a_used_one_is_refused() {
        let (mut t, tokens, id) = game();
        t.input(Input::Closed(1));
        let rejected = |t: &mut Transcript, conn, name, id: &str, token: &str| {
            let out = back(t, conn, name, id, token);
            assert!(closed(&out, conn));
            to(&sent(out), conn)
        };
        let wrong = "0".repeat(32);
        let no = "LOGIN:incorrect reconnect_rejected\n";
        assert_eq!(rejected(&mut t, 3, "a", &id, &wrong), no);
        assert_eq!(
            rejected(&mut t, 4, "a", &id, &tokens[1]),
            no,
            "White's token"
        );
        assert_eq!(rejected(&mut t, 5, "b", &id, &tokens[0]), no, "as White");
        assert_eq!(rejected(&mut t, 6, "a", "no-such-game", &tokens[0]), no);
        // The right one, once; the second time it is spent.
        assert!(to(&sent(back(&mut t, 7, "a", &id, &tokens[0])), 7).starts_with("LOGIN:a OK"));
        assert_eq!(
            rejected(&mut t, 8, "a", &id, &tokens[0]),
            "LOGIN:incorrect reconnect_already_resumed\n"
        );
    }

    /// A player that came back and dropped again before it read its new token comes back
    /// with the one it has; while it is connected, that token is spent.
    #[test]
    fn a_player_who_drops_while_coming_back_comes_back_with_the_token_it_has() {
        let (mut t, tokens, id) = game();
        t.input(Input::Closed(1));
        assert!(to(&sent(back(&mut t, 3, "a", &id, &tokens[0])), 3).starts_with("LOGIN:a OK"));
        let again = back(&mut t, 4, "a", &id, &tokens[0]);
        assert_eq!(
            to(&sent(again), 4),
            "LOGIN:incorrect reconnect_already_resumed\n"
        );
        t.input(Input::Closed(3));
        assert!(to(&sent(back(&mut t, 5, "a", &id, &tokens[0])), 5).starts_with("LOGIN:a OK"));
    }

    #[test]
    fn a_connection_not_yet_seen_to_drop_gives_way_to_its_player() {
        let (mut t, tokens, id) = game();
        // The player's network changed: the server still holds the old connection.
        let out = back(&mut t, 3, "a", &id, &tokens[0]);
        assert!(closed(&out, 1), "the old connection is closed");
        assert!(to(&sent(out), 3).starts_with("LOGIN:a OK"));
        // Its close, heard later, changes nothing: the game goes on with the new one.
        assert!(sent(t.input(Input::Closed(1))).is_empty());
        let echo = t.line(3, "+7776FU");
        assert_eq!(echo[0], (3, "+7776FU,T0\n".into()));
    }

    #[test]
    fn when_both_drop_the_first_whose_grace_ends_loses() {
        let (mut t, tokens, id) = game();
        t.input(Input::Closed(1));
        t.now.mono += 5_000;
        t.input(Input::Closed(2));
        t.now.mono += GRACE - 5_000;
        let out = t.input(Input::Tick);
        let result = out.iter().find_map(|o| match o {
            Output::Store(super::super::change::Change::GameEnded { result, .. }) => result.clone(),
            _ => None,
        });
        assert_eq!(result.as_deref(), Some("white"));
        // The game is over for both.
        let late = to(&sent(back(&mut t, 3, "b", &id, &tokens[1])), 3);
        assert_eq!(late, "LOGIN:incorrect reconnect_aborted\n");
    }

    /// The grace is for CSA clients: an engine the page put on the CSA port (which does not
    /// come back by itself) loses at once, grace or not.
    #[test]
    fn a_pages_engine_that_drops_loses_at_once() {
        use crate::identity::SeatId;
        let mut t = Transcript::with(Config {
            reconnect_grace_ms: GRACE,
            ..Config::default()
        });
        let engine = Identity::Engine {
            seat: SeatId {
                game: 1,
                color: Color::White,
            },
            engine: "builtin".into(),
        };
        t.login_x1(1, "a");
        t.input(Input::LoggedIn(
            2,
            CheckedLogin {
                who: engine,
                x1: true,
                game: None,
                address: None,
                reconnect: None,
            },
        ));
        t.line(1, "%%GAME g-600-10 +");
        t.line(2, "%%GAME g-600-10 -");
        t.line(1, "AGREE");
        t.line(2, "AGREE");
        let told = to(&sent(t.input(Input::Closed(2))), 1);
        assert!(told.ends_with("#RESIGN\n#WIN\n"), "{told}");
    }

    #[test]
    fn without_a_grace_a_drop_loses_at_once() {
        let mut t = Transcript::new();
        t.login_x1(1, "a");
        t.login_x1(2, "b");
        t.line(1, "%%GAME g-600-10 +");
        let proposed = t.line(2, "%%GAME g-600-10 -");
        assert!(proposed.iter().all(|(_, s)| !s.contains("Reconnect_Token")));
        t.line(1, "AGREE");
        t.line(2, "AGREE");
        let told = to(&sent(t.input(Input::Closed(1))), 2);
        assert!(told.ends_with("#RESIGN\n#WIN\n"), "{told}");
    }

    /// Issue 43: a game suspended (`%CHUDAN`) by players who logged in without a password
    /// was anyone's who said their name. Such a side now takes it up only with its reconnect
    /// token; a stranger with the name is told how, and takes nothing.
    #[test]
    fn a_passwordless_sides_suspended_game_is_taken_up_with_its_token_only() {
        let (mut t, tokens, id) = game();
        t.line(1, "+7776FU");
        let suspended = t.line(2, "%CHUDAN");
        assert!(to(&suspended, 1).contains("#CHUDAN"), "{suspended:?}");
        // The players still connected (x1 mode) may ask for it again without the token.
        assert!(t.line(1, "%%GAME g-600-10 +").is_empty(), "a waits for b");
        t.input(Input::Closed(1));
        t.input(Input::Closed(2));
        // A stranger says a's name, without a password as a did: refused, nothing proposed.
        t.login_x1(3, "a");
        let stranger = t.line(3, "%%GAME g-600-10 +");
        assert!(
            to(&stranger, 3).contains("only with its reconnect token"),
            "{stranger:?}"
        );
        t.input(Input::Closed(3));
        // A wrong token is refused as for a live game.
        let wrong = back(&mut t, 4, "a", &id, &"0".repeat(32));
        assert!(closed(&wrong, 4));
        // Both players come back with their tokens (CSA mode): the game is proposed again,
        // its move kept.
        back(&mut t, 5, "a", &id, &tokens[0]);
        let heard = sent(back(&mut t, 6, "b", &id, &tokens[1]));
        let summary = to(&heard, 5);
        assert!(summary.contains("BEGIN Game_Summary"), "{heard:?}");
        assert!(summary.contains("+7776FU"), "{summary}");
        assert!(summary.contains(&format!("Game_ID:{id}")), "{summary}");
    }
}
