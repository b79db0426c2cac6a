//! `gyoku judge FILE...` and `gyoku convert`.

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use gyoku::RuleSet;
use gyoku_kifu::encoding::Encoding;
use gyoku_kifu::judge::{DecidedBy, Judgement, judge};
use gyoku_kifu::{Format, Record, read_bytes};
use serde_json::{Value, json};

use crate::Failure;
use crate::referee::judge_json;

static MAX_FILE_BYTES: AtomicU64 = AtomicU64::new(gyoku_kifu::files::DEFAULT_MAX_FILE_BYTES);

/// Sets the largest record file read (`--max-file-size`).
pub fn set_max_file_bytes(bytes: u64) {
    MAX_FILE_BYTES.store(bytes, Ordering::Relaxed);
}

/// The largest record file read.
pub fn max_file_bytes() -> u64 {
    MAX_FILE_BYTES.load(Ordering::Relaxed)
}

/// Every record file under `paths`, in a stable order. Directories are walked following
/// symbolic links, each directory and each file visited once (by device and inode), so a
/// link loop ends; only regular files with a record extension are taken from a walk (a
/// FIFO or a device there is passed over). A path named directly is taken as it is, and
/// refused when read if it is not a regular file.
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut seen_dirs = HashSet::new();
    let mut seen_files = HashSet::new();
    for path in paths {
        let meta = std::fs::metadata(path)
            .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
        if !meta.is_dir() {
            if seen_files.insert((meta.dev(), meta.ino())) {
                out.push(path.clone());
            }
            continue;
        }
        let mut stack = vec![path.clone()];
        seen_dirs.insert((meta.dev(), meta.ino()));
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir)
                .map_err(|e| Failure::Input(format!("{}: {e}", dir.display())))?;
            let mut here = Vec::new();
            for entry in entries.flatten() {
                let p = entry.path();
                // Follows links; a dangling link or an unreadable entry is passed over.
                let Ok(meta) = std::fs::metadata(&p) else {
                    continue;
                };
                if meta.is_dir() {
                    if seen_dirs.insert((meta.dev(), meta.ino())) {
                        stack.push(p);
                    }
                } else if meta.is_file()
                    && Format::from_path(&p).is_some()
                    && seen_files.insert((meta.dev(), meta.ino()))
                {
                    here.push(p);
                }
            }
            out.extend(here);
        }
    }
    out.sort();
    Ok(out)
}

/// Reads one file's records, with the error as `file:line:column: message`.
pub fn read_file(path: &Path) -> Result<Vec<Record>, String> {
    let bytes = gyoku_kifu::files::read_regular(path, max_file_bytes())?;
    read_bytes(&bytes, Format::from_path(path)).map_err(|e| format!("{}:{e}", path.display()))
}

/// One judged record, ready to print.
struct Judged {
    name: String,
    json: Value,
    line: String,
    result: String,
    reason: String,
    agrees: bool,
}

fn judged(name: String, record: &Record, j: &Judgement) -> Judged {
    let mut v = judge_json(&j.game);
    if j.decided_by == DecidedBy::ResignationStands
        && let Some(foul) = &record.foul
    {
        // The resignation came after the foul and the moves recorded after it.
        v["result"] = json!(j.result.map(|r| r.code()));
        v["reason"] = json!("resignation");
        v["ply"] = json!(foul.ply as usize + foul.rest.len() + 1);
        v["detail"] = json!({
            "unnoticed_foul": { "kind": foul.kind.code(), "move": foul.mv.to_string(), "ply": foul.ply },
            "decided_by": "resignation_stands",
        });
    }
    if let (Some(foul), Some(o)) = (&record.foul, j.game.outcome())
        && o.reason.code() == "illegal_move"
    {
        v["detail"]["foul_ply"] = json!(foul.ply);
    }
    v["recorded"] = json!({
        "end": j.recorded.as_ref().map(|t| t.code()),
        "result": j.recorded_result.map(|r| r.code()),
    });
    v["agrees"] = json!(j.agrees);
    v["decided_by"] = json!(j.decided_by.code());
    v["file"] = json!(name);
    let result = v["result"].as_str().unwrap_or("not over").to_string();
    let reason = v["reason"].as_str().unwrap_or("-").to_string();
    let judged = match v["reason"].as_str() {
        Some(reason) => format!("{result} by {reason}"),
        None => result.clone(),
    };
    let recorded = match (
        v["recorded"]["result"].as_str(),
        v["recorded"]["end"].as_str(),
    ) {
        (Some(result), Some(end)) => format!("{result} by {end}"),
        (None, Some(end)) => end.to_string(),
        (_, None) => "no end".to_string(),
    };
    let line = format!(
        "{}: {judged} at ply {} (recorded: {recorded}){}",
        gyoku_kifu::escape_controls(&name),
        v["ply"],
        if j.agrees { "" } else { "  << differs" }
    );
    Judged {
        name,
        json: v,
        line,
        result,
        reason,
        agrees: j.agrees,
    }
}

/// The rules for one record: a record's own move limit (CSA V3.0 `$MAX_MOVES`, KIF
/// `最大手数`) applies unless the user set one.
fn rules_for(record: &Record, rules: RuleSet, user_max_moves: bool) -> RuleSet {
    let mut rules = rules;
    if !user_max_moves
        && let Some(n) = record
            .header("最大手数")
            .and_then(|v| v.trim().parse::<u32>().ok())
    {
        rules.set_max_moves(n);
    }
    rules
}

/// `gyoku judge FILE...`.
pub fn run_judge_files(
    paths: &[PathBuf],
    rules: RuleSet,
    user_max_moves: bool,
    json: bool,
) -> Result<(), Failure> {
    let files = collect(paths)?;
    let progress = (std::io::stderr().is_terminal() && files.len() > 20).then(|| {
        let bar = indicatif::ProgressBar::new(files.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} records {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(1);
    let chunk = files.len().div_ceil(workers).max(1);
    let mut results: Vec<(usize, Result<Vec<Judged>, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .enumerate()
            .map(|(c, group)| {
                let progress = progress.as_ref();
                scope.spawn(move || {
                    group
                        .iter()
                        .enumerate()
                        .map(|(i, path)| {
                            let out = read_file(path).map(|records| {
                                let many = records.len() > 1;
                                records
                                    .iter()
                                    .enumerate()
                                    .map(|(k, r)| {
                                        let name = if many {
                                            format!("{}#{}", path.display(), k + 1)
                                        } else {
                                            path.display().to_string()
                                        };
                                        judged(
                                            name,
                                            r,
                                            &judge(r, rules_for(r, rules, user_max_moves)),
                                        )
                                    })
                                    .collect()
                            });
                            if let Some(p) = progress {
                                p.inc(1);
                            }
                            (c * chunk + i, out)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    results.sort_by_key(|(i, _)| *i);
    let mut judged_all = Vec::new();
    let mut errors = Vec::new();
    for (_, r) in results {
        match r {
            Ok(js) => judged_all.extend(js),
            Err(e) => errors.push(e),
        }
    }
    if json {
        if judged_all.len() == 1 && errors.is_empty() {
            outln!("{}", judged_all[0].json);
        } else {
            let list: Vec<&Value> = judged_all.iter().map(|j| &j.json).collect();
            outln!("{}", Value::Array(list.into_iter().cloned().collect()));
        }
    } else {
        for j in &judged_all {
            outln!("{}", j.line);
        }
        outln!();
        for line in summary(&judged_all, errors.len()) {
            outln!("{line}");
        }
    }
    for e in &errors {
        eprintln!("gyoku: {}", gyoku_kifu::escape_controls(e));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Failure::Input(format!(
            "{} record file(s) could not be read",
            errors.len()
        )))
    }
}

/// The closing lines of `gyoku judge`: how many records, their results and reasons with
/// counts (most frequent first), and every record whose judged end differs from its own.
fn summary(judged: &[Judged], unreadable: usize) -> Vec<String> {
    fn counts<'a>(items: impl Iterator<Item = &'a str>) -> String {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for item in items {
            *by.entry(item).or_default() += 1;
        }
        let mut by: Vec<(&str, usize)> = by.into_iter().collect();
        by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = by.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    }
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let differing: Vec<&Judged> = judged.iter().filter(|j| !j.agrees).collect();
    let mut lines = vec![
        format!(
            "{} judged, {unreadable} unreadable",
            plural(judged.len(), "record", "records")
        ),
        format!(
            "results: {}",
            counts(judged.iter().map(|j| j.result.as_str()))
        ),
        format!(
            "reasons: {}",
            counts(
                judged
                    .iter()
                    .filter(|j| j.reason != "-")
                    .map(|j| j.reason.as_str())
            )
        ),
        format!(
            "{}{}",
            plural(
                differing.len(),
                "differs from its record",
                "differ from their records"
            ),
            if differing.is_empty() { "" } else { ":" }
        ),
    ];
    lines.extend(differing.iter().map(|j| format!("  {}", j.name)));
    lines
}

/// `gyoku convert FILE --to FORMAT [--out FILE]`.
pub fn run_convert(file: &Path, to: &str, out: Option<&Path>) -> Result<(), Failure> {
    if matches!(to, "western" | "psn") {
        let records = read_file(file).map_err(Failure::Input)?;
        let text: String = records
            .iter()
            .map(gyoku_kifu::western::write)
            .collect::<Vec<_>>()
            .join("\n");
        return write_output(text, out);
    }
    let format = match to {
        "kif" => Format::Kif,
        "ki2" => Format::Ki2,
        "csa" => Format::Csa,
        "usi" => Format::Usi,
        "jkf" => Format::Jkf,
        other => {
            return Err(Failure::Input(format!(
                "--to: unknown format '{other}' (kif, ki2, csa, usi, jkf, western)"
            )));
        }
    };
    let records = read_file(file).map_err(Failure::Input)?;
    if matches!(format, Format::Kif | Format::Ki2 | Format::Jkf) && records.len() > 1 {
        return Err(Failure::Input(format!(
            "{}: {} games, but a KIF, KI2 or JKF file holds one (use --to csa or --to usi)",
            file.display(),
            records.len()
        )));
    }
    let text: String = records
        .iter()
        .map(|r| gyoku_kifu::write(r, format))
        .collect::<Vec<_>>()
        .join(if format == Format::Csa { "/\n" } else { "" });
    write_output(text, out)
}

/// Prints `text`, or writes it to `out` (a `.kif`/`.ki2` file in Shift_JIS, anything else
/// UTF-8) atomically: a failed write leaves the old file, or none, and no temporary file; a
/// symbolic link is followed, a device written in place, anything else not a regular file
/// refused ([`gyoku_kifu::files::write_atomic`]).
fn write_output(text: String, out: Option<&Path>) -> Result<(), Failure> {
    match out {
        None => out!("{text}"),
        Some(path) => {
            let sjis = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("kif") || e.eq_ignore_ascii_case("ki2"));
            let bytes = if sjis {
                Encoding::ShiftJis.encode(&text)
            } else {
                text.into_bytes()
            };
            gyoku_kifu::files::write_atomic(path, &bytes).map_err(Failure::Run)?;
        }
    }
    Ok(())
}

/// `gyoku impasse FILE [--ply N] [--chart OUT.svg]`.
pub fn run_impasse_file(
    file: &Path,
    ply: Option<usize>,
    chart: Option<&Path>,
    json: bool,
) -> Result<(), Failure> {
    let records = read_file(file).map_err(Failure::Input)?;
    let record = &records[0];
    let moves: Vec<gyoku::Move> = record.moves.iter().map(|m| m.mv).collect();
    let ply = ply.unwrap_or(moves.len());
    if ply > moves.len() {
        return Err(Failure::Input(format!(
            "--ply {ply}: the record has {} moves",
            moves.len()
        )));
    }
    let mut pos = record.start.clone();
    let mut checks = gyoku::rules::RecentChecks {
        last: pos.is_check(),
        before: false,
    };
    for &m in &moves[..ply] {
        pos.play_unchecked(m);
        checks = gyoku::rules::RecentChecks {
            last: pos.is_check(),
            before: checks.last,
        };
    }
    let initial = record.start.to_setup();
    if let Some(out) = chart {
        let credit = gyoku::impasse::handicap_credit(&initial);
        let data = crate::chart::series(&record.start, &moves, credit);
        let title = format!(
            "{} — impasse points over {} moves",
            file.display(),
            moves.len()
        );
        gyoku_kifu::files::write_atomic(out, crate::chart::svg(&title, &data).as_bytes())
            .map_err(Failure::Run)?;
    }
    if !json {
        outln!("after ply {ply} of {}:", moves.len());
    }
    let report = gyoku::ImpasseReport::with_checks(&pos, Some(&initial), checks);
    crate::referee::print_report(&report, json);
    Ok(())
}
