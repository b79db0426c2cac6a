//! The server's logic with no I/O: who is logged in, who waits for which game, the games
//! being agreed and played, and what each line a client sends does.
//!
//! The driver ([`crate::driver`]) feeds it [`Input`]s stamped with the time and carries out
//! the [`Output`]s in order — with one rule that makes storage safe: every
//! [`Output::Store`] of a batch is committed before any [`Output::Send`] of the same batch
//! goes out. Each game is refereed by [`gyoku::Game`] under its rules and timed by
//! [`gyoku::Clock`]; the lobby only says who may do what, when, and in which words.
//!
//! Protocol behaviour follows shogi-server (spec §2): x1 and CSA modes, deferred
//! out-of-turn moves, ignored duplicates, `REJECT` when a player leaves before the start,
//! the end lines of each ending. Where Gyoku differs (mate ends the game, `%CHUDAN`
//! suspends it, a player who leaves mid-game loses at once), it is said where it happens.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};

use gyoku::rules::Fouls;
use gyoku::{
    Clock, Color, EndReason, Game, GameResult, IllegalMoveKind, Outcome, Position, Preset,
    Rounding, RuleSet, TimeControl,
};
use gyoku_proto::csa::{
    ClientMessage, GameName, GameSummary, SummaryTime, SummaryTimes, X1Command,
};

use change::{Change, StartedGame, StoredBuoy};

pub mod change;
mod index;
pub mod record;
#[cfg(test)]
mod record_endings;
mod spec;

pub use spec::start_position;

/// A connection, numbered by the driver.
pub type ConnId = u64;

/// Milliseconds on the driver's monotonic clock (the core clock's unit).
pub use gyoku::Millis;

/// Buoy games one player may have set at once (`%%SETBUOY`, `%%FORK`).
pub const MAX_BUOYS_PER_PLAYER: usize = 100;

/// Buoy games on the server at once.
pub const MAX_BUOYS: usize = 10_000;

/// How long players may take to agree to a proposed game (shogi-server's 120 s).
pub const AGREE_TIMEOUT_MS: Millis = 120_000;

/// Gyoku's own line, on either turn: propose an impasse count, or accept the other
/// player's proposal (rules with an agreement, as JSA's 持将棋).
pub const IMPASSE_LINE: &str = "%%IMPASSE";

/// Lines a player may send out of turn before the server stops keeping them.
pub const MAX_DEFERRED: usize = 64;

/// The lobby's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// The event name, first part of every Game_ID.
    pub event: String,
    /// The rules of games whose name does not choose others.
    pub rules: Preset,
    /// The move limit (0: none); `None`: each preset's own.
    pub max_moves: Option<u32>,
    /// Every move costs at least this many seconds.
    pub least_time_per_move: u32,
    /// Reproduce shogi-server where Gyoku differs (no mate detection on the last move
    /// before the limit, `%CHUDAN` an illegal move).
    pub strict_csa_server: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            event: "gyoku".into(),
            rules: Preset::Csa,
            max_moves: None,
            least_time_per_move: 0,
            strict_csa_server: false,
        }
    }
}

/// The moment an input happened.
#[derive(Clone, Copy, Debug)]
pub struct Now {
    /// Monotonic milliseconds (clocks and deadlines).
    pub mono: Millis,
    /// Local wall time (Game_IDs, record dates).
    pub wall: chrono::NaiveDateTime,
}

/// A login the driver has checked (the password against the name's stored hash).
#[derive(Clone, Debug)]
pub struct CheckedLogin {
    /// The name.
    pub name: String,
    /// x1 mode.
    pub x1: bool,
    /// `name+md5(password)`, shogi-server's rating id, when a password was given.
    pub rating_id: Option<String>,
    /// CSA mode: the game to join (default `default-1500-0`) and the turn asked for.
    pub game: Option<(String, Option<Color>)>,
    /// A web page's player: a seat inside the server, or an engine the page put on the CSA
    /// port with the seat's ticket. Only these may join a game made on the page
    /// ([`GameSetup::web_only`]).
    pub web: bool,
}

/// What happened.
#[derive(Clone, Debug)]
pub enum Input {
    /// A connection logged in.
    LoggedIn(ConnId, CheckedLogin),
    /// A logged-in connection sent a line.
    Line(ConnId, String),
    /// A connection closed (or its client sent `LOGOUT`, answered already).
    Closed(ConnId),
    /// Time passed: check clocks and agreement deadlines.
    Tick,
    /// Games of this name are set up so (a game made on the web page). Kept until a game
    /// of the name ends without a replay; at most [`MAX_SETUPS`] names at once.
    Setup {
        /// The game name.
        game: String,
        /// How its games are set up (boxed: a position is large, inputs are many).
        setup: Box<GameSetup>,
    },
}

/// How the games of one name are set up, where the name alone does not say.
#[derive(Clone, Debug, Default)]
pub struct GameSetup {
    /// The start, instead of the even start or the name's handicap.
    pub start: Option<Position>,
    /// The move limit (0: none), instead of the server's or the preset's.
    pub max_moves: Option<u32>,
    /// Joined only by the web page's players ([`CheckedLogin::web`]): a CSA client that
    /// names the game is refused, so no one takes an invited friend's place.
    pub web_only: bool,
}

/// Game names with a start of their own ([`Input::Setup`]) kept at once; the oldest goes.
pub const MAX_SETUPS: usize = 4096;

/// What to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Write text to a connection.
    Send(ConnId, String),
    /// Close a connection once what was sent to it has been written.
    Close(ConnId),
    /// Commit a change to storage (before any `Send` of the same batch).
    Store(Change),
    /// Write a record file (after the store commit), relative to the records directory.
    /// What is sent to the game's players from here on waits until the file is written
    /// (a client told the result may read the file at once, as shogi-server's tests do);
    /// everyone else's messages do not wait for it.
    WriteRecord {
        /// `YYYY/MM/DD/<Game_ID>.csa`.
        path: String,
        /// Its bytes.
        bytes: Vec<u8>,
        /// The game's players.
        players: [ConnId; 2],
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Connected,
    GameWaiting,
    AgreeWaiting,
    StartWaiting,
    Game,
}

impl Status {
    const fn name(self) -> &'static str {
        match self {
            Status::Connected => "connected",
            Status::GameWaiting => "game_waiting",
            Status::AgreeWaiting => "agree_waiting",
            Status::StartWaiting => "start_waiting",
            Status::Game => "game",
        }
    }
}

#[derive(Debug)]
struct Conn {
    name: String,
    x1: bool,
    rating_id: Option<String>,
    /// A web page's player ([`CheckedLogin::web`]).
    web: bool,
    status: Status,
    game_name: String,
    /// `Some(true)`: wants Black.
    sente: Option<bool>,
    game: Option<u64>,
    deferred: VecDeque<String>,
    /// Games this connection monitors.
    monitoring: Vec<u64>,
}

#[derive(Debug)]
enum Phase {
    Agreeing { expires: Millis },
    Playing,
}

#[derive(Debug)]
struct LiveGame {
    id: String,
    name: String,
    preset: Preset,
    /// Black's and White's connections.
    players: [ConnId; 2],
    names: [String; 2],
    rating_ids: [Option<String>; 2],
    referee: Game,
    clock: Clock,
    phase: Phase,
    start: Position,
    initial_moves: Vec<(String, u32)>,
    /// Played after the initial moves: CSA text, seconds, comment.
    moves: Vec<(String, u64, Option<String>)>,
    /// The last echoed move without its time (`+7776FU`), for duplicates.
    last_move: String,
    /// The foul's text (`'ILLEGAL_MOVE(…)` in the record).
    foul_text: Option<String>,
    started_at: String,
    total: u32,
    byoyomi: u32,
    increment: u32,
    max_moves: u32,
    monitors: Vec<ConnId>,
    /// A suspended game taken up again: stored already, its clock as it was.
    resumed: bool,
    /// The no-contest game this one replays.
    replay_of: Option<String>,
    /// `--strict-csa-server`: the referee saw mate, the game goes on as on shogi-server.
    mated: bool,
}

/// A game as stored: what it takes to propose it again (a suspended game) or for the
/// first time.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The Game_ID.
    pub id: String,
    /// The game name.
    pub name: String,
    /// The rules.
    pub preset: Preset,
    /// Black's and White's names.
    pub names: [String; 2],
    /// The move limit (0: none).
    pub max_moves: u32,
    /// Seconds.
    pub total: u32,
    /// Seconds.
    pub byoyomi: u32,
    /// Seconds.
    pub increment: u32,
    /// The start position.
    pub start: Position,
    /// Moves the game started with (buoy), with their times.
    pub initial_moves: Vec<(String, u32)>,
    /// Moves played, with the seconds each was charged.
    pub moves: Vec<(String, u64)>,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub started_at: String,
    /// The no-contest game this one replays.
    pub replay_of: Option<String>,
}

impl GameSpec {
    /// A stored game as a spec; `None` if what is stored does not make sense (an unknown
    /// preset, a bad SFEN).
    pub fn from_stored(g: &StartedGame, moves: Vec<(String, u64)>) -> Option<GameSpec> {
        Some(GameSpec {
            id: g.id.clone(),
            name: g.name.clone(),
            preset: g.rules.parse().ok()?,
            names: [g.black.clone(), g.white.clone()],
            max_moves: g.max_moves,
            total: g.total_time,
            byoyomi: g.byoyomi,
            increment: g.increment,
            start: Position::from_sfen(&g.start_sfen).ok()?,
            initial_moves: split_moves(&g.initial_moves.replace('\n', ""))?,
            moves,
            started_at: g.started_at.clone(),
            replay_of: g.replay_of.clone(),
        })
    }
}

/// `rules` with the move limit `plies` (none for 0; the preset's own for `None`), the
/// rest of the limit as the preset has it (the JSA check extension and its no contest
/// stay), through the core's one helper; and shogi-server's way at the limit when
/// `strict_csa_server`.
fn limited(mut rules: RuleSet, plies: Option<u32>, strict_csa_server: bool) -> RuleSet {
    if let Some(plies) = plies {
        rules.set_max_moves(plies);
    }
    if let Some(limit) = &mut rules.move_limit {
        limit.strict_csa_server = strict_csa_server;
    }
    rules
}

impl GameSpec {
    /// `rules` with the game's own move limit (none for 0), the rest of the limit as
    /// `rules` has it.
    pub fn with_move_limit(&self, rules: RuleSet, strict_csa_server: bool) -> RuleSet {
        limited(rules, Some(self.max_moves), strict_csa_server)
    }
}

/// How a game ends, as the server sees it.
#[derive(Clone, Debug)]
enum Ending {
    /// The referee decided.
    Decided(Outcome),
    /// A player left mid-game (shogi-server's `abnormal`): it loses.
    Left(Color),
    /// A player asked to suspend (`%CHUDAN`): no result, stored as suspended.
    Suspended,
}

/// The lobby.
#[derive(Debug)]
pub struct Lobby {
    config: Config,
    conns: BTreeMap<ConnId, Conn>,
    /// Logged-in connections by name (a name is logged in once).
    names: HashMap<String, ConnId>,
    /// Connections in `game_waiting`, by the game they wait for.
    waiting: index::Waiting,
    games: HashMap<u64, LiveGame>,
    by_id: BTreeMap<String, u64>,
    buoys: BTreeMap<String, StoredBuoy>,
    /// Suspended games, waiting for both players.
    suspended: index::Suspended,
    /// Each live game's deadline (agreement or clock), earliest first; entries a game
    /// has moved on from are dropped when they come up.
    deadlines: BinaryHeap<Reverse<(Millis, u64)>>,
    next_game: u64,
    /// The second of the latest Game_ID, and the time each Game_ID prefix (event, game,
    /// players) was last given from it on: a prefix given twice in one second has its
    /// time moved a second on, so Game_IDs are unique and otherwise follow the clock.
    id_second: chrono::NaiveDateTime,
    id_issued: HashMap<String, chrono::NaiveDateTime>,
    rng: u64,
    /// Set-up game names ([`Input::Setup`]), oldest first.
    setups: VecDeque<(String, GameSetup)>,
}

/// The rules preset a game name chooses with a `rules_<preset>_` prefix
/// (`rules_jsa_cup-600-10`), if any.
pub fn preset_of_name(name: &str) -> Option<Preset> {
    let rest = name.strip_prefix("rules_")?;
    let (preset, _) = rest.split_once('_')?;
    preset.parse().ok()
}

/// What illegal moves do in a game whose name says so after its preset:
/// `rules_<preset>_refuse_…` (refused, the player tries again) or `rules_<preset>_lose_…`
/// (the mover loses); `None`: as the preset has it.
///
/// ```
/// use gyoku::rules::Fouls;
/// use gyoku_server::lobby::fouls_of_name;
/// assert_eq!(fouls_of_name("rules_jsa_refuse_web-600-10"), Some(Fouls::Refuse));
/// assert_eq!(fouls_of_name("rules_lishogi_lose_cup-300-0"), Some(Fouls::Lose));
/// assert_eq!(fouls_of_name("rules_jsa_cup-600-10"), None);
/// ```
pub fn fouls_of_name(name: &str) -> Option<Fouls> {
    preset_of_name(name)?;
    let rest = name.strip_prefix("rules_")?.split_once('_')?.1;
    match rest.split_once('_')?.0 {
        "refuse" => Some(Fouls::Refuse),
        "lose" => Some(Fouls::Lose),
        _ => None,
    }
}

fn is_buoy_name(name: &str) -> bool {
    name.starts_with("buoy_") && GameName::parse(name).is_some()
}

fn is_floodgate_name(name: &str) -> bool {
    name.strip_prefix("floodgate-")
        .and_then(|rest| GameName::parse(&format!("floodgate-{rest}")))
        .is_some_and(|g| g.name.matches('-').count() == 2)
}

/// The moves of a buoy or fork, `+7776FU,T0-3334FU,T2` or `+7776FU-3334FU`: each CSA
/// move with its time (1 s when none is given, as shogi-server).
pub fn split_moves(text: &str) -> Option<Vec<(String, u32)>> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let m = text.get(i..i + 7)?;
        if !gyoku_proto::csa::move_shaped(m) {
            return None;
        }
        i += 7;
        let mut t = 1;
        if b.get(i) == Some(&b',') && b.get(i + 1) == Some(&b'T') {
            let digits = b[i + 2..].iter().take_while(|c| c.is_ascii_digit()).count();
            t = text.get(i + 2..i + 2 + digits)?.parse().ok()?;
            i += 2 + digits;
        }
        out.push((m.to_string(), t));
        if out.len() > 10_000 {
            return None;
        }
    }
    Some(out)
}

impl Lobby {
    /// A lobby with no one in it, knowing the stored buoys and suspended games.
    pub fn new(config: Config, buoys: Vec<StoredBuoy>, suspended: Vec<GameSpec>) -> Lobby {
        let seed = {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(0x9e37_79b9);
            h.finish() | 1
        };
        Lobby {
            config,
            conns: BTreeMap::new(),
            names: HashMap::new(),
            waiting: index::Waiting::default(),
            games: HashMap::new(),
            by_id: BTreeMap::new(),
            buoys: buoys.into_iter().map(|b| (b.name.clone(), b)).collect(),
            suspended: index::Suspended::new(suspended),
            deadlines: BinaryHeap::new(),
            next_game: 1,
            id_second: chrono::NaiveDateTime::MIN,
            id_issued: HashMap::new(),
            rng: seed,
            setups: VecDeque::new(),
        }
    }

    fn coin(&mut self) -> bool {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng & 1 == 0
    }

    /// The earliest instant at which a [`Input::Tick`] has something to do.
    pub fn next_deadline(&mut self) -> Option<Millis> {
        while let Some(&Reverse((at, key))) = self.deadlines.peek() {
            if self.games.get(&key).and_then(LiveGame::deadline) == Some(at) {
                return Some(at);
            }
            // A deadline the game has moved on from (a move was made), or a game that ended.
            self.deadlines.pop();
        }
        None
    }

    /// Remembers a game's current deadline (after its clock started or it was proposed).
    fn schedule(&mut self, key: u64) {
        if let Some(at) = self.games.get(&key).and_then(LiveGame::deadline) {
            self.deadlines.push(Reverse((at, key)));
        }
        // Old deadlines leave the heap as they come up; keep it near one per game.
        if self.deadlines.len() > 4 * self.games.len() + 1024 {
            let games = &self.games;
            self.deadlines = games
                .iter()
                .filter_map(|(&k, g)| Some(Reverse((g.deadline()?, k))))
                .collect();
        }
    }

    /// Handles one input, appending what to do to `out`.
    pub fn handle(&mut self, input: Input, now: Now, out: &mut Vec<Output>) {
        match input {
            Input::LoggedIn(conn, login) => self.logged_in(conn, login, now, out),
            Input::Line(conn, line) => self.line(conn, &line, now, out),
            Input::Closed(conn) => self.closed(conn, now, out),
            Input::Tick => self.tick(now, out),
            Input::Setup { game, setup } => {
                self.setups.retain(|(name, _)| *name != game);
                if self.setups.len() >= MAX_SETUPS {
                    self.setups.pop_front();
                }
                self.setups.push_back((game, *setup));
            }
        }
    }

    fn send(out: &mut Vec<Output>, conn: ConnId, text: impl Into<String>) {
        out.push(Output::Send(conn, text.into()));
    }

    fn logged_in(&mut self, conn: ConnId, login: CheckedLogin, now: Now, out: &mut Vec<Output>) {
        let existing = self.names.get(&login.name).map(|&id| {
            let c = &self.conns[&id];
            (
                id,
                c.rating_id == login.rating_id && c.status != Status::Game,
            )
        });
        match existing {
            Some((old, true)) => {
                // The same player again, not in a game: the new connection replaces the old.
                self.closed(old, now, out);
                out.push(Output::Close(old));
            }
            Some((_, false)) => {
                Self::send(out, conn, "LOGIN:incorrect\n");
                if login.x1 {
                    Self::send(
                        out,
                        conn,
                        format!("username {} is already connected\n", login.name),
                    );
                }
                out.push(Output::Close(conn));
                return;
            }
            None => {}
        }
        Self::send(out, conn, format!("LOGIN:{} OK\n", login.name));
        if login.x1 {
            Self::send(out, conn, "##[LOGIN] +OK x1\n");
        }
        self.names.insert(login.name.clone(), conn);
        self.conns.insert(
            conn,
            Conn {
                name: login.name,
                x1: login.x1,
                rating_id: login.rating_id,
                web: login.web,
                status: Status::Connected,
                game_name: String::new(),
                sente: None,
                game: None,
                deferred: VecDeque::new(),
                monitoring: Vec::new(),
            },
        );
        if let Some((game, turn)) = login.game {
            let turn = match turn {
                Some(Color::Black) => '+',
                Some(Color::White) => '-',
                None => '*',
            };
            self.game_command(conn, false, &game, turn, now, out);
        }
    }

    fn line(&mut self, conn: ConnId, line: &str, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let raw = line.trim_end_matches(['\r', '\n']);
        if raw == "CHALLENGE" {
            // CSA's official test server's command: accepted and meaningless here.
            Self::send(out, conn, "CHALLENGE ACCEPTED\n");
            return;
        }
        if raw == IMPASSE_LINE && c.status == Status::Game {
            return self.impasse_line(conn, now, out);
        }
        let msg = match ClientMessage::parse(raw) {
            Ok(m) => m,
            Err(e) => {
                if c.status == Status::Game && raw.starts_with(['+', '-']) {
                    // A malformed move on one's turn loses, as shogi-server.
                    self.game_line(conn, raw, now, out);
                } else {
                    Self::send(out, conn, format!("##[ERROR] {e}\n"));
                }
                return;
            }
        };
        match msg {
            ClientMessage::Login(_) => {
                Self::send(out, conn, "##[ERROR] already logged in\n");
            }
            ClientMessage::Logout => {
                Self::send(out, conn, "LOGOUT:completed\n");
                self.closed(conn, now, out);
                out.push(Output::Close(conn));
            }
            ClientMessage::Agree(_) => self.agree(conn, now, out),
            ClientMessage::Reject(_) => self.reject(conn, out),
            ClientMessage::KeepAlive => {
                // Answered with an empty line (a single space gets nothing, as in
                // shogi-server). Time-ups need no keep-alive here: the server's timer
                // flags them.
                if raw.is_empty() {
                    Self::send(out, conn, "\n");
                }
            }
            ClientMessage::Ignored => {}
            ClientMessage::Move { ref text, .. } => {
                if c.status != Status::Game {
                    return;
                }
                let game = c.game.and_then(|g| self.games.get(&g));
                if game.is_some_and(|g| g.last_move == *text) {
                    // Two identical moves in a row: the second is ignored (shogi-server).
                    return;
                }
                self.game_line(conn, raw, now, out);
            }
            ClientMessage::Resign | ClientMessage::Declare | ClientMessage::Chudan => {
                if c.status == Status::Game {
                    self.game_line(conn, raw, now, out);
                }
            }
            ClientMessage::X1(cmd) => self.x1(conn, cmd, now, out),
        }
    }

    /// [`IMPASSE_LINE`] from a player in a game, on either turn: proposes to count the
    /// impasse now, or accepts the other's proposal (the game ends, counted as the rules
    /// say). Both players hear `##[IMPASSE] proposed by +` (or `-`); a proposal the rules
    /// refuse is answered `##[ERROR]`. A proposal lapses with the next move.
    fn impasse_line(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(g) = self.games.get_mut(&key) else {
            return;
        };
        if !matches!(g.phase, Phase::Playing) || g.mated {
            return;
        }
        let color = if g.players[0] == conn {
            Color::Black
        } else {
            Color::White
        };
        let accepted = match g.referee.accept_impasse(color) {
            Ok(()) => true,
            Err(gyoku::GameError::NoProposal) => match g.referee.propose_impasse(color) {
                Ok(()) => false,
                Err(e) => {
                    Self::send(out, conn, format!("##[ERROR] {e}\n"));
                    return;
                }
            },
            Err(e) => {
                Self::send(out, conn, format!("##[ERROR] {e}\n"));
                return;
            }
        };
        if accepted {
            return self.finish(key, now, out);
        }
        let notice = format!("##[IMPASSE] proposed by {}\n", record::sign(color));
        for p in g.players {
            Self::send(out, p, notice.clone());
        }
    }

    /// A move or `%…` from a player in a game: deferred if it is not its turn.
    fn game_line(&mut self, conn: ConnId, raw: &str, now: Now, out: &mut Vec<Output>) {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(g) = self.games.get(&key) else {
            return;
        };
        let color = if g.players[0] == conn {
            Color::Black
        } else {
            Color::White
        };
        if g.referee.turn() != color || !matches!(g.phase, Phase::Playing) {
            let c = self.conns.get_mut(&conn).expect("checked above");
            if c.deferred.len() >= MAX_DEFERRED {
                Self::send(out, conn, "##[ERROR] too many moves sent out of turn\n");
                self.closed(conn, now, out);
                out.push(Output::Close(conn));
                return;
            }
            c.deferred.push_back(raw.to_string());
            return;
        }
        self.play_line(key, color, raw, now, out);
        // The other side may have sent its next moves early: play them now, in order.
        loop {
            let Some(g) = self.games.get(&key) else {
                return;
            };
            let side = g.referee.turn();
            let next = g.players[side.index()];
            let Some(line) = self
                .conns
                .get_mut(&next)
                .and_then(|c| c.deferred.pop_front())
            else {
                return;
            };
            self.play_line(key, side, &line, now, out);
        }
    }

    /// The side to move's line, on its turn.
    fn play_line(&mut self, key: u64, color: Color, raw: &str, now: Now, out: &mut Vec<Output>) {
        let strict = self.config.strict_csa_server;
        let g = self.games.get_mut(&key).expect("live game");
        if g.mated {
            return self.after_unseen_mate(key, color, raw, now, out);
        }
        if g.referee.outcome().is_some() {
            return;
        }
        if let Ok(Some(_)) = g.clock.check(now.mono) {
            let _ = g.referee.time_up(color);
            return self.finish(key, now, out);
        }
        let msg = ClientMessage::parse(raw);
        match msg {
            Ok(ClientMessage::Resign) => {
                let _ = g.referee.resign(color);
            }
            Ok(ClientMessage::Declare) => {
                if let Err(e) = g.referee.declare() {
                    let conn = g.players[color.index()];
                    if e == gyoku::GameError::NoDeclarationRule {
                        // No declaration under these rules: a declaration that fails.
                        let _ = g.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
                        g.foul_text = Some("%KACHI".into());
                    } else {
                        Self::send(out, conn, format!("##[ERROR] {e}\n"));
                        return;
                    }
                }
            }
            Ok(ClientMessage::Chudan) if !strict => {
                return self.end(key, Ending::Suspended, now, out);
            }
            Ok(ClientMessage::Move { text, comment }) => {
                let parsed = gyoku_kifu::csa::parse_move(&text, g.referee.position());
                let result = match parsed {
                    Ok((mover, mv)) if mover == color => g.referee.play(mv),
                    Ok((_, mv)) => g.referee.play_as_other_side(mv),
                    Err(_) => g.referee.forfeit(color, gyoku::ForfeitCause::Garbage),
                };
                if let Err(e) = result {
                    // Refused under `fouls = refuse`: the player may try again.
                    let conn = g.players[color.index()];
                    Self::send(out, conn, format!("##[ERROR] {e}\n"));
                    return;
                }
                let legal = g.referee.outcome().is_none_or(|o| {
                    !matches!(
                        o.reason,
                        EndReason::IllegalMove { .. } | EndReason::Forfeit { .. }
                    )
                });
                if !legal {
                    g.foul_text = Some(text);
                    return self.finish(key, now, out);
                }
                let charged = match g.clock.stop(now.mono) {
                    Ok(Ok(t)) => t.charged / 1000,
                    _ => 0,
                };
                let ply = u32::try_from(g.moves.len() + 1).unwrap_or(u32::MAX);
                out.push(Output::Store(Change::Move {
                    game_id: g.id.clone(),
                    ply,
                    csa: text.clone(),
                    seconds: charged,
                    comment: comment.clone(),
                }));
                let echo = format!("{text},T{charged}\n");
                for p in g.players {
                    Self::send(out, p, echo.clone());
                }
                for &m in &g.monitors {
                    Self::send(
                        out,
                        m,
                        format!(
                            "##[MONITOR2][{}] {text}\n##[MONITOR2][{}] T{charged}\n##[MONITOR2][{}] +OK\n",
                            g.id, g.id, g.id
                        ),
                    );
                }
                g.last_move = text.clone();
                g.moves.push((text, charged, comment));
                if strict
                    && g.referee.outcome().is_some_and(|o| {
                        matches!(o.reason, EndReason::Checkmate | EndReason::NoLegalMove)
                    })
                {
                    // shogi-server sees no mate: play goes on, and the mated side must
                    // resign, flag or move illegally.
                    g.mated = true;
                }
                if g.referee.outcome().is_none() || g.mated {
                    let _ = g.clock.start(now.mono);
                    self.schedule(key);
                }
            }
            // %CHUDAN under --strict-csa-server, or anything else: an illegal move.
            _ => {
                g.foul_text = Some(raw.to_string());
                let _ = g.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
            }
        }
        let g = &self.games[&key];
        if g.referee.outcome().is_some() && !g.mated {
            self.finish(key, now, out);
        }
    }

    /// `--strict-csa-server`, after a mate the referee saw and shogi-server would not: the
    /// mated side's next action ends the game as shogi-server ends it (a resignation, an
    /// illegal move, a failed declaration, a time-up).
    fn after_unseen_mate(
        &mut self,
        key: u64,
        color: Color,
        raw: &str,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let g = self.games.get_mut(&key).expect("live game");
        let ply = u32::try_from(g.referee.plies().len() + 1).unwrap_or(u32::MAX);
        let garbage = EndReason::Forfeit {
            by: color,
            cause: gyoku::ForfeitCause::Garbage,
        };
        let reason = if matches!(g.clock.check(now.mono), Ok(Some(_))) {
            EndReason::TimeUp { by: color }
        } else {
            match ClientMessage::parse(raw) {
                Ok(ClientMessage::Resign) => EndReason::Resignation { by: color },
                Ok(ClientMessage::Move { text, .. }) => {
                    let parsed = gyoku_kifu::csa::parse_move(&text, g.referee.position());
                    g.foul_text = Some(text);
                    match parsed {
                        Ok((_, mv)) => EndReason::IllegalMove {
                            mv,
                            kind: g
                                .referee
                                .position()
                                .check_move(mv)
                                .err()
                                .unwrap_or(IllegalMoveKind::KingInCheck),
                        },
                        Err(_) => garbage,
                    }
                }
                Ok(ClientMessage::Declare) => {
                    g.foul_text = Some("%KACHI".into());
                    garbage
                }
                _ => {
                    g.foul_text = Some(raw.to_string());
                    garbage
                }
            }
        };
        let outcome = Outcome {
            result: GameResult::Win(!color),
            reason,
            ply,
        };
        self.end(key, Ending::Decided(outcome), now, out);
    }

    fn finish(&mut self, key: u64, now: Now, out: &mut Vec<Output>) {
        let outcome = self.games[&key]
            .referee
            .outcome()
            .cloned()
            .expect("decided");
        self.end(key, Ending::Decided(outcome), now, out);
    }

    /// Ends a game: the end lines to both players, the record and the result stored, the
    /// record file written, CSA-mode players disconnected.
    fn end(&mut self, key: u64, ending: Ending, now: Now, out: &mut Vec<Output>) {
        let Some(g) = self.games.remove(&key) else {
            return;
        };
        self.by_id.remove(&g.id);
        let lines = end_lines(&g, &ending);
        for (i, &p) in g.players.iter().enumerate() {
            Self::send(out, p, lines.players[i].clone());
        }
        for &m in &g.monitors {
            Self::send(
                out,
                m,
                format!(
                    "##[MONITOR2][{}] {}\n##[MONITOR2][{}] +OK\n",
                    g.id, lines.monitor, g.id
                ),
            );
            if let Some(c) = self.conns.get_mut(&m) {
                c.monitoring.retain(|&k| k != key);
            }
        }
        let end_time = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
        let mut text = record::head(&record::RecordHead {
            game_id: &g.id,
            names: [&g.names[0], &g.names[1]],
            rating_ids: [g.rating_ids[0].as_deref(), g.rating_ids[1].as_deref()],
            max_moves: g.max_moves,
            least_time_per_move: self.config.least_time_per_move,
            increment: g.increment,
            rules: g.preset.name(),
            start_time: &g.started_at,
            start: &g.start,
            initial_moves: &g.initial_moves,
        });
        for (m, t, c) in &g.moves {
            record::move_lines(&mut text, m, *t, c.as_deref());
        }
        if let Some(f) = g.foul_text.as_deref().filter(|f| *f != "%KACHI") {
            text.push_str(&format!("'ILLEGAL_MOVE({f})\n"));
        }
        let summary = format!(
            "{}:{} {}:{} {}",
            lines.summary, g.names[0], lines.results[0], g.names[1], lines.results[1]
        );
        record::tail(
            &mut text,
            lines.record_end,
            g.referee.position(),
            &summary,
            &end_time,
        );
        let path = format!("{}/{}.csa", g.started_at_dir(), g.id);
        if matches!(g.phase, Phase::Playing) {
            out.push(Output::Store(Change::GameEnded {
                game_id: g.id.clone(),
                status: if matches!(ending, Ending::Suspended) {
                    "suspended"
                } else {
                    "finished"
                },
                result: lines.result.map(str::to_string),
                reason: lines.reason.to_string(),
                ended_at: end_time,
                record: text.clone(),
                record_path: path.clone(),
            }));
            out.push(Output::WriteRecord {
                path,
                bytes: record::encode(&text),
                players: g.players,
            });
        }
        if matches!(ending, Ending::Suspended) {
            self.suspended.insert(g.spec());
        }
        // A no contest (JSA sennichite, a 24-30 impasse, the 500-move limit) is replayed
        // with colours swapped: offered to both players at once, linked to this game.
        let replay = matches!(&ending, Ending::Decided(o) if o.result == GameResult::NoContest)
            && g.players.iter().all(|p| self.conns.contains_key(p));
        if !replay && !matches!(ending, Ending::Suspended) {
            self.setups.retain(|(name, _)| *name != g.name);
        }
        // Sends go out after the commit, the players' after the file: the driver orders them so.
        for p in g.players {
            self.release(p, !replay, out);
        }
        if replay {
            let [black, white] = g.players;
            self.propose(
                &g.name,
                [white, black],
                Vec::new(),
                Some(g.id.clone()),
                now,
                out,
            );
        }
    }

    /// Sets a connection's status, keeping the waiting index in step: `game_name` must
    /// already be the game waited for when the status is `GameWaiting`, and must not
    /// change while it is.
    fn set_status(&mut self, conn: ConnId, status: Status) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.status == Status::GameWaiting {
            self.waiting.remove(&c.game_name, conn);
        }
        c.status = status;
        if status == Status::GameWaiting {
            self.waiting.insert(&c.game_name, conn);
        }
    }

    /// Forgets a connection: its name, its place in a queue, the games it monitors.
    fn remove_conn(&mut self, conn: ConnId) -> Option<Conn> {
        let c = self.conns.remove(&conn)?;
        if c.status == Status::GameWaiting {
            self.waiting.remove(&c.game_name, conn);
        }
        if self.names.get(&c.name) == Some(&conn) {
            self.names.remove(&c.name);
        }
        for key in &c.monitoring {
            if let Some(g) = self.games.get_mut(key) {
                g.monitors.retain(|&m| m != conn);
            }
        }
        Some(c)
    }

    /// A player's game is over: back to `connected`, or disconnected in CSA mode.
    fn release(&mut self, conn: ConnId, close_csa: bool, out: &mut Vec<Output>) {
        self.set_status(conn, Status::Connected);
        let Some(c) = self.conns.get_mut(&conn) else {
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

    fn closed(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if let Some(key) = c.game {
            let g = &self.games[&key];
            match g.phase {
                Phase::Agreeing { .. } => {
                    let name = c.name.clone();
                    self.drop_proposal(key, &name, out);
                }
                Phase::Playing => {
                    let color = if g.players[0] == conn {
                        Color::Black
                    } else {
                        Color::White
                    };
                    self.remove_conn(conn);
                    self.end(key, Ending::Left(color), now, out);
                }
            }
        }
        self.remove_conn(conn);
    }

    fn tick(&mut self, now: Now, out: &mut Vec<Output>) {
        // Only the games whose deadline has come, from the heap (never a scan of all).
        let mut due: Vec<(u64, bool)> = Vec::new();
        while let Some(&Reverse((at, key))) = self.deadlines.peek() {
            if at > now.mono {
                break;
            }
            self.deadlines.pop();
            let Some(g) = self.games.get(&key) else {
                continue;
            };
            match g.phase {
                Phase::Agreeing { expires } if expires <= now.mono => due.push((key, false)),
                Phase::Playing if matches!(g.clock.check(now.mono), Ok(Some(_))) => {
                    due.push((key, true));
                }
                // A deadline the game has moved on from (or not quite there: rounding).
                _ => {}
            }
        }
        due.sort_unstable();
        due.dedup();
        for (key, playing) in due {
            if playing {
                let g = self.games.get_mut(&key).expect("listed");
                let color = g.referee.turn();
                if g.mated {
                    self.after_unseen_mate(key, color, "", now, out);
                    continue;
                }
                let _ = g.referee.time_up(color);
                self.finish(key, now, out);
            } else {
                self.drop_proposal(key, "the Server (timed out)", out);
            }
        }
    }

    fn drop_proposal(&mut self, key: u64, by: &str, out: &mut Vec<Output>) {
        let Some(g) = self.games.remove(&key) else {
            return;
        };
        self.by_id.remove(&g.id);
        for p in g.players {
            Self::send(out, p, format!("REJECT:{} by {by}\n", g.id));
        }
        if g.resumed {
            self.suspended.insert(g.spec());
        }
        for p in g.players {
            self.release(p, true, out);
        }
    }

    fn agree(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            let msg = format!(
                "##[ERROR] you are in {} status. AGREE is valid in agree_waiting status\n",
                c.status.name()
            );
            Self::send(out, conn, msg);
            return;
        }
        c.status = Status::StartWaiting; // from agree_waiting: not in the waiting index
        let key = c.game.expect("agree_waiting has a game");
        let g = self.games.get_mut(&key).expect("live game");
        let both = g.players.iter().all(|p| {
            self.conns
                .get(p)
                .is_some_and(|c| c.status == Status::StartWaiting)
        });
        if !both {
            return;
        }
        g.phase = Phase::Playing;
        if g.resumed {
            out.push(Output::Store(Change::GameResumed {
                game_id: g.id.clone(),
            }));
        } else {
            g.started_at = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
            out.push(Output::Store(Change::GameStarted(StartedGame {
                id: g.id.clone(),
                name: g.name.clone(),
                black: g.names[0].clone(),
                white: g.names[1].clone(),
                rules: g.preset.name().to_string(),
                max_moves: g.max_moves,
                least_time_per_move: self.config.least_time_per_move,
                total_time: g.total,
                byoyomi: g.byoyomi,
                increment: g.increment,
                start_sfen: g.start.to_sfen(),
                initial_moves: g
                    .initial_moves
                    .iter()
                    .map(|(m, t)| format!("{m},T{t}\n"))
                    .collect(),
                started_at: g.started_at.clone(),
                replay_of: g.replay_of.clone(),
            })));
        }
        for p in g.players {
            Self::send(out, p, format!("START:{}\n", g.id));
            if let Some(c) = self.conns.get_mut(&p) {
                c.status = Status::Game;
            }
        }
        let _ = g.clock.start(now.mono);
        self.schedule(key);
        let g = &self.games[&key];
        // A player whose moves arrived before the start has them played now.
        let side = g.referee.turn();
        let first = g.players[side.index()];
        if let Some(line) = self
            .conns
            .get_mut(&first)
            .and_then(|c| c.deferred.pop_front())
        {
            self.game_line(first, &line, now, out);
        }
    }

    fn reject(&mut self, conn: ConnId, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            let msg = format!(
                "##[ERROR] you are in {} status. REJECT is valid in agree_waiting status\n",
                c.status.name()
            );
            Self::send(out, conn, msg);
            return;
        }
        let key = c.game.expect("agree_waiting has a game");
        let name = c.name.clone();
        self.drop_proposal(key, &name, out);
    }

    fn x1(&mut self, conn: ConnId, cmd: X1Command, now: Now, out: &mut Vec<Output>) {
        match cmd {
            X1Command::Game { game: None, .. } => {
                let c = self.conns.get_mut(&conn).expect("logged in");
                if matches!(c.status, Status::Connected | Status::GameWaiting) {
                    self.set_status(conn, Status::Connected);
                    self.conns
                        .get_mut(&conn)
                        .expect("logged in")
                        .game_name
                        .clear();
                } else {
                    let msg = format!(
                        "##[ERROR] you are in {} status. GAME is valid in connected or game_waiting status\n",
                        c.status.name()
                    );
                    Self::send(out, conn, msg);
                }
            }
            X1Command::Game {
                game: Some(game),
                turn,
            } => self.game_command(conn, false, &game, turn.unwrap_or('*'), now, out),
            X1Command::Challenge { game, turn } => {
                self.game_command(conn, true, &game, turn.unwrap_or('*'), now, out);
            }
            X1Command::Who => {
                let mut text = String::new();
                for c in self.conns.values() {
                    // Names only: a rating id is derived from a password.
                    let who = &c.name;
                    let mode = if c.x1 { "x1" } else { "CSA" };
                    if c.status == Status::Connected {
                        text.push_str(&format!("##[WHO] {who} {mode} {}\n", c.status.name()));
                    } else {
                        let t = match c.sente {
                            Some(true) => '+',
                            Some(false) => '-',
                            None => '*',
                        };
                        text.push_str(&format!(
                            "##[WHO] {who} {mode} {} {} {t}\n",
                            c.status.name(),
                            c.game_name
                        ));
                    }
                }
                text.push_str("##[WHO] +OK\n");
                Self::send(out, conn, text);
            }
            X1Command::List => {
                let mut text = String::new();
                for id in self.by_id.keys() {
                    text.push_str(&format!("##[LIST] {id}\n"));
                }
                text.push_str("##[LIST] +OK\n");
                Self::send(out, conn, text);
            }
            X1Command::Show(id) => {
                if let Some(g) = self.by_id.get(&id).and_then(|k| self.games.get(k)) {
                    let mut text = String::new();
                    for l in self.show(g, now).lines() {
                        text.push_str(&format!("##[SHOW] {l}\n"));
                    }
                    Self::send(out, conn, text);
                }
                Self::send(out, conn, "##[SHOW] +OK\n");
            }
            X1Command::MonitorOn { game_id, .. } => {
                let Some(&key) = self.by_id.get(&game_id) else {
                    Self::send(out, conn, format!("##[ERROR] no such game: {game_id}\n"));
                    return;
                };
                let show = self.show(&self.games[&key], now);
                let g = self.games.get_mut(&key).expect("listed");
                g.monitors.retain(|&m| m != conn);
                g.monitors.push(conn);
                let c = self.conns.get_mut(&conn).expect("logged in");
                c.monitoring.retain(|&k| k != key);
                c.monitoring.push(key);
                let mut text = String::new();
                for l in show.lines() {
                    text.push_str(&format!("##[MONITOR2][{game_id}] {l}\n"));
                }
                for (m, t, _) in &g.moves {
                    text.push_str(&format!(
                        "##[MONITOR2][{game_id}] {m}\n##[MONITOR2][{game_id}] T{t}\n"
                    ));
                }
                text.push_str(&format!("##[MONITOR2][{game_id}] +OK\n"));
                Self::send(out, conn, text);
            }
            X1Command::MonitorOff { game_id, .. } => {
                if let Some(&key) = self.by_id.get(&game_id)
                    && let Some(g) = self.games.get_mut(&key)
                {
                    g.monitors.retain(|&m| m != conn);
                    let c = self.conns.get_mut(&conn).expect("logged in");
                    c.monitoring.retain(|&k| k != key);
                }
            }
            X1Command::Chat(message) => {
                let from = self.conns[&conn].name.clone();
                // Control bytes (ESC, BEL, BS, NUL…) reach every x1 client's terminal:
                // shown escaped (`\x1b`), never sent.
                let message = gyoku_kifu::escape_controls(&message);
                for (&id, c) in &self.conns {
                    if c.x1 {
                        Self::send(out, id, format!("##[CHAT][{from}] {message}\n"));
                    }
                }
            }
            X1Command::Version => Self::send(
                out,
                conn,
                format!(
                    "##[VERSION] Gyoku {} (CSA protocol 1.2.1, x1)\n##[VERSION] +OK\n",
                    env!("CARGO_PKG_VERSION")
                ),
            ),
            X1Command::Help => Self::send(
                out,
                conn,
                "##[HELP] %%GAME <game> <+|-|*>, %%CHALLENGE, %%WHO, %%LIST, %%SHOW <id>, \
                 %%MONITOR2ON <id>, %%MONITOR2OFF <id>, %%CHAT <text>, %%VERSION, %%RATING, \
                 %%SETBUOY, %%DELETEBUOY, %%GETBUOYCOUNT, %%FORK, LOGOUT\n##[HELP] +OK\n",
            ),
            X1Command::Rating => Self::send(out, conn, "##[RATING] +OK\n"),
            X1Command::Fork {
                source,
                new_game,
                nth_move,
            } => self.fork(conn, &source, new_game, nth_move, now, out),
            X1Command::SetBuoy { game, moves, count } => {
                self.set_buoy(conn, &game, &moves, count.unwrap_or(1), now, out);
            }
            X1Command::DeleteBuoy(name) => {
                let owner = self.conns[&conn].name.clone();
                match self.buoys.get(&name) {
                    None => Self::send(
                        out,
                        conn,
                        format!("##[ERROR] buoy game not found: {name}\n"),
                    ),
                    Some(b) if b.owner != owner => Self::send(
                        out,
                        conn,
                        format!(
                            "##[ERROR] you are not allowed to delete a buoy game that you did not set: {name}\n"
                        ),
                    ),
                    Some(b) => {
                        out.push(Output::Store(Change::Buoy {
                            name: name.clone(),
                            moves: b.moves.clone(),
                            owner,
                            count: 0,
                        }));
                        self.buoys.remove(&name);
                        Self::send(out, conn, "##[DELETEBUOY] +OK\n");
                    }
                }
            }
            X1Command::GetBuoyCount(name) => {
                let count = self.buoys.get(&name).map_or(-1, |b| i64::from(b.count));
                Self::send(
                    out,
                    conn,
                    format!("##[GETBUOYCOUNT] {count}\n##[GETBUOYCOUNT] +OK\n"),
                );
            }
            X1Command::Unknown(word) => {
                Self::send(out, conn, format!("##[ERROR] unknown command {word}\n"));
            }
        }
    }

    fn fork(
        &mut self,
        conn: ConnId,
        source: &str,
        new_game: Option<String>,
        nth: Option<u32>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(g) = self.by_id.get(source).and_then(|k| self.games.get(k)) else {
            Self::send(
                out,
                conn,
                format!("##[ERROR] wrong source game name: {source}\n"),
            );
            return;
        };
        let all: Vec<(String, u32)> = g
            .initial_moves
            .iter()
            .cloned()
            .chain(
                g.moves
                    .iter()
                    .map(|(m, t, _)| (m.clone(), u32::try_from(*t).unwrap_or(u32::MAX))),
            )
            .collect();
        let nth = nth.map_or(all.len().saturating_sub(1), |n| n as usize);
        if nth > all.len() || nth < 1 {
            Self::send(
                out,
                conn,
                format!(
                    "##[ERROR] number of moves to fork is out of range: {}.\n",
                    all.len()
                ),
            );
            return;
        }
        let moves: String = all[..nth]
            .iter()
            .map(|(m, t)| format!("{m},T{t}"))
            .collect();
        let new_game = match new_game {
            Some(n) => n,
            None => {
                let parsed = source.split('+').nth(1).and_then(|n| {
                    let (rest, byo) = n.rsplit_once('-')?;
                    let (name, total) = rest.rsplit_once('-')?;
                    (!name.contains('-'))
                        .then(|| (name.to_string(), total.to_string(), byo.to_string()))
                });
                let Some((name, total, byo)) = parsed else {
                    Self::send(
                        out,
                        conn,
                        format!(
                            "##[ERROR] wrong source game name to make a new buoy game name: {source}\n"
                        ),
                    );
                    return;
                };
                let n = format!("buoy_{name}_{nth}-{total}-{byo}");
                Self::send(
                    out,
                    conn,
                    format!("##[FORK]: new buoy game name: {n}\n##[FORK] +OK\n"),
                );
                n
            }
        };
        self.set_buoy(conn, &new_game, &moves, 1, now, out);
    }

    fn set_buoy(
        &mut self,
        conn: ConnId,
        name: &str,
        moves: &str,
        count: u32,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        if !is_buoy_name(name) {
            Self::send(
                out,
                conn,
                format!("##[ERROR] wrong buoy game name: {name}\n"),
            );
            return;
        }
        if self.buoys.contains_key(name) {
            Self::send(
                out,
                conn,
                format!("##[ERROR] duplicated buoy game name: {name}\n"),
            );
            return;
        }
        if count < 1 {
            Self::send(out, conn, format!("##[ERROR] invalid count: {count}\n"));
            return;
        }
        let owner = &self.conns[&conn].name;
        if self.buoys.len() >= MAX_BUOYS
            || self.buoys.values().filter(|b| b.owner == *owner).count() >= MAX_BUOYS_PER_PLAYER
        {
            Self::send(
                out,
                conn,
                format!(
                    "##[ERROR] too many buoy games: at most {MAX_BUOYS_PER_PLAYER} a player, \
                     {MAX_BUOYS} in all\n"
                ),
            );
            return;
        }
        if split_moves(moves)
            .and_then(|m| play_moves(&Position::startpos(), &m))
            .is_none()
        {
            Self::send(out, conn, format!("##[ERROR] wrong moves: {moves}\n"));
            return;
        }
        let buoy = StoredBuoy {
            name: name.to_string(),
            moves: moves.to_string(),
            owner: self.conns[&conn].name.clone(),
            count,
        };
        out.push(Output::Store(Change::Buoy {
            name: buoy.name.clone(),
            moves: buoy.moves.clone(),
            owner: buoy.owner.clone(),
            count,
        }));
        self.buoys.insert(name.to_string(), buoy);
        Self::send(out, conn, "##[SETBUOY] +OK\n");
        // Two players already waiting for it start now.
        let waiting: Vec<ConnId> = self.waiting.for_game(name).collect();
        if let Some(&p1) = waiting.first()
            && let Some(p2) = self.find_rival(p1, name)
        {
            let turn = match self.conns[&p1].sente {
                Some(true) => '+',
                Some(false) => '-',
                None => '*',
            };
            self.pair(p1, turn, p2, name, now, out);
        }
    }

    /// The suspended game named `game` that `player` plays in, if any.
    fn suspended_for(&self, game: &str, player: &str) -> Option<String> {
        self.suspended.find(game, player).map(str::to_string)
    }

    /// A player of a suspended game asks for it: it waits for the other player, and once
    /// both are here the game is proposed again with its moves and clocks.
    fn resume(&mut self, conn: ConnId, id: &str, now: Now, out: &mut Vec<Output>) {
        let spec = self.suspended.get(id).expect("looked up");
        let me = self.conns[&conn].name.clone();
        let black = spec.names[0] == me;
        let other = spec.names[usize::from(black)].clone();
        let game = spec.name.clone();
        self.set_status(conn, Status::Connected);
        let c = self.conns.get_mut(&conn).expect("logged in");
        c.game_name = game.clone();
        c.sente = Some(black);
        self.set_status(conn, Status::GameWaiting);
        let rival = self.names.get(&other).copied().filter(|r| {
            let r = &self.conns[r];
            r.status == Status::GameWaiting && r.game_name == game
        });
        if let Some(rival) = rival {
            let spec = self.suspended.remove(id).expect("looked up");
            let players = if black { [conn, rival] } else { [rival, conn] };
            self.open(spec, players, true, now, out);
        }
    }

    fn find_rival(&self, me: ConnId, game: &str) -> Option<ConnId> {
        let c = &self.conns[&me];
        let want = c.sente.map(|s| !s);
        self.waiting.for_game(game).find(|&id| {
            let r = &self.conns[&id];
            id != me
                && (want.is_none() || r.sente.is_none() || r.sente == want)
                && r.name != c.name
                && self.suspended_for(game, &r.name).is_none()
        })
    }

    fn game_command(
        &mut self,
        conn: ConnId,
        challenge: bool,
        game: &str,
        turn: char,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let parsed = GameName::parse(game).filter(|g| g.name == game);
        if parsed.is_none() {
            Self::send(out, conn, format!("##[ERROR] bad game name: {game}.\n"));
            Self::send(
                out,
                conn,
                "##[ERROR] game name should consist of three parts like game-1500-60.\n",
            );
            return;
        }
        let c = self.conns.get_mut(&conn).expect("logged in");
        if !c.web
            && self
                .setups
                .iter()
                .any(|(name, setup)| name == game && setup.web_only)
        {
            Self::send(
                out,
                conn,
                format!("##[ERROR] the game {game} is played from the web page only\n"),
            );
            return;
        }
        if !matches!(c.status, Status::Connected | Status::GameWaiting) {
            let msg = format!(
                "##[ERROR] you are in {} status. GAME is valid in connected or game_waiting status\n",
                c.status.name()
            );
            Self::send(out, conn, msg);
            return;
        }
        let me = c.name.clone();
        if let Some(id) = self.suspended_for(game, &me) {
            return self.resume(conn, &id, now, out);
        }
        let c = self.conns.get_mut(&conn).expect("logged in");
        c.sente = match turn {
            '+' => Some(true),
            '-' => Some(false),
            _ => None,
        };
        if is_floodgate_name(game) && turn != '*' {
            Self::send(
                out,
                conn,
                format!(
                    "##[ERROR] You are not allowed to specify TEBAN {turn} for the game {game}\n"
                ),
            );
            return;
        }
        if c.sente.is_none() && parsed.as_ref().is_some_and(|g| g.handicap.is_some()) {
            Self::send(
                out,
                conn,
                "##[ERROR] Random turn preference is not allowed for handicapped games\n",
            );
            return;
        }
        let sente = c.sente;
        // Out of the queue of the game it waited for (if any) before naming the new one.
        self.set_status(conn, Status::Connected);
        let c = self.conns.get_mut(&conn).expect("logged in");
        c.sente = sente;
        c.game_name = game.to_string();
        match self.find_rival(conn, game) {
            Some(rival) if !is_buoy_name(game) || self.buoys.contains_key(game) => {
                self.pair(conn, turn, rival, game, now, out);
            }
            Some(_) => self.set_status(conn, Status::GameWaiting),
            None if challenge => {
                Self::send(
                    out,
                    conn,
                    format!("##[ERROR] can't find rival for {game}\n"),
                );
                let c = self.conns.get_mut(&conn).expect("logged in");
                c.game_name.clear();
                c.sente = None;
            }
            None => self.set_status(conn, Status::GameWaiting),
        }
    }

    /// Two players meet: decide colours as shogi-server does and propose the game.
    fn pair(
        &mut self,
        me: ConnId,
        my_turn: char,
        rival: ConnId,
        game: &str,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let rival_sente = self.conns[&rival].sente;
        let me_black = match (my_turn, rival_sente) {
            ('*', None) => self.coin(),
            (_, Some(true)) => false,
            (_, Some(false)) => true,
            ('+', None) => true,
            _ => false,
        };
        let (black, white) = if me_black { (me, rival) } else { (rival, me) };
        let mut initial = Vec::new();
        if is_buoy_name(game) {
            let b = self.buoys.get_mut(game).expect("checked by the caller");
            initial = split_moves(&b.moves).unwrap_or_default();
            b.count = b.count.saturating_sub(1);
            out.push(Output::Store(Change::Buoy {
                name: b.name.clone(),
                moves: b.moves.clone(),
                owner: b.owner.clone(),
                count: b.count,
            }));
            if b.count == 0 {
                self.buoys.remove(game);
            }
        }
        self.propose(game, [black, white], initial, None, now, out);
    }

    fn rules_for(&self, preset: Preset) -> (RuleSet, u32) {
        let rules = limited(
            preset.rules(),
            self.config.max_moves,
            self.config.strict_csa_server,
        );
        (rules, rules.move_limit.map_or(0, |l| l.plies))
    }

    /// Game_IDs already issued (by this server before a restart): none is issued again.
    /// Each is `<event>+<game>+<black>+<white>+YYYYMMDDhhmmss`; others are ignored.
    pub fn remember_game_ids(&mut self, ids: impl IntoIterator<Item = String>) {
        for id in ids {
            let Some((prefix, time)) = id.rsplit_once('+') else {
                continue;
            };
            let Ok(t) = chrono::NaiveDateTime::parse_from_str(time, "%Y%m%d%H%M%S") else {
                continue;
            };
            let prefix = format!("{prefix}+");
            let last = self.id_issued.entry(prefix).or_insert(t);
            *last = (*last).max(t);
        }
    }

    fn next_game_id(&mut self, game: &str, black: &str, white: &str, now: Now) -> String {
        let second = now.wall.with_nanosecond_zero();
        if second != self.id_second {
            self.id_issued.retain(|_, t| *t >= second);
            self.id_second = second;
        }
        let prefix = format!("{}+{game}+{black}+{white}+", self.config.event);
        let t = match self.id_issued.get(&prefix) {
            Some(&last) if last >= second => last + chrono::Duration::seconds(1),
            _ => second,
        };
        self.id_issued.insert(prefix.clone(), t);
        format!("{prefix}{}", t.format("%Y%m%d%H%M%S"))
    }

    fn propose(
        &mut self,
        game: &str,
        [black, white]: [ConnId; 2],
        initial: Vec<(String, u32)>,
        replay_of: Option<String>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let name = GameName::parse(game).expect("checked by the caller");
        let preset = preset_of_name(game).unwrap_or(self.config.rules);
        let setup = self
            .setups
            .iter()
            .find(|(n, _)| n == game)
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        let max_moves = setup.max_moves.unwrap_or_else(|| self.rules_for(preset).1);
        let names = [
            self.conns[&black].name.clone(),
            self.conns[&white].name.clone(),
        ];
        let id = self.next_game_id(game, &names[0], &names[1], now);
        let spec = GameSpec {
            id,
            name: game.to_string(),
            preset,
            names,
            max_moves,
            total: name.total_seconds,
            byoyomi: name.byoyomi_seconds,
            increment: name.increment_seconds,
            start: setup.start.unwrap_or_else(|| start_position(name.handicap)),
            initial_moves: initial,
            moves: Vec::new(),
            started_at: now.wall.format("%Y/%m/%d %H:%M:%S").to_string(),
            replay_of,
        };
        self.open(spec, [black, white], false, now, out);
    }

    /// Proposes a game, new or resumed, to its two players.
    fn open(
        &mut self,
        spec: GameSpec,
        players: [ConnId; 2],
        resumed: bool,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let mut rules =
            spec.with_move_limit(self.rules_for(spec.preset).0, self.config.strict_csa_server);
        if let Some(fouls) = fouls_of_name(&spec.name) {
            rules.fouls = fouls;
        }
        let control = TimeControl {
            main: u64::from(spec.total) * 1000,
            byoyomi: u64::from(spec.byoyomi) * 1000,
            increment: u64::from(spec.increment) * 1000,
            least_time_per_move: u64::from(self.config.least_time_per_move) * 1000,
            rounding: Rounding::FlooredSeconds,
        };
        let mut referee = Game::new(spec.start.clone(), rules);
        let mut remaining = [control.main; 2];
        let played = spec
            .initial_moves
            .iter()
            .map(|(m, _)| (m, None))
            .chain(spec.moves.iter().map(|(m, t)| (m, Some(*t))));
        for (m, charged) in played {
            let mover = referee.turn();
            let Ok((_, mv)) = gyoku_kifu::csa::parse_move(m, referee.position()) else {
                break;
            };
            if referee.play(mv).is_err() || referee.outcome().is_some() {
                break;
            }
            // Buoy moves cost nothing; a resumed game's moves cost what they were charged.
            if let Some(t) = charged {
                let r = &mut remaining[mover.index()];
                *r = (*r + control.increment).saturating_sub(t * 1000);
            }
        }
        let key = self.next_game;
        self.next_game += 1;
        let last_move = spec
            .moves
            .last()
            .map(|(m, _)| m.clone())
            .or_else(|| spec.initial_moves.last().map(|(m, _)| m.clone()))
            .unwrap_or_default();
        let [black, white] = players;
        let g = LiveGame {
            id: spec.id.clone(),
            name: spec.name.clone(),
            preset: spec.preset,
            players,
            names: spec.names,
            rating_ids: [
                self.conns[&black].rating_id.clone(),
                self.conns[&white].rating_id.clone(),
            ],
            clock: Clock::with_remaining(control, referee.turn(), remaining[0], remaining[1]),
            referee,
            phase: Phase::Agreeing {
                expires: now.mono + AGREE_TIMEOUT_MS,
            },
            start: spec.start,
            initial_moves: spec.initial_moves,
            moves: spec.moves.into_iter().map(|(m, t)| (m, t, None)).collect(),
            last_move,
            foul_text: None,
            started_at: spec.started_at,
            total: spec.total,
            byoyomi: spec.byoyomi,
            increment: spec.increment,
            max_moves: spec.max_moves,
            monitors: Vec::new(),
            resumed,
            replay_of: spec.replay_of,
            mated: false,
        };
        for (color, conn) in [(Color::Black, black), (Color::White, white)] {
            Self::send(out, conn, self.summary(&g, Some(color)).to_string());
            self.set_status(conn, Status::AgreeWaiting);
            let c = self
                .conns
                .get_mut(&conn)
                .expect("paired players are logged in");
            c.game = Some(key);
            c.sente = Some(color == Color::Black);
            c.game_name = spec.name.clone();
        }
        self.by_id.insert(spec.id, key);
        self.games.insert(key, g);
        self.schedule(key);
    }

    /// The Game_Summary for a player (`Some(colour)`) or a monitor (`None`, with the
    /// remaining times and the last move).
    fn summary(&self, g: &LiveGame, you: Option<Color>) -> GameSummary {
        let sign = |c: Color| record::sign(c).to_string();
        let declaration = match g.preset {
            Preset::Csa => "Jishogi 1.1".to_string(),
            p => format!("Gyoku {}", p.name()),
        };
        let mut fields = vec![
            ("Protocol_Version".to_string(), "1.2".to_string()),
            ("Protocol_Mode".into(), "Server".into()),
            ("Format".into(), "Shogi 1.0".into()),
            ("Declaration".into(), declaration),
            ("Game_ID".into(), g.id.clone()),
            ("Name+".into(), g.names[0].clone()),
            ("Name-".into(), g.names[1].clone()),
        ];
        if let Some(c) = you {
            fields.push(("Your_Turn".into(), sign(c)));
        }
        fields.push(("Rematch_On_Draw".into(), "NO".into()));
        fields.push(("To_Move".into(), sign(g.start.turn())));
        fields.push(("Max_Moves".into(), g.max_moves.to_string()));
        let time = SummaryTime {
            time_unit: Some("1sec".into()),
            total_time: Some(g.total.into()),
            byoyomi: Some(g.byoyomi.into()),
            increment: Some(g.increment.into()),
            least_time_per_move: Some(self.config.least_time_per_move.into()),
            ..SummaryTime::default()
        };
        let mut position: Vec<String> = gyoku_kifu::csa::board_text(&g.start)
            .lines()
            .map(str::to_string)
            .collect();
        for (m, t) in &g.initial_moves {
            position.push(format!("{m},T{t}"));
        }
        let time = if g.resumed && you.is_some() {
            // Each side's own time left, as `BEGIN Time+`/`Time-` blocks (ShogiHome and
            // CSA 1.2.1 clients read them).
            let side = |c: Color| SummaryTime {
                total_time: Some(g.clock.remaining(c) / 1000),
                ..time.clone()
            };
            SummaryTimes::PerSide(gyoku::ByColor::new(side(Color::Black), side(Color::White)))
        } else {
            SummaryTimes::Both(time)
        };
        if you.is_none() || g.resumed {
            for (m, t, _) in &g.moves {
                position.push(format!("{m},T{t}"));
            }
        }
        GameSummary {
            fields,
            time,
            position,
            trailer: Vec::new(),
        }
    }

    fn show(&self, g: &LiveGame, now: Now) -> String {
        let mut s = self.summary(g, None);
        let left = |c: Color| {
            let ms = if g.clock.turn() == c && matches!(g.phase, Phase::Playing) {
                g.clock
                    .time_left(now.mono)
                    .saturating_sub(u64::from(g.byoyomi) * 1000)
            } else {
                g.clock.remaining(c)
            };
            (ms / 1000).to_string()
        };
        s.trailer
            .push(("Remaining_Time+".into(), left(Color::Black)));
        s.trailer
            .push(("Remaining_Time-".into(), left(Color::White)));
        let last = g
            .moves
            .last()
            .map(|(m, t, _)| format!("{m},T{t}"))
            .unwrap_or_default();
        s.trailer.push(("Last_Move".into(), last));
        s.trailer.push((
            "Current_Turn".into(),
            (g.initial_moves.len() + g.moves.len()).to_string(),
        ));
        s.to_string()
    }
}

impl LiveGame {
    /// When the game needs the server next: the end of the agreement wait, or the side to
    /// move running out of time.
    fn deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Agreeing { expires } => Some(expires),
            Phase::Playing => self.clock.deadline(),
        }
    }

    /// What it takes to propose this game again.
    fn spec(&self) -> GameSpec {
        GameSpec {
            id: self.id.clone(),
            name: self.name.clone(),
            preset: self.preset,
            names: self.names.clone(),
            max_moves: self.max_moves,
            total: self.total,
            byoyomi: self.byoyomi,
            increment: self.increment,
            start: self.start.clone(),
            initial_moves: self.initial_moves.clone(),
            moves: self.moves.iter().map(|(m, t, _)| (m.clone(), *t)).collect(),
            started_at: self.started_at.clone(),
            replay_of: self.replay_of.clone(),
        }
    }

    /// `YYYY/MM/DD` of the game's start, the record's directory.
    fn started_at_dir(&self) -> String {
        self.started_at
            .get(..10)
            .unwrap_or("0000/00/00")
            .to_string()
    }
}

/// Plays CSA moves from `start`; `None` if one is not legal.
fn play_moves(start: &Position, moves: &[(String, u32)]) -> Option<Position> {
    let mut pos = start.clone();
    for (m, _) in moves {
        let (mover, mv) = gyoku_kifu::csa::parse_move(m, &pos).ok()?;
        if mover != pos.turn() {
            return None;
        }
        pos.play(mv).ok()?;
    }
    Some(pos)
}

/// What each side is told at an ending, and what the record and storage say.
struct EndLines {
    players: [String; 2],
    monitor: String,
    record_end: Option<&'static str>,
    summary: &'static str,
    results: [&'static str; 2],
    result: Option<&'static str>,
    reason: &'static str,
}

fn end_lines(g: &LiveGame, ending: &Ending) -> EndLines {
    // CSA's end line for a foul, naming the side that lost by it (a record keeps the foul
    // as shogi-server's `'ILLEGAL_MOVE(…)` comment, which Gyoku reads back as the move).
    let foul_by = |result: GameResult| match result {
        GameResult::Win(Color::White) => Some("%+ILLEGAL_ACTION"),
        GameResult::Win(Color::Black) => Some("%-ILLEGAL_ACTION"),
        _ => None,
    };
    let (reason_lines, result, record_end, summary, code): (
        &str,
        Option<GameResult>,
        Option<&'static str>,
        &'static str,
        &'static str,
    ) = match ending {
        Ending::Left(color) => (
            "%TORYO\n#RESIGN\n",
            Some(GameResult::Win(!*color)),
            Some("%TORYO"),
            "abnormal",
            "abnormal",
        ),
        Ending::Suspended => ("#CHUDAN\n", None, Some("%CHUDAN"), "chudan", "chudan"),
        Ending::Decided(o) => {
            let r = Some(o.result);
            match &o.reason {
                EndReason::Checkmate | EndReason::NoLegalMove => {
                    // The protocol has no word for mate (shogi-server never sees one):
                    // the result lines alone, which every client reads (python-shogi
                    // refuses any reason line it does not know). The record says %TSUMI.
                    ("", r, Some("%TSUMI"), "checkmate", o.reason.code())
                }
                EndReason::Resignation { .. } => (
                    "%TORYO\n#RESIGN\n",
                    r,
                    Some("%TORYO"),
                    "toryo",
                    "resignation",
                ),
                EndReason::IllegalMove { kind, .. } => (
                    "#ILLEGAL_MOVE\n",
                    r,
                    foul_by(o.result),
                    match kind {
                        IllegalMoveKind::Uchifuzume => "uchifuzume",
                        IllegalMoveKind::KingInCheck => "oute_kaihimore",
                        _ => "illegal move",
                    },
                    "illegal_move",
                ),
                EndReason::Forfeit { .. } if g.foul_text.as_deref() == Some("%KACHI") => (
                    "%KACHI\n#ILLEGAL_MOVE\n",
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Forfeit { .. } => (
                    "#ILLEGAL_MOVE\n",
                    r,
                    foul_by(o.result),
                    "illegal move",
                    "illegal_move",
                ),
                EndReason::FailedDeclaration { .. } => (
                    "%KACHI\n#ILLEGAL_MOVE\n",
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Declaration { .. } => (
                    "%KACHI\n#JISHOGI\n",
                    r,
                    Some("%KACHI"),
                    "kachi",
                    "declaration",
                ),
                EndReason::AutomaticImpasse { .. } => {
                    ("#JISHOGI\n", r, None, "jishogi", "automatic_impasse")
                }
                EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => (
                    "#JISHOGI\n",
                    r,
                    Some("%JISHOGI"),
                    "jishogi",
                    o.reason.code(),
                ),
                EndReason::Sennichite { .. } => (
                    "#SENNICHITE\n",
                    r,
                    Some("%SENNICHITE"),
                    "sennichite",
                    "sennichite",
                ),
                EndReason::PerpetualCheck { .. } => (
                    "#OUTE_SENNICHITE\n",
                    r,
                    foul_by(o.result),
                    "oute_sennichite",
                    "perpetual_check",
                ),
                EndReason::Try { .. } => ("#TRY\n", r, Some("%TRY"), "try", "try"),
                EndReason::MoveLimit { .. } => (
                    "#MAX_MOVES\n",
                    r,
                    Some("%MAX_MOVES"),
                    "max_moves",
                    "move_limit",
                ),
                EndReason::TimeUp { .. } => {
                    ("#TIME_UP\n", r, Some("%TIME_UP"), "time up", "time_up")
                }
            }
        }
    };
    let max_moves =
        matches!(ending, Ending::Decided(o) if matches!(o.reason, EndReason::MoveLimit { .. }));
    let per_side = |c: Color| -> (&'static str, &'static str) {
        match result {
            Some(GameResult::Win(w)) if w == c => ("#WIN\n", "win"),
            Some(GameResult::Win(_)) => ("#LOSE\n", "lose"),
            Some(_) if max_moves => ("#CENSORED\n", "draw"),
            Some(_) => ("#DRAW\n", "draw"),
            None => ("", "suspended"),
        }
    };
    let (b, bw) = per_side(Color::Black);
    let (w, ww) = per_side(Color::White);
    EndLines {
        players: [format!("{reason_lines}{b}"), format!("{reason_lines}{w}")],
        monitor: if reason_lines.is_empty() {
            summary.to_string()
        } else {
            reason_lines.trim_end().replace('\n', " ")
        },
        record_end,
        summary,
        results: [bw, ww],
        result: result.map(GameResult::code),
        reason: code,
    }
}

trait NanosZero {
    fn with_nanosecond_zero(self) -> Self;
}

impl NanosZero for chrono::NaiveDateTime {
    fn with_nanosecond_zero(self) -> Self {
        use chrono::Timelike;
        self.with_nanosecond(0).unwrap_or(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Now {
        Now {
            mono: 0,
            wall: chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap(),
        }
    }

    /// A lobby driven by inputs, as the driver would, with what it answers read back.
    struct Transcript {
        lobby: Lobby,
        now: Now,
    }

    impl Transcript {
        fn new() -> Transcript {
            Transcript {
                lobby: Lobby::new(Config::default(), Vec::new(), Vec::new()),
                now: at("2026-11-23 10:00:00.000"),
            }
        }

        fn input(&mut self, input: Input) -> Vec<Output> {
            let mut out = Vec::new();
            self.lobby.handle(input, self.now, &mut out);
            out
        }

        fn login_x1(&mut self, id: ConnId, name: &str) {
            self.input(Input::LoggedIn(
                id,
                CheckedLogin {
                    name: name.into(),
                    x1: true,
                    rating_id: None,
                    game: None,
                    web: false,
                },
            ));
        }

        /// What `line` from `id` makes the lobby send, to whom.
        fn line(&mut self, id: ConnId, line: &str) -> Vec<(ConnId, String)> {
            self.input(Input::Line(id, line.into()))
                .into_iter()
                .filter_map(|o| match o {
                    Output::Send(to, text) => Some((to, text)),
                    _ => None,
                })
                .collect()
        }
    }

    /// Issue 26: `--max-moves` made a limit of its own, dropping the JSA check extension
    /// and its no contest; every limit now goes through the core's `set_max_moves`.
    #[test]
    fn a_server_move_limit_keeps_the_presets_way_at_the_limit() {
        use gyoku::rules::Resolution;
        let lobby = Lobby::new(
            Config {
                max_moves: Some(600),
                ..Config::default()
            },
            Vec::new(),
            Vec::new(),
        );
        let (rules, plies) = lobby.rules_for(Preset::Jsa);
        let limit = rules.move_limit.unwrap();
        assert_eq!(plies, 600);
        assert_eq!(
            (limit.plies, limit.check_extension, limit.result),
            (600, true, Resolution::NoContest)
        );
        let (rules, plies) = lobby.rules_for(Preset::Csa);
        assert_eq!(
            (plies, rules.move_limit.unwrap().result),
            (600, Resolution::Draw)
        );
        let none = Lobby::new(
            Config {
                max_moves: Some(0),
                ..Config::default()
            },
            Vec::new(),
            Vec::new(),
        );
        let (rules, plies) = none.rules_for(Preset::Jsa);
        assert_eq!((rules.move_limit, plies), (None, 0));
    }

    /// Issue 28, item 7: `%%CHAT` relayed ESC, BEL, BS and NUL to every x1 client.
    #[test]
    fn chat_control_bytes_are_shown_escaped_never_sent() {
        let mut t = Transcript::new();
        t.login_x1(1, "alice");
        t.login_x1(2, "bob");
        let sent = t.line(1, "%%CHAT hi \x1b[2J\x07\x08\0 there");
        assert_eq!(sent.len(), 2, "{sent:?}");
        for (_, text) in &sent {
            assert_eq!(text, "##[CHAT][alice] hi \\x1b[2J\\x07\\x08\\x00 there\n");
            assert!(
                !text.contains(|c: char| c.is_control() && c != '\n'),
                "{text:?}"
            );
        }
    }

    /// Issue 28, item 16: `%%SETBUOY` had no bound (20,000 buoys in 1.9 s, 168 MB).
    #[test]
    fn buoys_are_bounded_per_player() {
        let mut t = Transcript::new();
        t.login_x1(1, "alice");
        t.login_x1(2, "bob");
        for i in 0..MAX_BUOYS_PER_PLAYER {
            let sent = t.line(1, &format!("%%SETBUOY buoy_{i}-600-10 +7776FU 1"));
            assert_eq!(sent, [(1, "##[SETBUOY] +OK\n".to_string())], "{i}");
        }
        let sent = t.line(1, "%%SETBUOY buoy_more-600-10 +7776FU 1");
        assert!(
            sent[0].1.starts_with("##[ERROR] too many buoy games"),
            "{sent:?}"
        );
        assert_eq!(t.lobby.buoys.len(), MAX_BUOYS_PER_PLAYER);
        // Another player may still set one.
        let sent = t.line(2, "%%SETBUOY buoy_bob-600-10 +7776FU 1");
        assert_eq!(sent, [(2, "##[SETBUOY] +OK\n".to_string())]);
    }

    #[test]
    fn game_ids_follow_the_clock_and_never_repeat() {
        let mut lobby = Lobby::new(Config::default(), Vec::new(), Vec::new());
        let t = at("2026-11-23 10:00:00.250");
        // Many games in one second: each keeps the second (their names differ).
        for i in 0..1000 {
            let id = lobby.next_game_id("g-600-10", &format!("b{i}"), &format!("w{i}"), t);
            assert!(id.ends_with("+20261123100000"), "{id}");
        }
        // The same game and players twice in one second: the second one a second on.
        let a = lobby.next_game_id("g-600-10", "b", "w", t);
        let b = lobby.next_game_id("g-600-10", "b", "w", at("2026-11-23 10:00:00.900"));
        assert_eq!(a, "gyoku+g-600-10+b+w+20261123100000");
        assert_eq!(b, "gyoku+g-600-10+b+w+20261123100001");
        // Later, the clock again; what a past second gave is forgotten.
        let c = lobby.next_game_id("g-600-10", "b", "w", at("2026-11-23 10:00:05.000"));
        assert_eq!(c, "gyoku+g-600-10+b+w+20261123100005");
        assert_eq!(lobby.id_issued.len(), 1);
    }

    /// A server started again in the second its last game started issued that Game_ID
    /// again, and the store's refusal stopped the server. The IDs it issued are remembered.
    #[test]
    fn game_ids_issued_before_a_restart_are_not_issued_again() {
        let mut lobby = Lobby::new(Config::default(), Vec::new(), Vec::new());
        lobby.remember_game_ids([
            "gyoku+g-600-10+b+w+20261123100000".to_string(),
            "gyoku+g-600-10+b+w+20261123100001".to_string(),
            "not an id".to_string(),
        ]);
        let t = at("2026-11-23 10:00:00.500");
        assert_eq!(
            lobby.next_game_id("g-600-10", "b", "w", t),
            "gyoku+g-600-10+b+w+20261123100002"
        );
        assert_eq!(
            lobby.next_game_id("g-600-10", "x", "y", t),
            "gyoku+g-600-10+x+y+20261123100000"
        );
    }
}
