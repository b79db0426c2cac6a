//! What the lobby is told and what it says: the driver's [`Input`]s, the [`Output`]s it
//! carries out, the lobby's settings and bounds, and the way a CSA line becomes output.

use gyoku::rules::Fouls;
use gyoku::{Color, Position, Preset};
use gyoku_proto::csa::{ClientMessage, GameSummary};
use gyoku_proto::csa_line::{ServerLine, X1Tag};

use super::change::Change;
use crate::identity::{GameName, Identity};

/// A connection, numbered by the driver.
pub type ConnId = u64;

/// Milliseconds on the driver's monotonic clock (the core clock's unit).
pub use gyoku::Millis;

/// Buoy games one player may have set at once (`%%SETBUOY`, `%%FORK`).
pub const MAX_BUOYS_PER_PLAYER: usize = 100;

/// Buoy games on the server at once.
pub const MAX_BUOYS: usize = 10_000;

/// Buoy games one address may set while the server runs (one person with many names
/// filled the server's 10,000 in 4.3 s: issue 43).
pub const MAX_BUOYS_PER_ADDRESS: usize = 200;

/// How long players may take to agree to a proposed game (shogi-server's 120 s).
pub const AGREE_TIMEOUT_MS: Millis = 120_000;

/// Gyoku's own line, on either turn: propose an impasse count, or accept the other
/// player's proposal (rules with an agreement, as JSA's 持将棋).
pub const IMPASSE_LINE: &str = "%%IMPASSE";

/// Gyoku's own line, on either turn: propose a sennichite by agreement before the fourth
/// occurrence, or accept the other player's proposal (rules that allow one, as the JSA's
/// since 2019-10-01).
pub const SENNICHITE_LINE: &str = "%%SENNICHITE";

/// Gyoku's own line, under fouls that stand only when claimed: claim the foul the other
/// player has just made, before one's own next move.
pub const CLAIM_LINE: &str = "%%CLAIM";

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
    /// How long a player whose connection dropped mid-game may take to come back
    /// (`reconnect:`), ms; 0: none, the player loses at once (shogi-server's way).
    pub reconnect_grace_ms: Millis,
    /// Reproduce shogi-server where Gyoku differs (no mate detection on the last move
    /// before the limit, `%CHUDAN` an illegal move).
    pub strict_csa_server: bool,
    /// Game names played in scheduled rounds, as Floodgate's: their players wait for the
    /// round time, then are paired all at once by rating.
    pub schedules: Vec<(String, super::schedule::Schedule)>,
    /// Organised events, as storage had them at start (an event not yet begun has no
    /// entries).
    pub events: Vec<crate::event::Event>,
    /// The seed of the coin random colours are tossed with; a random one when `None`
    /// (a test or a replayed transcript gives one to toss the same way each run).
    pub seed: Option<u64>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            event: "gyoku".into(),
            rules: Preset::Csa,
            max_moves: None,
            least_time_per_move: 0,
            reconnect_grace_ms: 0,
            strict_csa_server: false,
            schedules: Vec::new(),
            events: Vec::new(),
            seed: None,
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
    /// Unix time in milliseconds: when a game's clock started, stored so that every
    /// instance's view counts the running clock from the true start.
    pub utc_ms: i64,
}

/// A login the driver has checked (the password against the name's stored hash, or a
/// ticket the web page gave out).
#[derive(Clone, Debug)]
pub struct CheckedLogin {
    /// Who it is. Only a player from the web page ([`Identity::Web`], [`Identity::Engine`])
    /// may join a game made on the page ([`GameSetup::web_only`]).
    pub who: Identity,
    /// x1 mode.
    pub x1: bool,
    /// CSA mode: the game to join (default `default-1500-0`) and the turn asked for.
    pub game: Option<(GameName, Option<Color>)>,
    /// Where it connected from (`None`: from inside the server, a web seat): what one
    /// address may make is bounded (buoys).
    pub address: Option<std::net::IpAddr>,
    /// A player taking up its game again (`reconnect:<game_id>+<token>`, issue 42).
    pub reconnect: Option<gyoku_proto::csa::Reconnect>,
}

/// What happened.
#[derive(Clone, Debug)]
pub enum Input {
    /// A connection logged in.
    LoggedIn(ConnId, CheckedLogin),
    /// A logged-in connection sent a line.
    Line(ConnId, String),
    /// A logged-in connection inside the server sent a message, as a value (what a line
    /// is read as; a keep-alive gets no answer).
    Message(ConnId, ClientMessage),
    /// A player inside the server (a web seat) plays a move, as a value: on its turn
    /// only (out of it: `##[ERROR] not your turn`).
    Play(ConnId, gyoku::Move),
    /// A connection closed (or its client sent `LOGOUT`, answered already).
    Closed(ConnId),
    /// Time passed: check clocks and agreement deadlines.
    Tick,
    /// Storage fails (a commit failed, or is taking long): what the games decide is kept
    /// and told once it is stored, and every running clock stops until it works again.
    StorageFailing,
    /// Storage works again: the clocks go on.
    StorageWorks,
    /// The rating list, computed from the stored games (by player id: rating id, else
    /// name), for scheduled rounds' pairings and `%%RATING`.
    Ratings(Ratings),
    /// An operator acts on an event (through the admin endpoint, its token checked). The
    /// answer, one JSON line (`{"ok": true, "status"}` or `{"ok": false, "error"}`), goes
    /// to `reply`, a connection registered for it, which is closed then.
    EventAdmin {
        /// Where the answer goes.
        reply: ConnId,
        /// The event's name.
        event: String,
        /// What to do.
        action: super::EventAction,
    },
    /// Games of this name are set up so (a game made on the web page). Kept until a game
    /// of the name ends without a replay; at most [`MAX_SETUPS`] names at once.
    Setup {
        /// The game name.
        game: String,
        /// How its games are set up (boxed: a position is large, inputs are many).
        setup: Box<GameSetup>,
    },
}

/// Ratings by player id (rating id, else name), as the driver last computed them.
pub type Ratings = std::collections::HashMap<String, i64>;

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
    /// Joined only by the web page's players ([`CheckedLogin::who`]): a CSA client that
    /// names the game is refused, so no one takes an invited friend's place.
    pub web_only: bool,
    /// Byoyomi periods and thinking-time units.
    pub clock: super::clock_extras::ClockExtras,
}

/// Game names with a start of their own ([`Input::Setup`]) kept at once; the oldest goes.
pub const MAX_SETUPS: usize = 4096;

/// What to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Send lines to a connection, in one write (formatted as text only by a socket's
    /// writer: a connection inside the server reads the values).
    Send(ConnId, Vec<ServerLine>),
    /// Send a game's `Game_Summary` block to a connection (its player's own).
    Summary(ConnId, Box<GameSummary>),
    /// Answer a request on the connection made for it ([`Input::EventAdmin`]).
    Reply(ConnId, Reply),
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

/// The lobby's answer to a request, as a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// An operator's action on an event ([`Input::EventAdmin`]): the event's status after
    /// it (`running`, `paused` …), or why it was refused.
    EventAdmin(Result<&'static str, String>),
}

/// Sends one line.
pub(super) fn tell(out: &mut Vec<Output>, conn: ConnId, line: ServerLine) {
    out.push(Output::Send(conn, vec![line]));
}

/// Sends lines in one write.
pub(super) fn tell_lines(
    out: &mut Vec<Output>,
    conn: ConnId,
    lines: impl IntoIterator<Item = ServerLine>,
) {
    out.push(Output::Send(conn, lines.into_iter().collect()));
}

/// The line that ends an x1 command's reply (`##[WHO] +OK`).
pub(super) fn ok(tag: X1Tag) -> ServerLine {
    ServerLine::X1 {
        tag,
        text: "+OK".into(),
    }
}

/// A monitored game's line (`##[MONITOR2][<Game_ID>] <text>`).
pub(super) fn monitor(game_id: &str, text: String) -> ServerLine {
    ServerLine::Monitor {
        game_id: game_id.to_string(),
        text,
    }
}
