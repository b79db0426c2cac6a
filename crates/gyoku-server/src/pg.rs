//! The same storage in PostgreSQL, for a deployment that outgrows one machine: the same
//! tables (`README.md`, "Storage"), the same batches committed in one transaction before
//! anything they decided is sent. The schema version is kept in `gyoku_schema`.

use postgres::{Client, NoTls};

use crate::store::{
    GameDetail, ListedGame, MIGRATIONS, NewGame, StoreError, StoreOp, StoredBuoy, StoredGame,
    StoredMove, game_sql, recent_games_sql,
};

/// [`crate::store::MIGRATIONS`] in PostgreSQL's words: 64-bit integers, no `WITHOUT ROWID`.
/// One schema, two dialects; a step that cannot be said this way gets its own text here.
fn migration(step: &str) -> String {
    step.replace(" INTEGER ", " BIGINT ")
        .replace(") WITHOUT ROWID;", ");")
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        StoreError(e.to_string())
    }
}

/// A connection to a PostgreSQL database.
pub struct PgStore {
    client: Client,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgStore")
    }
}

fn n(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn listed_of(r: &postgres::Row) -> ListedGame {
    ListedGame {
        id: r.get(0),
        name: r.get(1),
        black: r.get(2),
        white: r.get(3),
        rules: r.get(4),
        status: r.get(5),
        result: r.get(6),
        reason: r.get(7),
        started_at: r.get(8),
        ended_at: r.get(9),
        moves: u32_of(r.get(10)),
    }
}

fn u32_of(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(0)
}

impl PgStore {
    /// Connects to `url` (`postgres://user@host/db`) and migrates the schema.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let client = Client::connect(url, NoTls)
            .map_err(|e| StoreError(format!("cannot connect to {}: {e}", redact(url))))?;
        let mut store = PgStore { client };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let mut tx = self.client.transaction()?;
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
            return Err(StoreError(format!(
                "the database has schema version {version}, newer than this gyoku's {}",
                MIGRATIONS.len()
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            tx.batch_execute(&migration(sql))?;
            tx.execute(
                "UPDATE gyoku_schema SET version = $1",
                &[&i64::try_from(i + 1).unwrap_or(i64::MAX)],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Commits `ops` in one transaction.
    ///
    /// # Errors
    /// [`StoreError`]; nothing of the batch is stored then.
    pub fn apply(&mut self, ops: &[StoreOp]) -> Result<(), StoreError> {
        let mut tx = self.client.transaction()?;
        for op in ops {
            match op {
                StoreOp::GameStarted(g) => {
                    tx.execute(
                        "INSERT INTO games (id, name, black, white, rules, max_moves,
                         least_time_per_move, total_time, byoyomi, increment, start_sfen,
                         initial_moves, status, started_at, replay_of)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'playing', $13, $14)",
                        &[
                            &g.id,
                            &g.name,
                            &g.black,
                            &g.white,
                            &g.rules,
                            &i64::from(g.max_moves),
                            &i64::from(g.least_time_per_move),
                            &i64::from(g.total_time),
                            &i64::from(g.byoyomi),
                            &i64::from(g.increment),
                            &g.start_sfen,
                            &g.initial_moves,
                            &g.started_at,
                            &g.replay_of,
                        ],
                    )?;
                }
                StoreOp::Move {
                    game_id,
                    ply,
                    csa,
                    seconds,
                    comment,
                } => {
                    tx.execute(
                        "INSERT INTO moves (game_id, ply, csa, seconds, comment) VALUES ($1, $2, $3, $4, $5)",
                        &[game_id, &i64::from(*ply), csa, &n(*seconds), comment],
                    )?;
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
                    tx.execute(
                        "UPDATE games SET status = $2, result = $3, reason = $4, ended_at = $5,
                         record = $6, record_path = $7 WHERE id = $1",
                        &[
                            game_id,
                            &status.to_string(),
                            result,
                            reason,
                            ended_at,
                            record,
                            record_path,
                        ],
                    )?;
                }
                StoreOp::GameResumed { game_id } => {
                    tx.execute(
                        "UPDATE games SET status = 'playing' WHERE id = $1 AND status = 'suspended'",
                        &[game_id],
                    )?;
                }
                StoreOp::Buoy {
                    name,
                    moves,
                    owner,
                    count,
                } => {
                    if *count == 0 {
                        tx.execute("DELETE FROM buoys WHERE name = $1", &[name])?;
                    } else {
                        tx.execute(
                            "INSERT INTO buoys (name, moves, owner, count) VALUES ($1, $2, $3, $4)
                             ON CONFLICT (name) DO UPDATE SET moves = $2, owner = $3, count = $4",
                            &[name, moves, owner, &i64::from(*count)],
                        )?;
                    }
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Marks games left `playing` as suspended.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspend_unfinished(&mut self) -> Result<usize, StoreError> {
        let n = self.client.execute(
            "UPDATE games SET status = 'suspended' WHERE status = 'playing'",
            &[],
        )?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// See [`crate::store::Store::latest_records`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn latest_records(&mut self, limit: u32) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self.client.query(
            "SELECT record_path, record FROM games
             WHERE ended_at IS NOT NULL AND record IS NOT NULL AND record_path IS NOT NULL
             ORDER BY ended_at DESC, id DESC LIMIT $1",
            &[&i64::from(limit)],
        )?;
        Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Every suspended game with its moves.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn suspended_games(&mut self) -> Result<Vec<(NewGame, Vec<StoredMove>)>, StoreError> {
        let rows = self.client.query(
            "SELECT id, name, black, white, rules, max_moves, least_time_per_move, total_time,
                    byoyomi, increment, start_sfen, initial_moves, started_at, replay_of
             FROM games WHERE status = 'suspended' ORDER BY started_at, id",
            &[],
        )?;
        let mut out = Vec::new();
        for r in rows {
            let g = NewGame {
                id: r.get(0),
                name: r.get(1),
                black: r.get(2),
                white: r.get(3),
                rules: r.get(4),
                max_moves: u32_of(r.get(5)),
                least_time_per_move: u32_of(r.get(6)),
                total_time: u32_of(r.get(7)),
                byoyomi: u32_of(r.get(8)),
                increment: u32_of(r.get(9)),
                start_sfen: r.get(10),
                initial_moves: r.get(11),
                started_at: r.get(12),
                replay_of: r.get(13),
            };
            let moves = self.moves(&g.id)?;
            out.push((g, moves));
        }
        Ok(out)
    }

    /// Every stored buoy.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn buoys(&mut self) -> Result<Vec<StoredBuoy>, StoreError> {
        Ok(self
            .client
            .query(
                "SELECT name, moves, owner, count FROM buoys ORDER BY name",
                &[],
            )?
            .into_iter()
            .map(|r| StoredBuoy {
                name: r.get(0),
                moves: r.get(1),
                owner: r.get(2),
                count: u32_of(r.get(3)),
            })
            .collect())
    }

    /// Every stored game with its number of moves.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn games(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        Ok(self
            .client
            .query(
                "SELECT g.id, g.status, g.result, g.reason,
                        (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)
                 FROM games g ORDER BY g.started_at, g.id",
                &[],
            )?
            .into_iter()
            .map(|r| StoredGame {
                id: r.get(0),
                status: r.get(1),
                result: r.get(2),
                reason: r.get(3),
                moves: u32_of(r.get(4)),
            })
            .collect())
    }

    /// See [`crate::store::Store::recent_games`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn recent_games(&mut self, limit: u32) -> Result<Vec<ListedGame>, StoreError> {
        Ok(self
            .client
            .query(&recent_games_sql("$1"), &[&i64::from(limit)])?
            .iter()
            .map(listed_of)
            .collect())
    }

    /// See [`crate::store::Store::game`].
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn game(&mut self, id: &str) -> Result<Option<GameDetail>, StoreError> {
        let Some(r) = self.client.query_opt(&game_sql("$1"), &[&id])? else {
            return Ok(None);
        };
        let listed = listed_of(&r);
        let game = NewGame {
            id: listed.id.clone(),
            name: listed.name.clone(),
            black: listed.black.clone(),
            white: listed.white.clone(),
            rules: listed.rules.clone(),
            max_moves: u32_of(r.get(11)),
            least_time_per_move: u32_of(r.get(12)),
            total_time: u32_of(r.get(13)),
            byoyomi: u32_of(r.get(14)),
            increment: u32_of(r.get(15)),
            start_sfen: r.get(16),
            initial_moves: r.get(17),
            started_at: listed.started_at.clone(),
            replay_of: r.get(18),
        };
        let record: Option<String> = r.get(19);
        let moves = self.moves(id)?;
        Ok(Some(GameDetail {
            game,
            listed,
            moves,
            record,
        }))
    }

    /// A game's stored moves, in order.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn moves(&mut self, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
        Ok(self
            .client
            .query(
                "SELECT csa, seconds FROM moves WHERE game_id = $1 ORDER BY ply",
                &[&game_id],
            )?
            .into_iter()
            .map(|r| (r.get(0), u(r.get(1))))
            .collect())
    }

    /// The password hash a name is bound to.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn password_hash(&mut self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .client
            .query_opt(
                "SELECT password_hash FROM players WHERE name = $1",
                &[&name],
            )?
            .map(|r| r.get(0)))
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
        let mut tx = self.client.transaction()?;
        tx.execute(
            "INSERT INTO players (name, password_hash, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING",
            &[&name, &hash, &now],
        )?;
        let bound: String = tx
            .query_one(
                "SELECT password_hash FROM players WHERE name = $1",
                &[&name],
            )?
            .get(0);
        tx.commit()?;
        Ok(bound)
    }
}

/// A database URL with its password hidden, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_postgres_schema_is_the_sqlite_schema_in_its_words() {
        let pg = super::migration(crate::store::MIGRATIONS[0]);
        assert!(
            !pg.contains("INTEGER") && !pg.contains("WITHOUT ROWID"),
            "{pg}"
        );
        assert_eq!(pg.matches("CREATE TABLE").count(), 4);
        assert!(pg.contains("ply BIGINT NOT NULL"));
    }

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            super::redact("postgres://gyoku:secret@db.example/gyoku"),
            "postgres://gyoku:***@db.example/gyoku"
        );
        assert_eq!(
            super::redact("postgres://localhost/g"),
            "postgres://localhost/g"
        );
    }
}
