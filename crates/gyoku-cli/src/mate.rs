//! `gyoku mate`: the mate search on one position.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gyoku::Position;
use gyoku::mate::{Limits, Outcome, Solver};
use serde_json::json;

use crate::Failure;

/// Searches `pos` within `nodes` (or for `time`) with a table of `table_size` bytes, and
/// prints the answer.
pub fn run_mate(
    pos: &Position,
    nodes: Option<u64>,
    time: Option<&str>,
    table_size: u64,
    json: bool,
) -> Result<(), Failure> {
    let mut limits = Limits::default();
    let cancel = Arc::new(AtomicBool::new(false));
    if let Some(time) = time {
        let millis = gyoku_arena::timecontrol::parse_duration(time)
            .map_err(|e| Failure::Input(format!("--time: {e}")))?;
        limits.nodes = u64::MAX;
        let flag = Arc::clone(&cancel);
        // Detached: the process ends with the answer, the timer with it.
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(millis));
            flag.store(true, Ordering::Relaxed);
        });
    }
    if let Some(nodes) = nodes {
        limits.nodes = nodes;
    }
    let table_bytes = usize::try_from(table_size)
        .map_err(|_| Failure::Input("--table-size: too large for this machine".into()))?;
    let started = Instant::now();
    let report = Solver::new(table_bytes).solve(pos, &limits, Some(&cancel));
    let seconds = started.elapsed().as_secs_f64();
    let line: Vec<String> = match &report.outcome {
        Outcome::Mate(line) => line.iter().map(ToString::to_string).collect(),
        _ => Vec::new(),
    };
    if json {
        let mut v = gyoku_kifu::report::mate_report_json(&report);
        v["seconds"] = json!(seconds);
        outln!("{v}");
        return Ok(());
    }
    match &report.outcome {
        Outcome::Mate(_) => outln!("mate in {}: {}", line.len(), line.join(" ")),
        Outcome::NoMate => outln!("no mate (proved)"),
        Outcome::Unknown => outln!("unknown: no mate found and none ruled out within the budget"),
    }
    outln!("{} nodes, {seconds:.3} s", report.nodes);
    Ok(())
}
