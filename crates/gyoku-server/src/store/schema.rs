//! The schema and every statement Gyoku runs, each written once. Statements use SQLite's
//! numbered placeholders (`?1`); the PostgreSQL backend reads them as `$1`
//! (`postgres_text`). Each backend only binds values and reads rows.

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
    // 3: the server's own secrets (the key of its rating ids), made at its first start.
    "CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 4: a game's fouls as data (they were read from its name, `rules_<preset>_refuse_…`):
    // the column, filled for the games whose name chose them.
    "ALTER TABLE games ADD COLUMN fouls TEXT CHECK (fouls IN ('refuse', 'lose'));
     UPDATE games SET fouls = 'refuse' WHERE name LIKE 'rules!_%!_refuse!_%' ESCAPE '!';
     UPDATE games SET fouls = 'lose' WHERE name LIKE 'rules!_%!_lose!_%' ESCAPE '!';",
    // 5: each player's rating id (a suspended game resumes only for the same player).
    "ALTER TABLE games ADD COLUMN black_rating_id TEXT;
     ALTER TABLE games ADD COLUMN white_rating_id TEXT;",
    // 6: organised events, each a log of entries in order (definition, pairings, results,
    // adjustments, pause, resume, end) from which its state is made again at start.
    "CREATE TABLE event_log (
        event TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (event, seq)
    );",
    // 7: the rating list each time it changed (a player's rating over time), each
    // player's games found by name, and a game name's games (scheduled rounds' history).
    "CREATE TABLE rating_history (
        id TEXT NOT NULL,
        computed_at TEXT NOT NULL,
        rate INTEGER NOT NULL,
        PRIMARY KEY (id, computed_at)
    );
    CREATE INDEX games_black ON games(black, started_at);
    CREATE INDEX games_white ON games(white, started_at);
    CREATE INDEX games_name ON games(name, started_at);",
    // 8: the digest of the rules each game is played under (issue 41).
    "ALTER TABLE games ADD COLUMN rules_digest TEXT;",
    // 9: who played each side, as data (issue 40): a CSA client, a person on the web page,
    // or the engine a page chose. The page's players were told apart by a suffix of their
    // names (`Taro@web12b`); those games keep the name without it and the kind `web`.
    "ALTER TABLE games ADD COLUMN black_kind TEXT NOT NULL DEFAULT 'csa'
         CHECK (black_kind IN ('csa', 'web', 'engine'));
     ALTER TABLE games ADD COLUMN white_kind TEXT NOT NULL DEFAULT 'csa'
         CHECK (white_kind IN ('csa', 'web', 'engine'));
     UPDATE games SET black_kind = 'web', black = substr(black, 1, instr(black, '@web') - 1)
         WHERE instr(black, '@web') > 1;
     UPDATE games SET white_kind = 'web', white = substr(white, 1, instr(white, '@web') - 1)
         WHERE instr(white, '@web') > 1;",
    // 10: each side's main time where they differ (a no contest's replay under the JSA's
    // clock: each keeps what it had left, topped up; issue 41); NULL: `total_time` each.
    "ALTER TABLE games ADD COLUMN black_time INTEGER CHECK (black_time >= 0);
     ALTER TABLE games ADD COLUMN white_time INTEGER CHECK (white_time >= 0);",
    // 11: fouls under every mode there is (issue 41 adds `claim`: a foul stands only if
    // claimed); step 5's `fouls` knows two and keeps them, NULL for a claim.
    "ALTER TABLE games ADD COLUMN fouls_mode TEXT
         CHECK (fouls_mode IN ('refuse', 'lose', 'claim'));",
    // 12: byoyomi periods and thinking-time units beside the byoyomi (issue 41: a web
    // page's game); NULL: none.
    "ALTER TABLE games ADD COLUMN periods INTEGER CHECK (periods >= 1);
     ALTER TABLE games ADD COLUMN thinking_units INTEGER CHECK (thinking_units >= 1);
     ALTER TABLE games ADD COLUMN thinking_unit_ms INTEGER CHECK (thinking_unit_ms >= 1);",
    // 13: when each clock started, in Unix milliseconds (issue 40, step 7): a game's start
    // and its latest resumption, and each move (the other side's clock started then); a
    // view counts the running clock from the latest, on whichever instance reads it.
    // NULL in games and moves stored before. BIGINT in both (SQLite's integers are 64-bit
    // whatever the name; PostgreSQL's INTEGER is not).
    "ALTER TABLE games ADD COLUMN started_ms BIGINT;
     ALTER TABLE games ADD COLUMN resumed_ms BIGINT;
     ALTER TABLE moves ADD COLUMN at_ms BIGINT;",
    // 14: the web page's sessions (issue 46): a logged-in browser's cookie, kept as its
    // digest only, for the account it logged in to, until it expires (Unix milliseconds).
    "CREATE TABLE web_sessions (
        digest TEXT PRIMARY KEY,
        name TEXT NOT NULL REFERENCES players(name),
        created_at TEXT NOT NULL,
        expires_ms BIGINT NOT NULL
    );
    CREATE INDEX web_sessions_name ON web_sessions(name, expires_ms);",
    // 15: engine analysis (issue 46): each job (a finished game by its Game_ID, or a
    // record judged on the page by `record-` and its digest) with the positions it covers
    // (the start's SFEN and the moves, USI), its status (queued, running, done, failed)
    // and engine; and each position's evaluation from Black's side (a mate as ±30000),
    // best move and principal variation. BIGINT: bound as 64-bit integers in both
    // (PostgreSQL's INTEGER is 32-bit).
    "CREATE TABLE analysis_jobs (
        game_id TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
        engine TEXT NOT NULL,
        movetime_ms BIGINT NOT NULL,
        requested_at TEXT NOT NULL,
        error TEXT,
        start_sfen TEXT NOT NULL,
        moves TEXT NOT NULL
    );
    CREATE TABLE analysed_plies (
        game_id TEXT NOT NULL,
        ply BIGINT NOT NULL,
        score BIGINT,
        best TEXT,
        pv TEXT NOT NULL,
        PRIMARY KEY (game_id, ply)
    );",
    // 16: engine tests spread over workers (issue 45): each test (its name, what it is as
    // JSON, its status, when it was made and ended, what its SPRT decided) and each game
    // a worker uploaded and the server judged again: the worker, what it claimed (the
    // winning engine, 1 or 2, NULL a draw, and the reason), what the referee found, and
    // the CSA record. BIGINT: 64-bit in both.
    "CREATE TABLE engine_tests (
        name TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'stopped', 'finished')),
        created_at TEXT NOT NULL,
        ended_at TEXT,
        decision TEXT
    );
    CREATE TABLE engine_test_games (
        test TEXT NOT NULL,
        number BIGINT NOT NULL,
        worker TEXT NOT NULL,
        claimed_winner BIGINT,
        claimed_reason TEXT NOT NULL,
        winner BIGINT,
        reason TEXT NOT NULL,
        agrees BIGINT NOT NULL,
        plies BIGINT NOT NULL,
        at TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (test, number)
    );",
];

/// The PostgreSQL channel on which the referee announces each changed game (its Game_ID
/// as the payload), heard by the web instances (`gyoku serve --role web`).
pub const CHANGES_CHANNEL: &str = "gyoku_changes";

/// Announces a changed game on [`CHANGES_CHANNEL`] (PostgreSQL only).
pub(crate) const ANNOUNCE_CHANGE: &str = "SELECT pg_notify('gyoku_changes', ?1)";

/// A step of [`MIGRATIONS`] in PostgreSQL's words: 64-bit integers, no `WITHOUT ROWID`. One
/// schema, two dialects; a step that cannot be said this way gets its own text here.
pub(crate) fn postgres_migration(step: &str) -> String {
    step.replace(" INTEGER ", " BIGINT ")
        .replace(") WITHOUT ROWID;", ");")
        .replace("instr(", "strpos(")
}

/// A statement's text with PostgreSQL's placeholders (`$1` for `?1`).
pub(crate) fn postgres_text(statement: &str) -> String {
    statement.replace('?', "$")
}

/// A game starts (`playing`). A row already there is left as it is: a batch whose commit
/// was stored but whose answer was lost is committed again (see [`GAME_STARTED_AS`]).
pub(crate) const INSERT_GAME: &str = "INSERT INTO games (id, name, black, white, rules, max_moves,
     least_time_per_move, total_time, byoyomi, increment, start_sfen, initial_moves, status,
     started_at, replay_of, fouls, black_rating_id, white_rating_id, rules_digest, black_kind,
     white_kind, black_time, white_time, fouls_mode, periods, thinking_units, thinking_unit_ms,
     started_ms)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'playing', ?13, ?14, ?15, ?16, ?17,
     ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)
     ON CONFLICT (id) DO NOTHING";

/// What a stored game was started as: its name, players and start time.
pub(crate) const GAME_STARTED_AS: &str =
    "SELECT name, black, white, started_at FROM games WHERE id = ?1";

/// A move is kept. A row already there is left as it is (see [`INSERT_GAME`] and
/// [`MOVE_AT`]).
pub(crate) const INSERT_MOVE: &str =
    "INSERT INTO moves (game_id, ply, csa, seconds, comment, at_ms)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (game_id, ply) DO NOTHING";

/// The move stored at a game's ply.
pub(crate) const MOVE_AT: &str = "SELECT csa FROM moves WHERE game_id = ?1 AND ply = ?2";

/// A game ends, or is suspended.
pub(crate) const END_GAME: &str = "UPDATE games SET status = ?2, result = ?3, reason = ?4,
     ended_at = ?5, record = ?6, record_path = ?7 WHERE id = ?1";

/// A suspended game is taken up again.
pub(crate) const RESUME_GAME: &str =
    "UPDATE games SET status = 'playing', resumed_ms = ?2 WHERE id = ?1 AND status = 'suspended'";

/// A buoy is set or its count changes.
pub(crate) const UPSERT_BUOY: &str = "INSERT INTO buoys (name, moves, owner, count)
     VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (name) DO UPDATE SET moves = ?2, owner = ?3, count = ?4";

/// A buoy is used up or deleted.
pub(crate) const DELETE_BUOY: &str = "DELETE FROM buoys WHERE name = ?1";

/// Games left `playing` by a server that stopped.
pub(crate) const SUSPEND_UNFINISHED: &str =
    "UPDATE games SET status = 'suspended' WHERE status = 'playing'";

/// [`crate::lobby::change::StartedGame`]'s columns, in its order (27).
macro_rules! started_columns {
    () => {
        "g.id, g.name, g.black, g.white, g.rules, g.max_moves, g.least_time_per_move,
         g.total_time, g.byoyomi, g.increment, g.start_sfen, g.initial_moves, g.started_at,
         g.replay_of, g.fouls, g.black_rating_id, g.white_rating_id, g.rules_digest,
         g.black_kind, g.white_kind, g.black_time, g.white_time, g.fouls_mode, g.periods,
         g.thinking_units, g.thinking_unit_ms, g.started_ms"
    };
}

/// The listing's columns, in [`super::ListedGame`]'s order (11).
macro_rules! listed_columns {
    () => {
        "g.id, g.name, g.black, g.white, g.rules, g.status, g.result, g.reason, g.started_at,
         g.ended_at, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), g.total_time,
         g.byoyomi, g.increment"
    };
}

/// How many columns [`listed_columns`] has; [`GAME`]'s setup columns follow them.
pub(crate) const LISTED_COLUMNS: usize = 14;

/// The games a listing's filter keeps: `$text` (lower case, `%` around, `\` escaping) in
/// either player's name, the game's name or its Game_ID, empty for all; `$status` the
/// status, empty for any.
macro_rules! games_filter {
    ($text:literal, $status:literal) => {
        concat!(
            "(",
            $text,
            " = '' OR LOWER(g.black) LIKE ",
            $text,
            " ESCAPE '\\'",
            " OR LOWER(g.white) LIKE ",
            $text,
            " ESCAPE '\\'",
            " OR LOWER(g.name) LIKE ",
            $text,
            " ESCAPE '\\'",
            " OR LOWER(g.id) LIKE ",
            $text,
            " ESCAPE '\\')",
            " AND (",
            $status,
            " = '' OR g.status = ",
            $status,
            ")"
        )
    };
}

/// How many columns [`started_columns`] has; [`GAME`]'s record follows them.
pub(crate) const STARTED_COLUMNS: usize = 27;

/// Every suspended game, oldest first: the started game's columns.
pub(crate) const SUSPENDED_GAMES: &str = concat!(
    "SELECT ",
    started_columns!(),
    " FROM games g WHERE g.status = 'suspended' ORDER BY g.started_at, g.id"
);

/// A game's moves, in order: CSA text and seconds.
pub(crate) const MOVES: &str = "SELECT csa, seconds FROM moves WHERE game_id = ?1 ORDER BY ply";

/// A game's moves with their comments (an engine's `* <eval> <pv>`, or none), in order:
/// one query for a view.
pub(crate) const MOVES_WITH_COMMENTS: &str =
    "SELECT csa, seconds, comment FROM moves WHERE game_id = ?1 ORDER BY ply";

/// Every buoy, by name.
pub(crate) const BUOYS: &str = "SELECT name, moves, owner, count FROM buoys ORDER BY name";

/// The games spectators see first: those being played, then the latest started.
pub(crate) const RECENT_GAMES: &str = concat!(
    "SELECT ",
    listed_columns!(),
    " FROM games g WHERE ",
    games_filter!("?3", "?4"),
    " ORDER BY CASE g.status WHEN 'playing' THEN 0 ELSE 1 END, g.started_at DESC, g.id DESC
     LIMIT ?1 OFFSET ?2"
);

/// How many games a listing's filter keeps.
pub(crate) const COUNT_GAMES: &str = concat!(
    "SELECT COUNT(*) FROM games g WHERE ",
    games_filter!("?1", "?2")
);

/// Finished games as ratings read them, in the order they ended.
pub(crate) const FINISHED_GAMES: &str = "SELECT g.id, g.black, g.white, g.black_rating_id,
     g.white_rating_id, g.result, g.reason, g.ended_at,
     (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), g.black_kind, g.white_kind
     FROM games g WHERE g.status = 'finished' ORDER BY g.ended_at, g.id LIMIT ?1";

/// One game: the listing's columns, then the started game's, then the record.
pub(crate) const GAME: &str = concat!(
    "SELECT ",
    listed_columns!(),
    ", ",
    started_columns!(),
    ", g.record, g.resumed_ms,
     (SELECT m.at_ms FROM moves m WHERE m.game_id = g.id ORDER BY m.ply DESC LIMIT 1)
     FROM games g WHERE g.id = ?1"
);

/// The record files of the games that ended last.
pub(crate) const LATEST_RECORDS: &str = "SELECT record_path, record FROM games
     WHERE ended_at IS NOT NULL AND record IS NOT NULL AND record_path IS NOT NULL
     ORDER BY ended_at DESC, id DESC LIMIT ?1";

/// A name's password hash.
pub(crate) const PASSWORD_HASH: &str = "SELECT password_hash FROM players WHERE name = ?1";

/// A name bound to a hash, unless it is bound already.
pub(crate) const BIND_PASSWORD: &str =
    "INSERT INTO players (name, password_hash, created_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (name) DO NOTHING";

/// The Game_IDs of the games started since a time (`YYYY/MM/DD HH:MM:SS`, which sorts as
/// text).
pub(crate) const IDS_SINCE: &str = "SELECT id FROM games WHERE started_at >= ?1";

/// An event's entry is kept. A row already there is left as it is (see [`EVENT_ENTRY_AT`]).
pub(crate) const INSERT_EVENT_ENTRY: &str = "INSERT INTO event_log (event, seq, at, entry)
     VALUES (?1, ?2, ?3, ?4) ON CONFLICT (event, seq) DO NOTHING";

/// The entry stored as an event's `seq`th.
pub(crate) const EVENT_ENTRY_AT: &str = "SELECT entry FROM event_log WHERE event = ?1 AND seq = ?2";

/// An event's entries, in order.
pub(crate) const EVENT_ENTRIES: &str = "SELECT entry FROM event_log WHERE event = ?1 ORDER BY seq";

/// A rated player's rate at a time the list was computed (kept once).
pub(crate) const INSERT_RATING: &str = "INSERT INTO rating_history (id, computed_at, rate)
     VALUES (?1, ?2, ?3) ON CONFLICT (id, computed_at) DO NOTHING";

/// A rating id's rates over time, oldest first (`YYYY/MM/DD HH:MM:SS` sorts as text).
pub(crate) const RATING_HISTORY: &str =
    "SELECT computed_at, rate FROM rating_history WHERE id = ?1 ORDER BY computed_at LIMIT ?2";

/// A player's games, the latest started first.
pub(crate) const PLAYER_GAMES: &str = concat!(
    "SELECT ",
    listed_columns!(),
    " FROM games g WHERE g.black = ?1 OR g.white = ?1
     ORDER BY g.started_at DESC, g.id DESC LIMIT ?2"
);

/// A player's finished games counted by how they ended: `win`, `loss`, `draw` or
/// `no_contest`, the reason, how many.
pub(crate) const PLAYER_RESULTS: &str = "SELECT
     CASE WHEN (g.result = 'black' AND g.black = ?1) OR (g.result = 'white' AND g.white = ?1)
          THEN 'win'
          WHEN g.result IN ('black', 'white') THEN 'loss'
          ELSE COALESCE(g.result, 'no_contest') END AS outcome,
     COALESCE(g.reason, '') AS why, COUNT(*)
     FROM games g WHERE g.status = 'finished' AND (g.black = ?1 OR g.white = ?1)
     GROUP BY outcome, why ORDER BY outcome, why";

/// The players of a game name's games, oldest first (at most `?2`, the latest): names,
/// then rating ids.
pub(crate) const GAMES_NAMED: &str = "SELECT black, white, black_rating_id, white_rating_id
     FROM (SELECT g.black, g.white, g.black_rating_id, g.white_rating_id, g.started_at, g.id
           FROM games g WHERE g.name = ?1 ORDER BY g.started_at DESC, g.id DESC LIMIT ?2) AS latest
     ORDER BY started_at, id";

/// A name's password hash, replaced (a password changed).
pub(crate) const SET_PASSWORD: &str = "UPDATE players SET password_hash = ?2 WHERE name = ?1";

/// Sessions that have expired, let go.
pub(crate) const END_EXPIRED_SESSIONS: &str = "DELETE FROM web_sessions WHERE expires_ms <= ?1";

/// A session opened.
pub(crate) const INSERT_SESSION: &str =
    "INSERT INTO web_sessions (digest, name, created_at, expires_ms) VALUES (?1, ?2, ?3, ?4)";

/// A name's sessions beyond its latest `?2`, let go.
pub(crate) const END_OLDEST_SESSIONS: &str = "DELETE FROM web_sessions WHERE name = ?1
     AND digest NOT IN (SELECT digest FROM web_sessions WHERE name = ?1
                        ORDER BY expires_ms DESC, digest LIMIT ?2)";

/// The account a session is for, while it has not expired.
pub(crate) const SESSION_NAME: &str =
    "SELECT name FROM web_sessions WHERE digest = ?1 AND expires_ms > ?2";

/// A session let go (logged out).
pub(crate) const END_SESSION: &str = "DELETE FROM web_sessions WHERE digest = ?1";

/// A name's sessions but one, let go (its password changed there).
pub(crate) const END_OTHER_SESSIONS: &str =
    "DELETE FROM web_sessions WHERE name = ?1 AND digest <> ?2";

/// A game's analysis asked for: queued, unless it is queued, running or done already (a
/// failed one is asked again).
pub(crate) const REQUEST_ANALYSIS: &str = "INSERT INTO analysis_jobs
     (game_id, status, engine, movetime_ms, requested_at, start_sfen, moves)
     VALUES (?1, 'queued', ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (game_id) DO UPDATE SET status = 'queued', error = NULL, engine = ?2,
         movetime_ms = ?3, requested_at = ?4
     WHERE analysis_jobs.status = 'failed'";

/// An analysis job's status changed.
pub(crate) const SET_ANALYSIS_STATUS: &str =
    "UPDATE analysis_jobs SET status = ?2, error = ?3 WHERE game_id = ?1";

/// A game's analysis job.
pub(crate) const ANALYSIS_JOB: &str =
    "SELECT status, engine, movetime_ms, requested_at, error, start_sfen, moves
     FROM analysis_jobs WHERE game_id = ?1";

/// The analysis jobs not done, oldest first (taken up again at a start).
pub(crate) const PENDING_ANALYSES: &str = "SELECT game_id FROM analysis_jobs
     WHERE status IN ('queued', 'running') ORDER BY requested_at, game_id LIMIT ?1";

/// One position's analysis, kept once.
pub(crate) const INSERT_ANALYSED_PLY: &str =
    "INSERT INTO analysed_plies (game_id, ply, score, best, pv) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (game_id, ply) DO NOTHING";

/// A game's analysed positions, in order.
pub(crate) const ANALYSED_PLIES: &str =
    "SELECT ply, score, best, pv FROM analysed_plies WHERE game_id = ?1 ORDER BY ply";

/// An engine test made, unless one of that name is there.
pub(crate) const INSERT_ENGINE_TEST: &str =
    "INSERT INTO engine_tests (name, spec, status, created_at) VALUES (?1, ?2, 'running', ?3)
     ON CONFLICT (name) DO NOTHING";

/// An engine test's status changed (stopped, finished: with when and its decision).
pub(crate) const SET_ENGINE_TEST_STATUS: &str =
    "UPDATE engine_tests SET status = ?2, ended_at = ?3, decision = ?4 WHERE name = ?1";

/// Every engine test, oldest first.
pub(crate) const ENGINE_TESTS: &str =
    "SELECT name, spec, status, created_at, ended_at, decision FROM engine_tests
     ORDER BY created_at, name";

/// A test's game, judged, kept once (the first upload of a number counts).
pub(crate) const INSERT_TEST_GAME: &str = "INSERT INTO engine_test_games
     (test, number, worker, claimed_winner, claimed_reason, winner, reason, agrees, plies, at,
      record)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
     ON CONFLICT (test, number) DO NOTHING";

/// A test's games, by number, without their records.
pub(crate) const TEST_GAMES: &str = "SELECT number, worker, claimed_winner, claimed_reason,
     winner, reason, agrees, plies, at FROM engine_test_games WHERE test = ?1 ORDER BY number";

/// One of a test's games' record.
pub(crate) const TEST_GAME_RECORD: &str =
    "SELECT record FROM engine_test_games WHERE test = ?1 AND number = ?2";

/// A server secret, unless it is made already.
pub(crate) const INSERT_SECRET: &str =
    "INSERT INTO server_secrets (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING";

/// A server secret.
pub(crate) const SECRET: &str = "SELECT value FROM server_secrets WHERE name = ?1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_postgres_schema_is_the_sqlite_schema_in_its_words() {
        let pg = postgres_migration(MIGRATIONS[0]);
        assert!(
            !pg.contains("INTEGER") && !pg.contains("WITHOUT ROWID"),
            "{pg}"
        );
        assert_eq!(pg.matches("CREATE TABLE").count(), 4);
        assert!(pg.contains("ply BIGINT NOT NULL"));
        assert_eq!(postgres_text(END_GAME).matches('$').count(), 7);
    }

    /// A migration after the first only adds: no step may drop, delete, rename or empty
    /// what an earlier one made, so that any older database upgrades without loss. An
    /// `UPDATE` may only fill a column its own step adds.
    #[test]
    fn migrations_only_add() {
        for (i, step) in MIGRATIONS.iter().enumerate().skip(1) {
            let upper = step.to_uppercase();
            for word in ["DROP ", "DELETE ", "TRUNCATE ", "RENAME ", "ALTER COLUMN"] {
                assert!(!upper.contains(word), "migration {}: {word}", i + 1);
            }
            for (at, _) in upper.match_indices("UPDATE ") {
                let rest = &upper[at..];
                let set = rest.split(" SET ").nth(1).unwrap_or("");
                let column = set.split([' ', '=']).next().unwrap_or("");
                assert!(
                    !column.is_empty() && upper.contains(&format!("ADD COLUMN {column} ")),
                    "migration {}: UPDATE of {column:?}, a column it does not add",
                    i + 1
                );
            }
        }
    }

    #[test]
    fn the_fouls_column_is_filled_from_the_names_that_chose_them() {
        let db = rusqlite::Connection::open_in_memory().expect("memory");
        for step in &MIGRATIONS[..3] {
            db.execute_batch(step).expect("older schema");
        }
        for (id, name) in [
            ("a", "rules_jsa_refuse_club-600-10"),
            ("b", "rules_lishogi_lose_cup-300-0"),
            ("c", "rules_jsa_cup-600-10"),
            ("d", "floodgate-300-10F"),
            ("e", "rulesXjsaXrefuseXy-600-10"),
        ] {
            db.execute(
                "INSERT INTO games (id, name, black, white, rules, max_moves,
                 least_time_per_move, total_time, byoyomi, increment, start_sfen,
                 initial_moves, status, started_at) VALUES
                 (?1, ?2, 'b', 'w', 'csa', 0, 0, 600, 10, 0, 's', '', 'finished', 't')",
                [id, name],
            )
            .expect("insert");
        }
        db.execute_batch(MIGRATIONS[3]).expect("step 4");
        let fouls: Vec<(String, Option<String>)> = db
            .prepare("SELECT id, fouls FROM games ORDER BY id")
            .expect("select")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        let fouls: Vec<(&str, Option<&str>)> = fouls
            .iter()
            .map(|(i, f)| (i.as_str(), f.as_deref()))
            .collect();
        assert_eq!(
            fouls,
            [
                ("a", Some("refuse")),
                ("b", Some("lose")),
                ("c", None),
                ("d", None),
                ("e", None)
            ]
        );
    }
}
