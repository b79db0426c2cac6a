//! Storage: players, games, every move with its time, results and records, in SQLite (an
//! embedded file, nothing to install).
//!
//! The referee hands the store a batch of [`StoreOp`]s and releases nothing the batch
//! decided (an echoed move, a result) until [`Store::apply`] has committed it: a move that
//! was echoed is on disk. Batches are what arrived while the previous one was being
//! committed, so many games share one commit (group commit).
//!
//! The schema is created and upgraded by [`MIGRATIONS`], in order, recorded in
//! `PRAGMA user_version`; `README.md` ("Storage") documents the tables.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

/// The schema, one step per entry; a database at version *n* has had the first *n* applied.
pub const MIGRATIONS: &[&str] = &[
    // 1: players, games, moves, buoys.
    "CREATE TABLE players (
        name TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE games (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        black TEXT NOT NULL,
        white TEXT NOT NULL,
        rules TEXT NOT NULL,
        max_moves INTEGER NOT NULL,
        least_time_per_move INTEGER NOT NULL,
        total_time INTEGER NOT NULL,
        byoyomi INTEGER NOT NULL,
        increment INTEGER NOT NULL,
        start_sfen TEXT NOT NULL,
        initial_moves TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('playing', 'suspended', 'finished')),
        result TEXT,
        reason TEXT,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        record TEXT,
        record_path TEXT,
        replay_of TEXT REFERENCES games(id)
    );
    CREATE INDEX games_status ON games(status);
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id),
        ply INTEGER NOT NULL,
        csa TEXT NOT NULL,
        seconds INTEGER NOT NULL,
        comment TEXT,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE TABLE buoys (
        name TEXT PRIMARY KEY,
        moves TEXT NOT NULL,
        owner TEXT NOT NULL,
        count INTEGER NOT NULL
    );",
    // 2: the latest ended games first (record files rewritten at start).
    "CREATE INDEX games_ended_at ON games(ended_at);",
];

/// A game as stored when both players agreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewGame {
    /// The Game_ID.
    pub id: String,
    /// The game name (`floodgate-300-10F`).
    pub name: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The rules preset.
    pub rules: String,
    /// The move limit (0: none).
    pub max_moves: u32,
    /// Seconds.
    pub least_time_per_move: u32,
    /// Seconds.
    pub total_time: u32,
    /// Seconds.
    pub byoyomi: u32,
    /// Seconds.
    pub increment: u32,
    /// The start position.
    pub start_sfen: String,
    /// Moves the game started with (`+7776FU,T3` each line).
    pub initial_moves: String,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub started_at: String,
    /// The game this one replays (a no-contest's replay with colours swapped).
    pub replay_of: Option<String>,
}

/// One change to the stored state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreOp {
    /// A game started.
    GameStarted(NewGame),
    /// A move was accepted.
    Move {
        /// The Game_ID.
        game_id: String,
        /// Its ply in the game (1 = the first move after the start position and the
        /// initial moves).
        ply: u32,
        /// `+7776FU`.
        csa: String,
        /// Seconds charged.
        seconds: u64,
        /// The `,'` comment.
        comment: Option<String>,
    },
    /// A game ended (or was suspended, with no result).
    GameEnded {
        /// The Game_ID.
        game_id: String,
        /// `finished` or `suspended`.
        status: &'static str,
        /// `black`, `white`, `draw`, `no_contest`, or none when suspended.
        result: Option<String>,
        /// The reason code.
        reason: String,
        /// `YYYY/MM/DD HH:MM:SS`.
        ended_at: String,
        /// The CSA record.
        record: String,
        /// Where the record file is written, relative to the records directory.
        record_path: String,
    },
    /// A suspended game was taken up again by both players.
    GameResumed {
        /// The Game_ID.
        game_id: String,
    },
    /// A buoy game was set (or its count changed; 0 deletes it).
    Buoy {
        /// Its name.
        name: String,
        /// Its moves (`+7776FU,T0+3334FU…` as `%%SETBUOY` takes them).
        moves: String,
        /// Who set it.
        owner: String,
        /// Games it may still start.
        count: u32,
    },
}

impl StoreOp {
    /// The game it changes, if any.
    pub fn game_id(&self) -> Option<&str> {
        match self {
            StoreOp::GameStarted(g) => Some(&g.id),
            StoreOp::Move { game_id, .. }
            | StoreOp::GameEnded { game_id, .. }
            | StoreOp::GameResumed { game_id } => Some(game_id),
            StoreOp::Buoy { .. } => None,
        }
    }
}

/// A stored move: its CSA text and the seconds it was charged.
pub type StoredMove = (String, u64);

/// A stored buoy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBuoy {
    /// Its name.
    pub name: String,
    /// Its moves.
    pub moves: String,
    /// Who set it.
    pub owner: String,
    /// Games it may still start.
    pub count: u32,
}

/// A game listed from storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// The Game_ID.
    pub id: String,
    /// `playing`, `suspended` or `finished`.
    pub status: String,
    /// The result, if finished.
    pub result: Option<String>,
    /// The reason code, if ended.
    pub reason: Option<String>,
    /// Moves stored (after the initial moves).
    pub moves: u32,
}

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
}

/// One game for the HTTP API: how it was set up, where it stands, its moves, and its
/// record when it has ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDetail {
    /// How it was set up.
    pub game: NewGame,
    /// Its listing.
    pub listed: ListedGame,
    /// Its moves.
    pub moves: Vec<StoredMove>,
    /// Its CSA record, once it has ended.
    pub record: Option<String>,
}

/// The listing's columns, in [`ListedGame`]'s order.
const LISTED: &str = "g.id, g.name, g.black, g.white, g.rules, g.status, g.result, g.reason,
     g.started_at, g.ended_at, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)";

/// The games spectators see first: those being played, then the latest started.
pub(crate) fn recent_games_sql(placeholder: &str) -> String {
    format!(
        "SELECT {LISTED} FROM games g
         ORDER BY CASE g.status WHEN 'playing' THEN 0 ELSE 1 END, g.started_at DESC, g.id DESC
         LIMIT {placeholder}"
    )
}

/// One game with its setup: the listing's columns, then [`NewGame`]'s, then the record.
pub(crate) fn game_sql(placeholder: &str) -> String {
    format!(
        "SELECT {LISTED}, g.max_moves, g.least_time_per_move, g.total_time, g.byoyomi,
                g.increment, g.start_sfen, g.initial_moves, g.replay_of, g.record
         FROM games g WHERE g.id = {placeholder}"
    )
}

/// Why storage failed.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "storage: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

fn listed_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<ListedGame> {
    Ok(ListedGame {
        id: r.get(0)?,
        name: r.get(1)?,
        black: r.get(2)?,
        white: r.get(3)?,
        rules: r.get(4)?,
        status: r.get(5)?,
        result: r.get(6)?,
        reason: r.get(7)?,
        started_at: r.get(8)?,
        ended_at: r.get(9)?,
        moves: r.get(10)?,
    })
}

/// A connection to the database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// Dropped with the store, which stops the checkpoint thread (if one was started).
    checkpointer: Option<std::sync::mpsc::Sender<()>>,
}

/// How often the checkpoint thread moves the write-ahead log into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl Store {
    /// Opens (creating and migrating as needed) the SQLite database at `path`, in WAL mode
    /// with full synchronisation: a committed batch survives the process being killed and
    /// the machine losing power.
    ///
    /// # Errors
    /// [`StoreError`] if the file cannot be opened or migrated.
    pub fn open_sqlite(path: &Path) -> Result<Store, StoreError> {
        let conn =
            Connection::open(path).map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store {
            conn,
            checkpointer: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory database, for tests.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open_memory() -> Result<Store, StoreError> {
        let mut store = Store {
            conn: Connection::open_in_memory()?,
            checkpointer: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// Moves checkpoints (copying the write-ahead log into the database file, with its
    /// fsync) off this connection to a thread of their own, which runs a passive
    /// checkpoint every 250 ms until the store is dropped. A commit then costs only its
    /// own write and fsync of the log; left to the committing connection, every
    /// thousandth page stalled one commit (and every move waiting on it) for the whole
    /// checkpoint. A no-op in memory.
    ///
    /// # Errors
    /// [`StoreError`] if the second connection cannot be opened.
    pub fn checkpoint_in_background(&mut self) -> Result<(), StoreError> {
        let Some(path) = self
            .conn
            .path()
            .filter(|p| !p.is_empty())
            .map(std::path::PathBuf::from)
        else {
            return Ok(());
        };
        if self.checkpointer.is_some() {
            return Ok(());
        }
        let conn = Connection::open(&path)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("gyoku-checkpoint".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(CHECKPOINT_EVERY)
                {
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    {
                        eprintln!("gyoku serve: checkpoint: {e}");
                    }
                }
            })
            .map_err(|e| StoreError(format!("cannot start the checkpoint thread: {e}")))?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        self.checkpointer = Some(stop);
        Ok(())
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: usize = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?
            .try_into()
            .map_err(|_| StoreError("negative schema version".into()))?;
        if version > MIGRATIONS.len() {
            return Err(StoreError(format!(
                "the database has schema version {version}, newer than this gyoku's {}",
                MIGRATIONS.len()
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", i + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Commits `ops` in one transaction: all of them or none.
    ///
    /// # Errors
    /// [`StoreError`]; nothing of the batch is stored then.
    pub fn apply(&mut self, ops: &[StoreOp]) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        for op in ops {
            match op {
                StoreOp::GameStarted(g) => {
                    tx.prepare_cached(
                        "INSERT INTO games (id, name, black, white, rules, max_moves,
                         least_time_per_move, total_time, byoyomi, increment, start_sfen,
                         initial_moves, status, started_at, replay_of)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'playing', ?13, ?14)",
                    )?
                    .execute(params![
                        g.id,
                        g.name,
                        g.black,
                        g.white,
                        g.rules,
                        g.max_moves,
                        g.least_time_per_move,
                        g.total_time,
                        g.byoyomi,
                        g.increment,
                        g.start_sfen,
                        g.initial_moves,
                        g.started_at,
                        g.replay_of
                    ])?;
                }
                StoreOp::Move {
                    game_id,
                    ply,
                    csa,
                    seconds,
                    comment,
                } => {
                    tx.prepare_cached(
                        "INSERT INTO moves (game_id, ply, csa, seconds, comment) VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?
                    .execute(params![game_id, ply, csa, seconds, comment])?;
                }
                StoreOp::GameEnded {
                    game_id,
                    status,
                    result,
                    reason,
                    ended_at,
                    record,
                    record_path,
                } => {
                    tx.prepare_cached(
                        "UPDATE games SET status = ?2, result = ?3, reason = ?4, ended_at = ?5,
                         record = ?6, record_path = ?7 WHERE id = ?1",
                    )?
                    .execute(params![
                        game_id,
                        status,
                        result,
                        reason,
                        ended_at,
                        record,
                        record_path
                    ])?;
                }
                StoreOp::GameResumed { game_id } => {
                    tx.prepare_cached(
                        "UPDATE games SET status = 'playing' WHERE id = ?1 AND status = 'suspended'",
                    )?
                    .execute(params![game_id])?;
                }
                StoreOp::Buoy {
                    name,
                    moves,
                    owner,
                    count,
                } => {
                    if *count == 0 {
                        tx.prepare_cached("DELETE FROM buoys WHERE name = ?1")?
                            .execute(params![name])?;
                    } else {
                        tx.prepare_cached(
                            "INSERT INTO buoys (name, moves, owner, count) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT(name) DO UPDATE SET moves = ?2, owner = ?3, count = ?4",
                        )?
                        .execute(params![name, moves, owner, count])?;
                    }
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Marks the games that were being played when the server stopped as suspended, and
    /// returns how many there were.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspend_unfinished(&mut self) -> Result<usize, StoreError> {
        Ok(self.conn.execute(
            "UPDATE games SET status = 'suspended' WHERE status = 'playing'",
            [],
        )?)
    }

    /// Every suspended game with its moves, oldest first.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspended_games(&self) -> Result<Vec<(NewGame, Vec<StoredMove>)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, black, white, rules, max_moves, least_time_per_move, total_time,
                    byoyomi, increment, start_sfen, initial_moves, started_at, replay_of
             FROM games WHERE status = 'suspended' ORDER BY started_at, id",
        )?;
        let games = stmt
            .query_map([], |r| {
                Ok(NewGame {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    black: r.get(2)?,
                    white: r.get(3)?,
                    rules: r.get(4)?,
                    max_moves: r.get(5)?,
                    least_time_per_move: r.get(6)?,
                    total_time: r.get(7)?,
                    byoyomi: r.get(8)?,
                    increment: r.get(9)?,
                    start_sfen: r.get(10)?,
                    initial_moves: r.get(11)?,
                    started_at: r.get(12)?,
                    replay_of: r.get(13)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        games
            .into_iter()
            .map(|g| {
                let moves = self.moves(&g.id)?;
                Ok((g, moves))
            })
            .collect()
    }

    /// The record files of the `limit` games that ended last: relative path and text.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn latest_records(&self, limit: u32) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT record_path, record FROM games
             WHERE ended_at IS NOT NULL AND record IS NOT NULL AND record_path IS NOT NULL
             ORDER BY ended_at DESC, id DESC LIMIT ?1",
        )?;
        let rows = stmt
            .query_map([limit], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Every stored buoy.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn buoys(&self) -> Result<Vec<StoredBuoy>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, moves, owner, count FROM buoys ORDER BY name")?;
        let rows = stmt.query_map([], |r| {
            Ok(StoredBuoy {
                name: r.get(0)?,
                moves: r.get(1)?,
                owner: r.get(2)?,
                count: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every stored game, oldest first, with its number of stored moves.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn games(&self) -> Result<Vec<StoredGame>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT g.id, g.status, g.result, g.reason,
                    (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)
             FROM games g ORDER BY g.started_at, g.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(StoredGame {
                id: r.get(0)?,
                status: r.get(1)?,
                result: r.get(2)?,
                reason: r.get(3)?,
                moves: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The `limit` games spectators see first: those being played, then the latest.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn recent_games(&self, limit: u32) -> Result<Vec<ListedGame>, StoreError> {
        let mut stmt = self.conn.prepare(&recent_games_sql("?1"))?;
        let rows = stmt.query_map(params![limit], listed_of)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One game, its moves and (once ended) its record.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn game(&self, id: &str) -> Result<Option<GameDetail>, StoreError> {
        let mut stmt = self.conn.prepare(&game_sql("?1"))?;
        let mut rows = stmt.query_map(params![id], |r| {
            let listed = listed_of(r)?;
            let game = NewGame {
                id: listed.id.clone(),
                name: listed.name.clone(),
                black: listed.black.clone(),
                white: listed.white.clone(),
                rules: listed.rules.clone(),
                max_moves: r.get(11)?,
                least_time_per_move: r.get(12)?,
                total_time: r.get(13)?,
                byoyomi: r.get(14)?,
                increment: r.get(15)?,
                start_sfen: r.get(16)?,
                initial_moves: r.get(17)?,
                started_at: listed.started_at.clone(),
                replay_of: r.get(18)?,
            };
            Ok((game, listed, r.get::<_, Option<String>>(19)?))
        })?;
        let Some(row) = rows.next() else {
            return Ok(None);
        };
        let (game, listed, record) = row?;
        let moves = self.moves(id)?;
        Ok(Some(GameDetail {
            game,
            listed,
            moves,
            record,
        }))
    }

    /// A game's stored moves, in order: `(csa, seconds)`.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn moves(&self, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT csa, seconds FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let rows = stmt.query_map(params![game_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The password hash a name is bound to.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn password_hash(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT password_hash FROM players WHERE name = ?1")?
            .query_row(params![name], |r| r.get(0))
            .optional()?)
    }

    /// Binds `name` to `hash` unless it is bound already; returns the hash it is bound to.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn bind_password(
        &mut self,
        name: &str,
        hash: &str,
        now: &str,
    ) -> Result<String, StoreError> {
        let tx = self.conn.transaction()?;
        tx.prepare_cached(
            "INSERT INTO players (name, password_hash, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(name) DO NOTHING",
        )?
        .execute(params![name, hash, now])?;
        let bound: String = tx.query_row(
            "SELECT password_hash FROM players WHERE name = ?1",
            params![name],
            |r| r.get(0),
        )?;
        tx.commit()?;
        Ok(bound)
    }
}

/// Where the server stores its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbUrl {
    /// An SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL connection string (`postgres://user:password@host/db`).
    Postgres(String),
}

impl DbUrl {
    /// Reads `--db`: `postgres://…` or `postgresql://…`, else an SQLite file path (with or
    /// without `sqlite://`).
    ///
    /// ```
    /// use gyoku_server::store::DbUrl;
    /// assert_eq!(DbUrl::parse("sqlite:///tmp/g.db"), Some(DbUrl::Sqlite("/tmp/g.db".into())));
    /// assert!(matches!(DbUrl::parse("postgres://localhost/gyoku"), Some(DbUrl::Postgres(_))));
    /// assert_eq!(DbUrl::parse(""), None);
    /// ```
    pub fn parse(text: &str) -> Option<DbUrl> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Some(DbUrl::Postgres(text.to_string()));
        }
        let path = text.strip_prefix("sqlite://").unwrap_or(text);
        (!path.is_empty()).then(|| DbUrl::Sqlite(path.into()))
    }
}

impl std::fmt::Display for DbUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbUrl::Sqlite(p) => write!(f, "{}", p.display()),
            DbUrl::Postgres(u) => f.write_str(&crate::pg::redact(u)),
        }
    }
}

/// A connection to the database, whichever it is.
#[derive(Debug)]
pub enum Db {
    /// SQLite.
    Sqlite(Store),
    /// PostgreSQL.
    Postgres(crate::pg::PgStore),
}

impl Db {
    /// Opens (creating and migrating as needed) the database.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open(url: &DbUrl) -> Result<Db, StoreError> {
        Ok(match url {
            DbUrl::Sqlite(p) => Db::Sqlite(Store::open_sqlite(p)?),
            DbUrl::Postgres(u) => Db::Postgres(crate::pg::PgStore::open(u)?),
        })
    }

    /// See [`Store::checkpoint_in_background`] (PostgreSQL checkpoints by itself).
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn checkpoint_in_background(&mut self) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(s) => s.checkpoint_in_background(),
            Db::Postgres(_) => Ok(()),
        }
    }

    /// See [`Store::apply`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn apply(&mut self, ops: &[StoreOp]) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(s) => s.apply(ops),
            Db::Postgres(s) => s.apply(ops),
        }
    }

    /// See [`Store::suspend_unfinished`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspend_unfinished(&mut self) -> Result<usize, StoreError> {
        match self {
            Db::Sqlite(s) => s.suspend_unfinished(),
            Db::Postgres(s) => s.suspend_unfinished(),
        }
    }

    /// See [`Store::suspended_games`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspended_games(&mut self) -> Result<Vec<(NewGame, Vec<StoredMove>)>, StoreError> {
        match self {
            Db::Sqlite(s) => s.suspended_games(),
            Db::Postgres(s) => s.suspended_games(),
        }
    }

    /// See [`Store::latest_records`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn latest_records(&mut self, limit: u32) -> Result<Vec<(String, String)>, StoreError> {
        match self {
            Db::Sqlite(s) => s.latest_records(limit),
            Db::Postgres(s) => s.latest_records(limit),
        }
    }

    /// See [`Store::buoys`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn buoys(&mut self) -> Result<Vec<StoredBuoy>, StoreError> {
        match self {
            Db::Sqlite(s) => s.buoys(),
            Db::Postgres(s) => s.buoys(),
        }
    }

    /// See [`Store::games`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn games(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        match self {
            Db::Sqlite(s) => s.games(),
            Db::Postgres(s) => s.games(),
        }
    }

    /// See [`Store::recent_games`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn recent_games(&mut self, limit: u32) -> Result<Vec<ListedGame>, StoreError> {
        match self {
            Db::Sqlite(s) => s.recent_games(limit),
            Db::Postgres(s) => s.recent_games(limit),
        }
    }

    /// See [`Store::game`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn game(&mut self, id: &str) -> Result<Option<GameDetail>, StoreError> {
        match self {
            Db::Sqlite(s) => s.game(id),
            Db::Postgres(s) => s.game(id),
        }
    }

    /// See [`Store::moves`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn moves(&mut self, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
        match self {
            Db::Sqlite(s) => s.moves(game_id),
            Db::Postgres(s) => s.moves(game_id),
        }
    }

    /// See [`Store::password_hash`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn password_hash(&mut self, name: &str) -> Result<Option<String>, StoreError> {
        match self {
            Db::Sqlite(s) => s.password_hash(name),
            Db::Postgres(s) => s.password_hash(name),
        }
    }

    /// See [`Store::bind_password`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn bind_password(
        &mut self,
        name: &str,
        hash: &str,
        now: &str,
    ) -> Result<String, StoreError> {
        match self {
            Db::Sqlite(s) => s.bind_password(name, hash, now),
            Db::Postgres(s) => s.bind_password(name, hash, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn started(id: &str) -> StoreOp {
        StoreOp::GameStarted(NewGame {
            id: id.into(),
            name: "g-600-10".into(),
            black: "a".into(),
            white: "b".into(),
            rules: "csa".into(),
            max_moves: 256,
            least_time_per_move: 0,
            total_time: 600,
            byoyomi: 10,
            increment: 0,
            start_sfen: gyoku::STARTPOS_SFEN.into(),
            initial_moves: String::new(),
            started_at: "2026/11/23 10:00:00".into(),
            replay_of: None,
        })
    }

    #[test]
    fn a_batch_is_all_or_nothing() {
        let mut s = Store::open_memory().unwrap();
        s.apply(&[started("g1")]).unwrap();
        let mv = |ply| StoreOp::Move {
            game_id: "g1".into(),
            ply,
            csa: "+7776FU".into(),
            seconds: 1,
            comment: None,
        };
        s.apply(&[mv(1)]).unwrap();
        // The second op repeats ply 1: the whole batch fails and ply 2 is not stored.
        assert!(s.apply(&[mv(2), mv(1)]).is_err());
        assert_eq!(s.moves("g1").unwrap().len(), 1);
        assert_eq!(s.suspend_unfinished().unwrap(), 1);
        assert_eq!(s.games().unwrap()[0].status, "suspended");
    }

    /// The spectators' listing and one game's detail, as each backend reads them.
    fn listing_and_detail(db: &mut Db) {
        let mut later = started("g2");
        if let StoreOp::GameStarted(g) = &mut later {
            g.started_at = "2026/11/23 11:00:00".into();
        }
        let mv = |game: &str, ply, csa: &str| StoreOp::Move {
            game_id: game.into(),
            ply,
            csa: csa.into(),
            seconds: 3,
            comment: None,
        };
        let ended = StoreOp::GameEnded {
            game_id: "g2".into(),
            status: "finished",
            result: Some("white".into()),
            reason: "resignation".into(),
            ended_at: "2026/11/23 11:05:00".into(),
            record: "V2\nPI\n+\n+7776FU\nT3\n%TORYO\n".into(),
            record_path: "2026/11/23/g2.csa".into(),
        };
        db.apply(&[
            started("g1"),
            later,
            mv("g1", 1, "+2726FU"),
            mv("g2", 1, "+7776FU"),
        ])
        .unwrap();
        db.apply(&[ended]).unwrap();
        let listed = db.recent_games(10).unwrap();
        let ids: Vec<&str> = listed.iter().map(|g| g.id.as_str()).collect();
        // Being played first, then the latest started.
        assert_eq!(ids, ["g1", "g2"]);
        assert_eq!(
            (listed[1].status.as_str(), listed[1].moves),
            ("finished", 1)
        );
        assert_eq!(listed[1].ended_at.as_deref(), Some("2026/11/23 11:05:00"));
        assert_eq!(db.recent_games(1).unwrap().len(), 1);
        let d = db.game("g2").unwrap().unwrap();
        assert_eq!(d.game.total_time, 600);
        assert_eq!(d.moves, vec![("+7776FU".to_string(), 3)]);
        assert!(d.record.unwrap().contains("%TORYO"));
        assert_eq!(db.game("g1").unwrap().unwrap().record, None);
        assert!(db.game("nope").unwrap().is_none());
    }

    #[test]
    fn spectators_read_the_same_in_sqlite_and_postgres() {
        listing_and_detail(&mut Db::Sqlite(Store::open_memory().unwrap()));
        let Ok(admin) = std::env::var("GYOKU_TEST_POSTGRES") else {
            eprintln!("GYOKU_TEST_POSTGRES is not set: PostgreSQL's listing is not checked");
            return;
        };
        let name = format!("gyoku_listing_{}", std::process::id());
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        let checked = std::panic::catch_unwind(|| {
            let pg = crate::pg::PgStore::open(&format!("{base}/{name}")).unwrap();
            listing_and_detail(&mut Db::Postgres(pg));
        });
        let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        if let Err(e) = checked {
            std::panic::resume_unwind(e);
        }
    }

    #[test]
    fn a_name_keeps_its_first_password() {
        let mut s = Store::open_memory().unwrap();
        assert_eq!(s.bind_password("a", "h1", "t").unwrap(), "h1");
        assert_eq!(s.bind_password("a", "h2", "t").unwrap(), "h1");
        assert_eq!(s.password_hash("a").unwrap().as_deref(), Some("h1"));
    }

    #[test]
    fn migrations_are_idempotent_on_reopen() {
        let dir = std::env::temp_dir().join(format!("gyoku-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite3");
        drop(Store::open_sqlite(&path).unwrap());
        let s = Store::open_sqlite(&path).unwrap();
        assert!(s.games().unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
