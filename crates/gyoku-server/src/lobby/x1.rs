//! The x1 commands (`%%WHO`, `%%LIST`, `%%SHOW`, `%%MONITOR2ON`, `%%CHAT` …), shogi-server's
//! extensions for clients logged in with `x1`; buoys are [`super::buoys`]'.

use gyoku_proto::csa::X1Command;
use gyoku_proto::csa_line::{ServerLine, X1Tag};

use super::Lobby;
use super::conns::Status;
use super::io::{ConnId, Millis, Now, Output, monitor, ok, tell, tell_lines};

impl Lobby {
    pub(super) fn x1(&mut self, conn: ConnId, cmd: X1Command, now: Now, out: &mut Vec<Output>) {
        if matches!(
            cmd,
            X1Command::Who | X1Command::List | X1Command::Rating | X1Command::Floodgate
        ) && !self.may_list(conn, now)
        {
            let refused = format!(
                "{cmd} lists everyone: answered once every {} ms; try again later",
                LISTING_INTERVAL_MS
            );
            tell(out, conn, ServerLine::Error(refused));
            return;
        }
        match cmd {
            X1Command::Game { game: None, .. } => self.stop_waiting(conn, out),
            X1Command::Game {
                game: Some(game),
                turn,
            } => self.game_command(conn, false, &game, turn.unwrap_or('*'), now, out),
            X1Command::Challenge { game, turn } => {
                self.game_command(conn, true, &game, turn.unwrap_or('*'), now, out);
            }
            X1Command::Who => self.who(conn, out),
            X1Command::List => {
                let list = self.rooms.by_id.keys().map(|id| ServerLine::X1 {
                    tag: X1Tag::List,
                    text: id.clone(),
                });
                let reply: Vec<ServerLine> = list.chain([ok(X1Tag::List)]).collect();
                tell_lines(out, conn, reply);
            }
            X1Command::Show(id) => {
                if let Some(g) = self
                    .rooms
                    .by_id
                    .get(&id)
                    .and_then(|k| self.rooms.games.get(k))
                {
                    let shown = g.show(now);
                    let lines = shown.lines().map(|l| ServerLine::X1 {
                        tag: X1Tag::Show,
                        text: l.to_string(),
                    });
                    tell_lines(out, conn, lines);
                }
                tell(out, conn, ok(X1Tag::Show));
            }
            X1Command::MonitorOn { game_id, .. } => self.monitor_on(conn, &game_id, now, out),
            X1Command::MonitorOff { game_id, .. } => {
                if let Some(&key) = self.rooms.by_id.get(&game_id)
                    && let Some(g) = self.rooms.games.get_mut(&key)
                {
                    g.monitors.retain(|&m| m != conn);
                    let c = self.people.conns.get_mut(&conn).expect("logged in");
                    c.monitoring.retain(|&k| k != key);
                }
            }
            X1Command::Chat(message) => self.chat(conn, &message, out),
            X1Command::Version => {
                let version = ServerLine::X1 {
                    tag: X1Tag::Version,
                    text: format!(
                        "Gyoku {} (CSA protocol 1.2.1, x1)",
                        env!("CARGO_PKG_VERSION")
                    ),
                };
                tell_lines(out, conn, [version, ok(X1Tag::Version)]);
            }
            X1Command::Help => {
                let help = ServerLine::X1 {
                    tag: X1Tag::Help,
                    text: "%%GAME <game> <+|-|*>, %%CHALLENGE, %%WHO, %%LIST, %%SHOW <id>, \
                           %%MONITOR2ON <id>, %%MONITOR2OFF <id>, %%CHAT <text>, %%VERSION, \
                           %%RATING, %%FLOODGATE, %%SETBUOY, %%DELETEBUOY, %%GETBUOYCOUNT, %%FORK, LOGOUT"
                        .into(),
                };
                tell_lines(out, conn, [help, ok(X1Tag::Help)]);
            }
            X1Command::Rating => self.rating_query(conn, out),
            X1Command::Floodgate => self.floodgate_query(conn, out),
            X1Command::Fork {
                source,
                new_game,
                nth_move,
            } => self.fork(conn, &source, new_game, nth_move, now, out),
            X1Command::SetBuoy { game, moves, count } => {
                self.set_buoy(conn, &game, &moves, count.unwrap_or(1), now, out);
            }
            X1Command::DeleteBuoy(name) => self.delete_buoy(conn, &name, out),
            X1Command::GetBuoyCount(name) => {
                let count = self.buoys.count(&name).map_or(-1, i64::from);
                let count = ServerLine::X1 {
                    tag: X1Tag::GetBuoyCount,
                    text: count.to_string(),
                };
                tell_lines(out, conn, [count, ok(X1Tag::GetBuoyCount)]);
            }
            X1Command::Unknown(word) => {
                tell(
                    out,
                    conn,
                    ServerLine::Error(format!("unknown command {word}")),
                );
            }
        }
    }

    /// `%%GAME` with no game: out of the waiting list.
    fn stop_waiting(&mut self, conn: ConnId, out: &mut Vec<Output>) {
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        if matches!(c.status, Status::Connected | Status::GameWaiting) {
            self.people.set_status(conn, Status::Connected);
            self.people
                .conns
                .get_mut(&conn)
                .expect("logged in")
                .game_name
                .clear();
        } else {
            let refused = c.status.refuses("GAME", "connected or game_waiting");
            tell(out, conn, refused);
        }
    }

    /// `%%WHO`: everyone logged in, by name (a rating id is derived from a password: never
    /// shown), mode, status and the game waited for.
    fn who(&self, conn: ConnId, out: &mut Vec<Output>) {
        let who = self.people.conns.values().map(|c| {
            let mode = if c.x1 { "x1" } else { "CSA" };
            let text = if c.status == Status::Connected {
                format!("{} {mode} {}", c.name(), c.status.name())
            } else {
                let t = match c.sente {
                    Some(true) => '+',
                    Some(false) => '-',
                    None => '*',
                };
                let (status, game) = (c.status.name(), &c.game_name);
                format!("{} {mode} {status} {game} {t}", c.name())
            };
            ServerLine::X1 {
                tag: X1Tag::Who,
                text,
            }
        });
        let reply: Vec<ServerLine> = who.chain([ok(X1Tag::Who)]).collect();
        tell_lines(out, conn, reply);
    }

    /// `%%MONITOR2ON`: the game so far, then each change as it comes.
    fn monitor_on(&mut self, conn: ConnId, game_id: &str, now: Now, out: &mut Vec<Output>) {
        let Some(&key) = self.rooms.by_id.get(game_id) else {
            tell(
                out,
                conn,
                ServerLine::Error(format!("no such game: {game_id}")),
            );
            return;
        };
        let show = self.rooms.games[&key].show(now);
        let g = self.rooms.games.get_mut(&key).expect("listed");
        g.monitors.retain(|&m| m != conn);
        g.monitors.push(conn);
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        c.monitoring.retain(|&k| k != key);
        c.monitoring.push(key);
        let summary = show.lines().map(str::to_string);
        let moves = g
            .moves
            .iter()
            .flat_map(|(m, t, _)| [m.clone(), format!("T{t}")]);
        let seen = summary.chain(moves).chain(["+OK".to_string()]);
        tell_lines(out, conn, seen.map(|text| monitor(game_id, text)));
    }

    /// `%%CHAT`: to every x1 client. Control bytes (ESC, BEL, BS, NUL…) reach every x1
    /// client's terminal: shown escaped (`\x1b`), never sent. One copy of the message,
    /// however many listeners' queues hold it (issue 43: a 16 KB line to 200 listeners
    /// that never read was 200 copies, and a batch of such lines took gigabytes before a
    /// queue's bound could drop anyone).
    fn chat(&self, conn: ConnId, message: &str, out: &mut Vec<Output>) {
        let from = self.people.conns[&conn].name().to_string();
        let message: std::sync::Arc<str> = gyoku_kifu::escape_controls(message).into();
        for (&id, c) in &self.people.conns {
            if c.x1 {
                let chat = ServerLine::Chat {
                    from: from.clone(),
                    message: std::sync::Arc::clone(&message),
                };
                tell(out, id, chat);
            }
        }
    }

    /// Whether `conn` may have a listing of everyone now (one a second: each is as long as
    /// the server is busy), and if so, it is counted.
    fn may_list(&mut self, conn: ConnId, now: Now) -> bool {
        let Some(c) = self.people.conns.get_mut(&conn) else {
            return false;
        };
        if c.listed_at
            .is_some_and(|at| now.mono < at.saturating_add(LISTING_INTERVAL_MS))
        {
            return false;
        }
        c.listed_at = Some(now.mono);
        true
    }
}

/// `%%WHO`, `%%LIST`, `%%RATING` and `%%FLOODGATE` are answered once in this many
/// milliseconds per connection (each answer is a line for every player, game or rated
/// player on the server).
pub const LISTING_INTERVAL_MS: Millis = 1_000;
