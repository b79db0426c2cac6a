//! Storage: players, games, every move with its time, results and records, in SQLite (an
//! embedded file, nothing to install) or PostgreSQL.
//!
//! The referee hands storage a batch of [`Change`]s and releases nothing the batch decided
//! (an echoed move, a result) until [`Journal::commit`] has committed it: a move that was
//! echoed is on disk. Batches are what arrived while the previous one was being committed,
//! so many games share one commit (group commit).
//!
//! - [`port`]: the traits each user of storage holds ([`Journal`], [`Archive`],
//!   [`Passwords`]) and the rows they return.
//! - [`schema`]: the migrations and every statement, written once for both databases.
//! - `sql`: those statements put to use once, for any backend.
//! - [`sqlite`], [`postgres`]: connecting, binding values, reading rows.
//! - [`url`]: `--db`'s value.
//!
//! `docs/server.md` ("Storage") documents the tables.

pub mod backup;
pub mod notices;
pub mod port;
pub mod postgres;
pub mod schema;
mod sql;
pub mod sqlite;
pub mod url;

pub use crate::lobby::change::{Change, StartedGame, StoredBuoy};
pub use port::{
    AnalysedLine, AnalysedPly, AnalysisJob, Archive, Backend, FinishedGame, GameDetail, GameFilter,
    Journal, ListedGame, MAX_SESSIONS_PER_NAME, NamedGame, NewSession, Passwords, StoreError,
    StoredMove, StoredTest, TestGame,
};
pub use postgres::PgStore;
pub use sqlite::SqliteStore;
pub use url::DbUrl;

/// Opens (creating and migrating as needed) the database `url` names.
///
/// # Errors
/// [`StoreError`] if it cannot be reached, opened or migrated.
pub fn open(url: &DbUrl) -> Result<Box<dyn Backend>, StoreError> {
    Ok(match url {
        DbUrl::Sqlite(p) => Box::new(SqliteStore::open(p)?),
        DbUrl::Postgres(u) => Box::new(PgStore::open(u)?),
    })
}

/// The contract every backend keeps, run on SQLite and, when `GYOKU_TEST_POSTGRES` names a
/// server (as in CI), on PostgreSQL.
#[cfg(test)]
mod contract {
    use super::*;
    use crate::identity::PlayerKind;

    /// A Unix time in milliseconds (November 2026): past what 32 bits hold.
    const T0: i64 = 1_795_000_000_000;

    fn started(id: &str, at: &str) -> Change {
        Change::GameStarted(Box::new(StartedGame {
            id: id.into(),
            name: "g-600-10".into(),
            black: "a".into(),
            white: "b".into(),
            rules: "csa".into(),
            fouls: None,
            max_moves: 256,
            least_time_per_move: 0,
            total_time: 600,
            byoyomi: 10,
            increment: 0,
            start_sfen: gyoku::STARTPOS_SFEN.into(),
            initial_moves: String::new(),
            started_at: at.into(),
            replay_of: None,
            rating_ids: [None, Some("b-key".into())],
            rules_digest: Some("d".repeat(64)),
            kinds: [PlayerKind::Csa, PlayerKind::Engine],
            // A replay's own times (issue 41): kept and read back as they were.
            main_times: Some([540, 600]),
            // Periods and thinking units (issue 41), kept and read back.
            clock: crate::lobby::ClockExtras {
                periods: 3,
                units: gyoku::ThinkingUnits {
                    count: 10,
                    unit: 60_000,
                },
            },
            // When its clock started (step 7 of issue 40): the view's clock runs from it.
            started_ms: Some(T0),
        }))
    }

    fn mv(game: &str, ply: u32, csa: &str) -> Change {
        Change::Move {
            game_id: game.into(),
            ply,
            csa: csa.into(),
            seconds: 3,
            comment: None,
            at_ms: T0 + i64::from(ply) * 10_000,
        }
    }

    fn ended(game: &str) -> Change {
        Change::GameEnded {
            game_id: game.into(),
            status: "finished",
            result: Some("white".into()),
            reason: "resignation".into(),
            ended_at: "2026/11/23 11:05:00".into(),
            record: "V2\nPI\n+\n+7776FU\nT3\n%TORYO\n".into(),
            record_path: format!("2026/11/23/{game}.csa"),
        }
    }

    /// Everything the server asks of a backend, on a fresh one.
    fn contract(db: &mut dyn Backend) {
        sessions_keep_the_contract(db);
        // A batch is all or nothing.
        db.commit(&[started("g1", "2026/11/23 10:00:00")]).unwrap();
        db.commit(&[mv("g1", 1, "+2726FU")]).unwrap();
        assert!(
            db.commit(&[mv("g1", 2, "-8384FU"), mv("g1", 1, "+7776FU")])
                .is_err()
        );
        assert_eq!(db.moves("g1").unwrap(), vec![("+2726FU".to_string(), 3)]);
        analyses_keep_the_contract(db);
        engine_tests_keep_the_contract(db);
        // The running clock started with the last move kept.
        assert_eq!(
            db.game("g1").unwrap().unwrap().turn_started_ms,
            Some(T0 + 10_000)
        );

        // The listing: being played first, then the latest started.
        db.commit(&[started("g2", "2026/11/23 11:00:00"), mv("g2", 1, "+7776FU")])
            .unwrap();
        db.commit(&[ended("g2")]).unwrap();
        let listed = db.recent_games(10).unwrap();
        let ids: Vec<&str> = listed.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["g1", "g2"]);
        assert_eq!(
            (listed[1].status.as_str(), listed[1].moves),
            ("finished", 1)
        );
        assert_eq!(listed[1].result.as_deref(), Some("white"));
        assert_eq!(listed[1].ended_at.as_deref(), Some("2026/11/23 11:05:00"));
        assert_eq!(db.recent_games(1).unwrap().len(), 1);
        assert_eq!(
            (listed[1].total_time, listed[1].byoyomi, listed[1].increment),
            (600, 10, 0)
        );
        listing_filters(db);

        // One game's detail.
        let d = db.game("g2").unwrap().unwrap();
        assert_eq!(
            (d.game.total_time, d.game.byoyomi, d.game.max_moves),
            (600, 10, 256)
        );
        assert_eq!((d.game.replay_of, d.game.fouls), (None, None));
        assert_eq!(d.moves, vec![("+7776FU".to_string(), 3)]);
        assert!(d.record.unwrap().contains("%TORYO"));
        assert_eq!(db.game("g1").unwrap().unwrap().record, None);
        assert!(db.game("nope").unwrap().is_none());
        assert_eq!(
            db.latest_records(10).unwrap(),
            [(
                "2026/11/23/g2.csa".to_string(),
                "V2\nPI\n+\n+7776FU\nT3\n%TORYO\n".to_string()
            )]
        );

        assert_eq!(db.game_ids_since("2026/11/23 10:30:00").unwrap(), ["g2"]);
        assert_eq!(
            db.game_ids_since("2026/11/23 12:00:00").unwrap(),
            Vec::<String>::new()
        );

        // A restart suspends what was being played; a resumption takes it up again.
        assert_eq!(db.suspend_unfinished().unwrap(), 1);
        let suspended = db.suspended_games().unwrap();
        assert_eq!(suspended.len(), 1);
        assert_eq!(suspended[0].0.id, "g1");
        assert_eq!(suspended[0].0.kinds, [PlayerKind::Csa, PlayerKind::Engine]);
        assert_eq!(suspended[0].0.main_times, Some([540, 600]));
        assert_eq!(suspended[0].0.clock.periods, 3);
        assert_eq!(suspended[0].0.clock.units.count, 10);
        assert_eq!(suspended[0].1, vec![("+2726FU".to_string(), 3)]);
        db.commit(&[Change::GameResumed {
            game_id: "g1".into(),
            at_ms: T0 + 99_000,
        }])
        .unwrap();
        // Taken up again: the clock runs from then.
        assert_eq!(
            db.game("g1").unwrap().unwrap().turn_started_ms,
            Some(T0 + 99_000)
        );
        assert!(db.suspended_games().unwrap().is_empty());

        // Buoys: set, changed, used up.
        let buoy = |count| Change::Buoy {
            name: "b1".into(),
            moves: "+7776FU".into(),
            owner: "a".into(),
            count,
        };
        db.commit(&[buoy(2)]).unwrap();
        db.commit(&[buoy(1)]).unwrap();
        assert_eq!(db.buoys().unwrap()[0].count, 1);
        db.commit(&[buoy(0)]).unwrap();
        assert!(db.buoys().unwrap().is_empty());

        // A game's fouls are kept as data.
        let mut refused = started("g0", "2026/11/23 09:00:00");
        if let Change::GameStarted(g) = &mut refused {
            g.fouls = Some("refuse".into());
        }
        db.commit(&[refused]).unwrap();
        let mut commented = mv("g0", 1, "+7776FU");
        if let Change::Move { comment, .. } = &mut commented {
            *comment = Some("* 30 -3334FU".into());
        }
        db.commit(&[commented, mv("g0", 2, "-3334FU")]).unwrap();
        let d0 = db.game("g0").unwrap().unwrap();
        assert_eq!(d0.game.fouls.as_deref(), Some("refuse"));
        // Each move's comment, in order (an engine's evaluation).
        assert_eq!(d0.comments, [Some("* 30 -3334FU".to_string()), None]);
        // A foul that stands only if claimed (issue 41): kept in the later column.
        let mut claimed = started("g00", "2026/11/23 09:01:00");
        if let Change::GameStarted(g) = &mut claimed {
            g.fouls = Some("claim".into());
        }
        db.commit(&[claimed]).unwrap();
        let d00 = db.game("g00").unwrap().unwrap();
        assert_eq!(d00.game.fouls.as_deref(), Some("claim"));
        contract_continued(db);
    }

    /// A page of a filtered listing, with how many the filter keeps, on the two games of
    /// [`contract`] (`g1` playing, `g2` finished; players `a` and `b`, game `g-600-10`).
    fn listing_filters(db: &mut dyn Backend) {
        // Text in a name or the Game_ID, in any case (`%` and `_` plain characters); a
        // status.
        let filter = |text: &str, status: Option<&str>| GameFilter {
            text: text.into(),
            status: status.map(Into::into),
        };
        let (page, total) = db.listed_games(&filter("", None), 1, 1).unwrap();
        let ids: Vec<&str> = page.iter().map(|g| g.id.as_str()).collect();
        assert_eq!((ids, total), (vec!["g2"], 2));
        let (found, total) = db.listed_games(&filter(" G2 ", None), 10, 0).unwrap();
        assert_eq!((found.len(), total, found[0].id.as_str()), (1, 1, "g2"));
        let (found, total) = db
            .listed_games(&filter("", Some("finished")), 10, 0)
            .unwrap();
        assert_eq!((found.len(), total), (1, 1));
        assert_eq!(db.listed_games(&filter("600", None), 10, 0).unwrap().1, 2);
        assert_eq!(db.listed_games(&filter("%", None), 10, 0).unwrap().1, 0);
        assert_eq!(db.listed_games(&filter("g_", None), 10, 0).unwrap().1, 0);
        assert_eq!(
            db.listed_games(&filter("a", Some("playing")), 10, 0)
                .unwrap()
                .1,
            1
        );
    }

    /// The contract's second half, on the same backend: names, secrets, batches committed
    /// again, events, game names' games, ratings over time.
    fn contract_continued(db: &mut dyn Backend) {
        // A name keeps its first password.
        assert_eq!(db.bind_password("a", "h1", "t").unwrap(), "h1");
        assert_eq!(db.bind_password("a", "h2", "t").unwrap(), "h1");
        assert_eq!(db.password_hash("a").unwrap().as_deref(), Some("h1"));
        assert_eq!(db.password_hash("b").unwrap(), None);

        // A secret keeps its first value.
        assert_eq!(db.secret("k", "v1").unwrap(), "v1");
        assert_eq!(db.secret("k", "v2").unwrap(), "v1");

        // A batch committed again (its commit stored, the answer lost) is stored once; a
        // game or a move stored otherwise is still an error.
        let again = [started("g3", "2026/11/23 10:30:00"), mv("g3", 1, "+7776FU")];
        db.commit(&again).unwrap();
        db.commit(&again).unwrap();
        assert_eq!(db.moves("g3").unwrap(), vec![("+7776FU".to_string(), 3)]);
        assert!(db.commit(&[mv("g3", 1, "+2726FU")]).is_err());
        assert!(db.commit(&[started("g3", "2026/11/23 10:31:00")]).is_err());
        assert_eq!(db.moves("g3").unwrap(), vec![("+7776FU".to_string(), 3)]);

        // An event's entries: in order, each event apart, a batch committed again stored
        // once, another entry under a number already used refused.
        let entry = |event: &str, seq, text: &str| Change::EventEntry {
            event: event.into(),
            seq,
            at: "2026/11/23 12:00:00".into(),
            entry: text.into(),
        };
        let batch = [entry("cup", 0, "{\"a\":1}"), entry("cup", 1, "{\"b\":2}")];
        db.commit(&batch).unwrap();
        db.commit(&batch).unwrap();
        db.commit(&[entry("other", 0, "{}")]).unwrap();
        assert_eq!(db.event_entries("cup").unwrap(), ["{\"a\":1}", "{\"b\":2}"]);
        assert!(db.commit(&[entry("cup", 1, "{\"c\":3}")]).is_err());
        assert_eq!(db.event_entries("cup").unwrap().len(), 2);
        assert!(db.event_entries("none").unwrap().is_empty());

        // A game name's games, oldest first, the latest `limit` of them.
        let named = db.games_named("g-600-10", 2).unwrap();
        assert_eq!(named.len(), 2);
        assert_eq!(named[0].0, ["a".to_string(), "b".to_string()]);
        assert_eq!(named[0].1, [None, Some("b-key".into())]);
        assert!(db.games_named("other-1-1", 10).unwrap().is_empty());

        // Ratings over time: kept once per time, read oldest first.
        let list = [("a+1".to_string(), 1100), ("b+2".to_string(), 900)];
        db.keep_ratings("2026/11/23 12:00:00", &list).unwrap();
        db.keep_ratings("2026/11/23 12:00:00", &list).unwrap();
        db.keep_ratings("2026/11/23 12:05:00", &[("a+1".to_string(), 1120)])
            .unwrap();
        assert_eq!(
            db.rating_history("a+1", 10).unwrap(),
            [
                ("2026/11/23 12:00:00".to_string(), 1100),
                ("2026/11/23 12:05:00".to_string(), 1120)
            ]
        );
        assert_eq!(db.rating_history("a+1", 1).unwrap().len(), 1);

        // A player's games and results: g2 was won by White ("b") against "a".
        let mine = db.player_games("b", 10).unwrap();
        assert!(mine.iter().any(|g| g.id == "g2"), "{mine:?}");
        assert!(db.player_games("nobody", 10).unwrap().is_empty());
        let results = db.player_results("b").unwrap();
        assert!(
            results.contains(&("win".to_string(), "resignation".to_string(), 1)),
            "{results:?}"
        );
        let lost = db.player_results("a").unwrap();
        assert!(
            lost.iter().any(|(o, _, n)| o == "loss" && *n >= 1),
            "{lost:?}"
        );
    }

    /// Issue 46, item 3: an analysis is asked for once (again only when it failed), its
    /// positions kept once each, and the jobs not done listed for the next start.
    fn analyses_keep_the_contract(db: &mut dyn Backend) {
        assert_eq!(db.analysis("g1").unwrap(), None);
        let line = AnalysedLine {
            start_sfen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            moves: "7g7f 3c3d",
        };
        let (job, queued) = db
            .request_analysis("g1", ("fsf", 100), line, "2026/11/28 10:00:00")
            .unwrap();
        assert!(queued);
        assert_eq!((job.status.as_str(), job.movetime_ms), ("queued", 100));
        assert_eq!(
            (job.start_sfen.as_str(), job.moves.as_str()),
            (line.start_sfen, line.moves)
        );
        assert_eq!(db.pending_analyses(10).unwrap(), ["g1"]);
        db.set_analysis_status("g1", "running", None).unwrap();
        let (again, queued) = db
            .request_analysis("g1", ("other", 5), line, "2026/11/28 10:01:00")
            .unwrap();
        assert_eq!(
            (again.status.as_str(), again.engine.as_str(), queued),
            ("running", "fsf", false)
        );
        let ply = |n, score: Option<i64>| AnalysedPly {
            ply: n,
            score,
            best: Some("7g7f".into()),
            pv: "7g7f 3c3d".into(),
        };
        db.keep_analysed_ply("g1", &ply(0, Some(35))).unwrap();
        db.keep_analysed_ply("g1", &ply(0, Some(99))).unwrap();
        db.keep_analysed_ply("g1", &ply(1, None)).unwrap();
        db.set_analysis_status("g1", "failed", Some("the engine crashed"))
            .unwrap();
        let (job, plies) = db.analysis("g1").unwrap().unwrap();
        assert_eq!(job.error.as_deref(), Some("the engine crashed"));
        assert_eq!(plies, [ply(0, Some(35)), ply(1, None)]);
        assert!(db.pending_analyses(10).unwrap().is_empty());
        // A failed analysis is asked again; a done one is not.
        let (again, queued) = db
            .request_analysis("g1", ("fsf", 200), line, "2026/11/28 10:02:00")
            .unwrap();
        assert_eq!(
            (
                again.status.as_str(),
                again.movetime_ms,
                again.error,
                queued
            ),
            ("queued", 200, None, true)
        );
        db.set_analysis_status("g1", "done", None).unwrap();
        let (done, queued) = db
            .request_analysis("g1", ("fsf", 300), line, "2026/11/28 10:03:00")
            .unwrap();
        assert_eq!(
            (done.status.as_str(), done.movetime_ms, queued),
            ("done", 200, false)
        );
    }

    /// Issue 45: an engine test is kept once by name, with its status and decision; each
    /// game is kept once by number (the first upload counts), with what was claimed,
    /// what was judged, and its record.
    fn engine_tests_keep_the_contract(db: &mut dyn Backend) {
        assert!(
            db.create_engine_test("t1", "{}", "2026/11/28 10:00:00")
                .unwrap()
        );
        assert!(
            !db.create_engine_test("t1", "{\"x\": 1}", "2026/11/28 10:00:01")
                .unwrap()
        );
        assert!(
            db.create_engine_test("t0", "{}", "2026/11/28 11:00:00")
                .unwrap()
        );
        let game = |number: u32, worker: &str| TestGame {
            test: "t1".into(),
            number,
            worker: worker.into(),
            claimed: (Some(1), "checkmate".into()),
            judged: (Some(2), "resignation".into()),
            agrees: false,
            plies: 4,
            at: "2026/11/28 10:00:02".into(),
        };
        assert!(db.keep_test_game(&game(3, "a"), "record 3").unwrap());
        assert!(db.keep_test_game(&game(1, "a"), "record 1").unwrap());
        assert!(
            !db.keep_test_game(&game(1, "b"), "another record 1")
                .unwrap()
        );
        let mut draw = game(2, "b");
        (draw.claimed, draw.judged, draw.agrees) = (
            (None, "sennichite".into()),
            (None, "sennichite".into()),
            true,
        );
        assert!(db.keep_test_game(&draw, "record 2").unwrap());
        let games = db.test_games("t1").unwrap();
        assert_eq!(games, vec![game(1, "a"), draw, game(3, "a")]);
        assert!(db.test_games("t0").unwrap().is_empty());
        assert_eq!(
            db.test_game_record("t1", 1).unwrap().as_deref(),
            Some("record 1")
        );
        assert_eq!(db.test_game_record("t1", 9).unwrap(), None);
        db.set_engine_test_status(
            "t1",
            "finished",
            Some("2026/11/28 12:00:00"),
            Some("{\"d\": 1}"),
        )
        .unwrap();
        let tests = db.engine_tests().unwrap();
        assert_eq!(tests.len(), 2);
        assert_eq!(
            (tests[0].name.as_str(), tests[0].status.as_str()),
            ("t1", "finished")
        );
        assert_eq!(tests[0].spec, "{}");
        assert_eq!(tests[0].decision.as_deref(), Some("{\"d\": 1}"));
        assert_eq!(
            (
                tests[1].name.as_str(),
                tests[1].status.as_str(),
                tests[1].ended_at.as_deref()
            ),
            ("t0", "running", None)
        );
    }

    /// Issue 46: a web session names its account until it expires or is let go; a
    /// password changed lets go of the account's other sessions; an account keeps at most
    /// [`MAX_SESSIONS_PER_NAME`], its oldest let go.
    fn sessions_keep_the_contract(db: &mut dyn Backend) {
        db.bind_password("ann", "hash-1", "2026/11/28 10:00:00")
            .unwrap();
        db.bind_password("ben", "hash-2", "2026/11/28 10:00:00")
            .unwrap();
        let open_at =
            |db: &mut dyn Backend, digest: &str, name: &str, [now_ms, expires_ms]: [i64; 2]| {
                db.open_session(&NewSession {
                    digest,
                    name,
                    now: "2026/11/28 10:00:00",
                    now_ms,
                    expires_ms,
                })
                .unwrap();
            };
        let open = |db: &mut dyn Backend, digest: &str, name: &str, expires_ms| {
            open_at(db, digest, name, [1_000, expires_ms]);
        };
        open(db, "d1", "ann", 10_000);
        open(db, "d2", "ann", 20_000);
        open(db, "d3", "ben", 10_000);
        assert_eq!(
            db.session_name("d1", 5_000).unwrap().as_deref(),
            Some("ann")
        );
        assert_eq!(db.session_name("d1", 10_000).unwrap(), None, "expired");
        assert_eq!(db.session_name("nope", 5_000).unwrap(), None);
        db.end_session("d3").unwrap();
        assert_eq!(db.session_name("d3", 5_000).unwrap(), None);
        // A password changed on d2: d1 goes, d2 stays, and the hash is the new one.
        assert!(db.change_password("ann", "hash-3", "d2").unwrap());
        assert_eq!(db.session_name("d1", 5_000).unwrap(), None);
        assert_eq!(
            db.session_name("d2", 5_000).unwrap().as_deref(),
            Some("ann")
        );
        assert_eq!(db.password_hash("ann").unwrap().as_deref(), Some("hash-3"));
        assert!(!db.change_password("nobody", "h", "d2").unwrap());
        // At most MAX_SESSIONS_PER_NAME: the one that expires first goes.
        for i in 0..MAX_SESSIONS_PER_NAME {
            open(db, &format!("m{i}"), "ben", 30_000 + i64::from(i));
        }
        open(db, "latest", "ben", 40_000);
        assert_eq!(db.session_name("m0", 5_000).unwrap(), None);
        assert!(db.session_name("m1", 5_000).unwrap().is_some());
        assert!(db.session_name("latest", 5_000).unwrap().is_some());
        // Opening one lets the expired ones go (d2 expires at 20,000).
        assert!(db.session_name("d2", 0).unwrap().is_some());
        open_at(db, "later", "ann", [25_000, 90_000]);
        assert_eq!(db.session_name("d2", 0).unwrap(), None);
    }

    /// Issue 28, item 10: a second server on the same database started silently, marked
    /// the first's live game suspended, and the colliding move killed one of them. One
    /// claim at a time; the claim goes with its connection. PostgreSQL lets an advisory
    /// lock go when its server process notices the connection closed, a moment after the
    /// client dropped it (CI once asked within that moment): the second claim is asked
    /// again for up to ten seconds, as `gyoku serve` asks within its `CLAIM_GRACE`.
    fn one_claim_at_a_time(open: &dyn Fn() -> Box<dyn Backend>) {
        let mut first = open();
        first.claim().unwrap();
        let mut second = open();
        let e = second.claim().unwrap_err().to_string();
        assert!(e.contains("another gyoku serve is using"), "{e}");
        drop(first);
        gyoku_testdata::wait_for(
            std::time::Duration::from_secs(10),
            || "the claim to go with its connection".into(),
            || match second.claim() {
                Ok(()) => Some(()),
                Err(StoreError::ClaimTaken(_)) => None,
                Err(e) => panic!("the claim was not asked again: {e}"),
            },
        );
    }

    #[test]
    fn sqlite_keeps_the_contract() {
        contract(&mut SqliteStore::open_memory().unwrap());
        let dir = std::env::temp_dir().join(format!("gyoku-claim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.sqlite3");
        one_claim_at_a_time(&|| Box::new(SqliteStore::open(&path).unwrap()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn postgres_keeps_the_contract() {
        let Ok(admin) = std::env::var("GYOKU_TEST_POSTGRES") else {
            gyoku_testdata::skipped(
                "GYOKU_TEST_POSTGRES is not set",
                "the storage contract on PostgreSQL",
            );
            return;
        };
        let name = format!("gyoku_contract_{}", std::process::id());
        let mut c = ::postgres::Client::connect(&admin, ::postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .unwrap();
        c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        let url = format!("{base}/{name}");
        let checked = std::panic::catch_unwind(|| {
            contract(&mut PgStore::open(&url).unwrap());
            one_claim_at_a_time(&|| Box::new(PgStore::open(&url).unwrap()));
            changes_are_announced_when_they_commit(&url);
        });
        let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        if let Err(e) = checked {
            std::panic::resume_unwind(e);
        }
    }

    /// Each committed batch announces every game it changed, once, on the changes
    /// channel; a follower hears them in order, after "everything may have changed" when
    /// it connects.
    fn changes_are_announced_when_they_commit(url: &str) {
        let (changes, mut heard) = tokio::sync::broadcast::channel::<notices::Changed>(64);
        let stop = tokio_util::sync::CancellationToken::new();
        let stopped = stop.clone();
        let follower = {
            let url = url.to_string();
            std::thread::spawn(move || notices::follow_changes(&url, &changes, &stopped))
        };
        let next = |heard: &mut tokio::sync::broadcast::Receiver<notices::Changed>| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            loop {
                match heard.try_recv() {
                    Ok(id) => return id,
                    Err(_) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    Err(e) => panic!("nothing heard: {e}"),
                }
            }
        };
        assert_eq!(next(&mut heard), notices::Changed::MayHaveMissed);
        let mut store = PgStore::open(url).unwrap();
        store
            .commit(&[
                started("announced-1", "2026/11/26 10:00:00"),
                mv("announced-1", 1, "+7776FU"),
                started("announced-2", "2026/11/26 10:00:01"),
            ])
            .unwrap();
        let game = |id: &str| notices::Changed::Game(id.into());
        assert_eq!(next(&mut heard), game("announced-1"));
        assert_eq!(next(&mut heard), game("announced-2"));
        stop.cancel();
        follower.join().unwrap();
        assert!(
            heard.try_recv().is_err(),
            "each game is announced once a batch"
        );
    }

    #[test]
    fn migrations_are_idempotent_on_reopen() {
        let dir = std::env::temp_dir().join(format!("gyoku-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.sqlite3");
        drop(SqliteStore::open(&path).unwrap());
        let mut s = SqliteStore::open(&path).unwrap();
        assert!(s.recent_games(10).unwrap().is_empty());
        drop(s);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
