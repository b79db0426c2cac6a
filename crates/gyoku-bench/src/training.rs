//! Training data side by side (issue 49): GAMES records of random play (PLIES moves each,
//! 2,000 × 120 by default) as CSA files, turned into cshogi's `hcpe` by `gyoku
//! export-training` (built beside this bench: read, judged under the JSA rules — every
//! move checked, the result the referee's — and written) and by cshogi as its users do it
//! (its C++ CSA parser, which checks nothing, a `Board` replayed, `to_hcp` each position:
//! `peers/cshogi_hcpe.py`). Each timed in its own process, from its first record to the
//! file written; the median of ROUNDS, each round both in turn.

use std::path::Path;
use std::process::Command;

/// One run's positions and seconds (in-process).
fn parse(out: &std::process::Output, what: &str) -> Result<(u64, f64), String> {
    if !out.status.success() {
        return Err(format!("{what}: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("{what}: {e}"))?;
    Ok((
        v["positions"].as_u64().unwrap_or(0),
        v["seconds"].as_f64().unwrap_or(f64::NAN),
    ))
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs the bench and prints its table.
///
/// # Errors
/// When the records cannot be written or a run fails.
pub fn run(
    gyoku: &Path,
    games: usize,
    plies: usize,
    rounds: usize,
    cshogi: bool,
) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("gyoku-bench-training-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let records = dir.join("records");
    std::fs::create_dir_all(&records).map_err(|e| e.to_string())?;
    let result = (|| {
        for (k, moves) in crate::random_games(games, plies, 49).iter().enumerate() {
            let text = gyoku_kifu::write(&crate::resigned_record(moves), gyoku_kifu::Format::Csa);
            std::fs::write(records.join(format!("game-{k:05}.csa")), text)
                .map_err(|e| e.to_string())?;
        }
        let script =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("peers/cshogi_hcpe.py");
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let mut counts = (0, 0);
        for _ in 0..rounds.max(1) {
            let out = Command::new(gyoku)
                .args(["export-training", "--json", "--out"])
                .arg(dir.join("gyoku.hcpe"))
                .arg(&records)
                .output()
                .map_err(|e| e.to_string())?;
            let (n, s) = parse(&out, "gyoku export-training")?;
            counts.0 = n;
            ours.push(s);
            if cshogi {
                let out = Command::new("python3")
                    .arg(&script)
                    .arg(&records)
                    .arg(dir.join("cshogi.hcpe"))
                    .output()
                    .map_err(|e| e.to_string())?;
                let (n, s) = parse(&out, "cshogi")?;
                counts.1 = n;
                theirs.push(s);
            }
        }
        println!(
            "| writer | games | positions | seconds (median of {rounds}) | positions a second |"
        );
        println!("|---|---|---|---|---|");
        let ours = median(ours);
        println!(
            "| gyoku export-training (judged) | {games} | {} | {ours:.3} | {:.0} |",
            counts.0,
            counts.0 as f64 / ours
        );
        if cshogi {
            let theirs = median(theirs);
            println!(
                "| cshogi (CSA parser, Board, to_hcp) | {games} | {} | {theirs:.3} | {:.0} |",
                counts.1,
                counts.1 as f64 / theirs
            );
            println!(
                "\nGyoku's rate {:.2}× cshogi's; the files are equal: {}",
                (counts.0 as f64 / ours) / (counts.1 as f64 / theirs),
                std::fs::read(dir.join("gyoku.hcpe")).ok()
                    == std::fs::read(dir.join("cshogi.hcpe")).ok()
            );
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
