//! The lobby's side of its games: a room opened for two connections, their `AGREE` and
//! `REJECT`, each player's line brought to the room on its turn (kept until then), the
//! clocks' deadlines, and what an ending does to the connections (released, closed in CSA
//! mode, the game suspended or replayed).

use gyoku::{Color, GameResult};
use gyoku_proto::csa_line::ServerLine;

use super::Lobby;
use super::conns::Status;
use super::ending::Ending;
use super::io::{ConnId, MAX_DEFERRED, Now, Output, tell};
use super::room::{GameLine, Phase, Room, Step, Withdrawn};
use super::spec::{GameSpec, Replay};
use crate::identity::PlayerKind;

impl Lobby {
    /// Proposes a game, new or resumed, to its two players.
    pub(super) fn open(
        &mut self,
        spec: GameSpec,
        players: [ConnId; 2],
        resumed: bool,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let rating_ids = players.map(|p| {
            self.people.conns[&p]
                .rating_id()
                .map(|k| k.as_str().to_string())
        });
        let mut room = Room::new(spec, players, rating_ids, resumed, &self.config, now);
        let tokens = (self.reconnect_grace(&room.name) > 0).then(|| room.issue_tokens());
        room.propose(tokens.as_ref(), out);
        let key = self.ids.key();
        for (color, conn) in [(Color::Black, players[0]), (Color::White, players[1])] {
            self.people.set_status(conn, Status::AgreeWaiting);
            let c = self
                .people
                .conns
                .get_mut(&conn)
                .expect("paired players are logged in");
            c.game = Some(key);
            c.sente = Some(color == Color::Black);
            c.game_name.clone_from(&room.name);
        }
        self.rooms.by_id.insert(room.id.clone(), key);
        self.rooms.games.insert(key, room);
        self.schedule(key);
    }

    pub(super) fn agree(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.people.conns.get_mut(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            tell(out, conn, c.status.refuses("AGREE", "agree_waiting"));
            return;
        }
        c.status = Status::StartWaiting; // from agree_waiting: not in the waiting index
        let key = c.game.expect("agree_waiting has a game");
        let room = self.rooms.games.get_mut(&key).expect("live game");
        let both = room.players.iter().all(|p| {
            self.people
                .conns
                .get(p)
                .is_some_and(|c| c.status == Status::StartWaiting)
        });
        if !both {
            return;
        }
        room.start(now, out);
        if self.storage_failing {
            room.hold_clock(now);
        }
        for p in room.players {
            if let Some(c) = self.people.conns.get_mut(&p) {
                c.status = Status::Game;
            }
        }
        self.schedule(key);
        // A player whose moves arrived before the start has them played now.
        let room = &self.rooms.games[&key];
        let first = room.players[room.referee.turn().index()];
        if let Some(line) = self
            .people
            .conns
            .get_mut(&first)
            .and_then(|c| c.deferred.pop_front())
        {
            self.game_line(first, line, now, out);
        }
    }

    pub(super) fn reject(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.people.conns.get(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            tell(out, conn, c.status.refuses("REJECT", "agree_waiting"));
            return;
        }
        let key = c.game.expect("agree_waiting has a game");
        self.drop_proposal(key, Withdrawn::By(conn), now, out);
    }

    /// A proposal withdrawn: both players hear it and are released; a resumed game goes
    /// back to waiting for them. In a scheduled round, a player who did not withdraw it is
    /// stranded instead ([`Lobby::strand`]): paired again at once where the round allows.
    pub(super) fn drop_proposal(
        &mut self,
        key: u64,
        withdrawn: Withdrawn,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(room) = self.rooms.games.remove(&key) else {
            return;
        };
        self.rooms.by_id.remove(&room.id);
        let by = match withdrawn {
            Withdrawn::By(conn) => self
                .people
                .conns
                .get(&conn)
                .map_or_else(String::new, |c| c.name().to_string()),
            Withdrawn::Lapsed => "the Server (timed out)".to_string(),
        };
        room.reject(&by, out);
        if room.resumed {
            self.suspended.insert(room.spec());
        }
        let scheduled = !room.resumed && self.is_scheduled(&room.name);
        if scheduled {
            self.unpropose_scheduled(&room.name, room.players);
        }
        for p in room.players {
            let stranded = scheduled
                && self.people.conns.contains_key(&p)
                && match withdrawn {
                    Withdrawn::By(conn) => p != conn,
                    // The agreement lapsed: whoever had agreed waited for nothing.
                    Withdrawn::Lapsed => self
                        .people
                        .conns
                        .get(&p)
                        .is_some_and(|c| c.status == Status::StartWaiting),
                };
            if stranded {
                self.release(p, false, out);
                self.strand(p, &room.name, now, out);
            } else {
                self.release(p, true, out);
            }
        }
    }

    /// [`super::IMPASSE_LINE`] or [`super::SENNICHITE_LINE`] from a player in a game, on
    /// either turn.
    pub(super) fn agreement_line(
        &mut self,
        conn: ConnId,
        what: gyoku::Proposal,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(key) = self.people.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(room) = self.rooms.games.get_mut(&key) else {
            return;
        };
        let step = room.agreement(room.color_of(conn), what, out);
        self.after(key, step, now, out);
    }

    /// [`super::CLAIM_LINE`] from a player in a game: the foul the other player has just
    /// made is claimed (under fouls that stand only when claimed).
    pub(super) fn claim_line(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(key) = self.people.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(room) = self.rooms.games.get_mut(&key) else {
            return;
        };
        let step = room.claim(room.color_of(conn), out);
        self.after(key, step, now, out);
    }

    /// A move sent as a value by a player in a game (a web seat's): played on its turn,
    /// refused out of it (a value is chosen for the position it was chosen in, so it is
    /// not kept for later as a line is).
    pub(super) fn play_value(
        &mut self,
        conn: ConnId,
        mv: gyoku::Move,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some((_, room)) = self.room_of(conn) else {
            return;
        };
        if !room.is_turn_of(room.color_of(conn)) {
            tell(out, conn, ServerLine::Error("not your turn".into()));
            return;
        }
        self.game_line(conn, GameLine::Play(mv), now, out);
    }

    /// The game `conn` plays in, and its key.
    fn room_of(&self, conn: ConnId) -> Option<(u64, &Room)> {
        let key = self.people.conns.get(&conn)?.game?;
        Some((key, self.rooms.games.get(&key)?))
    }

    /// A move or `%…` from a player in a game: kept if it is not its turn.
    pub(super) fn game_line(
        &mut self,
        conn: ConnId,
        line: GameLine,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some((key, room)) = self.room_of(conn) else {
            return;
        };
        let color = room.color_of(conn);
        if !room.is_turn_of(color) {
            let c = self.people.conns.get_mut(&conn).expect("checked above");
            if c.deferred.len() >= MAX_DEFERRED {
                let refused = ServerLine::Error("too many moves sent out of turn".into());
                tell(out, conn, refused);
                self.closed(conn, now, out);
                out.push(Output::Close(conn));
                return;
            }
            c.deferred.push_back(line);
            return;
        }
        self.play_line(key, color, line, now, out);
        // The other side may have sent its next moves early: play them now, in order.
        loop {
            let Some(room) = self.rooms.games.get(&key) else {
                return;
            };
            let side = room.referee.turn();
            let next = room.players[side.index()];
            let Some(line) = self
                .people
                .conns
                .get_mut(&next)
                .and_then(|c| c.deferred.pop_front())
            else {
                return;
            };
            self.play_line(key, side, line, now, out);
        }
    }

    /// The side to move's line, on its turn, brought to its room.
    fn play_line(
        &mut self,
        key: u64,
        color: Color,
        line: GameLine,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let room = self.rooms.games.get_mut(&key).expect("live game");
        let step = room.play(color, line, now, out);
        self.after(key, step, now, out);
    }

    /// What the lobby does after a room's step: a new deadline, or the game's end.
    fn after(&mut self, key: u64, step: Step, now: Now, out: &mut Vec<Output>) {
        match step {
            Step::Unchanged => {}
            Step::Moved => self.schedule(key),
            Step::Ends(ending) => self.end(key, ending, now, out),
        }
    }

    /// Ends a game: the room says it to its players and monitors and stores it; the
    /// players are released (CSA-mode players disconnected), a suspended game waits for
    /// them, and a no contest is replayed.
    pub(super) fn end(&mut self, key: u64, ending: Ending, now: Now, out: &mut Vec<Output>) {
        let Some(room) = self.rooms.games.remove(&key) else {
            return;
        };
        self.rooms.by_id.remove(&room.id);
        self.remember_if_away(&room);
        let (result, reason) = room.close(&ending, now, out);
        let played = matches!(room.phase, Phase::Playing);
        for &m in &room.monitors {
            if let Some(c) = self.people.conns.get_mut(&m) {
                c.monitoring.retain(|&k| k != key);
            }
        }
        if matches!(ending, Ending::Suspended) {
            self.suspended.insert(room.spec());
            // A player still connected (x1 mode) is the one who played it: it may ask for
            // it again on this connection without its token.
            for p in room.players {
                if self.people.conns.contains_key(&p) {
                    self.people.resume_proofs.insert(p, room.id.clone());
                }
            }
        }
        // A no contest (JSA sennichite, a 24-30 impasse, the 500-move limit) is replayed
        // with colours swapped: offered to both players at once, linked to this game.
        let replay = matches!(&ending, Ending::Decided(o) if o.result == GameResult::NoContest)
            && room
                .players
                .iter()
                .all(|p| self.people.conns.contains_key(p));
        if !replay && !matches!(ending, Ending::Suspended) {
            self.setups.retain(|(name, _)| *name != room.name);
        }
        // Sends go out after the commit, the players' after the file: the driver orders them so.
        for p in room.players {
            self.release(p, !replay, out);
        }
        if replay {
            let [black, white] = room.players;
            let replay = Replay {
                of: room.id.clone(),
                main_times: room.replay_main_times(),
            };
            self.propose(
                &room.name,
                [white, black],
                Vec::new(),
                Some(replay),
                now,
                out,
            );
        }
        if played && !matches!(ending, Ending::Suspended) && self.is_event_game(&room.name) {
            let ended = super::events::Ended {
                game_id: &room.id,
                names: &room.names,
                result,
                reason,
                replayed: replay,
            };
            self.event_game_ended(&room.name, ended, now, out);
        }
    }

    /// Storage fails: every game's clock stops, and its players are told why their moves
    /// are not echoed yet — those who can read a notice (x1 clients and the web page's
    /// people): a plain CSA client knows no `##[` line (python-shogi's stops at one), and
    /// its move is echoed once stored all the same.
    pub(super) fn storage_failing(&mut self, now: Now, out: &mut Vec<Output>) {
        if self.storage_failing {
            return;
        }
        self.storage_failing = true;
        let notice = ServerLine::Error(
            "storage is failing: moves are kept and echoed once it works again; \
             clocks are stopped until then"
                .into(),
        );
        for room in self.rooms.games.values_mut() {
            if matches!(room.phase, Phase::Playing) {
                room.hold_clock(now);
                for p in room.players {
                    let reads_notices = self
                        .people
                        .conns
                        .get(&p)
                        .is_some_and(|c| c.x1 || c.who.kind() == PlayerKind::Web);
                    if reads_notices {
                        tell(out, p, notice.clone());
                    }
                }
            }
        }
    }

    /// Storage works again: every stopped clock goes on from where it stood.
    pub(super) fn storage_works(&mut self, now: Now) {
        if !self.storage_failing {
            return;
        }
        self.storage_failing = false;
        let keys: Vec<u64> = self.rooms.games.keys().copied().collect();
        for key in keys {
            if let Some(room) = self.rooms.games.get_mut(&key) {
                room.release_clock(now);
            }
            self.schedule(key);
        }
    }

    /// Time passed: the games whose deadline has come (from the heap, never a scan of
    /// all) lose on time or lapse unagreed.
    pub(super) fn tick(&mut self, now: Now, out: &mut Vec<Output>) {
        let mut due: Vec<(u64, bool)> = Vec::new();
        let mut abandoned: Vec<u64> = Vec::new();
        while let Some(key) = self.rooms.next_due(now.mono) {
            let Some(room) = self.rooms.games.get(&key) else {
                continue;
            };
            match room.phase {
                Phase::Agreeing { expires } if expires <= now.mono => due.push((key, false)),
                Phase::Playing if room.time_is_up(now) => due.push((key, true)),
                Phase::Playing if room.away_expired(now).is_some() => abandoned.push(key),
                // A deadline the game has moved on from (or not quite there: rounding).
                _ => {}
            }
        }
        due.sort_unstable();
        due.dedup();
        for (key, playing) in due {
            if playing {
                let ending = self.rooms.games.get_mut(&key).expect("listed").flag(now);
                self.end(key, ending, now, out);
            } else {
                self.drop_proposal(key, Withdrawn::Lapsed, now, out);
            }
        }
        abandoned.sort_unstable();
        abandoned.dedup();
        for key in abandoned {
            self.end_abandoned(key, now, out);
        }
    }
}
