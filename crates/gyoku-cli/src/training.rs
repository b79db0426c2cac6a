//! `gyoku export-training PATH... --out FILE`: each position of each judged game, with the
//! move played and the game's result as the referee judges it, as cshogi's `hcpe`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gyoku::{Color, GameResult};
use serde_json::json;

use crate::Failure;

fn word(r: Option<GameResult>) -> &'static str {
    match r {
        Some(GameResult::Win(Color::Black)) => "black",
        Some(GameResult::Win(Color::White)) => "white",
        Some(GameResult::Draw) => "draw",
        Some(GameResult::NoContest) => "no_contest",
        None => "none",
    }
}

/// Writes the `hcpe` file; prints what it wrote and the games whose judged result is not
/// their record's.
pub fn run_export(
    paths: &[PathBuf],
    out: &Path,
    format: &str,
    rules: &str,
    json_out: bool,
) -> Result<(), Failure> {
    let Some(format) = gyoku_kifu::training::TrainingFormat::parse(format) else {
        return Err(Failure::Input(format!(
            "--format {format}: hcpe, psv or sfen"
        )));
    };
    let preset: gyoku::Preset = rules
        .parse()
        .map_err(|_| Failure::Input(format!("--rules {rules}: not a preset (gyoku rules)")))?;
    let began = Instant::now();
    let mut bytes = Vec::new();
    let (mut games, mut skipped_games, mut positions, mut skipped) = (0u64, 0u64, 0u64, 0u64);
    let mut relabelled = Vec::new();
    let options = gyoku_kifu::ReadOptions::default();
    let unreadable = crate::records::for_each_record(paths, options, |name, record| {
        let j = gyoku_kifu::judge::judge(record, preset.rules());
        let Some(result @ (GameResult::Win(_) | GameResult::Draw)) = j.result else {
            skipped_games += 1;
            return;
        };
        let e = format.game(record, result, &mut bytes);
        games += 1;
        positions += e.written;
        skipped += e.skipped;
        if j.recorded_result.is_some_and(|r| r != result) {
            relabelled.push((
                name.to_string(),
                word(j.recorded_result),
                word(Some(result)),
            ));
        }
    })?;
    gyoku_kifu::files::write_atomic(out, &bytes).map_err(Failure::Run)?;
    let seconds = began.elapsed().as_secs_f64();
    if json_out {
        let v = json!({
            "out": out.display().to_string(), "games": games, "positions": positions,
            "skipped_games": skipped_games, "skipped_positions": skipped,
            "unreadable": unreadable, "seconds": seconds,
            "relabelled": relabelled.iter().map(|(f, r, j)| json!({"file": f, "recorded": r, "judged": j})).collect::<Vec<_>>(),
        });
        crate::emit(&format!("{v}\n"));
    } else {
        let mut text = format!(
            "{positions} positions of {games} games to {} ({} bytes) in {seconds:.2} s; \
             {skipped_games} games not over left out, {skipped} positions without the forty \
             pieces left out\n",
            out.display(),
            bytes.len()
        );
        for (f, r, j) in &relabelled {
            text.push_str(&format!(
                "{f}: the record says {r}, the referee {j}: labelled {j}\n"
            ));
        }
        crate::emit(&text);
    }
    if unreadable > 0 {
        return Err(Failure::No);
    }
    Ok(())
}
