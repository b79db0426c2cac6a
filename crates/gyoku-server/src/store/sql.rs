//! What a backend provides (run a statement, read rows, a transaction) and, written once
//! on top of it, every use of the schema: [`Journal`], [`Archive`] and [`Passwords`] for
//! any [`Sql`] backend.

use super::port::{
    AnalysedLine, AnalysedPly, AnalysisJob, Archive, FinishedGame, GameDetail, GameFilter, Journal,
    ListedGame, MAX_SESSIONS_PER_NAME, NamedGame, NewSession, Passwords, StoreError, StoredMove,
    StoredTest, TestGame,
};
use super::schema;
use crate::identity::PlayerKind;
use crate::lobby::ClockExtras;
use crate::lobby::change::{Change, StartedGame, StoredBuoy};

/// A value bound to a placeholder.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    /// Text.
    Text(&'a str),
    /// Text or NULL.
    OptText(Option<&'a str>),
    /// An integer (INTEGER in SQLite, BIGINT in PostgreSQL).
    Int(i64),
    /// An integer or NULL.
    OptInt(Option<i64>),
}

/// A value read from a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// Text.
    Text(String),
}

/// A row read, its columns in the statement's order.
#[derive(Debug)]
pub(crate) struct Row(pub(crate) Vec<Value>);

impl Row {
    fn take(&mut self, i: usize) -> Value {
        self.0
            .get_mut(i)
            .map_or(Value::Null, |v| std::mem::replace(v, Value::Null))
    }

    fn text(&mut self, i: usize) -> Result<String, StoreError> {
        match self.take(i) {
            Value::Text(s) => Ok(s),
            other => Err(StoreError::Unreadable(format!(
                "column {i}: text expected, {other:?} read"
            ))),
        }
    }

    fn opt_text(&mut self, i: usize) -> Result<Option<String>, StoreError> {
        match self.take(i) {
            Value::Null => Ok(None),
            Value::Text(s) => Ok(Some(s)),
            other => Err(StoreError::Unreadable(format!(
                "column {i}: text expected, {other:?} read"
            ))),
        }
    }

    fn int(&mut self, i: usize) -> Result<i64, StoreError> {
        match self.take(i) {
            Value::Int(v) => Ok(v),
            other => Err(StoreError::Unreadable(format!(
                "column {i}: an integer expected, {other:?} read"
            ))),
        }
    }

    fn opt_int(&mut self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.take(i) {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(v)),
            other => Err(StoreError::Unreadable(format!(
                "column {i}: an integer expected, {other:?} read"
            ))),
        }
    }

    fn u32(&mut self, i: usize) -> Result<u32, StoreError> {
        Ok(u32::try_from(self.int(i)?).unwrap_or(0))
    }

    fn opt_u32(&mut self, i: usize) -> Result<Option<u32>, StoreError> {
        match self.take(i) {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(u32::try_from(v).unwrap_or(0))),
            other => Err(StoreError::Unreadable(format!(
                "column {i}: an integer expected, {other:?} read"
            ))),
        }
    }

    fn u64(&mut self, i: usize) -> Result<u64, StoreError> {
        Ok(u64::try_from(self.int(i)?).unwrap_or(0))
    }
}

/// Runs statements: a connection, or a transaction on one.
pub(crate) trait Exec {
    /// Runs `statement` (a [`schema`] constant) with `params`; the rows it changed.
    ///
    /// # Errors
    /// [`StoreError`].
    fn execute(&mut self, statement: &'static str, params: &[Param<'_>])
    -> Result<u64, StoreError>;

    /// Runs a query; every row.
    ///
    /// # Errors
    /// [`StoreError`].
    fn query(
        &mut self,
        statement: &'static str,
        params: &[Param<'_>],
    ) -> Result<Vec<Row>, StoreError>;
}

/// A backend: statements, and transactions that commit all or nothing.
pub(crate) trait Sql: Exec + Send + std::fmt::Debug {
    /// Runs `work` in a transaction, committed if it returns `Ok`, rolled back otherwise.
    ///
    /// # Errors
    /// [`StoreError`] from `work` or from the commit.
    fn transaction(
        &mut self,
        work: &mut dyn FnMut(&mut dyn Exec) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;

    /// The statement that tells other instances on the same database of a changed game, in
    /// the transaction that changed it (delivered when it commits): PostgreSQL's `NOTIFY`;
    /// `None` where no other instance can share the database.
    fn announcement(&self) -> Option<&'static str> {
        None
    }
}

fn int(v: u64) -> Param<'static> {
    Param::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// The statements that keep one change.
///
/// Committing the same batch twice stores it once: a commit whose connection was lost during
/// `COMMIT` may have been stored, and the driver commits the batch again. A game or a move
/// already stored as the batch says is taken as kept; one stored differently is an error.
/// The other changes give the same rows however often they run.
fn keep(tx: &mut dyn Exec, change: &Change) -> Result<(), StoreError> {
    use Param::{OptText, Text};
    match change {
        Change::GameStarted(g) => keep_start(tx, g),
        Change::Move {
            game_id,
            ply,
            csa,
            seconds,
            comment,
            at_ms,
        } => {
            let params = [
                Text(game_id),
                int((*ply).into()),
                Text(csa),
                int(*seconds),
                OptText(comment.as_deref()),
                Param::Int(*at_ms),
            ];
            match kept_otherwise(tx, schema::INSERT_MOVE, schema::MOVE_AT, &params, csa)? {
                None => Ok(()),
                Some(stored) => Err(StoreError::Conflict(format!(
                    "game {game_id} has {stored:?} stored at ply {ply}, not {csa}"
                ))),
            }
        }
        Change::GameEnded {
            game_id,
            status,
            result,
            reason,
            ended_at,
            record,
            record_path,
        } => tx
            .execute(
                schema::END_GAME,
                &[
                    Text(game_id),
                    Text(status),
                    OptText(result.as_deref()),
                    Text(reason),
                    Text(ended_at),
                    Text(record),
                    Text(record_path),
                ],
            )
            .map(drop),
        Change::GameResumed { game_id, at_ms } => tx
            .execute(schema::RESUME_GAME, &[Text(game_id), Param::Int(*at_ms)])
            .map(drop),
        Change::EventEntry {
            event,
            seq,
            at,
            entry,
        } => {
            let params = [Text(event), int((*seq).into()), Text(at), Text(entry)];
            let insert = schema::INSERT_EVENT_ENTRY;
            match kept_otherwise(tx, insert, schema::EVENT_ENTRY_AT, &params, entry)? {
                None => Ok(()),
                Some(_) => Err(StoreError::Conflict(format!(
                    "event {event} has another entry stored as number {seq}"
                ))),
            }
        }
        Change::Buoy { name, count: 0, .. } => {
            tx.execute(schema::DELETE_BUOY, &[Text(name)]).map(drop)
        }
        Change::Buoy {
            name,
            moves,
            owner,
            count,
        } => tx
            .execute(
                schema::UPSERT_BUOY,
                &[Text(name), Text(moves), Text(owner), int((*count).into())],
            )
            .map(drop),
    }
}

/// Inserts a row that is kept once (`ON CONFLICT DO NOTHING`, see [`keep`]): when one was
/// there already, reads its text back by its key (the first two parameters) and returns
/// it if it is not `expected` (`Some(None)`: no row at all); `None` when the row is as
/// the batch says.
fn kept_otherwise(
    tx: &mut dyn Exec,
    insert: &'static str,
    read: &'static str,
    params: &[Param<'_>],
    expected: &str,
) -> Result<Option<Option<String>>, StoreError> {
    if tx.execute(insert, params)? > 0 {
        return Ok(None);
    }
    let mut rows = tx.query(read, &params[..2])?;
    let stored = rows.first_mut().map(|r| r.text(0)).transpose()?;
    Ok((stored.as_deref() != Some(expected)).then_some(stored))
}

/// A game's row, unless it is there already as the same game (see [`keep`]).
fn keep_start(tx: &mut dyn Exec, g: &StartedGame) -> Result<(), StoreError> {
    use Param::{OptInt, OptText, Text};
    let main_time = |i: usize| OptInt(g.main_times.map(|t| i64::from(t[i])));
    let params = [
        Text(&g.id),
        Text(&g.name),
        Text(&g.black),
        Text(&g.white),
        Text(&g.rules),
        int(g.max_moves.into()),
        int(g.least_time_per_move.into()),
        int(g.total_time.into()),
        int(g.byoyomi.into()),
        int(g.increment.into()),
        Text(&g.start_sfen),
        Text(&g.initial_moves),
        Text(&g.started_at),
        OptText(g.replay_of.as_deref()),
        // Step 5's column knows `refuse` and `lose`; `fouls_mode` every mode.
        OptText(g.fouls.as_deref().filter(|f| *f != "claim")),
        OptText(g.rating_ids[0].as_deref()),
        OptText(g.rating_ids[1].as_deref()),
        OptText(g.rules_digest.as_deref()),
        Text(g.kinds[0].as_str()),
        Text(g.kinds[1].as_str()),
        main_time(0),
        main_time(1),
        OptText(g.fouls.as_deref()),
        OptInt((g.clock.periods > 1).then(|| i64::from(g.clock.periods))),
        OptInt((g.clock.units.count > 0).then(|| i64::from(g.clock.units.count))),
        OptInt(
            (g.clock.units.count > 0)
                .then(|| i64::try_from(g.clock.units.unit).unwrap_or(i64::MAX)),
        ),
        OptInt(g.started_ms),
    ];
    if tx.execute(schema::INSERT_GAME, &params)? > 0 {
        return Ok(());
    }
    let mut rows = tx.query(schema::GAME_STARTED_AS, &[Text(&g.id)])?;
    let stored = match rows.first_mut() {
        Some(row) => Some([row.text(0)?, row.text(1)?, row.text(2)?, row.text(3)?]),
        None => None,
    };
    let wanted = [&g.name, &g.black, &g.white, &g.started_at].map(String::clone);
    if stored.as_ref() == Some(&wanted) {
        Ok(())
    } else {
        Err(StoreError::Conflict(format!(
            "game {} is stored already as another game: {stored:?}",
            g.id
        )))
    }
}

/// A started game from `row`'s columns `at..at + 26`.
fn started_of(row: &mut Row, at: usize) -> Result<StartedGame, StoreError> {
    Ok(StartedGame {
        id: row.text(at)?,
        name: row.text(at + 1)?,
        black: row.text(at + 2)?,
        white: row.text(at + 3)?,
        rules: row.text(at + 4)?,
        max_moves: row.u32(at + 5)?,
        least_time_per_move: row.u32(at + 6)?,
        total_time: row.u32(at + 7)?,
        byoyomi: row.u32(at + 8)?,
        increment: row.u32(at + 9)?,
        start_sfen: row.text(at + 10)?,
        initial_moves: row.text(at + 11)?,
        started_at: row.text(at + 12)?,
        replay_of: row.opt_text(at + 13)?,
        // `fouls_mode` where it is kept, else step 5's `fouls`.
        fouls: row.opt_text(at + 22)?.or(row.opt_text(at + 14)?),
        rating_ids: [row.opt_text(at + 15)?, row.opt_text(at + 16)?],
        rules_digest: row.opt_text(at + 17)?,
        kinds: [kind_of(row, at + 18)?, kind_of(row, at + 19)?],
        main_times: match (row.opt_u32(at + 20)?, row.opt_u32(at + 21)?) {
            (Some(b), Some(w)) => Some([b, w]),
            _ => None,
        },
        clock: ClockExtras {
            periods: row.opt_u32(at + 23)?.unwrap_or(1),
            units: match (row.opt_u32(at + 24)?, row.opt_u32(at + 25)?) {
                (Some(count), Some(unit)) => gyoku::ThinkingUnits {
                    count,
                    unit: u64::from(unit),
                },
                _ => gyoku::ThinkingUnits::default(),
            },
        },
        started_ms: row.opt_int(at + 26)?,
    })
}

/// A side's [`PlayerKind`] from `row`'s column `at`.
fn kind_of(row: &mut Row, at: usize) -> Result<PlayerKind, StoreError> {
    let word = row.text(at)?;
    PlayerKind::parse(&word)
        .ok_or_else(|| StoreError::Unreadable(format!("a player kind of {word:?} in column {at}")))
}

/// A listed game from `row`'s first 11 columns.
fn listed_of(row: &mut Row) -> Result<ListedGame, StoreError> {
    Ok(ListedGame {
        id: row.text(0)?,
        name: row.text(1)?,
        black: row.text(2)?,
        white: row.text(3)?,
        rules: row.text(4)?,
        status: row.text(5)?,
        result: row.opt_text(6)?,
        reason: row.opt_text(7)?,
        started_at: row.text(8)?,
        ended_at: row.opt_text(9)?,
        moves: row.u32(10)?,
        total_time: row.u32(11)?,
        byoyomi: row.u32(12)?,
        increment: row.u32(13)?,
    })
}

fn moves_of(db: &mut dyn Exec, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
    db.query(schema::MOVES, &[Param::Text(game_id)])?
        .into_iter()
        .map(|mut r| Ok((r.text(0)?, r.u64(1)?)))
        .collect()
}

/// In one transaction: `insert` (which keeps what is there already), then the text `read`
/// finds for `key`: the value that stands, whoever wrote it first.
fn insert_then_read(
    db: &mut dyn Sql,
    insert: &'static str,
    params: &[Param<'_>],
    read: &'static str,
    key: &str,
) -> Result<Option<String>, StoreError> {
    let mut found = None;
    db.transaction(&mut |tx| {
        tx.execute(insert, params)?;
        found = tx
            .query(read, &[Param::Text(key)])?
            .into_iter()
            .next()
            .map(|mut r| r.text(0))
            .transpose()?;
        Ok(())
    })?;
    Ok(found)
}

impl<T: Sql> Journal for T {
    fn commit(&mut self, batch: &[Change]) -> Result<(), StoreError> {
        let announcement = self.announcement();
        self.transaction(&mut |tx| {
            batch.iter().try_for_each(|c| keep(tx, c))?;
            if let Some(statement) = announcement {
                let mut told: Vec<&str> = Vec::new();
                for id in batch.iter().filter_map(Change::game_id) {
                    if !told.contains(&id) {
                        told.push(id);
                        tx.execute(statement, &[Param::Text(id)])?;
                    }
                }
            }
            Ok(())
        })
    }

    fn suspend_unfinished(&mut self) -> Result<usize, StoreError> {
        let n = self.execute(schema::SUSPEND_UNFINISHED, &[])?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn suspended_games(&mut self) -> Result<Vec<(StartedGame, Vec<StoredMove>)>, StoreError> {
        let games = self
            .query(schema::SUSPENDED_GAMES, &[])?
            .into_iter()
            .map(|mut r| started_of(&mut r, 0))
            .collect::<Result<Vec<_>, _>>()?;
        games
            .into_iter()
            .map(|g| {
                let moves = moves_of(self, &g.id)?;
                Ok((g, moves))
            })
            .collect()
    }

    fn game_ids_since(&mut self, since: &str) -> Result<Vec<String>, StoreError> {
        self.query(schema::IDS_SINCE, &[Param::Text(since)])?
            .into_iter()
            .map(|mut r| r.text(0))
            .collect()
    }

    fn games_named(&mut self, name: &str, limit: u32) -> Result<Vec<NamedGame>, StoreError> {
        self.query(schema::GAMES_NAMED, &[Param::Text(name), int(limit.into())])?
            .into_iter()
            .map(|mut r| Ok(([r.text(0)?, r.text(1)?], [r.opt_text(2)?, r.opt_text(3)?])))
            .collect()
    }

    fn event_entries(&mut self, event: &str) -> Result<Vec<String>, StoreError> {
        self.query(schema::EVENT_ENTRIES, &[Param::Text(event)])?
            .into_iter()
            .map(|mut r| r.text(0))
            .collect()
    }

    fn buoys(&mut self) -> Result<Vec<StoredBuoy>, StoreError> {
        self.query(schema::BUOYS, &[])?
            .into_iter()
            .map(|mut r| {
                Ok(StoredBuoy {
                    name: r.text(0)?,
                    moves: r.text(1)?,
                    owner: r.text(2)?,
                    count: r.u32(3)?,
                })
            })
            .collect()
    }
}

impl<T: Sql> Archive for T {
    fn request_analysis(
        &mut self,
        game_id: &str,
        (engine, movetime_ms): (&str, u64),
        line: AnalysedLine<'_>,
        now: &str,
    ) -> Result<(AnalysisJob, bool), StoreError> {
        let mut job = None;
        let mut queued = false;
        self.transaction(&mut |tx| {
            queued = tx.execute(
                schema::REQUEST_ANALYSIS,
                &[
                    Param::Text(game_id),
                    Param::Text(engine),
                    int(movetime_ms),
                    Param::Text(now),
                    Param::Text(line.start_sfen),
                    Param::Text(line.moves),
                ],
            )? > 0;
            job = analysis_job(tx, game_id)?;
            Ok(())
        })?;
        let job = job.ok_or_else(|| {
            StoreError::Internal(format!("the analysis of {game_id} was not kept"))
        })?;
        Ok((job, queued))
    }

    fn set_analysis_status(
        &mut self,
        game_id: &str,
        status: &str,
        error: Option<&str>,
    ) -> Result<(), StoreError> {
        self.execute(
            schema::SET_ANALYSIS_STATUS,
            &[
                Param::Text(game_id),
                Param::Text(status),
                Param::OptText(error),
            ],
        )?;
        Ok(())
    }

    fn keep_analysed_ply(&mut self, game_id: &str, ply: &AnalysedPly) -> Result<(), StoreError> {
        self.execute(
            schema::INSERT_ANALYSED_PLY,
            &[
                Param::Text(game_id),
                int(ply.ply.into()),
                Param::OptInt(ply.score),
                Param::OptText(ply.best.as_deref()),
                Param::Text(&ply.pv),
            ],
        )?;
        Ok(())
    }

    fn analysis(
        &mut self,
        game_id: &str,
    ) -> Result<Option<(AnalysisJob, Vec<AnalysedPly>)>, StoreError> {
        let Some(job) = analysis_job(self, game_id)? else {
            return Ok(None);
        };
        let plies = self
            .query(schema::ANALYSED_PLIES, &[Param::Text(game_id)])?
            .into_iter()
            .map(|mut r| {
                Ok(AnalysedPly {
                    ply: r.u32(0)?,
                    score: r.opt_int(1)?,
                    best: r.opt_text(2)?,
                    pv: r.text(3)?,
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(Some((job, plies)))
    }

    fn pending_analyses(&mut self, limit: u32) -> Result<Vec<String>, StoreError> {
        self.query(schema::PENDING_ANALYSES, &[int(limit.into())])?
            .into_iter()
            .map(|mut r| r.text(0))
            .collect()
    }

    fn create_engine_test(
        &mut self,
        name: &str,
        spec: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        Ok(self.execute(
            schema::INSERT_ENGINE_TEST,
            &[Param::Text(name), Param::Text(spec), Param::Text(now)],
        )? > 0)
    }

    fn set_engine_test_status(
        &mut self,
        name: &str,
        status: &str,
        ended_at: Option<&str>,
        decision: Option<&str>,
    ) -> Result<(), StoreError> {
        self.execute(
            schema::SET_ENGINE_TEST_STATUS,
            &[
                Param::Text(name),
                Param::Text(status),
                Param::OptText(ended_at),
                Param::OptText(decision),
            ],
        )?;
        Ok(())
    }

    fn engine_tests(&mut self) -> Result<Vec<StoredTest>, StoreError> {
        self.query(schema::ENGINE_TESTS, &[])?
            .into_iter()
            .map(|mut r| {
                Ok(StoredTest {
                    name: r.text(0)?,
                    spec: r.text(1)?,
                    status: r.text(2)?,
                    created_at: r.text(3)?,
                    ended_at: r.opt_text(4)?,
                    decision: r.opt_text(5)?,
                })
            })
            .collect()
    }

    fn keep_test_game(&mut self, game: &TestGame, record: &str) -> Result<bool, StoreError> {
        let engine = |w: Option<u8>| w.map(i64::from);
        Ok(self.execute(
            schema::INSERT_TEST_GAME,
            &[
                Param::Text(&game.test),
                int(game.number.into()),
                Param::Text(&game.worker),
                Param::OptInt(engine(game.claimed.0)),
                Param::Text(&game.claimed.1),
                Param::OptInt(engine(game.judged.0)),
                Param::Text(&game.judged.1),
                int(game.agrees.into()),
                int(game.plies.into()),
                Param::Text(&game.at),
                Param::Text(record),
            ],
        )? > 0)
    }

    fn test_games(&mut self, test: &str) -> Result<Vec<TestGame>, StoreError> {
        let engine = |w: Option<i64>| w.and_then(|w| u8::try_from(w).ok());
        self.query(schema::TEST_GAMES, &[Param::Text(test)])?
            .into_iter()
            .map(|mut r| {
                Ok(TestGame {
                    test: test.to_string(),
                    number: r.u32(0)?,
                    worker: r.text(1)?,
                    claimed: (engine(r.opt_int(2)?), r.text(3)?),
                    judged: (engine(r.opt_int(4)?), r.text(5)?),
                    agrees: r.int(6)? != 0,
                    plies: r.u32(7)?,
                    at: r.text(8)?,
                })
            })
            .collect()
    }

    fn test_game_record(&mut self, test: &str, number: u32) -> Result<Option<String>, StoreError> {
        let mut rows = self.query(
            schema::TEST_GAME_RECORD,
            &[Param::Text(test), int(number.into())],
        )?;
        rows.pop().map(|mut r| r.text(0)).transpose()
    }

    fn listed_games(
        &mut self,
        filter: &GameFilter,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<ListedGame>, u64), StoreError> {
        let text = like_pattern(&filter.text);
        let status = filter.status.as_deref().unwrap_or("");
        let games = self
            .query(
                schema::RECENT_GAMES,
                &[
                    int(limit.into()),
                    int(offset.into()),
                    Param::Text(&text),
                    Param::Text(status),
                ],
            )?
            .into_iter()
            .map(|mut r| listed_of(&mut r))
            .collect::<Result<Vec<_>, _>>()?;
        let total = match self
            .query(
                schema::COUNT_GAMES,
                &[Param::Text(&text), Param::Text(status)],
            )?
            .into_iter()
            .next()
        {
            Some(mut row) => row.u64(0)?,
            None => 0,
        };
        Ok((games, total))
    }

    fn finished_games(&mut self, limit: u32) -> Result<Vec<FinishedGame>, StoreError> {
        self.query(schema::FINISHED_GAMES, &[int(limit.into())])?
            .into_iter()
            .map(|mut r| {
                Ok(FinishedGame {
                    id: r.text(0)?,
                    black: r.text(1)?,
                    white: r.text(2)?,
                    rating_ids: [r.opt_text(3)?, r.opt_text(4)?],
                    result: r.opt_text(5)?,
                    reason: r.opt_text(6)?.unwrap_or_default(),
                    ended_at: r.opt_text(7)?,
                    moves: r.u32(8)?,
                    kinds: [kind_of(&mut r, 9)?, kind_of(&mut r, 10)?],
                })
            })
            .collect()
    }

    fn game(&mut self, id: &str) -> Result<Option<GameDetail>, StoreError> {
        let Some(mut row) = self
            .query(schema::GAME, &[Param::Text(id)])?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        let listed = listed_of(&mut row)?;
        let game = started_of(&mut row, schema::LISTED_COLUMNS)?;
        let after = schema::LISTED_COLUMNS + schema::STARTED_COLUMNS;
        let record = row.opt_text(after)?;
        // The running clock started at the latest of the game's start, its resumption and
        // its last move.
        let turn_started_ms = [
            game.started_ms,
            row.opt_int(after + 1)?,
            row.opt_int(after + 2)?,
        ]
        .into_iter()
        .flatten()
        .max();
        let (moves, comments) = self
            .query(schema::MOVES_WITH_COMMENTS, &[Param::Text(id)])?
            .into_iter()
            .map(|mut r| Ok(((r.text(0)?, r.u64(1)?), r.opt_text(2)?)))
            .collect::<Result<(Vec<_>, Vec<_>), StoreError>>()?;
        Ok(Some(GameDetail {
            game,
            listed,
            moves,
            comments,
            record,
            turn_started_ms,
        }))
    }

    fn moves(&mut self, game_id: &str) -> Result<Vec<StoredMove>, StoreError> {
        moves_of(self, game_id)
    }

    fn latest_records(&mut self, limit: u32) -> Result<Vec<(String, String)>, StoreError> {
        self.query(schema::LATEST_RECORDS, &[int(limit.into())])?
            .into_iter()
            .map(|mut r| Ok((r.text(0)?, r.text(1)?)))
            .collect()
    }

    fn player_games(&mut self, name: &str, limit: u32) -> Result<Vec<ListedGame>, StoreError> {
        self.query(
            schema::PLAYER_GAMES,
            &[Param::Text(name), int(limit.into())],
        )?
        .into_iter()
        .map(|mut r| listed_of(&mut r))
        .collect()
    }

    fn player_results(&mut self, name: &str) -> Result<Vec<(String, String, u64)>, StoreError> {
        self.query(schema::PLAYER_RESULTS, &[Param::Text(name)])?
            .into_iter()
            .map(|mut r| Ok((r.text(0)?, r.text(1)?, r.u64(2)?)))
            .collect()
    }

    fn keep_ratings(&mut self, at: &str, rates: &[(String, i64)]) -> Result<(), StoreError> {
        self.transaction(&mut |tx| {
            rates.iter().try_for_each(|(id, rate)| {
                tx.execute(
                    schema::INSERT_RATING,
                    &[Param::Text(id), Param::Text(at), Param::Int(*rate)],
                )
                .map(drop)
            })
        })
    }

    fn rating_history(&mut self, id: &str, limit: u32) -> Result<Vec<(String, i64)>, StoreError> {
        self.query(
            schema::RATING_HISTORY,
            &[Param::Text(id), int(limit.into())],
        )?
        .into_iter()
        .map(|mut r| Ok((r.text(0)?, r.int(1)?)))
        .collect()
    }
}

impl<T: Sql> Passwords for T {
    fn password_hash(&mut self, name: &str) -> Result<Option<String>, StoreError> {
        match self
            .query(schema::PASSWORD_HASH, &[Param::Text(name)])?
            .into_iter()
            .next()
        {
            Some(mut r) => Ok(Some(r.text(0)?)),
            None => Ok(None),
        }
    }

    fn bind_password(&mut self, name: &str, hash: &str, now: &str) -> Result<String, StoreError> {
        let insert = [Param::Text(name), Param::Text(hash), Param::Text(now)];
        insert_then_read(
            self,
            schema::BIND_PASSWORD,
            &insert,
            schema::PASSWORD_HASH,
            name,
        )?
        .ok_or_else(|| StoreError::Internal(format!("'{name}' was not bound")))
    }

    fn secret(&mut self, name: &str, fresh: &str) -> Result<String, StoreError> {
        let insert = [Param::Text(name), Param::Text(fresh)];
        insert_then_read(self, schema::INSERT_SECRET, &insert, schema::SECRET, name)?
            .ok_or_else(|| StoreError::Internal(format!("the secret '{name}' was not kept")))
    }

    fn change_password(&mut self, name: &str, hash: &str, keep: &str) -> Result<bool, StoreError> {
        let mut changed = false;
        self.transaction(&mut |tx| {
            changed = tx.execute(
                schema::SET_PASSWORD,
                &[Param::Text(name), Param::Text(hash)],
            )? > 0;
            if changed {
                tx.execute(
                    schema::END_OTHER_SESSIONS,
                    &[Param::Text(name), Param::Text(keep)],
                )?;
            }
            Ok(())
        })?;
        Ok(changed)
    }

    fn open_session(&mut self, session: &NewSession<'_>) -> Result<(), StoreError> {
        self.transaction(&mut |tx| {
            tx.execute(schema::END_EXPIRED_SESSIONS, &[Param::Int(session.now_ms)])?;
            tx.execute(
                schema::INSERT_SESSION,
                &[
                    Param::Text(session.digest),
                    Param::Text(session.name),
                    Param::Text(session.now),
                    Param::Int(session.expires_ms),
                ],
            )?;
            tx.execute(
                schema::END_OLDEST_SESSIONS,
                &[
                    Param::Text(session.name),
                    Param::Int(MAX_SESSIONS_PER_NAME.into()),
                ],
            )?;
            Ok(())
        })
    }

    fn session_name(&mut self, digest: &str, now_ms: i64) -> Result<Option<String>, StoreError> {
        self.query(
            schema::SESSION_NAME,
            &[Param::Text(digest), Param::Int(now_ms)],
        )?
        .into_iter()
        .next()
        .map(|mut r| r.text(0))
        .transpose()
    }

    fn end_session(&mut self, digest: &str) -> Result<(), StoreError> {
        self.execute(schema::END_SESSION, &[Param::Text(digest)])?;
        Ok(())
    }
}

/// A game's analysis job, as stored.
fn analysis_job(db: &mut dyn Exec, game_id: &str) -> Result<Option<AnalysisJob>, StoreError> {
    db.query(schema::ANALYSIS_JOB, &[Param::Text(game_id)])?
        .into_iter()
        .next()
        .map(|mut r| {
            Ok(AnalysisJob {
                status: r.text(0)?,
                engine: r.text(1)?,
                movetime_ms: r.u64(2)?,
                requested_at: r.text(3)?,
                error: r.opt_text(4)?,
                start_sfen: r.text(5)?,
                moves: r.text(6)?,
            })
        })
        .transpose()
}

/// A `LIKE` pattern that finds `text` anywhere, in lower case (`\` escapes `%`, `_` and
/// itself), or empty for no filter.
fn like_pattern(text: &str) -> String {
    let text = text.trim().to_lowercase();
    if text.is_empty() {
        return text;
    }
    let mut pattern = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}
