//! What the rest of the server asks of storage: three small traits, one per kind of user
//! (the driver's [`Journal`], the web's [`Archive`], the accounts' [`Passwords`]), and the
//! rows they hand back. Both backends implement all three as a [`Backend`].
//!
//! The traits are synchronous (both database drivers are) and object-safe: every call runs
//! on a blocking thread, and each user holds one `Box<dyn …>` of just what it needs.

use crate::identity::PlayerKind;
use crate::lobby::change::{Change, StartedGame, StoredBuoy};

/// A stored move: its CSA text and the seconds it was charged.
pub type StoredMove = (String, u64);

/// A game's players as [`Journal::games_named`] gives them: Black's and White's names and
/// rating ids.
pub type NamedGame = ([String; 2], [Option<String>; 2]);

/// A game as listed for spectators (the HTTP API's `GET /api/games`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedGame {
    /// The Game_ID.
    pub id: String,
    /// The game name (`floodgate-300-10F`).
    pub name: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The rules' preset name.
    pub rules: String,
    /// `playing`, `suspended` or `finished`.
    pub status: String,
    /// The result, if finished.
    pub result: Option<String>,
    /// The reason code, if ended.
    pub reason: Option<String>,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub started_at: String,
    /// When it ended.
    pub ended_at: Option<String>,
    /// Moves stored (after the initial moves).
    pub moves: u32,
    /// The main time, byoyomi and increment, in seconds.
    pub total_time: u32,
    /// The byoyomi, in seconds.
    pub byoyomi: u32,
    /// The increment, in seconds.
    pub increment: u32,
}

/// Which games a listing shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// Text found (any case) in either player's name, the game's name or its Game_ID;
    /// empty for every game.
    pub text: String,
    /// `playing`, `suspended` or `finished`; `None` for any.
    pub status: Option<String>,
}

/// A finished game as ratings read it (`gyoku ratings --db`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedGame {
    /// The Game_ID.
    pub id: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// Black's and White's public rating ids (`name+trip`), when they logged in with a
    /// password.
    pub rating_ids: [Option<String>; 2],
    /// `black`, `white`, `draw`, or none (no contest).
    pub result: Option<String>,
    /// The reason code.
    pub reason: String,
    /// When it ended (`YYYY/MM/DD HH:MM:SS`).
    pub ended_at: Option<String>,
    /// Moves stored.
    pub moves: u32,
    /// Black's and White's kinds: a CSA client, a person on the page, an engine.
    pub kinds: [PlayerKind; 2],
}

/// One game for the HTTP API: how it was set up, where it stands, its moves, and its
/// record when it has ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDetail {
    /// How it was set up.
    pub game: StartedGame,
    /// Its listing.
    pub listed: ListedGame,
    /// Its moves.
    pub moves: Vec<StoredMove>,
    /// Each move's comment, in the same order (an engine's `* <eval> <pv>`, or none).
    pub comments: Vec<Option<String>>,
    /// Its CSA record, once it has ended.
    pub record: Option<String>,
    /// When the clock of the side to move started, in Unix milliseconds (the latest of the
    /// game's start, its resumption and its last move); `None` for a game stored before
    /// it was kept.
    pub turn_started_ms: Option<i64>,
}

/// Why storage failed, by kind: the referee stops on [`StoreError::ClaimTaken`], the HTTP
/// API answers a conflict otherwise than an outage, and every kind says what and where.
/// `Display` writes `storage: ` and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The database cannot be opened or reached (its place, passwords hidden, and why).
    Unreachable(String),
    /// The database's schema is newer than this build knows.
    SchemaTooNew {
        /// The version stored.
        found: usize,
        /// The newest this build knows.
        known: usize,
    },
    /// Another `gyoku serve` holds the database (its lock file, its advisory lock).
    ClaimTaken(String),
    /// What was to be written conflicts with what is stored.
    Conflict(String),
    /// A stored value does not read as what it should be.
    Unreadable(String),
    /// The database failed a statement, or the connection to it broke.
    Sql(String),
    /// The store could not do its own work (a thread, randomness, hashing).
    Internal(String),
}

impl StoreError {
    /// A stable code for the kind: `unreachable`, `schema_too_new`, `claim_taken`,
    /// `conflict`, `unreadable`, `sql`, `internal`.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Unreachable(_) => "unreachable",
            StoreError::SchemaTooNew { .. } => "schema_too_new",
            StoreError::ClaimTaken(_) => "claim_taken",
            StoreError::Conflict(_) => "conflict",
            StoreError::Unreadable(_) => "unreadable",
            StoreError::Sql(_) => "sql",
            StoreError::Internal(_) => "internal",
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("storage: ")?;
        match self {
            StoreError::SchemaTooNew { found, known } => write!(
                f,
                "the database has schema version {found}, newer than this gyoku's {known}"
            ),
            StoreError::Unreachable(m)
            | StoreError::ClaimTaken(m)
            | StoreError::Conflict(m)
            | StoreError::Unreadable(m)
            | StoreError::Sql(m)
            | StoreError::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for StoreError {}

/// What the referee loop keeps, and what it takes up again at start.
pub trait Journal: Send + std::fmt::Debug {
    /// Commits `batch` in one transaction: all of it or none.
    ///
    /// # Errors
    /// [`StoreError`]; nothing of the batch is stored then.
    fn commit(&mut self, batch: &[Change]) -> Result<(), StoreError>;

    /// Marks the games that were being played when the server stopped as suspended, and
    /// returns how many there were.
    ///
    /// # Errors
    /// [`StoreError`].
    fn suspend_unfinished(&mut self) -> Result<usize, StoreError>;

    /// Every suspended game with its moves, oldest first.
    ///
    /// # Errors
    /// [`StoreError`].
    fn suspended_games(&mut self) -> Result<Vec<(StartedGame, Vec<StoredMove>)>, StoreError>;

    /// The players of the latest `limit` games named `name`, oldest first: Black's and
    /// White's names, then their rating ids as stored (`""`: logged in without a password;
    /// none: not kept).
    ///
    /// # Errors
    /// [`StoreError`].
    fn games_named(&mut self, name: &str, limit: u32) -> Result<Vec<NamedGame>, StoreError>;

    /// An organised event's stored entries (JSON), in order.
    ///
    /// # Errors
    /// [`StoreError`].
    fn event_entries(&mut self, event: &str) -> Result<Vec<String>, StoreError>;

    /// Every stored buoy, by name.
    ///
    /// # Errors
    /// [`StoreError`].
    fn buoys(&mut self) -> Result<Vec<StoredBuoy>, StoreError>;

    /// The Game_IDs of the games started at `since` (`YYYY/MM/DD HH:MM:SS`) or later: a
    /// restarted server issues none of them again.
    ///
    /// # Errors
    /// [`StoreError`].
    fn game_ids_since(&mut self, since: &str) -> Result<Vec<String>, StoreError>;
}

/// Where a game's analysis stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisJob {
    /// `queued`, `running`, `done` or `failed`.
    pub status: String,
    /// The engine's name on this server.
    pub engine: String,
    /// Its time a position, in milliseconds.
    pub movetime_ms: u64,
    /// When it was asked for (`YYYY/MM/DD HH:MM:SS`).
    pub requested_at: String,
    /// Why it failed.
    pub error: Option<String>,
    /// The start of the positions it covers (SFEN).
    pub start_sfen: String,
    /// The moves from there (USI, space-separated).
    pub moves: String,
}

/// What an analysis covers: the start (SFEN) and the moves from it (USI, space-separated).
#[derive(Clone, Copy, Debug)]
pub struct AnalysedLine<'a> {
    /// The start's SFEN.
    pub start_sfen: &'a str,
    /// The moves.
    pub moves: &'a str,
}

/// One position of a game, analysed: the position after `ply` plies (0: the start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysedPly {
    /// Plies played before it.
    pub ply: u32,
    /// The evaluation from Black's side, in centipawns (a mate as ±30000); none when the
    /// engine gave no score.
    pub score: Option<i64>,
    /// The engine's best move there (USI); none when it resigned or had no move.
    pub best: Option<String>,
    /// Its principal variation (USI, space-separated; at most a few moves).
    pub pv: String,
}

/// What spectators read, and the record files written again at start; and the games'
/// analyses.
pub trait Archive: Send + std::fmt::Debug {
    /// The `limit` games spectators see first: those being played, then the latest.
    ///
    /// # Errors
    /// [`StoreError`].
    fn recent_games(&mut self, limit: u32) -> Result<Vec<ListedGame>, StoreError> {
        Ok(self.listed_games(&GameFilter::default(), limit, 0)?.0)
    }

    /// The games `filter` keeps, in the order of [`Archive::recent_games`], `offset` of
    /// them skipped and at most `limit` shown, with how many it keeps in all.
    ///
    /// # Errors
    /// [`StoreError`].
    fn listed_games(
        &mut self,
        filter: &GameFilter,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<ListedGame>, u64), StoreError>;

    /// One game, its moves and (once ended) its record.
    ///
    /// # Errors
    /// [`StoreError`].
    fn game(&mut self, id: &str) -> Result<Option<GameDetail>, StoreError>;

    /// A game's stored moves, in order.
    ///
    /// # Errors
    /// [`StoreError`].
    fn moves(&mut self, game_id: &str) -> Result<Vec<StoredMove>, StoreError>;

    /// The first `limit` finished games, in the order they ended.
    ///
    /// # Errors
    /// [`StoreError`].
    fn finished_games(&mut self, limit: u32) -> Result<Vec<FinishedGame>, StoreError>;

    /// The record files of the `limit` games that ended last: relative path and text.
    ///
    /// # Errors
    /// [`StoreError`].
    fn latest_records(&mut self, limit: u32) -> Result<Vec<(String, String)>, StoreError>;

    /// `name`'s games (as Black or White), the latest started first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`].
    fn player_games(&mut self, name: &str, limit: u32) -> Result<Vec<ListedGame>, StoreError>;

    /// `name`'s finished games counted by outcome (`win`, `loss`, `draw`, `no_contest`)
    /// and reason.
    ///
    /// # Errors
    /// [`StoreError`].
    fn player_results(&mut self, name: &str) -> Result<Vec<(String, String, u64)>, StoreError>;

    /// Keeps each rated player's rate as the list computed at `at` has it (a time kept
    /// already is left as it is).
    ///
    /// # Errors
    /// [`StoreError`].
    fn keep_ratings(&mut self, at: &str, rates: &[(String, i64)]) -> Result<(), StoreError>;

    /// A rating id's rates over time, oldest first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`].
    fn rating_history(&mut self, id: &str, limit: u32) -> Result<Vec<(String, i64)>, StoreError>;

    /// Asks for the analysis of `line` (a game's, by its Game_ID, or a judged record's, by
    /// `record-` and its digest) by `engine` at `movetime_ms` a position: queued unless it
    /// is queued, running or done already (a failed one is queued again). The job as it
    /// stands, and whether this request queued it.
    ///
    /// # Errors
    /// [`StoreError`].
    fn request_analysis(
        &mut self,
        game_id: &str,
        by: (&str, u64),
        line: AnalysedLine<'_>,
        now: &str,
    ) -> Result<(AnalysisJob, bool), StoreError>;

    /// Sets an analysis job's status (`running`, `done`, `failed` with `error`).
    ///
    /// # Errors
    /// [`StoreError`].
    fn set_analysis_status(
        &mut self,
        game_id: &str,
        status: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError>;

    /// Keeps one analysed position (kept once: the same again changes nothing).
    ///
    /// # Errors
    /// [`StoreError`].
    fn keep_analysed_ply(&mut self, game_id: &str, ply: &AnalysedPly) -> Result<(), StoreError>;

    /// A game's analysis: its job and the positions analysed so far; `None` when none was
    /// asked for.
    ///
    /// # Errors
    /// [`StoreError`].
    fn analysis(
        &mut self,
        game_id: &str,
    ) -> Result<Option<(AnalysisJob, Vec<AnalysedPly>)>, StoreError>;

    /// The games whose analysis is queued or running, oldest first (at most `limit`).
    ///
    /// # Errors
    /// [`StoreError`].
    fn pending_analyses(&mut self, limit: u32) -> Result<Vec<String>, StoreError>;

    /// Keeps a new engine test, `running`; `false` when one of that name is kept already.
    ///
    /// # Errors
    /// [`StoreError`].
    fn create_engine_test(&mut self, name: &str, spec: &str, now: &str)
    -> Result<bool, StoreError>;

    /// Sets an engine test's status (`running`, `stopped`, `finished`), when it ended and
    /// its decision (JSON).
    ///
    /// # Errors
    /// [`StoreError`].
    fn set_engine_test_status(
        &mut self,
        name: &str,
        status: &str,
        ended_at: Option<&str>,
        decision: Option<&str>,
    ) -> Result<(), StoreError>;

    /// Every engine test, oldest first.
    ///
    /// # Errors
    /// [`StoreError`].
    fn engine_tests(&mut self) -> Result<Vec<StoredTest>, StoreError>;

    /// Keeps a test's judged game with its record; `false` when that number is kept
    /// already (the first upload counts).
    ///
    /// # Errors
    /// [`StoreError`].
    fn keep_test_game(&mut self, game: &TestGame, record: &str) -> Result<bool, StoreError>;

    /// A test's games, by number (their records left out).
    ///
    /// # Errors
    /// [`StoreError`].
    fn test_games(&mut self, test: &str) -> Result<Vec<TestGame>, StoreError>;

    /// The CSA record of a test's game.
    ///
    /// # Errors
    /// [`StoreError`].
    fn test_game_record(&mut self, test: &str, number: u32) -> Result<Option<String>, StoreError>;
}

/// An engine test as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTest {
    /// Its name.
    pub name: String,
    /// What it is, as JSON.
    pub spec: String,
    /// `running`, `stopped` or `finished`.
    pub status: String,
    /// When it was made (`YYYY/MM/DD HH:MM:SS`).
    pub created_at: String,
    /// When it ended.
    pub ended_at: Option<String>,
    /// Its decision, as JSON.
    pub decision: Option<String>,
}

/// A test's game as a worker uploaded it and the server judged it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestGame {
    /// The test's name.
    pub test: String,
    /// The game's number, from 1 (games `2k+1` and `2k+2` play opening `k`).
    pub number: u32,
    /// The worker that uploaded it.
    pub worker: String,
    /// What the worker claimed: the winning engine (1 or 2; `None` a draw) and the reason.
    pub claimed: (Option<u8>, String),
    /// What the referee found.
    pub judged: (Option<u8>, String),
    /// Whether the two name one winner.
    pub agrees: bool,
    /// Its length in plies.
    pub plies: u32,
    /// When it was kept (`YYYY/MM/DD HH:MM:SS`).
    pub at: String,
}

/// Names bound to password hashes.
pub trait Passwords: Send + std::fmt::Debug {
    /// The password hash a name is bound to.
    ///
    /// # Errors
    /// [`StoreError`].
    fn password_hash(&mut self, name: &str) -> Result<Option<String>, StoreError>;

    /// Binds `name` to `hash` unless it is bound already; returns the hash it is bound to.
    ///
    /// # Errors
    /// [`StoreError`].
    fn bind_password(&mut self, name: &str, hash: &str, now: &str) -> Result<String, StoreError>;

    /// The server's secret `name`, stored as `fresh` the first time it is asked for (every
    /// later call, on any connection and after restarts, gets that first value).
    ///
    /// # Errors
    /// [`StoreError`].
    fn secret(&mut self, name: &str, fresh: &str) -> Result<String, StoreError>;

    /// Replaces a bound name's password hash, and lets go of its sessions but `keep` (the
    /// one that changed it). False when the name is not bound.
    ///
    /// # Errors
    /// [`StoreError`].
    fn change_password(&mut self, name: &str, hash: &str, keep: &str) -> Result<bool, StoreError>;

    /// Opens a web session (`session.digest`, for `session.name`), letting go of the
    /// expired ones and of the name's oldest beyond [`MAX_SESSIONS_PER_NAME`].
    ///
    /// # Errors
    /// [`StoreError`].
    fn open_session(&mut self, session: &NewSession<'_>) -> Result<(), StoreError>;

    /// The account a session's digest is for, unless it has expired by `now_ms`.
    ///
    /// # Errors
    /// [`StoreError`].
    fn session_name(&mut self, digest: &str, now_ms: i64) -> Result<Option<String>, StoreError>;

    /// Lets go of a session (logged out).
    ///
    /// # Errors
    /// [`StoreError`].
    fn end_session(&mut self, digest: &str) -> Result<(), StoreError>;
}

/// The most sessions one account keeps open (browsers and devices): past it, its oldest
/// are let go.
pub const MAX_SESSIONS_PER_NAME: u32 = 20;

/// A web session as it is opened.
#[derive(Clone, Copy, Debug)]
pub struct NewSession<'a> {
    /// The digest of its secret (the secret itself is never stored).
    pub digest: &'a str,
    /// The account.
    pub name: &'a str,
    /// Now, as text (`YYYY/MM/DD HH:MM:SS`), and in Unix milliseconds.
    pub now: &'a str,
    /// Now, in Unix milliseconds: sessions expired by then are let go.
    pub now_ms: i64,
    /// When it expires, in Unix milliseconds.
    pub expires_ms: i64,
}

/// A database: all three, and what a backend may do in the background.
pub trait Backend: Journal + Archive + Passwords {
    /// Starts the backend's own background upkeep (SQLite's checkpoints); a no-op where
    /// the database does it by itself.
    ///
    /// # Errors
    /// [`StoreError`].
    fn start_upkeep(&mut self) -> Result<(), StoreError>;

    /// Claims the database for this server for as long as this connection lives: one
    /// server writes a database at a time. Call it on the referee's connection before
    /// anything else touches the games.
    ///
    /// # Errors
    /// [`StoreError`] naming the holder's lock when another server has claimed it.
    fn claim(&mut self) -> Result<(), StoreError>;
}
