//! PostgreSQL, for a deployment that outgrows one machine: the same tables and statements
//! (the placeholders read as `$1`), the schema version in `gyoku_schema`.

use postgres::types::{ToSql, Type};
use postgres::{Client, GenericClient, NoTls};

use super::port::{Backend, StoreError};
use super::schema::{MIGRATIONS, postgres_migration, postgres_text};
use super::sql::{Exec, Param, Row, Sql, Value};
use super::url::redact;

impl From<postgres::Error> for StoreError {
    /// The database's own words where it said any (postgres' `Display` alone is often just
    /// "db error"), the cause otherwise; a closed connection is [`StoreError::Unreachable`],
    /// a unique key already taken [`StoreError::Conflict`].
    fn from(e: postgres::Error) -> StoreError {
        if let Some(db) = e.as_db_error() {
            let text = format!("{e}: {} (SQLSTATE {})", db.message(), db.code().code());
            return if *db.code() == postgres::error::SqlState::UNIQUE_VIOLATION {
                StoreError::Conflict(text)
            } else {
                StoreError::Sql(text)
            };
        }
        let text = match std::error::Error::source(&e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        };
        if e.is_closed() {
            StoreError::Unreachable(text)
        } else {
            StoreError::Sql(text)
        }
    }
}

/// A connection to a PostgreSQL database. A connection that was lost (a restart, a
/// failover, `pg_terminate_backend`) is made again before the next statement; the
/// statement that found it lost fails (nothing of its transaction is stored), and the
/// caller retries.
pub struct PgStore {
    /// `None` only while being dropped.
    client: Option<Client>,
    url: String,
    /// The server's advisory lock is held on this connection: taken again on a new one.
    claimed: bool,
}

impl Drop for PgStore {
    /// postgres's blocking client owns a runtime of its own, which may not be dropped on a
    /// task of another runtime (it panicked there, on every SIGTERM): it is dropped on a
    /// thread of its own then.
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let_go(client);
        }
    }
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgStore")
    }
}

impl PgStore {
    /// Connects to `url` (`postgres://user@host/db`) and migrates the schema.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let mut store = PgStore {
            client: Some(connect(url)?),
            url: url.to_string(),
            claimed: false,
        };
        store.migrate()?;
        Ok(store)
    }

    /// The connection, made again if it was lost (and the server's claim taken again on
    /// it: a new connection on which the claim cannot be taken is let go, and the claim is
    /// tried again with the next one, so that nothing is ever written unclaimed).
    ///
    /// # Errors
    /// [`StoreError`] when PostgreSQL cannot be reached, or another server took the claim.
    fn client(&mut self) -> Result<&mut Client, StoreError> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            let mut fresh = connect(&self.url)?;
            if self.claimed
                && let Err(e) = take_claim_on(&mut fresh)
            {
                let_go(fresh);
                return Err(e);
            }
            if let Some(old) = self.client.replace(fresh) {
                let_go(old);
                if self.claimed {
                    tracing::info!(
                        "connected to PostgreSQL again; this server holds its claim on the database"
                    );
                }
            }
        }
        self.client
            .as_mut()
            .ok_or_else(|| StoreError::Unreachable("the connection is closed".into()))
    }

    fn take_claim(&mut self) -> Result<(), StoreError> {
        take_claim_on(self.client()?)?;
        self.claimed = true;
        Ok(())
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let mut tx = self.client()?.transaction()?;
        // One server migrates at a time.
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS gyoku_schema (version BIGINT NOT NULL);
             LOCK TABLE gyoku_schema IN EXCLUSIVE MODE;",
        )?;
        let version: i64 = match tx.query_opt("SELECT version FROM gyoku_schema", &[])? {
            Some(row) => row.get(0),
            None => {
                tx.execute("INSERT INTO gyoku_schema (version) VALUES (0)", &[])?;
                0
            }
        };
        let version = usize::try_from(version).unwrap_or(usize::MAX);
        if version > MIGRATIONS.len() {
            return Err(StoreError::SchemaTooNew {
                found: version,
                known: MIGRATIONS.len(),
            });
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            tx.batch_execute(&postgres_migration(sql))?;
            tx.execute(
                "UPDATE gyoku_schema SET version = $1",
                &[&i64::try_from(i + 1).unwrap_or(i64::MAX)],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// The advisory lock a server holds on its PostgreSQL database (any number, the same for
/// every Gyoku server: "gyoku" in ASCII).
const CLAIM_KEY: i64 = 0x0067_796f_6b75;

impl Backend for PgStore {
    /// A session-level advisory lock, held while this connection lives (PostgreSQL drops it
    /// when the connection goes, however the server ends); taken again on a new connection.
    fn claim(&mut self) -> Result<(), StoreError> {
        self.take_claim()
    }

    /// PostgreSQL checkpoints by itself.
    fn start_upkeep(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

fn bound<'a>(params: &'a [Param<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| match p {
            Param::Text(s) => s as &(dyn ToSql + Sync),
            Param::OptText(s) => s as &(dyn ToSql + Sync),
            Param::Int(v) => v as &(dyn ToSql + Sync),
            Param::OptInt(v) => v as &(dyn ToSql + Sync),
        })
        .collect()
}

fn row_of(r: &postgres::Row) -> Result<Row, StoreError> {
    r.columns()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Ok(match *c.type_() {
                Type::INT8 => r
                    .try_get::<_, Option<i64>>(i)?
                    .map_or(Value::Null, Value::Int),
                Type::INT4 => r
                    .try_get::<_, Option<i32>>(i)?
                    .map_or(Value::Null, |v| Value::Int(v.into())),
                _ => r
                    .try_get::<_, Option<String>>(i)?
                    .map_or(Value::Null, Value::Text),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()
        .map(Row)
}

fn execute(
    client: &mut impl GenericClient,
    statement: &str,
    params: &[Param<'_>],
) -> Result<u64, StoreError> {
    Ok(client.execute(&postgres_text(statement), &bound(params))?)
}

fn query(
    client: &mut impl GenericClient,
    statement: &str,
    params: &[Param<'_>],
) -> Result<Vec<Row>, StoreError> {
    client
        .query(&postgres_text(statement), &bound(params))?
        .iter()
        .map(row_of)
        .collect()
}

impl PgStore {
    /// Whether the connection was found lost (by the statement that just failed).
    fn lost(&self) -> bool {
        self.client.as_ref().is_some_and(Client::is_closed)
    }
}

/// A statement on its own (a read, a password bound once) is tried again on a new
/// connection when it found the old one lost; a transaction is not (the driver commits it
/// again).
impl Exec for PgStore {
    fn execute(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<u64, StoreError> {
        match execute(self.client()?, statement, params) {
            Err(_) if self.lost() => execute(self.client()?, statement, params),
            done => done,
        }
    }

    fn query(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError> {
        match query(self.client()?, statement, params) {
            Err(_) if self.lost() => query(self.client()?, statement, params),
            done => done,
        }
    }
}

impl Exec for postgres::Transaction<'_> {
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

impl Sql for PgStore {
    fn transaction(
        &mut self,
        work: &mut dyn FnMut(&mut dyn Exec) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut tx = self.client()?.transaction()?;
        work(&mut tx)?;
        tx.commit()?;
        Ok(())
    }

    fn announcement(&self) -> Option<&'static str> {
        Some(super::schema::ANNOUNCE_CHANGE)
    }
}

/// Takes the server's advisory lock on `client`'s session.
fn take_claim_on(client: &mut Client) -> Result<(), StoreError> {
    let got: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&CLAIM_KEY])?
        .get(0);
    if got {
        Ok(())
    } else {
        Err(StoreError::ClaimTaken(
            "another gyoku serve is using this PostgreSQL database (it holds the advisory lock); \
             stop it first"
                .into(),
        ))
    }
}

/// Drops a connection: on a thread of its own when inside a runtime (see [`PgStore`]'s
/// `Drop`).
fn let_go(client: Client) {
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::spawn(move || drop(client));
    } else {
        drop(client);
    }
}

fn connect(url: &str) -> Result<Client, StoreError> {
    Client::connect(url, NoTls)
        .map_err(|e| StoreError::Unreachable(format!("cannot connect to {}: {e}", redact(url))))
}
