//! Command-line arguments, parsed by clap and then validated into positions and moves.

use clap::{Args, Parser, Subcommand};
use gyoku::rules::{Fouls, Resolution};
use gyoku::{Handicap, Move, ParsePresetError, Position, Preset, RuleSet};

use crate::Failure;

/// Gyoku: shogi rules engine and referee.
#[derive(Debug, Parser)]
#[command(name = "gyoku", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The largest record file read (judge, convert, impasse, --openings): bytes, or with
    /// a unit (KiB, MiB, GiB).
    #[arg(long, global = true, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
    pub max_file_size: u64,
}

/// A reconnection grace: a duration (`30s`, `2m`, `0`) of at most an hour, in ms.
fn grace(text: &str) -> Result<u64, String> {
    let ms = gyoku_arena::timecontrol::parse_duration(text)?;
    if ms > 3_600_000 {
        return Err(format!("'{text}': at most an hour"));
    }
    Ok(ms)
}

/// A size in bytes: `1000`, `64KiB`, `64MiB`, `1GiB` (also `k`, `M`, `G` as binary units).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 64MiB)"))?;
    let shift = match unit.trim() {
        "" | "B" => 0,
        "k" | "K" | "KiB" | "KB" => 10,
        "M" | "MiB" | "MB" => 20,
        "G" | "GiB" | "GB" => 30,
        other => return Err(format!("unknown size unit '{other}' (B, KiB, MiB, GiB)")),
    };
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("'{text}' is not a usable size"))
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal-move tree to DEPTH (bulk counting at the last ply).
    Perft {
        /// The depth in plies.
        depth: u32,
        /// List the count under each legal first move.
        #[arg(long)]
        divide: bool,
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"nodes": N, "seconds": S, "nps": R}.
        #[arg(long)]
        json: bool,
    },
    /// List the legal moves in USI notation.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"moves": ["7g7f", ...]}.
        #[arg(long)]
        json: bool,
    },
    /// Say whether MOVE (USI) is legal, and if not, which kind of illegal move it is.
    CheckMove {
        /// The move in USI notation, e.g. 7g7f, 8h2b+, P*5e.
        #[arg(name = "MOVE", allow_hyphen_values = true)]
        mv: String,
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"legal": false, "kind": "uchifuzume"}.
        #[arg(long)]
        json: bool,
    },
    /// Search for a mate by checks (a tsume): can the side to move force mate? Answers a
    /// mate with its line, no mate (only when proved), or unknown within the budget.
    ///
    /// Mates in one and three are the shortest; a longer line is the mate the df-pn search
    /// proved. A position missing the attacker's king (a tsume problem), with dead pieces
    /// or nifu is searched as it stands.
    Mate {
        #[command(flatten)]
        position: PositionArgs,
        /// The most positions the search expands (10000000 by default).
        #[arg(long, conflicts_with = "time")]
        nodes: Option<u64>,
        /// Stop after this long (500ms, 10s, 2m) instead of after a number of nodes.
        #[arg(long)]
        time: Option<String>,
        /// The transposition table's size.
        #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = parse_size)]
        table_size: u64,
        /// Print JSON: {"result": "mate" | "no_mate" | "unknown", "plies", "line", "nodes"}.
        #[arg(long)]
        json: bool,
    },
    /// Replay a game and say how it ends under a rule set.
    ///
    /// Besides USI moves, --moves takes `resign` (the side to move resigns), `win` (it
    /// declares an impasse, as USI's `bestmove win`), `agree` (both agree to an impasse
    /// count) and `timeout` (its time runs out).
    Judge {
        /// Record files or directories (CSA, KIF/KIFU, USI) to judge instead of --moves.
        files: Vec<std::path::PathBuf>,
        /// The start position as SFEN, `startpos` (the default) or a handicap name
        /// (`2-piece`, `二枚落ち`, ...).
        #[arg(long, default_value = "startpos")]
        sfen: String,
        /// The moves and actions, separated by spaces.
        #[arg(long, default_value = "")]
        moves: String,
        #[command(flatten)]
        rules: RuleArgs,
        /// Accept a start position with a missing king, dead pieces, nifu or extra pieces;
        /// in record files, also a board that gives only some rows (a tsume problem's
        /// corner: a KIF diagram, CSA's `P1`–`P9`), read as what it gives.
        #[arg(long)]
        lenient: bool,
        /// Judge each record under the rules its own header names, where it names them
        /// (Gyoku's `'Rules:`, a Floodgate `$EVENT`, Shogi Wars' `$X_` headers, 81Dojo,
        /// lishogi, a JSA professional event), else under --rules; the other rule options
        /// apply on top. Says which, and why, per record.
        #[arg(long)]
        rules_of_record: bool,
        /// With record files: the clock their moves' recorded times are run through (main
        /// time and increment: 10m, 60+1s); a move past its side's time loses on time there.
        #[arg(long)]
        time: Option<String>,
        /// With record files: the byoyomi of that clock (30s).
        #[arg(long)]
        byoyomi: Option<String>,
        #[command(flatten)]
        clock: ClockArgs,
        /// Judge record files as tsume problems: the attacker checks every move, the
        /// defender resists longest (futile interpositions not counted), no piece is left
        /// in the attacker's hand, and no other check mates as soon (余詰). Says
        /// "correct", or which convention breaks at which ply.
        #[arg(long)]
        tsume: bool,
        /// With --tsume: the budget of each search, in nodes.
        #[arg(long, default_value_t = 1_000_000)]
        nodes: u64,
        /// Print JSON: {"result", "reason", "ply", "sfen", "detail"} (with --tsume:
        /// {"records": [{"file", "sfen", "correct", "plies", "faults", "undecided",
        /// "last_move_alternatives", "nodes"}], "correct", "faulty", "undecided"}).
        #[arg(long)]
        json: bool,
    },
    /// The impasse calculator: who has entered, pieces in the zone, points, and the verdict
    /// under every rule set.
    Impasse {
        /// A record file: the calculator at a ply of it (the end by default).
        file: Option<std::path::PathBuf>,
        /// With a record: the ply (0 = the start).
        #[arg(long)]
        ply: Option<usize>,
        /// With a record: draw both sides' points and zone counts over the game as SVG.
        #[arg(long)]
        chart: Option<std::path::PathBuf>,
        #[command(flatten)]
        position: PositionArgs,
        /// The game's initial position (SFEN or handicap name), for handicap credit.
        #[arg(long)]
        initial: Option<String>,
        /// The mate search's budget for each side, in nodes (whether either king can still
        /// be mated, the JSA's Article 9); 0 skips it.
        #[arg(long, default_value_t = 100_000)]
        mate_nodes: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Convert a record to another format.
    Convert {
        /// The record file.
        file: std::path::PathBuf,
        /// The format to write: kif, ki2, csa, jkf, usi, or western (PSN with Western
        /// notation: `P-7f`, `Nx3f+`).
        #[arg(long)]
        to: String,
        /// Write here instead of standard output (a .kif or .ki2 file is written in
        /// Shift_JIS).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// List the rule-set presets, or print every field of one.
    Rules {
        /// A preset name: jsa, jsa-amateur, csa, 81dojo, lishogi, shogi-wars, try, saw,
        /// friendly, none.
        preset: Option<String>,
        #[command(flatten)]
        overrides: RuleOverrides,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the built-in USI engine on standard input and output (random or one-ply greedy;
    /// declares an entering-king win when its EnteringKingRule option allows).
    Engine {
        /// How it plays: greedy or random (also its `Style` option).
        #[arg(long, default_value = "greedy")]
        style: String,
        /// The seed of its choices (also its `Seed` option).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Start every game from the seed again: a deterministic engine, the same moves in
        /// the same positions game after game (also its `ReseedEachGame` option).
        #[arg(long)]
        reseed_each_game: bool,
        /// Think this long before each move (100ms, 2s): an engine that takes time, for
        /// demos and tests of clocks and workers.
        #[arg(long)]
        delay: Option<String>,
    },
    /// Play a refereed match between two USI engines.
    Match {
        /// An engine: NAME=COMMAND, or a command (named by its `id name`); give it twice
        /// (engine 1, then engine 2). Records, results.jsonl and the summary carry the
        /// names, and `gyoku ratings` rates by them.
        #[arg(long = "engine", required = true, num_args = 1)]
        engines: Vec<String>,
        /// How many games (colours alternate): 2 by default; with --sprt, the most that
        /// will be played (100000 by default).
        #[arg(long)]
        games: Option<u32>,
        /// Play game pairs (one opening, colours swapped) until a sequential probability
        /// ratio test decides whether engine 1 is stronger than engine 2 by elo1 rather
        /// than elo0: `elo0=0,elo1=5`, optionally followed by `,alpha=0.05,beta=0.05`,
        /// `,model=logistic|normalized` and `,counting=pentanomial|trinomial`.
        #[arg(long)]
        sprt: Option<String>,
        /// Adjudicate a loss for engine testing: when both engines' scores say one side is
        /// SCORE centipawns (or a mate) behind for MOVES moves each (1000:4). The record
        /// ends suspended, the adjudication in a comment.
        #[arg(long, value_name = "SCORE:MOVES")]
        adjudicate_resign: Option<String>,
        /// Adjudicate a draw for engine testing: from ply PLY, when both engines' scores
        /// stay within ±SCORE for MOVES moves each (5 unless given): 160:10.
        #[arg(long, value_name = "PLY:SCORE[:MOVES]")]
        adjudicate_draw: Option<String>,

        #[command(flatten)]
        rules: RuleArgs,
        /// Main time and increment: 60+1s, 10s, 5m (no byoyomi with an increment).
        #[arg(long)]
        time: Option<String>,
        /// Byoyomi per move after the main time: 1s, 500ms (the default is 1s when no
        /// --time is given).
        #[arg(long)]
        byoyomi: Option<String>,
        #[command(flatten)]
        clock: ClockArgs,
        /// Tell each engine it has this much less time than its clock allows (for engines
        /// that overrun: 300ms).
        #[arg(long)]
        margin: Option<String>,
        /// Openings: a file of SFEN or USI lines, or any record file; each is played twice,
        /// colours swapped.
        #[arg(long)]
        openings: Option<std::path::PathBuf>,
        /// Keep only this many moves of each opening.
        #[arg(long)]
        opening_plies: Option<usize>,
        /// Write each game's KIF and CSA records and results.jsonl here; a match with an
        /// output directory can be resumed by running it again.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Games played at once (default: cores / threads per engine, the threads taken
        /// from a Threads, Thread or USI_Threads --option; 1 when none is set).
        #[arg(long)]
        concurrency: Option<usize>,
        /// An engine option, NAME=VALUE for both engines or 1:NAME=VALUE / 2:NAME=VALUE
        /// (or ENGINE:NAME=VALUE by its given name) for one (repeatable).
        #[arg(long = "option")]
        options: Vec<String>,
        #[command(flatten)]
        testing: TestingArgs,
        /// Print the summary as JSON (the same as --output json).
        #[arg(long)]
        json: bool,
    },
    /// Run the CSA-protocol game server (shogi-server's protocol, x1 included): games
    /// refereed under any preset, every echoed move stored first.
    Serve(ServeArgs),
    /// Give each participant of an organised event a key (128 random bits): written to a
    /// new file only you may read, their digests added to the event file's `[seats]`.
    /// With them, `gyoku serve --event-file` gives each seat to its key alone, not to
    /// whoever logs in first with the name.
    EventKeys {
        /// The event file (`gyoku serve --event-file`).
        file: std::path::PathBuf,
        /// Where the keys go (a new file; default: the event file's name with `.keys`).
        #[arg(long, value_name = "FILE")]
        keys_out: Option<std::path::PathBuf>,
        /// Print what was written as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Put a USI engine on a CSA server (Floodgate, shogi-server, gyoku serve), with the
    /// referee checking the server's every ruling.
    CsaClient(CsaClientArgs),
    /// Play a refereed tournament of USI engines: round-robin, gauntlet, Swiss or knockout.
    Tournament(TournamentArgs),
    /// A rating list from game results: by maximum likelihood (Bradley–Terry, draws as half
    /// points, as Ordo and BayesElo), or with --floodgate as Floodgate's mk_rate computes it.
    Ratings(RatingsArgs),
    /// Training data from game records, labelled by the referee: each position of each
    /// game with the move played and the game's result as judged under --rules, in
    /// cshogi's `hcpe` or YaneuraOu's `psv`. Games whose judged result is not their
    /// record's are listed.
    ExportTraining {
        /// Record files or directories (any format and encoding).
        #[arg(required = true)]
        paths: Vec<std::path::PathBuf>,
        /// The file to write (a regular file is replaced, atomically).
        #[arg(long)]
        out: std::path::PathBuf,
        /// The format: hcpe (cshogi's, 38 bytes a position), psv (YaneuraOu's
        /// PackedSfenValue, 40 bytes) or sfen (YaneuraOu's plain text).
        #[arg(long, default_value = "hcpe")]
        format: String,
        /// The rules the games are judged under.
        #[arg(long, default_value = "jsa")]
        rules: String,
        /// Print JSON: {"out", "games", "positions", "skipped_games", "skipped_positions",
        /// "unreadable", "seconds", "relabelled": [{"file", "recorded", "judged"}]}.
        #[arg(long)]
        json: bool,
    },
    /// Copy `gyoku serve`'s SQLite database while it runs: a consistent snapshot, written
    /// beside OUT and moved into place once synced (docs/operations.md).
    Backup {
        /// The backup file to write (a regular file is replaced).
        out: std::path::PathBuf,
        /// The database: an SQLite file (postgres:// is backed up with pg_dump).
        #[arg(long)]
        db: Option<String>,
        /// The server's data directory (its gyoku.sqlite3), as `gyoku serve --data-dir`.
        #[arg(long, conflicts_with = "db")]
        data_dir: Option<std::path::PathBuf>,
        /// Print JSON: {"path", "bytes", "schema", "games", "unfinished", "seconds"}.
        #[arg(long)]
        json: bool,
    },
    /// Put a backup in place of `gyoku serve`'s database, the server stopped: the backup
    /// is checked first; an existing database is replaced only with --force.
    Restore {
        /// The backup (`gyoku backup`'s file).
        backup: std::path::PathBuf,
        /// The database to restore: an SQLite file.
        #[arg(long)]
        db: Option<String>,
        /// The server's data directory (its gyoku.sqlite3).
        #[arg(long, conflicts_with = "db")]
        data_dir: Option<std::path::PathBuf>,
        /// Replace the database that is there.
        #[arg(long)]
        force: bool,
        /// Print JSON, as `gyoku backup --json`.
        #[arg(long)]
        json: bool,
    },
    /// Engine tests a server keeps and workers play (docs/testing-at-scale.md): `create`,
    /// `stop`, `list`.
    Test(TestArgs),
    /// Play a server's engine tests: ask it for batches of game pairs, play them here,
    /// upload each game's record (the server judges it again), until stopped.
    Worker(WorkerArgs),
}

/// `gyoku test`'s actions.
#[derive(Debug, Args)]
pub struct TestArgs {
    #[command(subcommand)]
    pub action: TestAction,
}

/// What `gyoku test` does.
#[derive(Debug, Subcommand)]
pub enum TestAction {
    /// Make a test on the server: two engines, the rules, the clock, the openings, and a
    /// number of game pairs or an SPRT that stops it.
    Create(TestCreateArgs),
    /// Stop a running test (its batches are let go).
    Stop {
        /// The test's name.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
        /// The file holding the server's admin token (`gyoku serve --admin-token-file`).
        #[arg(long, value_name = "FILE")]
        admin_token: std::path::PathBuf,
        /// Print the server's answer as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the server's tests: status, games, LLR, Elo.
    List {
        #[command(flatten)]
        server: ServerArgs,
        /// Print JSON: the server's `GET /api/tests`.
        #[arg(long)]
        json: bool,
    },
}

/// The server an engine-test command talks to.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The server's HTTP address: http://HOST:PORT (`gyoku serve --http`).
    #[arg(long, value_name = "URL")]
    pub server: String,
}

/// `gyoku test create`'s options.
#[derive(Debug, Args)]
pub struct TestCreateArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The file holding the server's admin token (`gyoku serve --admin-token-file`).
    #[arg(long, value_name = "FILE")]
    pub admin_token: std::path::PathBuf,
    /// The test's name (letters, digits, `-`, `_`, `.`).
    #[arg(long)]
    pub name: String,
    /// An engine, twice (engine 1 is the one tested): `NAME=COMMAND` (the command a worker
    /// runs unless it has its own for NAME), `NAME=@FILE` (the build is uploaded to the
    /// server and each worker fetches it), or `NAME` alone (each worker gives its own
    /// command: `gyoku worker --engine NAME=COMMAND`). `builtin` is Gyoku's own engine.
    #[arg(
        long = "engine",
        value_name = "NAME[=COMMAND]",
        num_args = 1,
        required = true
    )]
    pub engines: Vec<String>,
    /// A USI option for both engines (`NAME=VALUE`) or one (`ENGINE:NAME=VALUE`, by number
    /// or name). Repeat it.
    #[arg(long = "option", value_name = "[ENGINE:]NAME=VALUE")]
    pub options: Vec<String>,
    /// The rule-set preset (`gyoku rules` lists them).
    #[arg(long, default_value = "csa")]
    pub rules: String,
    /// Main time and increment: `10s`, `60+1s` (as `gyoku match --time`).
    #[arg(long)]
    pub time: Option<String>,
    /// Byoyomi: `1s`, `100ms`.
    #[arg(long)]
    pub byoyomi: Option<String>,
    /// Openings: a file of positions (SFEN or USI lines, or records), used in turn, each
    /// played once with each colour.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<std::path::PathBuf>,
    /// Keep only this many plies of each opening.
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// The most game pairs.
    #[arg(long, default_value_t = 1000)]
    pub pairs: u32,
    /// Stop when this SPRT decides: `elo0=0,elo1=5[,alpha=0.05][,beta=0.05]` (as `gyoku
    /// match --sprt`).
    #[arg(long)]
    pub sprt: Option<String>,
    /// Pairs handed to a worker at once.
    #[arg(long, default_value_t = 4)]
    pub batch_pairs: u32,
    /// Print the server's answer as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `gyoku worker`'s options.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The file holding the server's worker token (`gyoku serve --worker-token-file`).
    #[arg(long, value_name = "FILE")]
    pub token: std::path::PathBuf,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// The name this worker registers under (default: the host's name).
    #[arg(long)]
    pub name: Option<String>,
    /// This machine's command for an engine a test names: `NAME=COMMAND` (used instead of
    /// the test's own). Repeat it.
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    pub engines: Vec<String>,
    /// Stop once the server has no batch this worker can play.
    #[arg(long)]
    pub exit_when_idle: bool,
    /// Where engine builds fetched from the server are kept (default: the user's cache,
    /// `~/.cache/gyoku/artefacts`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<std::path::PathBuf>,
}

/// `gyoku tournament`'s options.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// An engine, NAME=COMMAND (or a command, named after its file); give two or more. The
    /// order is the seeding (knockout) and the first is the gauntlet's.
    #[arg(long = "engine", required = true, num_args = 1)]
    pub engines: Vec<String>,
    /// round-robin (each pair), gauntlet (the first against each), swiss (paired by score),
    /// knockout (single elimination).
    #[arg(long, default_value = "round-robin")]
    pub format: String,
    /// Round-robin and gauntlet: times the schedule is played (1); Swiss: rounds (default
    /// log2 of the field, rounded up, plus one, at most the field less one).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Games each encounter plays, colours alternating, one opening per two games.
    #[arg(long, default_value_t = 2)]
    pub games_per_encounter: u32,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Main time and increment: 60+1s, 10s, 5m.
    #[arg(long)]
    pub time: Option<String>,
    /// Byoyomi per move after the main time (1s when no --time is given).
    #[arg(long)]
    pub byoyomi: Option<String>,
    #[command(flatten)]
    pub clock: ClockArgs,
    /// Tell each engine it has this much less time than its clock allows.
    #[arg(long)]
    pub margin: Option<String>,
    /// Openings: a file of SFEN or USI lines, or any record file.
    #[arg(long)]
    pub openings: Option<std::path::PathBuf>,
    /// Keep only this many moves of each opening.
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// Games played at once (default: the cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Write each game's KIF and CSA records and results.jsonl here; running the same
    /// command again resumes.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// An engine option, NAME=VALUE for every engine or ENGINE:NAME=VALUE for one
    /// (repeatable).
    #[arg(long = "option")]
    pub options: Vec<String>,
    /// Adjudicate a loss for engine testing: when both engines' scores say one side is
    /// SCORE centipawns (or a mate) behind for MOVES moves each (1000:4). The record
    /// ends suspended, the adjudication in a comment.
    #[arg(long, value_name = "SCORE:MOVES")]
    pub adjudicate_resign: Option<String>,
    /// Adjudicate a draw for engine testing: from ply PLY, when both engines' scores
    /// stay within ±SCORE for MOVES moves each (5 unless given): 160:10.
    #[arg(long, value_name = "PLY:SCORE[:MOVES]")]
    pub adjudicate_draw: Option<String>,
    #[command(flatten)]
    pub testing: TestingArgs,

    /// Print the summary as JSON (the same as --output json).
    #[arg(long)]
    pub json: bool,
}

/// The engine-testing options `gyoku match` and `gyoku tournament` share (fastchess's
/// everyday options, with its names where it has one).
#[derive(Debug, Args)]
pub struct TestingArgs {
    /// Forgive a move this late (fastchess's timemargin): a move made less than this much
    /// after its deadline is taken as on time, a later one loses (50ms; 0 by default).
    #[arg(long, value_name = "DURATION")]
    pub timemargin: Option<String>,
    /// Every engine searches this many nodes a move (`go ... nodes N`, with the clock's
    /// times).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Every engine searches to this depth (`go ... depth N`, with the clock's times).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Every engine thinks this long a move (`go movetime N`; its clock is then this much
    /// byoyomi a move): 200ms.
    #[arg(long, value_name = "DURATION")]
    pub movetime: Option<String>,
    /// One engine's own setting, ENGINE:KEY=VALUE with ENGINE its name (or 1, 2 in a
    /// match) and KEY one of tc (its main time and increment, as --time: 60+1s), byoyomi,
    /// nodes, depth, movetime, timemargin (repeatable). It wins over the setting for all.
    #[arg(long = "engine-option", value_name = "ENGINE:KEY=VALUE")]
    pub engine_options: Vec<String>,
    /// The order openings are taken in: sequential (the file's) or random (shuffled once
    /// with --seed; each opening is still played twice, colours swapped).
    #[arg(long, default_value = "sequential", value_name = "ORDER")]
    pub openings_order: String,
    /// The seed of --openings-order random: the same seed, the same order.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write each game's USI traffic, both engines' lines with the milliseconds since the
    /// game began, to DIR/game-NNNN.usi.log.
    #[arg(long, value_name = "DIR")]
    pub log_usi: Option<std::path::PathBuf>,
    /// How results are printed: text (a table), json, or fastchess (a `Finished game`
    /// line per game as it ends, and fastchess's `Results of` block at the end, for tools
    /// that read fastchess's and shogitest's output).
    #[arg(long, default_value = "text", value_name = "FORM")]
    pub output: String,
}

/// `gyoku ratings`' options.
#[derive(Debug, Args)]
pub struct RatingsArgs {
    /// Where the games are: record files or directories (judged again), a match's or
    /// tournament's `results.jsonl` (or its directory), or files of Floodgate's
    /// `mk_game_results` lines.
    pub sources: Vec<std::path::PathBuf>,
    /// Also the finished games of a `gyoku serve` database (a SQLite file or postgres://).
    #[arg(long)]
    pub db: Option<String>,
    /// Floodgate's own method, as shogi-server's mk_rate: games weighted by age, players
    /// with 15 games or more, each group's mean at 1000, whole points.
    #[arg(long)]
    pub floodgate: bool,
    /// Virtual draws each player gets against its group's average (keeps a player who won
    /// or lost every game finite); 0 for the plain maximum. Not with --floodgate.
    #[arg(long, default_value_t = 1.0, conflicts_with = "floodgate")]
    pub prior_draws: f64,
    /// With --floodgate: the time the ratings are for (default now): 2026-11-21.
    #[arg(long)]
    pub base_date: Option<String>,
    /// With --floodgate: days for a game's weight to halve.
    #[arg(long, default_value_t = 60, requires = "floodgate")]
    pub half_life: u32,
    /// With --floodgate: days before the weight starts to fall.
    #[arg(long, default_value_t = 7, requires = "floodgate")]
    pub half_life_ignore: u32,
    /// With --floodgate: games older than this many days are not counted.
    #[arg(long, default_value_t = 730, requires = "floodgate")]
    pub ignore: u32,
    /// With --floodgate: an `abnormal` game (a disconnection) counts only past this many
    /// plies; 0: never.
    #[arg(long, default_value_t = 30, requires = "floodgate")]
    pub abnormal_threshold: u32,
    /// With --floodgate: a player (its id, or the last id containing it) fixed at
    /// --fixed-rate, the rest of its group moved with it.
    #[arg(long, requires_all = ["floodgate", "fixed_rate"])]
    pub fixed_rate_player: Option<String>,
    /// With --floodgate: the fixed player's rate.
    #[arg(long, requires = "fixed_rate_player")]
    pub fixed_rate: Option<i64>,
    /// With --floodgate: draws not counted at all.
    #[arg(long, requires = "floodgate")]
    pub skip_draw_games: bool,
    /// With --floodgate: print `players.yaml` in mk_rate's layout.
    #[arg(long, requires = "floodgate", conflicts_with = "json")]
    pub yaml: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `gyoku csa-client`'s options.
#[derive(Debug, Args)]
pub struct CsaClientArgs {
    /// The engine's command line.
    #[arg(long)]
    pub engine: String,
    /// The server's host.
    #[arg(long)]
    pub host: String,
    /// The server's port.
    #[arg(long, default_value_t = 4081)]
    pub port: u16,
    /// The login name.
    #[arg(long)]
    pub id: String,
    /// The password.
    #[arg(long)]
    pub password: String,
    /// The game to play (floodgate-300-10F): sent as `name,password` in CSA mode, with
    /// %%GAME in x1 mode. Without it, the server chooses.
    #[arg(long)]
    pub game: Option<String>,
    /// Log in in x1 mode (shogi-server's extended mode).
    #[arg(long)]
    pub x1: bool,
    /// How many games to play (default 1).
    #[arg(long, conflicts_with = "forever")]
    pub games: Option<u32>,
    /// Play until stopped.
    #[arg(long)]
    pub forever: bool,
    /// An engine option, NAME=VALUE (repeatable).
    #[arg(long = "option")]
    pub options: Vec<String>,
    /// Taken off the engine's own time in `go`, for the network: 500ms, 1s.
    #[arg(long, default_value = "500ms")]
    pub margin: String,
    /// Write each game's KIF and CSA records and a line in results.jsonl here.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// No Floodgate `'* <eval> <pv>` comments on the moves.
    #[arg(long)]
    pub no_comments: bool,
    /// Start the engine afresh for every game.
    #[arg(long)]
    pub restart_engine: bool,
    /// Let the engine think on the opponent's time (USI_Ponder): `go ponder` on the reply it
    /// expects once its move is echoed, `ponderhit` when that reply comes, `stop` when not.
    #[arg(long)]
    pub ponder: bool,
    /// How long to wait before logging in again after a connection is lost or refused.
    #[arg(long, default_value = "2s")]
    pub retry: String,
    /// How long the server may stay silent beyond the mover's time before the connection
    /// counts as dead (dropped, and logged in again).
    #[arg(long, default_value = "60s")]
    pub server_grace: String,
    /// When the connection drops mid-game and the server gave a reconnect token
    /// (`Reconnect_Token:`), log in again with it for this long (waits of 0.2 s, doubling,
    /// at most 5 s), keeping the engine and its position; `0`: never.
    #[arg(long, default_value = "30s", value_name = "DURATION")]
    pub reconnect_for: String,
    /// Ponder at once after each `bestmove`, before the server's echo (ShogiHome's early
    /// ponder: `go ponder` without clocks, `ponderhit` with them). Implies --ponder.
    #[arg(long)]
    pub early_ponder: bool,
}

/// How the clock reads beyond its main time, byoyomi and increment (issue 41).
#[derive(Debug, Args, Clone, Default)]
pub struct ClockArgs {
    /// Byoyomi periods: a move that outlasts the byoyomi uses one up, and the side flags
    /// when a move outlasts the last (lishogi's 1-5; 1, the default, is plain byoyomi).
    #[arg(long, value_name = "N")]
    pub periods: Option<u32>,
    /// Thinking-time units beside the byoyomi, COUNTxDURATION: 10x60s (the NHK Cup's
    /// 考慮時間: a move in byoyomi that outlasts it uses a unit for each one it begins).
    #[arg(long, value_name = "COUNTxDURATION")]
    pub thinking_units: Option<String>,
    /// How a move's time is charged: exact (the default), floored-seconds (CSA servers)
    /// or floored-minutes (the JSA's stopwatch, 1分未満切り捨て: a move within the minute
    /// costs nothing of the main time).
    #[arg(long, value_name = "ROUNDING")]
    pub rounding: Option<String>,
}

impl ClockArgs {
    /// `time` with these options.
    ///
    /// # Errors
    /// A value that cannot be read, or periods or units without a byoyomi.
    pub fn apply(&self, mut time: gyoku::TimeControl) -> Result<gyoku::TimeControl, Failure> {
        let needs_byoyomi = |what: &str| {
            Failure::Input(format!(
                "{what}: only with a byoyomi (--byoyomi), which it extends"
            ))
        };
        if let Some(n) = self.periods {
            if !(1..=100).contains(&n) {
                return Err(Failure::Input(format!("--periods {n}: 1 to 100")));
            }
            if time.byoyomi == 0 {
                return Err(needs_byoyomi("--periods"));
            }
            time = time.with_periods(n);
        }
        if let Some(text) = &self.thinking_units {
            let units = gyoku_arena::timecontrol::parse_thinking_units(text)
                .map_err(|e| Failure::Input(format!("--thinking-units {e}")))?;
            if time.byoyomi == 0 {
                return Err(needs_byoyomi("--thinking-units"));
            }
            time = time.with_thinking_units(units.count, units.unit);
        }
        if let Some(r) = &self.rounding {
            time = time.with_rounding(match r.as_str() {
                "exact" => gyoku::Rounding::Exact,
                "floored-seconds" => gyoku::Rounding::FlooredSeconds,
                "floored-minutes" => gyoku::Rounding::FlooredMinutes,
                other => {
                    return Err(Failure::Input(format!(
                        "--rounding '{other}': exact, floored-seconds or floored-minutes"
                    )));
                }
            });
        }
        Ok(time)
    }
}

/// The rule set: a preset and single-field overrides.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The rule-set preset.
    #[arg(long, default_value = "csa")]
    pub rules: String,
    #[command(flatten)]
    pub overrides: RuleOverrides,
}

/// Overrides of single fields of a rule set.
#[derive(Clone, Debug, Args, Default)]
pub struct RuleOverrides {
    /// The move limit in moves (0 removes it).
    #[arg(long)]
    pub max_moves: Option<u32>,
    /// What an illegal move does: lose, refuse, or claim (it stands only if the opponent
    /// claims it before their next move).
    #[arg(long)]
    pub fouls: Option<String>,
    /// The result of a sennichite: draw or no-contest.
    #[arg(long)]
    pub sennichite: Option<String>,
    /// Credit the pieces a handicap removes to White: true or false.
    #[arg(long)]
    pub handicap_credit: Option<bool>,
    /// Reproduce shogi-server at the move limit (it never detects mate).
    #[arg(long)]
    pub strict_csa_server: bool,
    /// The clocks a no contest's replay is played with: fresh, remaining,
    /// top-up:DURATION (1h, 10m) or byoyomi-only.
    #[arg(long)]
    pub replay_clock: Option<gyoku::ReplayClock>,
}

impl RuleOverrides {
    /// Applies the overrides to `rules`.
    pub fn apply(&self, rules: &mut RuleSet) -> Result<(), Failure> {
        if let Some(n) = self.max_moves {
            rules.set_max_moves(n);
        }
        if let Some(f) = &self.fouls {
            rules.fouls = f
                .parse::<Fouls>()
                .map_err(|e| Failure::Input(format!("--fouls: {e}")))?;
        }
        if let Some(s) = &self.sennichite {
            rules.sennichite = match s.as_str() {
                "draw" => Resolution::Draw,
                "no-contest" | "no_contest" => Resolution::NoContest,
                other => {
                    return Err(Failure::Input(format!(
                        "--sennichite: '{other}' is not 'draw' or 'no-contest'"
                    )));
                }
            };
        }
        if let Some(c) = self.handicap_credit {
            rules.handicap_credit = c;
        }
        if let Some(c) = self.replay_clock {
            rules.replay_clock = c;
        }
        if self.strict_csa_server {
            match rules.move_limit.as_mut() {
                Some(limit) => limit.strict_csa_server = true,
                None => {
                    return Err(Failure::Input(
                        "--strict-csa-server needs a move limit (--max-moves N)".to_string(),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl RuleArgs {
    /// The rule set the arguments describe.
    pub fn rule_set(&self) -> Result<(Preset, RuleSet), Failure> {
        let preset: Preset = self
            .rules
            .parse()
            .map_err(|e: ParsePresetError| Failure::Input(format!("--rules: {e}")))?;
        let mut rules = preset.rules();
        self.overrides.apply(&mut rules)?;
        Ok((preset, rules))
    }
}

/// Reads a start position: an SFEN, `startpos`, or a handicap name.
pub fn read_position(text: &str, lenient: bool, what: &str) -> Result<Position, Failure> {
    if let Ok(handicap) = text.parse::<Handicap>() {
        return Ok(handicap.position());
    }
    // Errors in the main position read as the issue's contract shows them ("sfen: field 3
    // ..."); others name their option first.
    let prefix = if what == "--sfen" {
        String::new()
    } else {
        format!("{what}: ")
    };
    let setup =
        gyoku::Setup::from_sfen(text).map_err(|e| Failure::Input(format!("{prefix}{e}")))?;
    match Position::from_setup(setup) {
        Ok(pos) => Ok(pos),
        Err(e) if lenient => e
            .ignore_all_safe()
            .map_err(|e| Failure::Input(format!("{prefix}sfen: {e}"))),
        Err(e) => Err(Failure::Input(format!(
            "{prefix}sfen: {e} (--lenient accepts a missing king, dead pieces, nifu and extra pieces)"
        ))),
    }
}

/// Where a command starts.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// The position as SFEN, or `startpos` (the default).
    #[arg(long, default_value = "startpos")]
    pub sfen: String,
    /// Moves (USI, separated by spaces) to play from the SFEN first.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Accept positions that break a rule but can be played through: a missing king (tsume
    /// problems), dead pieces, nifu, too many pieces.
    #[arg(long)]
    pub lenient: bool,
}

impl PositionArgs {
    /// The position the arguments describe.
    pub fn position(&self) -> Result<Position, Failure> {
        let mut pos = read_position(&self.sfen, self.lenient, "--sfen")?;
        for (i, text) in self.moves.split_whitespace().enumerate() {
            let m = parse_move(text)
                .map_err(|e| Failure::Input(format!("--moves: move {}: {e}", i + 1)))?;
            pos.play(m).map_err(|kind| {
                Failure::Input(format!(
                    "--moves: move {} '{text}' is illegal: {} ({kind})",
                    i + 1,
                    kind.code()
                ))
            })?;
        }
        Ok(pos)
    }
}

/// Parses a USI move, with the error as text.
pub fn parse_move(text: &str) -> Result<Move, String> {
    text.parse::<Move>().map_err(|e| e.to_string())
}

/// `gyoku serve`'s options.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The CSA port's address (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:4081")]
    pub csa: std::net::SocketAddr,
    /// The database: an SQLite file (`PATH` or `sqlite://PATH`; default: gyoku.sqlite3
    /// in the data directory) or PostgreSQL (`postgres://user:password@host/db`).
    #[arg(long)]
    pub db: Option<String>,
    /// The data directory (default: $XDG_DATA_HOME/gyoku, ~/.local/share/gyoku).
    #[arg(long)]
    pub data_dir: Option<std::path::PathBuf>,
    /// Where record files go, as YYYY/MM/DD/<Game_ID>.csa (default: records/ in the
    /// data directory).
    #[arg(long)]
    pub records: Option<std::path::PathBuf>,
    /// The rules of games whose name does not choose a preset (`rules_jsa_name-600-10`).
    #[arg(long, default_value = "csa")]
    pub rules: String,
    /// The move limit (0: none; default: the preset's own, 256 for csa).
    #[arg(long)]
    pub max_moves: Option<u32>,
    /// Every move costs at least this many seconds (CSA 1.1 used 1).
    #[arg(long, default_value_t = 0)]
    pub least_time_per_move: u32,
    /// How long a player whose connection drops mid-game may take to log in again with its
    /// game's reconnect token (`LOGIN <name> <password> reconnect:<game_id>+<token>`); the
    /// clocks run meanwhile. `0`: none, the player loses at once (shogi-server's way).
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = grace)]
    pub reconnect_grace: u64,
    /// Reproduce shogi-server where Gyoku differs: no mate detection (the mated side must
    /// resign, flag or move illegally), %CHUDAN an illegal move.
    #[arg(long)]
    pub strict_csa_server: bool,
    /// Write shogi-server's `name+md5(password)` rating ids (for its own test suite);
    /// by default they are keyed by the server's secret, and say nothing of the password.
    #[arg(long)]
    pub md5_rating_ids: bool,
    /// The event name, first part of every Game_ID.
    #[arg(long, default_value = "gyoku")]
    pub event: String,
    /// Connections at once [default: 20000, or what the open-file limit holds if fewer].
    #[arg(long)]
    pub max_connections: Option<usize>,
    /// Connections at once from one address.
    #[arg(long, default_value_t = 1_000)]
    pub max_connections_per_address: usize,
    /// New names one address (an IPv6 /64) may bind to a password on the CSA port in an
    /// hour; past it, a login with a new name is refused before any hash is made (a known
    /// name logs in as ever). 0: no new names at all.
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub new_names_per_address: u32,
    /// The HTTP API's address (loopback unless told otherwise), or `off`.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub http: String,
    /// Where `GET /metrics` (Prometheus's text format, names prefixed `gyoku_`) listens,
    /// on a port of its own: games live and finished, moves, the echo and commit
    /// latencies, storage errors, connections open, refused and throttled, event streams,
    /// engine processes, and on a web instance its relayed requests. None unless given.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// A host name the web page and API answer to, besides the address they listen on
    /// (and `localhost` on loopback): the name a reverse proxy or DNS gives them. Repeat
    /// it; `*` answers to any name (no protection against DNS rebinding).
    #[arg(long = "http-host", value_name = "NAME")]
    pub http_hosts: Vec<String>,
    /// Serve the page, the API and the event streams over HTTPS with this certificate
    /// chain (PEM, as `fullchain.pem`); give `--tls-key` with it.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The private key (PEM) of `--tls-cert`'s certificate.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// HTTP connections at once (taken from the open-file budget before the CSA port's).
    #[arg(long, default_value_t = 4_096)]
    pub http_max_connections: usize,
    /// HTTP connections at once from one address.
    #[arg(long, default_value_t = 128)]
    pub http_max_connections_per_address: usize,
    /// Event streams (`/api/games/ID/events`) open at once, in all (each is an HTTP
    /// connection too).
    #[arg(long, default_value_t = 4_096)]
    pub http_max_watchers: usize,
    /// Event streams open at once from one address.
    #[arg(long, default_value_t = 32)]
    pub http_max_watchers_per_address: usize,
    /// A USI engine people may play against on the web page: NAME=COMMAND (repeat it).
    /// `builtin` (Gyoku's own greedy engine) is always there unless given another command.
    #[arg(long = "engine", value_name = "NAME=COMMAND")]
    pub engines: Vec<String>,
    /// A level of an `--engine` (repeat it, one per level): NAME:LEVEL=SPEC, the SPEC
    /// `;`-separated KEY=VALUEs: `nodes`, `depth` or `movetime` (ms) make a fixed search on
    /// each move in place of the game's clock, and any other KEY is a USI option, e.g.
    /// `fsf:1=movetime=100;Skill Level=0`. The page offers each level; a person chooses
    /// one (the lowest by default).
    #[arg(long = "engine-level", value_name = "NAME:LEVEL=SPEC")]
    pub engine_levels: Vec<String>,
    /// The engine that analyses finished games when a person asks (one of the
    /// `--engine`s, by name; none: no analysis). One process, one game at a time.
    #[arg(long, value_name = "NAME")]
    pub analysis_engine: Option<String>,
    /// The analysis engine's time for each position, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub analysis_ms: u64,
    /// A game played in scheduled rounds, as Floodgate's: GAME=TIMES, the times `:00,:30`
    /// (every hour at those minutes), `13:00` (every day) or `Sat 13:00` (every week), or
    /// GAME=@FILE for a schedule file in Floodgate's `floodgate-*.conf` form (repeat it).
    /// Players who name the game wait for its next round; then all are paired at once, by
    /// rating.
    #[arg(long = "schedule", value_name = "GAME=TIMES")]
    pub schedules: Vec<String>,
    /// How often the rating list is computed again from the stored games (Floodgate's
    /// method), in seconds.
    #[arg(long, default_value_t = 300)]
    pub ratings_every: u64,
    /// An organised event: a TOML file naming its participants, game name, format
    /// (`swiss` with its rounds, or `round-robin`), start and how long a missing player is
    /// waited for (docs/tournaments.md, "Run a tournament"). Repeat it for more events.
    /// An event taken up again after a restart goes on from its stored state.
    #[arg(long = "event-file", value_name = "FILE")]
    pub event_files: Vec<std::path::PathBuf>,
    /// The file holding the operator's token for the events' admin endpoint (`POST
    /// /api/events/NAME/admin`, `Authorization: Bearer TOKEN`). Made when missing: 64 hex
    /// digits from the system's random source, readable by its owner only. Never shown.
    /// Without it the admin endpoint is off.
    #[arg(long, value_name = "FILE")]
    pub admin_token_file: Option<std::path::PathBuf>,
    /// The file holding the token engine-test workers register with (`gyoku worker
    /// --token FILE`). Made when missing, as --admin-token-file. Without it no worker can
    /// register (docs/testing-at-scale.md).
    #[arg(long, value_name = "FILE")]
    pub worker_token_file: Option<std::path::PathBuf>,
    /// How long a batch of an engine test stays a worker's without a heartbeat before it
    /// is handed out again: 120s, 2m.
    #[arg(long, default_value = "120s")]
    pub worker_lease: String,
    /// What this instance does: `referee` holds the lobby and the CSA port (one per
    /// database); `web` serves the web page, the API and the event streams from the
    /// PostgreSQL database a referee writes, relaying players' actions to it (`--referee`).
    /// docs/scale-out.md says how to run several.
    #[arg(long, value_enum, default_value = "referee")]
    pub role: Role,
    /// A web instance's referee: the HTTP address (`HOST:PORT`) of the referee instance's
    /// `--http`, to which the web page's actions are relayed.
    #[arg(long, value_name = "HOST:PORT")]
    pub referee: Option<String>,
    /// A referee that finds another holding the database waits for it to let go (or to be
    /// gone) and then takes over, rather than stopping.
    #[arg(long)]
    pub standby: bool,
    /// How the server's log on standard error is written: `text` (a line for people,
    /// `gyoku serve: ` and the game or connection it is about first) or `json` (one object
    /// per line, with its level, time and spans). `GYOKU_LOG` chooses what is logged, as
    /// `tracing` directives (`gyoku=debug` adds each stored move).
    #[arg(long, value_name = "text|json", default_value = "text")]
    pub log_format: gyoku_server::log::LogFormat,
}

/// `gyoku serve --role`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// The lobby, the CSA port, the web page's games (and the HTTP API, unless `--http
    /// off`).
    Referee,
    /// The web page, the HTTP API and the event streams, from a referee's PostgreSQL.
    Web,
}
