//! Connections: who is logged in, in which state, and what each line a client sends
//! asks for (dispatched to the other jobs); a connection's way out.

use std::collections::VecDeque;

use gyoku::Color;
use gyoku_proto::csa::ClientMessage;
use gyoku_proto::csa_line::ServerLine;

use super::Lobby;
use super::ending::Ending;
use super::io::{CheckedLogin, ConnId, Millis, Now, Output, tell};
use super::room::{GameLine, Phase, Withdrawn};
use crate::identity::{Identity, RatingKey};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    Connected,
    GameWaiting,
    AgreeWaiting,
    StartWaiting,
    Game,
}

impl Status {
    pub(super) const fn name(self) -> &'static str {
        match self {
            Status::Connected => "connected",
            Status::GameWaiting => "game_waiting",
            Status::AgreeWaiting => "agree_waiting",
            Status::StartWaiting => "start_waiting",
            Status::Game => "game",
        }
    }

    /// shogi-server's refusal of `command` in this status (`valid_in`: where it is valid).
    pub(super) fn refuses(self, command: &str, valid_in: &str) -> ServerLine {
        ServerLine::Error(format!(
            "you are in {} status. {command} is valid in {valid_in} status",
            self.name()
        ))
    }
}

#[derive(Debug)]
pub(super) struct Conn {
    /// Who logged in.
    pub(super) who: Identity,
    pub(super) x1: bool,
    pub(super) status: Status,
    pub(super) game_name: String,
    /// `Some(true)`: wants Black.
    pub(super) sente: Option<bool>,
    pub(super) game: Option<u64>,
    pub(super) deferred: VecDeque<GameLine>,
    /// Games this connection monitors.
    pub(super) monitoring: Vec<u64>,
    /// When it was last answered a listing of everyone (`%%WHO`, `%%LIST`).
    pub(super) listed_at: Option<Millis>,
    /// Where it connected from (none: inside the server).
    pub(super) address: Option<std::net::IpAddr>,
}

impl Conn {
    /// The name it is shown and recorded by.
    pub(super) fn name(&self) -> &str {
        self.who.shown()
    }

    /// Its rating key (a CSA login with a password).
    pub(super) fn rating_id(&self) -> Option<&RatingKey> {
        self.who.rating_key()
    }

    /// Its id for ratings and pairing: its rating id, else its name.
    pub(super) fn pairing_id(&self) -> String {
        self.rating_id()
            .map_or_else(|| self.name().to_string(), |k| k.as_str().to_string())
    }
}

impl Lobby {
    pub(super) fn logged_in(
        &mut self,
        conn: ConnId,
        login: CheckedLogin,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        if let Some(r) = login.reconnect.clone() {
            return self.reconnect(conn, login, &r, now, out);
        }
        // Only a CSA login goes by its name: two people on the page may both be `guest`.
        let by_name = match &login.who {
            Identity::Csa { name, .. } => Some(name.clone()),
            Identity::Web { .. } | Identity::Engine { .. } => None,
        };
        let existing = by_name
            .as_ref()
            .and_then(|name| self.people.names.get(name))
            .map(|&id| {
                let c = &self.people.conns[&id];
                (
                    id,
                    c.rating_id() == login.who.rating_key() && c.status != Status::Game,
                )
            });
        match existing {
            Some((old, true)) => {
                // The same player again, not in a game: the new connection replaces the old.
                self.closed(old, now, out);
                out.push(Output::Close(old));
            }
            Some((_, false)) => {
                tell(out, conn, ServerLine::LoginIncorrect);
                if login.x1 {
                    tell(
                        out,
                        conn,
                        ServerLine::AlreadyConnected(login.who.shown().to_string()),
                    );
                }
                out.push(Output::Close(conn));
                return;
            }
            None => {}
        }
        tell(
            out,
            conn,
            ServerLine::LoginOk(login.who.shown().to_string()),
        );
        if login.x1 {
            tell(out, conn, ServerLine::LoginX1);
        }
        if let Some(name) = by_name {
            self.people.names.insert(name, conn);
        }
        self.people.conns.insert(
            conn,
            Conn {
                who: login.who,
                x1: login.x1,
                status: Status::Connected,
                game_name: String::new(),
                sente: None,
                game: None,
                deferred: VecDeque::new(),
                monitoring: Vec::new(),
                listed_at: None,
                address: login.address,
            },
        );
        if let Some((game, turn)) = login.game {
            let turn = match turn {
                Some(Color::Black) => '+',
                Some(Color::White) => '-',
                None => '*',
            };
            self.game_command(conn, false, game.as_str(), turn, now, out);
        }
    }

    pub(super) fn line(&mut self, conn: ConnId, line: &str, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.people.conns.get(&conn) else {
            return;
        };
        let raw = line.trim_end_matches(['\r', '\n']);
        let msg = match ClientMessage::parse(raw) {
            Ok(ClientMessage::KeepAlive) => {
                // Answered with an empty line (a single space gets nothing, as in
                // shogi-server). Time-ups need no keep-alive here: the server's timer
                // flags them.
                if raw.is_empty() {
                    tell(out, conn, ServerLine::Empty);
                }
                return;
            }
            Ok(m) => m,
            Err(e) => {
                if c.status == Status::Game && raw.starts_with(['+', '-']) {
                    // A malformed move on one's turn loses, as shogi-server.
                    self.game_line(conn, GameLine::Garbage(raw.to_string()), now, out);
                } else {
                    tell(out, conn, ServerLine::Error(format!("{e}")));
                }
                return;
            }
        };
        self.message(conn, msg, now, out);
    }

    /// A message from a logged-in connection: read from its line, or sent as a value by a
    /// connection inside the server.
    pub(super) fn message(
        &mut self,
        conn: ConnId,
        msg: ClientMessage,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(c) = self.people.conns.get(&conn) else {
            return;
        };
        match msg {
            ClientMessage::Login(_) => {
                tell(out, conn, ServerLine::Error("already logged in".into()));
            }
            ClientMessage::Logout => {
                tell(out, conn, ServerLine::LogoutCompleted);
                self.closed(conn, now, out);
                out.push(Output::Close(conn));
            }
            ClientMessage::Agree(_) => self.agree(conn, now, out),
            ClientMessage::Reject(_) => self.reject(conn, now, out),
            ClientMessage::Challenge => {
                // CSA's official test server's command: accepted and meaningless here.
                tell(out, conn, ServerLine::ChallengeAccepted);
            }
            ClientMessage::Impasse if c.status == Status::Game => {
                self.agreement_line(conn, gyoku::Proposal::Impasse, now, out);
            }
            ClientMessage::Sennichite if c.status == Status::Game => {
                self.agreement_line(conn, gyoku::Proposal::Sennichite, now, out);
            }
            ClientMessage::Claim if c.status == Status::Game => {
                self.claim_line(conn, now, out);
            }
            ClientMessage::Impasse | ClientMessage::Sennichite | ClientMessage::Claim => {
                // Out of a game, what it is to shogi-server: an x1 command it does not know.
                let unknown = gyoku_proto::csa::X1Command::Unknown(msg.to_string());
                self.x1(conn, unknown, now, out);
            }
            ClientMessage::KeepAlive | ClientMessage::Ignored => {}
            ClientMessage::Move { ref text, .. } => {
                if c.status != Status::Game {
                    return;
                }
                let game = c.game.and_then(|g| self.rooms.games.get(&g));
                if game.is_some_and(|g| g.last_move == *text) {
                    // Two identical moves in a row: the second is ignored (shogi-server).
                    return;
                }
                self.game_line(conn, GameLine::Said(msg), now, out);
            }
            ClientMessage::Resign | ClientMessage::Declare | ClientMessage::Chudan => {
                if c.status == Status::Game {
                    self.game_line(conn, GameLine::Said(msg), now, out);
                }
            }
            ClientMessage::X1(cmd) => self.x1(conn, cmd, now, out),
        }
    }

    /// Forgets a connection: its name, its place in a queue, the games it monitors.
    pub(super) fn remove_conn(&mut self, conn: ConnId) -> Option<Conn> {
        let c = self.people.remove(conn)?;
        for key in &c.monitoring {
            if let Some(g) = self.rooms.games.get_mut(key) {
                g.monitors.retain(|&m| m != conn);
            }
        }
        Some(c)
    }

    /// A player's game is over: back to `connected`, or disconnected in CSA mode.
    pub(super) fn release(&mut self, conn: ConnId, close_csa: bool, out: &mut Vec<Output>) {
        self.people.set_status(conn, Status::Connected);
        let Some(c) = self.people.conns.get_mut(&conn) else {
            return;
        };
        c.game = None;
        c.game_name.clear();
        c.sente = None;
        c.deferred.clear();
        if !c.x1 && close_csa {
            self.remove_conn(conn);
            out.push(Output::Close(conn));
        }
    }

    pub(super) fn closed(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.people.conns.get(&conn) else {
            return;
        };
        if let Some(key) = c.game {
            let g = &self.rooms.games[&key];
            match g.phase {
                Phase::Agreeing { .. } => {
                    self.drop_proposal(key, Withdrawn::By(conn), now, out);
                }
                Phase::Playing => {
                    let color = g.color_of(conn);
                    if self.away(key, conn, color, now, out) {
                        return;
                    }
                    self.remove_conn(conn);
                    self.end(key, Ending::Left(color), now, out);
                }
            }
        }
        self.remove_conn(conn);
    }
}
