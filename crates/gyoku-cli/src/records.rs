//! `gyoku judge FILE...` and `gyoku convert`.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use gyoku::RuleSet;
use gyoku_kifu::encoding::Encoding;
use gyoku_kifu::judge::Judgement;
use gyoku_kifu::report::{judge_record_timed, record_json};
use gyoku_kifu::{Format, Record, read_bytes};
use serde_json::{Value, json};

use crate::Failure;

static MAX_FILE_BYTES: AtomicU64 = AtomicU64::new(gyoku_kifu::files::DEFAULT_MAX_FILE_BYTES);

/// Sets the largest record file read (`--max-file-size`).
pub fn set_max_file_bytes(bytes: u64) {
    MAX_FILE_BYTES.store(bytes, Ordering::Relaxed);
}

/// The largest record file read.
pub fn max_file_bytes() -> u64 {
    MAX_FILE_BYTES.load(Ordering::Relaxed)
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
    /// Decided on the record's word (a foul not in the file, a time-up).
    on_record: bool,
    /// Read and judged up to damage in the file.
    damaged: bool,
}

fn judged(name: String, record: &Record, j: &Judgement) -> Judged {
    let mut v = record_json(record, j);
    v["file"] = json!(name);
    let result = v["result"].as_str().unwrap_or("not over").to_string();
    let reason = v["reason"].as_str().unwrap_or("-").to_string();
    let judged = match v["reason"].as_str() {
        Some(reason) => format!("{result} by {reason}"),
        None => result.clone(),
    };
    let rec = &v["recorded"];
    let mut recorded = match (rec["result"].as_str(), rec["end"].as_str()) {
        (Some(result), Some(end)) => format!("{result} by {end}"),
        (None, Some(end)) => end.to_string(),
        (Some(result), None) => result.to_string(),
        (None, None) => "no end".to_string(),
    };
    if rec["checked"] == "site" {
        recorded = format!(
            "{}, stated in the site's $X_WINNER (end line: {})",
            rec["result"].as_str().unwrap_or("-"),
            rec["end"].as_str().unwrap_or("none")
        );
    }
    if let Some(summary) = rec["summary"]
        .as_str()
        .filter(|_| rec["checked"] == "summary")
    {
        recorded.push_str(&format!(
            ", summary {}",
            gyoku_kifu::escape_controls(summary)
        ));
    }
    if j.statements_disagree() {
        // Both statements, and which was checked.
        let end = rec["end_result"].as_str().unwrap_or("-");
        recorded.push_str(&format!(
            "; its end line says {end} by {}: the summary is checked",
            rec["end"].as_str().unwrap_or("-")
        ));
    }
    let mut line = match &record.damage {
        // Read up to the damage, judged up to it: neither agreeing nor differing.
        Some(d) => format!(
            "{}: damaged at line {}: {}; judged up to it: {judged} at ply {}",
            gyoku_kifu::escape_controls(&name),
            d.line,
            gyoku_kifu::escape_controls(&d.what),
            v["ply"]
        ),
        None => format!(
            "{}: {judged} at ply {} (recorded: {recorded}){}",
            gyoku_kifu::escape_controls(&name),
            v["ply"],
            if j.agrees { "" } else { "  << differs" }
        ),
    };
    if let Some(why) = v["why"].as_str() {
        line.push_str(&format!("\n    why: {why}"));
    }
    Judged {
        name,
        json: v,
        line,
        result,
        reason,
        damaged: record.damage.is_some(),
        agrees: j.agrees,
        on_record: matches!(j.decided_by, gyoku_kifu::judge::DecidedBy::Record(_)),
    }
}

/// What a worker hands the printer for one file: its judged records, one at a time, or
/// the error that stopped reading it.
enum Item {
    Judged(Box<Judged>),
    Unreadable(String),
}

/// How many files ahead of the printer the workers may judge: with the bounded channel of
/// each file, this bounds what is held while one large file is being judged.
const WINDOW: usize = 64;
/// Judged records a file may have waiting for the printer before its worker waits.
const PER_FILE: usize = 64;
/// Differing records named one by one in the summary; past it, only counted.
const MAX_LISTED: usize = 1000;

/// The rules records are judged under: those given, or (`--rules-of-record`) those each
/// record's header names, with the given overrides on top.
pub struct RulesChoice {
    /// The rules given (`--rules` and its overrides).
    pub given: RuleSet,
    /// Whether `--max-moves` was given.
    pub user_max_moves: bool,
    /// `--rules-of-record`: the overrides to apply to a record's own preset.
    pub of_record: Option<crate::args::RuleOverrides>,
    /// `--time`/`--byoyomi` and the clock options: the moves' recorded times are run
    /// through it.
    pub clock: Option<gyoku::TimeControl>,
    /// How the files are read (`--lenient`: a board of only some rows, as a tsume
    /// problem's, is read as what it gives).
    pub read: gyoku_kifu::ReadOptions,
}

impl RulesChoice {
    /// The rules for `record`, and (with `--rules-of-record`) the preset it names and why.
    fn for_record(&self, record: &Record) -> (RuleSet, Option<(gyoku::Preset, String)>) {
        let Some(overrides) = &self.of_record else {
            return (self.given, None);
        };
        match gyoku_kifu::report::rules_of_record(record) {
            Some((preset, why)) => {
                let mut rules = preset.rules();
                // Checked once already, on the rules given: the same overrides apply.
                let _ = overrides.apply(&mut rules);
                (rules, Some((preset, why)))
            }
            None => (self.given, None),
        }
    }
}

/// Judges every record of one file, handing each to `emit` as soon as it is judged: a
/// file of a million games is read and judged one game at a time. A file of one record is
/// named by its path, one of several `path#k`.
fn judge_file(path: &Path, choice: &RulesChoice, emit: &mut dyn FnMut(Item)) {
    let shown = path.display().to_string();
    let judge_one = |name: String, r: &Record| {
        let (rules, named) = choice.for_record(r);
        let j = judge_record_timed(r, rules, choice.user_max_moves, choice.clock);
        let mut judged = judged(name, r, &j);
        if choice.of_record.is_some() {
            let said = match &named {
                Some((preset, why)) => {
                    json!({"preset": preset.name(), "from": "record", "why": why})
                }
                None => {
                    json!({"preset": null, "from": "option", "why": "its header names no rules"})
                }
            };
            if let Some((preset, why)) = &named {
                let name = format!("{}: ", gyoku_kifu::escape_controls(&judged.name));
                if let Some(rest) = judged.line.strip_prefix(&name) {
                    judged.line = format!(
                        "{name}[rules {}: {}] {rest}",
                        preset.name(),
                        gyoku_kifu::escape_controls(why)
                    );
                }
            }
            judged.json["rules_of_record"] = said;
        }
        Item::Judged(Box::new(judged))
    };
    // The first record waits until the second shows whether the file holds several.
    let mut first: Option<Record> = None;
    let mut count = 0usize;
    let read =
        gyoku_kifu::files::read_records_each_with(path, max_file_bytes(), choice.read, &mut |r| {
            count += 1;
            match count {
                1 => first = Some(r),
                _ => {
                    if let Some(f) = first.take() {
                        emit(judge_one(format!("{shown}#1"), &f));
                    }
                    emit(judge_one(format!("{shown}#{count}"), &r));
                }
            }
        });
    if let Some(f) = first.take() {
        emit(judge_one(shown.clone(), &f));
    }
    if let Err(e) = read {
        emit(Item::Unreadable(e));
    }
}

/// The summary's figures, gathered as records are printed.
#[derive(Default)]
struct Tally {
    judged: usize,
    unreadable: usize,
    results: BTreeMap<String, usize>,
    reasons: BTreeMap<String, usize>,
    differing: usize,
    listed: Vec<String>,
    on_record: usize,
    damaged: usize,
}

impl Tally {
    fn add(&mut self, j: &Judged) {
        self.judged += 1;
        if j.damaged {
            self.damaged += 1;
        }
        *self.results.entry(j.result.clone()).or_default() += 1;
        if j.reason != "-" {
            *self.reasons.entry(j.reason.clone()).or_default() += 1;
        }
        if j.on_record {
            self.on_record += 1;
        }
        if !j.agrees {
            self.differing += 1;
            if self.listed.len() < MAX_LISTED {
                self.listed.push(j.name.clone());
            }
        }
    }
}

/// Prints `--json` output as a stream: one record alone as an object, several (or none,
/// or with unreadable files) as an array, holding at most one record back.
struct JsonOut {
    held: Option<Value>,
    opened: bool,
}

impl JsonOut {
    fn push(&mut self, v: Value) {
        if let Some(h) = self.held.take() {
            outln!("[\n{h}");
            self.opened = true;
        }
        if self.opened {
            outln!(",{v}");
        } else {
            self.held = Some(v);
        }
    }

    fn finish(self, single_allowed: bool) {
        match (self.opened, self.held) {
            (true, _) => outln!("]"),
            (false, Some(h)) if single_allowed => outln!("{h}"),
            (false, Some(h)) => outln!("[\n{h}\n]"),
            (false, None) => outln!("[]"),
        }
    }
}

/// `gyoku judge FILE...`: files are judged on every core, in order, and printed as they
/// are judged; memory is bounded by the largest file, not by the number of records.
pub fn run_judge_files(paths: &[PathBuf], choice: &RulesChoice, json: bool) -> Result<(), Failure> {
    let walk = gyoku_kifu::walk::RecordFiles::new(paths).map_err(Failure::Input)?;
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {pos} files judged  {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        bar
    });
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(1);
    // The walk, the next file's number and how many files are printed: a worker takes
    // file `j` only while `j` is within WINDOW of the printer.
    let window = (Mutex::new((walk, 0usize, 0usize)), Condvar::new());
    let (announce, announced) = mpsc::channel::<(usize, mpsc::Receiver<Item>)>();
    let mut tally = Tally::default();
    let mut out = JsonOut {
        held: None,
        opened: false,
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let announce = announce.clone();
            let window = &window;
            scope.spawn(move || {
                loop {
                    let (j, next) = {
                        let (lock, cv) = window;
                        let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
                        while g.1 >= g.2 + WINDOW {
                            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
                        }
                        let Some(next) = g.0.next_path() else {
                            return;
                        };
                        g.1 += 1;
                        (g.1 - 1, next)
                    };
                    let (tx, rx) = mpsc::sync_channel(PER_FILE);
                    if announce.send((j, rx)).is_err() {
                        return;
                    }
                    match next {
                        Ok(path) => judge_file(&path, choice, &mut |item| {
                            let _ = tx.send(item);
                        }),
                        Err(e) => {
                            let _ = tx.send(Item::Unreadable(e));
                        }
                    }
                }
            });
        }
        drop(announce);
        let mut waiting: BTreeMap<usize, mpsc::Receiver<Item>> = BTreeMap::new();
        for i in 0.. {
            let rx = loop {
                if let Some(rx) = waiting.remove(&i) {
                    break Some(rx);
                }
                match announced.recv() {
                    Ok((j, rx)) => {
                        waiting.insert(j, rx);
                    }
                    Err(_) => break None,
                }
            };
            // Every worker has gone and no file `i` was announced: the walk is over.
            let Some(rx) = rx else { break };
            for item in rx {
                match item {
                    Item::Judged(j) => {
                        tally.add(&j);
                        if json && let Some(d) = j.json.get("damaged").filter(|d| !d.is_null()) {
                            // The warning the text line gives, for a JSON reader too.
                            eprintln!(
                                "gyoku: {}:{}: damaged: {}",
                                gyoku_kifu::escape_controls(&j.name),
                                d["line"],
                                d["what"].as_str().unwrap_or("")
                            );
                        }
                        if json {
                            out.push(j.json);
                        } else {
                            outln!("{}", j.line);
                        }
                    }
                    Item::Unreadable(e) => {
                        tally.unreadable += 1;
                        eprintln!("gyoku: {}", gyoku_kifu::escape_controls(&e));
                    }
                }
            }
            let (lock, cv) = &window;
            lock.lock().unwrap_or_else(|e| e.into_inner()).2 = i + 1;
            cv.notify_all();
            if let Some(p) = &progress {
                p.inc(1);
            }
        }
    });
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    if json {
        out.finish(tally.unreadable == 0);
    } else {
        outln!();
        for line in summary(&tally) {
            outln!("{line}");
        }
    }
    if tally.unreadable > 0 {
        Err(Failure::Input(format!(
            "{} record file(s) could not be read",
            tally.unreadable
        )))
    } else if tally.differing > 0 {
        Err(Failure::No)
    } else {
        Ok(())
    }
}

/// The closing lines of `gyoku judge`: how many records, their results and reasons with
/// counts (most frequent first), and every record whose judged end differs from its own.
fn summary(t: &Tally) -> Vec<String> {
    fn counts(by: &BTreeMap<String, usize>) -> String {
        let mut by: Vec<(&String, &usize)> = by.iter().collect();
        by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
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
    let mut lines = vec![
        format!(
            "{} judged, {} unreadable",
            plural(t.judged, "record", "records"),
            t.unreadable
        ),
        format!("results: {}", counts(&t.results)),
        format!("reasons: {}", counts(&t.reasons)),
    ];
    if t.on_record > 0 {
        lines.push(format!(
            "{} on the record's word (a foul not in the file, a time-up, a site's stated winner: the moves cannot show it)",
            plural(t.on_record, "decided", "decided")
        ));
    }
    if t.damaged > 0 {
        lines.push(format!(
            "{} (read and judged up to the damage, said at its line)",
            plural(t.damaged, "damaged record", "damaged records")
        ));
    }
    lines.push(format!(
        "{}{}",
        plural(
            t.differing,
            "differs from its record",
            "differ from their records"
        ),
        if t.differing == 0 { "" } else { ":" }
    ));
    lines.extend(
        t.listed
            .iter()
            .map(|name| format!("  {}", gyoku_kifu::escape_controls(name))),
    );
    if t.differing > t.listed.len() {
        lines.push(format!("  ... and {} more", t.differing - t.listed.len()));
    }
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
    let text = gyoku_kifu::write_all(&records, format)
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
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

/// `gyoku impasse FILE [--ply N] [--chart OUT.svg] [--mate-nodes N]`.
pub fn run_impasse_file(
    file: &Path,
    ply: Option<usize>,
    chart: Option<&Path>,
    mate_nodes: u64,
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
        let data = gyoku_kifu::chart::series(&record.start, &moves, credit);
        let title = format!(
            "{} — impasse points over {} moves",
            file.display(),
            moves.len()
        );
        gyoku_kifu::files::write_atomic(out, gyoku_kifu::chart::svg(&title, &data).as_bytes())
            .map_err(Failure::Run)?;
    }
    if !json {
        outln!("after ply {ply} of {}:", moves.len());
    }
    let mut report = gyoku::ImpasseReport::with_checks(&pos, Some(&initial), checks);
    report.search_mates(&pos, mate_nodes);
    crate::referee::print_report(&report, json);
    Ok(())
}

/// Every record in the files under `paths` (walked as `gyoku judge` walks them), each
/// handed to `each` with its name (`path`, or `path#k` for the k-th of several); a file
/// that cannot be read is said on standard error and counted. Returns that count.
///
/// # Errors
/// When `paths` cannot be walked at all.
pub fn for_each_record(
    paths: &[std::path::PathBuf],
    options: gyoku_kifu::ReadOptions,
    mut each: impl FnMut(&str, &gyoku_kifu::Record),
) -> Result<usize, Failure> {
    let mut walk = gyoku_kifu::walk::RecordFiles::new(paths).map_err(Failure::Input)?;
    let mut unreadable = 0;
    while let Some(next) = walk.next_path() {
        let path = match next {
            Ok(path) => path,
            Err(e) => {
                unreadable += 1;
                eprintln!("gyoku: {}", gyoku_kifu::escape_controls(&e));
                continue;
            }
        };
        let mut records = Vec::new();
        let read =
            gyoku_kifu::files::read_records_each_with(&path, max_file_bytes(), options, &mut |r| {
                records.push(r)
            });
        if let Err(e) = read {
            unreadable += 1;
            eprintln!("gyoku: {}", gyoku_kifu::escape_controls(&e));
        }
        let several = records.len() > 1;
        for (i, record) in records.iter().enumerate() {
            let name = if several {
                format!("{}#{}", path.display(), i + 1)
            } else {
                path.display().to_string()
            };
            each(&name, record);
        }
    }
    Ok(unreadable)
}
