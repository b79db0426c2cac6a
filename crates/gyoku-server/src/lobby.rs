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
    ClientMessage, EndResult, GameEnd, GameName, GameSummary, SummaryTime, SummaryTimes, X1Command,
};
use gyoku_proto::csa_line::{EchoedMove, Reason, ServerLine, X1Tag};

use change::{Change, StartedGame, StoredBuoy};

mod announce;
mod buoys;
pub mod change;
#[cfg(test)]
mod clock_rules;
mod conns;
mod index;
mod matching;
mod names;
pub mod record;
#[cfg(test)]
mod record_endings;
mod room;
mod spec;
#[cfg(test)]
mod tests;
mod x1;

use announce::end_lines;
use conns::{Conn, Status};
pub use names::{NamedRules, rules_of_name};
use names::{is_buoy_name, is_floodgate_name};
use room::{Ending, GameLine, LiveGame, Phase};
pub use spec::{GameSpec, split_moves, start_position};
use spec::{fouls_name, limited, play_moves};

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
    /// The rules, instead of what the name chooses or the server's.
    pub preset: Option<Preset>,
    /// What illegal moves do, instead of what the name chooses or the preset's way.
    pub fouls: Option<Fouls>,
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

    pub(super) fn coin(&mut self) -> bool {
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
    pub(super) fn schedule(&mut self, key: u64) {
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

    /// Sends one line.
    pub(super) fn tell(out: &mut Vec<Output>, conn: ConnId, line: ServerLine) {
        out.push(Output::Send(conn, format!("{line}\n")));
    }

    /// Sends lines in one write.
    pub(super) fn tell_lines(
        out: &mut Vec<Output>,
        conn: ConnId,
        lines: impl IntoIterator<Item = ServerLine>,
    ) {
        let mut text = String::new();
        for line in lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        out.push(Output::Send(conn, text));
    }
}

/// The line that ends an x1 command's reply (`##[WHO] +OK`).
fn ok(tag: X1Tag) -> ServerLine {
    ServerLine::X1 {
        tag,
        text: "+OK".into(),
    }
}

/// A monitored game's line (`##[MONITOR2][<Game_ID>] <text>`).
fn monitor(game_id: &str, text: String) -> ServerLine {
    ServerLine::Monitor {
        game_id: game_id.to_string(),
        text,
    }
}
