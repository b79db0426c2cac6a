//! `gyoku-bench mate` (issue 48): Gyoku's mate searches beside cshogi's, on the positions
//! of `tests/data/mate/positions.tsv`, in one run.
//!
//! Per position, the median of ROUNDS rounds of 100 calls (the time of a call: a round's
//! over 100) of `Position::mate_in_1` beside cshogi's `mate_move_in_1ply`, and of
//! `Position::mate_in_3` beside `mate_move(3)`, cshogi's less what a call from Python
//! costs (`is_check()`, timed alike), as Gyoku's are native calls (every row:
//! most have no such mate, which is what a caller asking of every position of a game
//! meets); for the rows with a longer mate, one df-pn search each (`mate::Solver`, a
//! 64 MiB table, beside cshogi's `DfPn`), at most NODES nodes: how many were solved, the
//! median and 90th percentile time to solve (over the rows all solved), nodes per second;
//! and, given its path, YaneuraOu's mate engine on the same rows (`go mate`, a fresh
//! process each with a 64 MiB table, timed from the command to its answer).

use std::path::Path;
use std::time::Instant;

use gyoku::Position;
use gyoku::mate::{Limits, Outcome, Solver};

/// One row of the table.
struct Row {
    sfen: String,
    answer: String,
    pos: Position,
}

fn read_table(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("read the mate table");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            let pos = match Position::from_sfen(cols[0]) {
                Ok(pos) => pos,
                Err(gyoku::SfenError::Position(e)) => e.ignore_all_safe().expect("a position"),
                Err(e) => panic!("{}: {e}", cols[0]),
            };
            Row {
                sfen: cols[0].to_string(),
                answer: cols[1].to_string(),
                pos,
            }
        })
        .collect()
}

/// How many calls one timed round of a mate in 1 or 3 makes: a call takes well under a
/// microsecond, less than reading the clock twice in Python, so each side's time is a
/// round's divided by its calls.
const BATCH: usize = 100;

/// The median over `rounds` of the time of one call, each round timing [`BATCH`] calls.
fn median_seconds(rounds: usize, mut call: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                call();
            }
            start.elapsed().as_secs_f64() / BATCH as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// How long YaneuraOu's mate engine may search one position.
const YANEURAOU_MS: u64 = 60_000;

/// Runs the comparison and prints a Markdown table; `yaneuraou` is the path of YaneuraOu's
/// mate engine, when it is to be run too.
pub fn run(table: &Path, nodes: u64, rounds: usize, cshogi: bool, yaneuraou: Option<&str>) {
    let rows = read_table(table);
    let per_row = |search: &dyn Fn(&Position)| -> Vec<f64> {
        rows.iter()
            .map(|r| median_seconds(rounds, || search(&r.pos)))
            .collect()
    };
    let ours_one = per_row(&|pos| {
        std::hint::black_box(pos.mate_in_1());
    });
    let ours_three = per_row(&|pos| {
        std::hint::black_box(pos.mate_in_3());
    });
    let mut solver = Solver::new(64 << 20);
    let limits = Limits {
        nodes,
        ..Limits::default()
    };
    // (row index, seconds, nodes, solved)
    let mut ours_dfpn = Vec::new();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.answer == "mate") {
        let start = Instant::now();
        let report = solver.solve(&r.pos, &limits, None);
        let seconds = start.elapsed().as_secs_f64();
        let solved = matches!(report.outcome, Outcome::Mate(_));
        ours_dfpn.push((i, seconds, report.nodes, solved));
    }
    // (seconds, solved, peak bytes), for each df-pn row.
    let yane: Vec<(f64, bool, u64)> = match yaneuraou {
        Some(path) => ours_dfpn
            .iter()
            .map(|&(i, ..)| {
                let answer = crate::mate_engine::ask(path, 64, &rows[i].sfen, YANEURAOU_MS)
                    .unwrap_or_else(|e| panic!("YaneuraOu's mate engine: {e}"));
                (answer.seconds, answer.result == "mate", answer.peak_bytes)
            })
            .collect(),
        None => Vec::new(),
    };
    let peer = if cshogi {
        let out = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/cshogi_mate.py"))
            .args([
                table.to_str().unwrap_or(""),
                &nodes.to_string(),
                &rounds.to_string(),
                &BATCH.to_string(),
            ])
            .output()
            .ok()
            .filter(|o| o.status.success());
        out.and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
    } else {
        None
    };
    let peer_rows: Vec<&serde_json::Value> = peer
        .as_ref()
        .and_then(|v| v["rows"].as_array())
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if peer.is_some() {
        assert_eq!(peer_rows.len(), rows.len(), "cshogi read another table");
        for (r, p) in rows.iter().zip(&peer_rows) {
            assert_eq!(p["sfen"].as_str(), Some(r.sfen.as_str()));
        }
    }
    let peer_col =
        |key: &str| -> Vec<f64> { peer_rows.iter().filter_map(|p| p[key].as_f64()).collect() };
    // cshogi's searches less what a call from Python costs (a call of `is_check`, timed
    // the same way), to set beside Gyoku's called natively.
    let peer_native = |key: &str| -> Vec<f64> {
        peer_rows
            .iter()
            .filter_map(|p| Some((p[key].as_f64()? - p["call"].as_f64()?).max(1e-9)))
            .collect()
    };
    println!(
        "mate search, {} positions of {} (NODES {nodes}; for 1 and 3 the median of {rounds} rounds of {BATCH} calls)",
        rows.len(),
        table.display()
    );
    println!(
        "\n| search | positions | Gyoku median µs | cshogi median µs | Gyoku p90 µs | cshogi p90 µs | ratio (cshogi / Gyoku, medians) | ratio, median per position |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, ours, theirs, called) in [
        (
            "mate in 1 (every position)",
            &ours_one,
            peer_native("one"),
            peer_col("one"),
        ),
        (
            "mate within 3 (every position)",
            &ours_three,
            peer_native("three"),
            peer_col("three"),
        ),
    ] {
        let (om, op) = (quantile(ours, 0.5) * 1e6, quantile(ours, 0.9) * 1e6);
        let (tm, tp) = (quantile(&theirs, 0.5) * 1e6, quantile(&theirs, 0.9) * 1e6);
        let per_position: Vec<f64> = theirs.iter().zip(ours.iter()).map(|(t, o)| t / o).collect();
        println!(
            "| {name} | {} | {om:.2} | {tm:.2} | {op:.2} | {tp:.2} | {:.2} | {:.2} |",
            ours.len(),
            tm / om,
            quantile(&per_position, 0.5)
        );
        if !called.is_empty() {
            println!(
                "|  (cshogi as called from Python, the call included) | | | {:.2} | | {:.2} | | |",
                quantile(&called, 0.5) * 1e6,
                quantile(&called, 0.9) * 1e6
            );
        }
    }
    let calls = peer_col("call");
    if !calls.is_empty() {
        println!(
            "\ncshogi's columns for 1 and 3 are its times less what a call from Python costs (`is_check`, timed alike: median {:.3} µs), to compare with Gyoku's called natively.",
            quantile(&calls, 0.5) * 1e6
        );
    }
    let solved_ours = ours_dfpn.iter().filter(|d| d.3).count();
    let peer_dfpn: Vec<Option<(f64, u64, bool)>> = ours_dfpn
        .iter()
        .map(|&(i, ..)| {
            peer_rows.get(i).map(|p| {
                (
                    p["dfpn"]["seconds"].as_f64().unwrap_or(f64::NAN),
                    p["dfpn"]["nodes"].as_u64().unwrap_or(0),
                    p["dfpn"]["found"].as_bool().unwrap_or(false),
                )
            })
        })
        .collect();
    let solved_peer = peer_dfpn.iter().flatten().filter(|d| d.2).count();
    // The rows every solver run solved: the times are compared on those.
    let all: Vec<usize> = (0..ours_dfpn.len())
        .filter(|&k| {
            ours_dfpn[k].3
                && (peer.is_none() || peer_dfpn[k].is_some_and(|p| p.2))
                && (yane.is_empty() || yane[k].1)
        })
        .collect();
    let ours_t: Vec<f64> = all.iter().map(|&k| ours_dfpn[k].1).collect();
    let peer_t: Vec<f64> = all
        .iter()
        .filter_map(|&k| peer_dfpn[k].map(|p| p.0))
        .collect();
    let yane_t: Vec<f64> = all
        .iter()
        .filter_map(|&k| yane.get(k).map(|y| y.0))
        .collect();
    let nps = |n: u64, s: f64| n as f64 / s.max(1e-9);
    let ours_nodes: u64 = ours_dfpn.iter().map(|d| d.2).sum();
    let ours_secs: f64 = ours_dfpn.iter().map(|d| d.1).sum();
    let peer_nodes: u64 = peer_dfpn.iter().flatten().map(|d| d.1).sum();
    let peer_secs: f64 = peer_dfpn.iter().flatten().map(|d| d.0).sum();
    println!(
        "\n| df-pn, mates longer than 3 plies | solved | median ms (all solved: {}) | p90 ms | nodes per second | memory |",
        all.len()
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| Gyoku (`mate::Solver`) | {solved_ours} of {} | {:.2} | {:.2} | {:.0} | a {} MiB table |",
        ours_dfpn.len(),
        quantile(&ours_t, 0.5) * 1e3,
        quantile(&ours_t, 0.9) * 1e3,
        nps(ours_nodes, ours_secs),
        solver.table_bytes() >> 20,
    );
    if peer.is_some() {
        println!(
            "| cshogi {} (`DfPn`) | {solved_peer} of {} | {:.2} | {:.2} | {:.0} | its own default |",
            peer.as_ref()
                .and_then(|v| v["version"].as_str())
                .unwrap_or("?"),
            peer_dfpn.len(),
            quantile(&peer_t, 0.5) * 1e3,
            quantile(&peer_t, 0.9) * 1e3,
            nps(peer_nodes, peer_secs)
        );
    } else {
        println!(
            "| cshogi | not run (`python3 -c 'import cshogi'` fails, or --no-cshogi) | | | | |"
        );
    }
    if yane.is_empty() {
        println!("| YaneuraOu's mate engine | not run (--yaneuraou PATH) | | | | |");
    } else {
        let peak = yane.iter().map(|y| y.2).max().unwrap_or(0);
        println!(
            "| YaneuraOu's mate engine (`go mate`, a fresh process each) | {} of {} | {:.2} | {:.2} | not reported | USI_Hash 64 MiB; {} MiB resident at most |",
            yane.iter().filter(|y| y.1).count(),
            yane.len(),
            quantile(&yane_t, 0.5) * 1e3,
            quantile(&yane_t, 0.9) * 1e3,
            peak >> 20
        );
    }
}
