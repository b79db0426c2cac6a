//! Gyoku against its peers, side by side: every library runs every cell once per round,
//! round after round, and the report gives each library's median time and its ratio to
//! Gyoku's. Single-threaded throughout.
//!
//! Peers: haitaka 0.3.2 and rsshogi 1.7.3 (the fastest Rust generators), shogi_core 0.1.5
//! with shogi_legality_lite 0.1.3 (a plain reference), and cshogi (PyPI, C++ through
//! Python; run as a subprocess that times itself in-process, if `python3 -c 'import cshogi'`
//! works), and for perft YaneuraOu's MATERIAL edition (a binary you built, `go perft D`
//! over USI, its own in-process time; [`use_yaneuraou`]).

pub mod backup_time;
pub mod chat_flood;
pub mod csa_load;
pub mod login_flood;
pub mod mate;
pub mod mate_engine;
pub mod metrics_cost;
pub mod ratings;
pub mod runner_cost;
pub mod slow_uploads;
pub mod training;
pub mod watch_load;
pub mod workers_load;

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// One measured cell: a position and a depth.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// Short name of the position.
    pub name: &'static str,
    /// The position.
    pub sfen: &'static str,
    /// Perft depth.
    pub depth: u32,
    /// Published node count.
    pub nodes: u64,
    /// Whether the slow peers (shogi_legality_lite) run this cell.
    pub slow_peers: bool,
}

/// The cells of the perft benchmark.
pub const PERFT_CELLS: [Cell; 6] = [
    Cell {
        name: "startpos",
        sfen: gyoku::STARTPOS_SFEN,
        depth: 5,
        nodes: 19_861_490,
        slow_peers: true,
    },
    Cell {
        name: "startpos",
        sfen: gyoku::STARTPOS_SFEN,
        depth: 6,
        nodes: 547_581_517,
        slow_peers: false,
    },
    Cell {
        name: "matsuri",
        sfen: MATSURI,
        depth: 3,
        nodes: 4_809_015,
        slow_peers: true,
    },
    Cell {
        name: "matsuri",
        sfen: MATSURI,
        depth: 4,
        nodes: 516_925_165,
        slow_peers: false,
    },
    Cell {
        name: "maxmoves-593",
        sfen: MAXMOVES,
        depth: 2,
        nodes: 105_677,
        slow_peers: true,
    },
    Cell {
        name: "maxmoves-593",
        sfen: MAXMOVES,
        depth: 3,
        nodes: 53_393_368,
        slow_peers: false,
    },
];

const MATSURI: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
const MAXMOVES: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";

/// A library under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// This project.
    Gyoku,
    /// haitaka 0.3.2.
    Haitaka,
    /// rsshogi 1.7.3, its own `compute_perft`.
    Rsshogi,
    /// shogi_core 0.1.5 + shogi_legality_lite 0.1.3.
    LegalityLite,
    /// cshogi from Python.
    Cshogi,
    /// YaneuraOu's MATERIAL edition over USI (`go perft`): perft only, and only once
    /// [`use_yaneuraou`] named its binary.
    Yaneuraou,
}

impl Library {
    /// Every library, Gyoku first.
    pub const ALL: [Library; 6] = [
        Library::Gyoku,
        Library::Haitaka,
        Library::Rsshogi,
        Library::LegalityLite,
        Library::Cshogi,
        Library::Yaneuraou,
    ];

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Library::Gyoku => "gyoku",
            Library::Haitaka => "haitaka 0.3.2",
            Library::Rsshogi => "rsshogi 1.7.3",
            Library::LegalityLite => "shogi_core+legality_lite",
            Library::Cshogi => "cshogi (Python)",
            Library::Yaneuraou => "YaneuraOu (MATERIAL, go perft)",
        }
    }
}

/// One timed run: nodes counted and seconds taken (in-process).
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Nodes counted.
    pub nodes: u64,
    /// Seconds.
    pub seconds: f64,
}

fn time<F: FnOnce() -> u64>(f: F) -> Run {
    let start = Instant::now();
    let nodes = f();
    Run {
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Runs `cell` once with `library`; `None` when the library is unavailable or too slow
/// for the cell.
pub fn run(library: Library, cell: &Cell) -> Option<Run> {
    match library {
        Library::Gyoku => {
            let pos = gyoku::Position::from_sfen(cell.sfen).ok()?;
            let _ = gyoku::perft(&pos, 1);
            Some(time(|| gyoku::perft(&pos, cell.depth)))
        }
        Library::Haitaka => {
            let board = haitaka::Board::from_sfen(cell.sfen).ok()?;
            let _ = haitaka_perft(&board, 1);
            Some(time(|| haitaka_perft(&board, cell.depth)))
        }
        Library::Rsshogi => {
            let mut pos = rsshogi::board::Position::from_sfen(cell.sfen).ok()?;
            let _ = rsshogi::board::perft::compute_perft(&mut pos, 1);
            let depth = u8::try_from(cell.depth).ok()?;
            Some(time(|| {
                rsshogi::board::perft::compute_perft(&mut pos, depth)
            }))
        }
        Library::LegalityLite => {
            if !cell.slow_peers {
                return None;
            }
            use shogi_usi_parser::FromUsi;
            let pos = shogi_core::PartialPosition::from_usi(&format!("sfen {}", cell.sfen)).ok()?;
            Some(time(|| lite_perft(&pos, cell.depth)))
        }
        Library::Cshogi => {
            let v = run_python("cshogi_perft.py", &[cell.sfen, &cell.depth.to_string()])?;
            Some(Run {
                nodes: v["nodes"].as_u64()?,
                seconds: v["seconds"].as_f64()?,
            })
        }
        Library::Yaneuraou => yaneuraou_perft(YANEURAOU.get()?, cell),
    }
}

/// YaneuraOu's binary, once [`use_yaneuraou`] named it.
static YANEURAOU: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Includes YaneuraOu in perft: `binary` is its MATERIAL edition (built as
/// `../shared/peers/README.md` says), which answers `go perft D` after `position sfen`.
/// The first call names it; later ones are ignored.
pub fn use_yaneuraou(binary: PathBuf) {
    let _ = YANEURAOU.set(binary);
}

/// Whether [`use_yaneuraou`] named a binary.
pub fn yaneuraou_named() -> bool {
    YANEURAOU.get().is_some()
}

/// The most lines YaneuraOu may print for one `go perft` (a line per root move, then its
/// totals) before it is given up.
const YANEURAOU_MAX_LINES: usize = 10_000;

/// One `go perft` by YaneuraOu in a process of its own: the nodes it counted and the time
/// it says it took (`Elapsed Time = N [ms]`: its own in-process time, as for the others).
/// The process is killed when this returns, answered or not.
fn yaneuraou_perft(binary: &std::path::Path, cell: &Cell) -> Option<Run> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(binary)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let stdout = child.stdout.take()?;
    let asked = writeln!(
        stdin,
        "usi\nisready\nposition sfen {}\ngo perft {}",
        cell.sfen, cell.depth
    );
    let (mut nodes, mut ms) = (None, None);
    if asked.is_ok() {
        for line in BufReader::new(stdout).lines().take(YANEURAOU_MAX_LINES) {
            let Ok(line) = line else { break };
            if let Some(t) = line.strip_prefix("Elapsed Time = ") {
                ms = t.trim_end_matches("[ms]").trim().parse::<f64>().ok();
            }
            if let Some(n) = line.strip_prefix("Nodes searched: ") {
                nodes = n.trim().parse::<u64>().ok();
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Some(Run {
        nodes: nodes?,
        seconds: ms? / 1000.0,
    })
}

/// Runs `peers/<script>` with `python3` and reads the JSON line it prints.
fn run_python(script: &str, args: &[&str]) -> Option<serde_json::Value> {
    let out = Command::new("python3")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("peers")
                .join(script),
        )
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// Whether cshogi can be imported by `python3`.
pub fn cshogi_available() -> bool {
    Command::new("python3")
        .args(["-c", "import cshogi"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn haitaka_perft(board: &haitaka::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.into_iter().len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += haitaka_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

fn lite_perft(pos: &shogi_core::PartialPosition, depth: u32) -> u64 {
    let moves = shogi_legality_lite::all_legal_moves_partial(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for mv in moves {
        let mut child = pos.clone();
        let _ = child.make_move(mv);
        nodes += lite_perft(&child, depth - 1);
    }
    nodes
}

/// Median of the samples.
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

/// A row of the report.
#[derive(Debug, Clone)]
pub struct Row {
    /// The cell.
    pub cell: Cell,
    /// The library.
    pub library: Library,
    /// Nodes it counted (last run).
    pub nodes: u64,
    /// Median seconds over the rounds.
    pub seconds: f64,
}

/// Runs every cell with every library, `rounds` times round-robin, and reports medians.
pub fn perft_matrix(
    cells: &[Cell],
    libraries: &[Library],
    rounds: usize,
    mut progress: impl FnMut(&str),
) -> Vec<Row> {
    let mut rows = Vec::new();
    for cell in cells {
        let mut samples: Vec<(Library, Vec<f64>, u64)> = Vec::new();
        for round in 0..rounds {
            for &library in libraries {
                if let Some(run) = run(library, cell) {
                    progress(&format!(
                        "round {}/{rounds} {} d{} {}: {:.3} s",
                        round + 1,
                        cell.name,
                        cell.depth,
                        library.name(),
                        run.seconds
                    ));
                    match samples.iter_mut().find(|(l, _, _)| *l == library) {
                        Some((_, s, n)) => {
                            s.push(run.seconds);
                            *n = run.nodes;
                        }
                        None => samples.push((library, vec![run.seconds], run.nodes)),
                    }
                }
            }
        }
        for (library, mut s, nodes) in samples {
            rows.push(Row {
                cell: *cell,
                library,
                nodes,
                seconds: median(&mut s),
            });
        }
    }
    rows
}

/// The report as a Markdown table, with each library's speed relative to Gyoku's.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| position | depth | nodes | library | median s | Mnps | its time ÷ gyoku's |\n|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let gyoku = rows
            .iter()
            .find(|r| {
                r.library == Library::Gyoku
                    && r.cell.name == row.cell.name
                    && r.cell.depth == row.cell.depth
            })
            .map(|r| r.seconds);
        let ratio = gyoku.map_or("–".to_string(), |g| format!("{:.2}×", row.seconds / g));
        let wrong = if row.nodes == row.cell.nodes {
            ""
        } else {
            " (WRONG COUNT)"
        };
        out.push_str(&format!(
            "| {} | {} | {}{} | {} | {:.3} | {:.1} | {} |\n",
            row.cell.name,
            row.cell.depth,
            row.nodes,
            wrong,
            row.library.name(),
            row.seconds,
            row.nodes as f64 / row.seconds / 1e6,
            ratio
        ));
    }
    out
}

/// Games of exactly `plies` random legal moves from the start position that no rule of
/// the `jsa` preset ends early (no mate, no repetition), from Gyoku's own seeded play.
pub fn random_games(count: usize, plies: usize, seed: u64) -> Vec<Vec<gyoku::Move>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut games = Vec::with_capacity(count);
    while games.len() < count {
        let mut game = gyoku::Game::new(gyoku::Position::startpos(), gyoku::Preset::Jsa.rules());
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies && game.outcome().is_none() {
            let legal = game.position().legal_moves();
            let m = legal[(next() % legal.len() as u64) as usize];
            if game.play(m).is_err() {
                break;
            }
            moves.push(m);
        }
        if moves.len() == plies && game.outcome().is_none() {
            games.push(moves);
        }
    }
    games
}

/// Judges every game with Gyoku's referee (legality, repetition, impasse, move limit on
/// every ply) from USI text; returns plies judged.
pub fn judge_gyoku(games: &[String]) -> u64 {
    let mut plies = 0;
    for line in games {
        let mut game = gyoku::Game::new(gyoku::Position::startpos(), gyoku::Preset::Jsa.rules());
        for usi in line.split_ascii_whitespace() {
            let m: gyoku::Move = usi.parse().expect("valid USI");
            game.play(m).expect("legal");
            plies += 1;
        }
        assert!(game.outcome().is_none());
    }
    plies
}

/// The same with rsshogi 1.7.3: parse, `is_legal_move32`, `apply_move32`,
/// `repetition_state` per ply (perf-anchors §4's workload).
pub fn judge_rsshogi(games: &[String]) -> u64 {
    let mut plies = 0;
    for line in games {
        let mut pos = rsshogi::board::Position::from_sfen(gyoku::STARTPOS_SFEN).expect("startpos");
        for usi in line.split_ascii_whitespace() {
            let m = rsshogi::board::move_from_usi(&pos, usi).expect("valid USI");
            assert!(pos.is_legal_move32(m));
            pos.apply_move32(m);
            std::hint::black_box(pos.repetition_state());
            plies += 1;
        }
    }
    plies
}

/// The same with cshogi from Python (`peers/cshogi_replay.py`), timed in-process there.
pub fn judge_cshogi(file: &std::path::Path) -> Option<Run> {
    let v = run_python("cshogi_replay.py", &[file.to_str()?])?;
    Some(Run {
        nodes: v["plies"].as_u64()?,
        seconds: v["seconds"].as_f64()?,
    })
}

/// Runs the judging benchmark: `count` games of `plies` moves, `rounds` rounds, each
/// library once per round. Returns (library name, plies, median seconds) rows.
pub fn judge_matrix(
    count: usize,
    plies: usize,
    rounds: usize,
    cshogi: bool,
) -> Vec<(String, u64, f64)> {
    let games: Vec<String> = random_games(count, plies, 0x6779_6f6b_7520_0003)
        .iter()
        .map(|g| {
            g.iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let file = std::env::temp_dir().join(format!("gyoku-bench-games-{}.txt", std::process::id()));
    std::fs::write(&file, games.join("\n")).expect("write the games file");
    let mut samples: Vec<(String, u64, Vec<f64>)> = vec![
        (
            "gyoku (Game: legality, repetition, impasse, limit)".into(),
            0,
            vec![],
        ),
        (
            "rsshogi 1.7.3 (is_legal_move32 + repetition_state)".into(),
            0,
            vec![],
        ),
        ("cshogi (Python: is_legal + is_draw)".into(), 0, vec![]),
    ];
    for _ in 0..rounds {
        let run = time(|| judge_gyoku(&games));
        samples[0].1 = run.nodes;
        samples[0].2.push(run.seconds);
        let run = time(|| judge_rsshogi(&games));
        samples[1].1 = run.nodes;
        samples[1].2.push(run.seconds);
        if cshogi && let Some(run) = judge_cshogi(&file) {
            samples[2].1 = run.nodes;
            samples[2].2.push(run.seconds);
        }
    }
    let _ = std::fs::remove_file(&file);
    samples
        .into_iter()
        .filter(|(_, _, s)| !s.is_empty())
        .map(|(name, plies, mut s)| (name, plies, median(&mut s)))
        .collect()
}

/// The record of a random game as the records benchmarks write it: from the start position,
/// a second a move, ended by resignation.
pub(crate) fn resigned_record(moves: &[gyoku::Move]) -> gyoku_kifu::Record {
    let mut r = gyoku_kifu::Record::new(gyoku::Position::startpos());
    r.moves = moves
        .iter()
        .map(|&mv| gyoku_kifu::RecordMove {
            mv,
            time_ms: Some(1000),
            comments: Vec::new(),
        })
        .collect();
    r.end = Some(gyoku_kifu::Terminal::Resign);
    r
}

/// The records benchmark: `count` games of Gyoku's random play (`plies` moves each), written
/// as CSA and as KIF (UTF-8), then read and judged by Gyoku (full legality, repetition,
/// impasse and move-limit checks on every ply, one core) and parsed by rsshogi 1.7.3 (its
/// parsers check legality) and cshogi (from Python; its CSA parser checks nothing).
/// Returns (format, library, plies, median seconds) rows.
pub fn records_matrix(
    count: usize,
    plies: usize,
    rounds: usize,
    cshogi: bool,
) -> Vec<(String, String, u64, f64)> {
    use gyoku_kifu::Format;
    let games = random_games(count, plies, 0x6779_6f6b_7520_0004);
    let mut rows = Vec::new();
    for format in [Format::Csa, Format::Kif] {
        let texts: Vec<String> = games
            .iter()
            .map(|moves| gyoku_kifu::write(&resigned_record(moves), format))
            .collect();
        let file =
            std::env::temp_dir().join(format!("gyoku-bench-records-{}.json", std::process::id()));
        std::fs::write(&file, serde_json::to_string(&texts).expect("json")).expect("write");
        let mut samples: Vec<(&str, u64, Vec<f64>)> = vec![
            (
                "gyoku: read + judge (legality, repetition, impasse)",
                0,
                vec![],
            ),
            ("rsshogi 1.7.3: parse (legality-checked)", 0, vec![]),
            ("cshogi (Python): parse", 0, vec![]),
        ];
        let rules = gyoku::Preset::Jsa.rules();
        for _ in 0..rounds {
            let run = time(|| {
                let mut n = 0;
                for t in &texts {
                    let records = gyoku_kifu::read_str(t, format).expect("readable");
                    let j = gyoku_kifu::judge::judge(&records[0], rules);
                    n += j.game.plies().len() as u64;
                }
                n
            });
            samples[0].1 = run.nodes;
            samples[0].2.push(run.seconds);
            let run = time(|| {
                let mut n = 0;
                for t in &texts {
                    let record = match format {
                        Format::Csa => {
                            rsshogi::records::parse_csa_str(t).map_err(|e| e.to_string())
                        }
                        _ => rsshogi::records::parse_kif_str(t).map_err(|e| e.to_string()),
                    }
                    .expect("rsshogi reads it");
                    n += record.moves().len() as u64;
                }
                n
            });
            samples[1].1 = run.nodes;
            samples[1].2.push(run.seconds);
            if cshogi {
                let fmt = if format == Format::Csa { "csa" } else { "kif" };
                if let Some(v) =
                    run_python("cshogi_records.py", &[file.to_str().unwrap_or(""), fmt])
                {
                    samples[2].1 = v["plies"].as_u64().unwrap_or(0);
                    samples[2].2.push(v["seconds"].as_f64().unwrap_or(f64::NAN));
                }
            }
        }
        let _ = std::fs::remove_file(&file);
        for (name, n, mut s) in samples {
            if !s.is_empty() {
                rows.push((
                    format.name().to_string(),
                    name.to_string(),
                    n,
                    median(&mut s),
                ));
            }
        }
    }
    rows
}

/// The mixed-format corpus: `count` records of Gyoku's random play (`plies` moves each),
/// written to a temporary directory in turn as CSA, KIF (Shift_JIS), KI2 (UTF-8), JKF and
/// USI files, then read from disk and judged: in-process on one core (encoding and format
/// detected from the bytes, as the CLI does), and by `gyoku judge DIR` (`gyoku`, the CLI
/// binary, when given: files walked and spread over every core). Returns (library, plies,
/// median seconds) rows.
pub fn records_mixed(
    count: usize,
    plies: usize,
    rounds: usize,
    gyoku_cli: Option<&std::path::Path>,
) -> Vec<(String, u64, f64)> {
    use gyoku_kifu::Format;
    use gyoku_kifu::encoding::Encoding;
    let games = random_games(count, plies, 0x6779_6f6b_7520_0006);
    let dir = std::env::temp_dir().join(format!("gyoku-bench-mixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let formats = [
        (Format::Csa, "csa", Encoding::Utf8),
        (Format::Kif, "kif", Encoding::ShiftJis),
        (Format::Ki2, "ki2u", Encoding::Utf8),
        (Format::Jkf, "jkf", Encoding::Utf8),
        (Format::Usi, "usi", Encoding::Utf8),
    ];
    let mut files = Vec::with_capacity(games.len());
    for (i, moves) in games.iter().enumerate() {
        let r = resigned_record(moves);
        let (format, ext, encoding) = formats[i % formats.len()];
        let path = dir.join(format!("game-{i:05}.{ext}"));
        std::fs::write(&path, encoding.encode(&gyoku_kifu::write(&r, format))).expect("write");
        files.push(path);
    }
    let rules = gyoku::Preset::Jsa.rules();
    let mut one_core = Vec::new();
    let mut cli = Vec::new();
    let mut cli_one_core = Vec::new();
    // The CLI held to one core by `taskset`, where there is one: what the second core gives.
    let taskset = Command::new("taskset")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut judged = 0;
    for _ in 0..rounds {
        let run = time(|| {
            let mut n = 0;
            for path in &files {
                let bytes = std::fs::read(path).expect("read");
                let records =
                    gyoku_kifu::read_bytes(&bytes, Format::from_path(path)).expect("readable");
                n += gyoku_kifu::judge::judge(&records[0], rules)
                    .game
                    .plies()
                    .len() as u64;
            }
            n
        });
        judged = run.nodes;
        one_core.push(run.seconds);
        if let Some(bin) = gyoku_cli {
            cli.push(judge_dir(bin, &dir, count, false));
            if taskset {
                cli_one_core.push(judge_dir(bin, &dir, count, true));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut rows = vec![(
        "gyoku: read files + judge, one core (in-process)".to_string(),
        judged,
        median(&mut one_core),
    )];
    if !cli.is_empty() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rows.push((
            format!("gyoku judge DIR (the CLI, {cores} cores, output included)"),
            judged,
            median(&mut cli),
        ));
    }
    if !cli_one_core.is_empty() {
        rows.push((
            "gyoku judge DIR (the CLI held to 1 core by taskset, output included)".to_string(),
            judged,
            median(&mut cli_one_core),
        ));
    }
    rows
}

/// Seconds `gyoku judge DIR --rules jsa` takes over the `count` records in `dir` (on one
/// core with `one_core`, through `taskset -c 0`), its summary checked.
fn judge_dir(bin: &std::path::Path, dir: &std::path::Path, count: usize, one_core: bool) -> f64 {
    let mut command = if one_core {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    let start = Instant::now();
    let out = command
        .arg("judge")
        .arg(dir)
        .args(["--rules", "jsa"])
        .output()
        .expect("gyoku judge runs");
    let seconds = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("{count} records judged, 0 unreadable")),
        "gyoku judge: {}",
        text.lines().rev().take(5).collect::<Vec<_>>().join(" / ")
    );
    seconds
}

/// Real records judged by the CLI (`gyoku judge DIRS --json`, every core), one build after
/// another in turn (each round starts with the next build, so neither always runs first):
/// each build's name, the records its judging printed, and its median seconds over
/// `rounds`. A build's exit status 1 (records that differ) and 2 (files that are not
/// records, such as engine transcripts) still count: what is timed is the walk and the
/// judging.
pub fn judge_corpus(
    builds: &[(String, std::path::PathBuf)],
    dirs: &[std::path::PathBuf],
    rounds: usize,
) -> Vec<(String, usize, f64)> {
    let mut seconds: Vec<Vec<f64>> = vec![Vec::new(); builds.len()];
    let mut records = vec![0; builds.len()];
    for round in 0..rounds.max(1) {
        for k in 0..builds.len() {
            let b = (round + k) % builds.len();
            let start = Instant::now();
            let out = Command::new(&builds[b].1)
                .arg("judge")
                .args(dirs)
                .arg("--json")
                .stderr(std::process::Stdio::null())
                .output()
                .expect("gyoku judge runs");
            seconds[b].push(start.elapsed().as_secs_f64());
            let judged: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
            records[b] = judged.as_array().map_or(1, Vec::len);
        }
    }
    builds
        .iter()
        .zip(seconds)
        .zip(records)
        .map(|(((name, _), mut s), n)| {
            s.sort_by(f64::total_cmp);
            (name.clone(), n, s[s.len() / 2])
        })
        .collect()
}

/// The referee's own work per engine move, as `gyoku-arena` does it between `bestmove`
/// and the next `go`: the `go` times and the `position` command with the whole game, the
/// clock, the move checked and played with repetition and impasse checks, and at the end
/// the record built and written as KIF and CSA. Returns (moves, seconds), median of
/// `rounds`.
pub fn referee_overhead(games: usize, plies: usize, rounds: usize) -> (u64, f64) {
    use gyoku::{Clock, Game, Preset, TimeControl};
    use gyoku_arena::referee::{go_for, position_command};
    let lines = random_games(games, plies, 0x6779_6f6b_7520_0005);
    let rules = gyoku_arena::runner::match_rules(Preset::Csa.rules());
    let mut samples = Vec::new();
    let mut moves = 0;
    for _ in 0..rounds {
        let run = time(|| {
            let mut n = 0u64;
            let mut bytes = 0usize;
            for line in &lines {
                let mut game = Game::new(gyoku::Position::startpos(), rules);
                let mut clock = Clock::new(TimeControl::byoyomi(0, 1000), gyoku::Color::Black);
                let mut now = 0;
                for &mv in line {
                    if game.outcome().is_some() {
                        break;
                    }
                    let go = go_for(&clock, true, 0);
                    let position = position_command(&game);
                    bytes += position.to_string().len() + go.to_string().len();
                    clock.start(now).expect("clock");
                    now += 100;
                    let _ = clock.stop(now).expect("clock");
                    let _ = game.play(mv);
                    n += 1;
                }
                let record = gyoku_kifu::Record::from_game(&game);
                bytes += gyoku_kifu::write(&record, gyoku_kifu::Format::Kif).len();
                bytes += gyoku_kifu::write(&record, gyoku_kifu::Format::Csa).len();
            }
            std::hint::black_box(bytes);
            n
        });
        moves = run.nodes;
        samples.push(run.seconds);
    }
    (moves, median(&mut samples))
}

/// Peak resident memory of a process, read from `/proc` while it runs (the kernel's
/// high-water mark, `VmHWM`), in bytes; 0 where `/proc` does not say.
fn peak_rss_of(child: &mut std::process::Child) -> (u64, std::process::ExitStatus) {
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_path)
            && let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        if let Ok(Some(status)) = child.try_wait() {
            return (peak, status);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// One row of [`judge_memory`]: the input, records judged, peak RSS in bytes, seconds.
pub type MemoryRow = (String, usize, u64, f64);

/// Peak memory of `gyoku judge` over `counts` records of `plies` moves each, from one
/// multi-game CSA file and from a directory of one-record USI files: the issue 11 bound
/// (memory set by the largest record, not the number of records).
pub fn judge_memory(counts: &[usize], plies: usize, gyoku_cli: &std::path::Path) -> Vec<MemoryRow> {
    use gyoku_kifu::Format;
    let dir = std::env::temp_dir().join(format!("gyoku-bench-memory-{}", std::process::id()));
    let mut rows = Vec::new();
    for &count in counts {
        let _ = std::fs::remove_dir_all(&dir);
        let files = dir.join("files");
        std::fs::create_dir_all(&files).expect("temporary directory");
        let games = random_games(count, plies, 0x6779_6f6b_7520_0011);
        let mut csa = String::with_capacity(count * plies * 12);
        for (i, moves) in games.iter().enumerate() {
            let r = resigned_record(moves);
            if i > 0 {
                csa.push_str("/\n");
            }
            csa.push_str(&gyoku_kifu::write(&r, Format::Csa));
            std::fs::write(
                files.join(format!("game-{i:06}.usi")),
                gyoku_kifu::write(&r, Format::Usi),
            )
            .expect("write");
        }
        drop(games);
        let many = dir.join("many.csa");
        std::fs::write(&many, csa).expect("write");
        for (name, path) in [
            ("one CSA file", &many),
            ("a directory of USI files", &files),
        ] {
            let start = Instant::now();
            let mut child = Command::new(gyoku_cli)
                .arg("judge")
                .arg(path)
                .args(["--max-file-size", "1GiB"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("gyoku judge runs");
            let (peak, status) = peak_rss_of(&mut child);
            // 0: every record agrees with its judgement; 1: some differ (both judged all).
            assert!(
                matches!(status.code(), Some(0 | 1)),
                "gyoku judge {}: {status}",
                path.display()
            );
            rows.push((name.to_string(), count, peak, start.elapsed().as_secs_f64()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    rows
}
