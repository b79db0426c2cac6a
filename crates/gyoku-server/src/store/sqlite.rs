//! SQLite, the embedded default: one file, WAL with full synchronisation, the schema version
//! in `PRAGMA user_version`, checkpoints on a thread of their own.

use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::{ToSqlOutput, ValueRef};

use super::port::{Backend, StoreError};
use super::schema::MIGRATIONS;
use super::sql::{Exec, Param, Row, Sql, Value};

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sql(e.to_string())
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            Param::Text(s) | Param::OptText(Some(s)) => ValueRef::Text(s.as_bytes()),
            Param::OptText(None) => ValueRef::Null,
            Param::Int(v) | Param::OptInt(Some(v)) => ValueRef::Integer(v),
            Param::OptInt(None) => ValueRef::Null,
        }))
    }
}

/// A connection to an SQLite database.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    /// Dropped with the store, which stops the checkpoint thread (if one was started).
    checkpointer: Option<std::sync::mpsc::Sender<()>>,
    /// The lock file held while this store has claimed the database ([`Backend::claim`]).
    claimed: Option<std::fs::File>,
}

/// How often the checkpoint thread moves the write-ahead log into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

impl SqliteStore {
    /// Opens (creating and migrating as needed) the SQLite database at `path`, in WAL mode
    /// with full synchronisation: a committed batch survives the process being killed and
    /// the machine losing power.
    ///
    /// # Errors
    /// [`StoreError`] if the file cannot be opened or migrated.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path)
            .map_err(|e| StoreError::Unreachable(format!("{}: {e}", path.display())))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = SqliteStore {
            conn,
            checkpointer: None,
            claimed: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory database, for tests.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open_memory() -> Result<SqliteStore, StoreError> {
        let mut store = SqliteStore {
            conn: Connection::open_in_memory()?,
            checkpointer: None,
            claimed: None,
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: usize = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?
            .try_into()
            .map_err(|_| StoreError::Unreadable("negative schema version".into()))?;
        if version > MIGRATIONS.len() {
            return Err(StoreError::SchemaTooNew {
                found: version,
                known: MIGRATIONS.len(),
            });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", i + 1)?;
            tx.commit()?;
        }
        Ok(())
    }
}

impl Backend for SqliteStore {
    /// Locks `<database>.lock` beside the file (an advisory lock the system drops with the
    /// process, however it ends). In memory, nothing to claim.
    fn claim(&mut self) -> Result<(), StoreError> {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        let lock_path = format!("{path}.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| StoreError::Unreachable(format!("{lock_path}: {e}")))?;
        match file.try_lock() {
            Ok(()) => {
                self.claimed = Some(file);
                Ok(())
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::ClaimTaken(format!(
                "another gyoku serve is using {path} (it holds {lock_path}); stop it first, \
                 or give this one another --data-dir or --db"
            ))),
            Err(std::fs::TryLockError::Error(e)) => {
                Err(StoreError::Unreachable(format!("{lock_path}: {e}")))
            }
        }
    }

    /// Moves checkpoints (copying the write-ahead log into the database file, with its
    /// fsync) off this connection to a thread of their own, which runs a passive
    /// checkpoint every 250 ms until the store is dropped. A commit then costs only its
    /// own write and fsync of the log; left to the committing connection, every
    /// thousandth page stalled one commit (and every move waiting on it) for the whole
    /// checkpoint. A no-op in memory.
    fn start_upkeep(&mut self) -> Result<(), StoreError> {
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
                        tracing::warn!("checkpoint: {e}");
                    }
                }
            })
            .map_err(|e| {
                StoreError::Internal(format!("cannot start the checkpoint thread: {e}"))
            })?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        self.checkpointer = Some(stop);
        Ok(())
    }
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let n = r.as_ref().column_count();
    (0..n)
        .map(|i| {
            Ok(match r.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(v) => Value::Int(v),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                other => Value::Text(format!("{other:?}")),
            })
        })
        .collect::<rusqlite::Result<Vec<_>>>()
        .map(Row)
}

/// Statements on a connection, each prepared once and kept (`prepare_cached`).
fn execute(conn: &Connection, statement: &str, params: &[Param<'_>]) -> Result<u64, StoreError> {
    let n = conn
        .prepare_cached(statement)?
        .execute(rusqlite::params_from_iter(params))?;
    Ok(u64::try_from(n).unwrap_or(u64::MAX))
}

fn query(conn: &Connection, statement: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
    let mut stmt = conn.prepare_cached(statement)?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(params), row_of)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

impl Exec for SqliteStore {
    fn execute(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<u64, StoreError> {
        execute(&self.conn, statement, params)
    }

    fn query(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError> {
        query(&self.conn, statement, params)
    }
}

impl Exec for rusqlite::Transaction<'_> {
    fn execute(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<u64, StoreError> {
        execute(self, statement, params)
    }

    fn query(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError> {
        query(self, statement, params)
    }
}

impl Sql for SqliteStore {
    fn transaction(
        &mut self,
        work: &mut dyn FnMut(&mut dyn Exec) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut tx = self.conn.transaction()?;
        work(&mut tx)?;
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::PlayerKind;
    use crate::store::port::Journal;

    /// Issue 40: the page's players were told apart by a suffix of their names
    /// (`Taro@web12b`). Step 9 keeps who played as data and the names without it.
    #[test]
    fn step_9_moves_the_pages_players_out_of_their_names() {
        let dir = std::env::temp_dir().join(format!("gyoku-step9-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("old.sqlite3");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            for (i, sql) in MIGRATIONS[..8].iter().enumerate() {
                let tx = conn.transaction().unwrap();
                tx.execute_batch(sql).unwrap();
                tx.pragma_update(None, "user_version", i + 1).unwrap();
                tx.commit().unwrap();
            }
            for (id, black, white) in [
                ("w1", "Taro@web12b", "builtin@web12w"),
                ("c1", "alice", "bob"),
                ("w2", "guest@web3b", "guest@web3w"),
            ] {
                conn.execute(
                    "INSERT INTO games (id, name, black, white, rules, max_moves,
                     least_time_per_move, total_time, byoyomi, increment, start_sfen,
                     initial_moves, status, started_at)
                     VALUES (?1, 'g-600-10', ?2, ?3, 'csa', 256, 0, 600, 10, 0, 'startpos', '',
                     'suspended', '2026/11/20 10:00:00')",
                    [id, black, white],
                )
                .unwrap();
            }
        }
        let mut store = SqliteStore::open(&path).unwrap();
        let mut found: Vec<_> = store
            .suspended_games()
            .unwrap()
            .into_iter()
            .map(|(g, _)| (g.id, g.black, g.white, g.kinds))
            .collect();
        found.sort();
        let (c, w) = (PlayerKind::Csa, PlayerKind::Web);
        assert_eq!(
            found,
            [
                ("c1".into(), "alice".into(), "bob".into(), [c, c]),
                ("w1".into(), "Taro".into(), "builtin".into(), [w, w]),
                ("w2".into(), "guest".into(), "guest".into(), [w, w]),
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
