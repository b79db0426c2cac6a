//! The match runner: many games between two engines, colours alternated, openings taken
//! in turn (each played once with each colour), several games at once, each game's
//! records written as it finishes, and a summary.
//!
//! A match with an output directory can be resumed: the directory keeps `match.json`
//! (what the match is) and `results.jsonl` (one line per finished game); running the same
//! match again plays only the games not yet in it.

use std::collections::{BTreeMap, VecDeque};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gyoku::{Color, GameResult, RuleSet, TimeControl};
use gyoku_kifu::{Format, Record};
use serde_json::{Value, json};

use gyoku_league::elo::{EloEstimate, estimate};
use gyoku_league::schedule::Job;

use crate::executor::{self, Conditions, Entrant, Finished, Pool};
pub use crate::executor::{derived_options, match_rules};
use crate::openings::Opening;
use crate::referee::GameReport;
use gyoku_league::sprt::{Decision, Sprt};
use gyoku_league::tally::Tally;

/// A match to run.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine 1 and engine 2: each a command, options, and optionally its name, its own
    /// time control and search limits.
    pub engines: [Entrant; 2],
    /// How many games.
    pub games: u32,
    /// The rule-set preset's name (for records and the summary).
    pub preset: String,
    /// The rules. Fouls always lose and a failed declaration always loses in a match,
    /// whatever the preset says (an engine cannot take a move back).
    pub rules: RuleSet,
    /// The time control.
    pub time: TimeControl,
    /// Time each engine is told it has less than it has (see [`crate::referee::GameSetup::margin`]).
    pub margin: gyoku::Millis,
    /// Openings, used in turn; game `2k` and `2k+1` play opening `k` with colours swapped.
    pub openings: Vec<Opening>,
    /// Where records and results go; `None` writes nothing (and cannot be resumed).
    pub out: Option<PathBuf>,
    /// Games played at once.
    pub concurrency: usize,
    /// Adjudication for engine testing (none unless asked).
    pub adjudication: crate::adjudication::Adjudication,
    /// Stop as soon as this test decides (engine 1 the one tested); `games` is then the
    /// most that will be played.
    pub sprt: Option<Sprt>,
    /// Where each game's USI traffic is written (`game-NNNN.usi.log`), if anywhere.
    pub log_usi: Option<PathBuf>,
}

/// Why a match could not be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// The match asked for cannot be played as asked: an engine command that cannot start,
    /// an output directory that holds another match or whose `match.json` is not one.
    Input(String),
    /// Running it failed: an output could not be written.
    Run(String),
}

impl MatchError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            MatchError::Input(m) | MatchError::Run(m) => m,
        }
    }
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for MatchError {}

impl From<String> for MatchError {
    fn from(message: String) -> MatchError {
        MatchError::Run(message)
    }
}

/// One finished game, as `results.jsonl` keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEntry {
    /// Its number, from 1.
    pub number: u32,
    /// Which engine (0 or 1) had Black.
    pub black: usize,
    /// The winning engine (0 or 1), or `None` for a draw or no contest.
    pub winner: Option<usize>,
    /// The end reason's code.
    pub reason: String,
    /// The game's length in plies.
    pub plies: u32,
    /// Moves the engines made.
    pub engine_moves: u32,
    /// The referee's own time over those moves, in microseconds.
    pub referee_us: u64,
}

impl GameEntry {
    fn to_json(&self) -> Value {
        json!({
            "game": self.number,
            "black": format!("engine{}", self.black + 1),
            "winner": self.winner.map(|w| format!("engine{}", w + 1)),
            "reason": self.reason,
            "plies": self.plies,
            "engine_moves": self.engine_moves,
            "referee_us": self.referee_us,
        })
    }

    fn from_json(v: &Value) -> Option<GameEntry> {
        let engine = |s: &str| match s {
            "engine1" => Some(0),
            "engine2" => Some(1),
            _ => None,
        };
        Some(GameEntry {
            number: u32::try_from(v["game"].as_u64()?).ok()?,
            black: engine(v["black"].as_str()?)?,
            winner: match &v["winner"] {
                Value::Null => None,
                w => Some(engine(w.as_str()?)?),
            },
            reason: v["reason"].as_str()?.to_string(),
            plies: u32::try_from(v["plies"].as_u64()?).ok()?,
            engine_moves: u32::try_from(v["engine_moves"].as_u64()?).ok()?,
            referee_us: v["referee_us"].as_u64()?,
        })
    }
}

/// Where a match stands (for a progress display).
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Games finished (resumed ones included).
    pub done: u32,
    /// Games in the match.
    pub total: u32,
    /// Engine 1's wins, draws, engine 2's wins.
    pub score: [u32; 3],
    /// Under a test: its ratio and the results it is computed on.
    pub sprt: Option<(f64, Tally)>,
    /// The game that has just finished (none in the first report, made before any game).
    pub finished: Option<FinishedGame>,
}

/// A game that has just finished, as a progress report gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    /// As `results.jsonl` keeps it.
    pub entry: GameEntry,
    /// Its result by colour (a draw and a no contest told apart).
    pub result: GameResult,
    /// Black's and White's names.
    pub players: [String; 2],
}

/// Where a match's test stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtOutcome {
    /// The test.
    pub sprt: Sprt,
    /// Its log-likelihood ratio.
    pub llr: f64,
    /// The results counted (engine 1's).
    pub tally: Tally,
    /// What it decided, if it has.
    pub decision: Option<Decision>,
}

impl SprtOutcome {
    /// Two lines: the test, its ratio against its bounds and what it decided; the pairs,
    /// Elo with its interval and the likelihood of superiority.
    pub fn describe(&self) -> String {
        let s = &self.sprt;
        let (lower, upper) = s.bounds();
        let verdict = match self.decision {
            Some(Decision::H1) => "H1 accepted: engine 1 is stronger by elo1 or more",
            Some(Decision::H0) => "H0 accepted: engine 1 is not stronger by elo1",
            None => "undecided",
        };
        let [ll, ld, half, wd, ww] = self.tally.pairs;
        let mut out = format!(
            "SPRT ({}, {}) elo0={} elo1={} alpha={} beta={}: LLR {:.2} ({lower:.2}, {upper:.2}): {verdict}\n",
            match s.model {
                gyoku_league::sprt::Model::Logistic => "logistic Elo",
                gyoku_league::sprt::Model::Normalized => "normalized Elo",
            },
            match s.counting {
                gyoku_league::sprt::Counting::Pentanomial => "pentanomial",
                gyoku_league::sprt::Counting::Trinomial => "trinomial",
            },
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            self.llr,
        );
        out.push_str(&format!(
            "pairs scoring 0, ½, 1, 1½, 2: [{ll}, {ld}, {half}, {wd}, {ww}]"
        ));
        if let Some((elo, error, los)) = self.tally.elo() {
            out.push_str(&format!(
                "; Elo {elo:+.1} ± {error:.1} (95 %), LOS {:.1} %",
                los * 100.0
            ));
        }
        out.push('\n');
        out
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        let s = &self.sprt;
        let (lower, upper) = s.bounds();
        let elo = self.tally.elo();
        json!({
            "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
            "model": match s.model { gyoku_league::sprt::Model::Logistic => "logistic", gyoku_league::sprt::Model::Normalized => "normalized" },
            "counting": match s.counting { gyoku_league::sprt::Counting::Pentanomial => "pentanomial", gyoku_league::sprt::Counting::Trinomial => "trinomial" },
            "llr": self.llr, "lower": lower, "upper": upper,
            "decision": self.decision.map(|d| match d { Decision::H0 => "H0", Decision::H1 => "H1" }),
            "pentanomial": self.tally.pairs,
            "trinomial": self.tally.games,
            "elo": elo.map(|e| e.0), "elo_error": elo.map(|e| e.1), "los": elo.map(|e| e.2),
        })
    }
}

/// A match's results as a test counts them: engine 1's games and finished pairs.
#[derive(Default)]
struct PairBook(gyoku_league::tally::PairBook);

impl PairBook {
    fn add(&mut self, g: &GameEntry) {
        let hp = match g.winner {
            Some(0) => 2,
            Some(_) => 0,
            None => 1,
        };
        self.0.add(g.number, hp);
    }
}

/// How a match went.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// The engines' names.
    pub names: [String; 2],
    /// Every finished game, by number.
    pub games: Vec<GameEntry>,
    /// Games that were already finished when the match resumed.
    pub resumed: u32,
    /// Games in the match.
    pub total: u32,
    /// Whether it was interrupted before the end.
    pub interrupted: bool,
    /// The output directory.
    pub out: Option<PathBuf>,
    /// The test, when one was run.
    pub sprt: Option<SprtOutcome>,
    /// What the runner warned of (two engines with one name, made unique).
    pub warnings: Vec<String>,
    /// The rules' preset name.
    pub rules: String,
    /// The digest of the rules played under ([`crate::executor::match_rules_digest`]).
    pub rules_digest: String,
}

impl MatchSummary {
    /// Engine 1's wins, draws, engine 2's wins.
    pub fn score(&self) -> [u32; 3] {
        let mut s = [0; 3];
        for g in &self.games {
            match g.winner {
                Some(0) => s[0] += 1,
                Some(_) => s[2] += 1,
                None => s[1] += 1,
            }
        }
        s
    }

    /// Per end reason: engine 1's wins, draws, engine 2's wins.
    pub fn by_reason(&self) -> BTreeMap<String, [u32; 3]> {
        let mut m: BTreeMap<String, [u32; 3]> = BTreeMap::new();
        for g in &self.games {
            let e = m.entry(g.reason.clone()).or_default();
            match g.winner {
                Some(0) => e[0] += 1,
                Some(_) => e[2] += 1,
                None => e[1] += 1,
            }
        }
        m
    }

    /// Engine 1's Elo difference over engine 2, with its error bar.
    pub fn elo(&self) -> Option<EloEstimate> {
        let [w, d, l] = self.score();
        estimate(w, d, l)
    }

    /// The referee's mean time per engine move, in microseconds.
    pub fn referee_us_per_move(&self) -> f64 {
        let moves: u64 = self.games.iter().map(|g| u64::from(g.engine_moves)).sum();
        let us: u64 = self.games.iter().map(|g| g.referee_us).sum();
        if moves == 0 {
            0.0
        } else {
            us as f64 / moves as f64
        }
    }

    /// The summary as text: a table of results by reason, the score, the Elo difference.
    pub fn table(&self) -> String {
        let [w, d, l] = self.score();
        let mut out = format!(
            "engine 1: {}\nengine 2: {}\nrules: {} (digest {})\n\n| reason | engine 1 wins | draws | engine 2 wins |\n|---|---|---|---|\n",
            self.names[0], self.names[1], self.rules, self.rules_digest
        );
        for (reason, [a, b, c]) in self.by_reason() {
            out.push_str(&format!("| {reason} | {a} | {b} | {c} |\n"));
        }
        out.push_str(&format!("| **total** | **{w}** | **{d}** | **{l}** |\n\n"));
        let n = w + d + l;
        match &self.sprt {
            Some(t) if t.decision.is_some() => out.push_str(&format!(
                "{n} games played until the test decided (at most {})",
                self.total
            )),
            _ => out.push_str(&format!("{n} of {} games played", self.total)),
        }
        if self.resumed > 0 {
            out.push_str(&format!(" ({} before resuming)", self.resumed));
        }
        if self.interrupted {
            out.push_str(", interrupted: run the same command again to resume");
        }
        out.push('\n');
        if let Some(e) = self.elo() {
            if e.diff.is_finite() {
                out.push_str(&format!(
                    "engine 1 scored {:.1} %: Elo difference {:+.0} ± {:.0} (95 %)\n",
                    e.score * 100.0,
                    e.diff,
                    e.error
                ));
            } else {
                out.push_str(&format!(
                    "engine 1 scored {:.1} %: no Elo estimate from a one-sided score\n",
                    e.score * 100.0
                ));
            }
        }
        if let Some(t) = &self.sprt {
            out.push_str(&t.describe());
        }
        let us = self.referee_us_per_move();
        out.push_str(&format!(
            "referee: {us:.1} µs per engine move ({:.4} % of a 100 ms move)\n",
            us / 1000.0
        ));
        if let Some(dir) = &self.out {
            out.push_str(&format!("records: {}\n", dir.display()));
        }
        out
    }

    /// fastchess's `Results of` block for engine 1 (see [`crate::fastchess`]): `time` as
    /// the match's time control is written, `book` the opening suite's file name.
    pub fn fastchess_results(&self, time: &str, book: &str) -> String {
        let mut pairs = PairBook::default();
        for g in &self.games {
            pairs.add(g);
        }
        let heading = crate::fastchess::Heading {
            names: [&self.names[0], &self.names[1]],
            time,
            book,
        };
        crate::fastchess::results_block(
            &heading,
            &pairs.0.tally,
            pairs.0.wl_dd,
            self.sprt.as_ref().map(|t| &t.sprt),
        )
    }

    /// The summary as JSON.
    pub fn to_json(&self) -> Value {
        let [w, d, l] = self.score();
        let elo = self.elo().map(|e| {
            json!({
                "diff": if e.diff.is_finite() { json!(e.diff) } else { json!(null) },
                "error": if e.error.is_finite() { json!(e.error) } else { json!(null) },
                "score": e.score,
            })
        });
        json!({
            "engines": self.names,
            "games": w + d + l,
            "total": self.total,
            "resumed": self.resumed,
            "interrupted": self.interrupted,
            "wins": [w, l],
            "draws": d,
            "by_reason": self.by_reason().into_iter().map(|(k, [a, b, c])| (k, json!({"engine1": a, "draws": b, "engine2": c}))).collect::<serde_json::Map<_, _>>(),
            "elo": elo,
            "referee_us_per_move": self.referee_us_per_move(),
            "out": self.out.as_ref().map(|p| p.display().to_string()),
            "results": self.games.iter().map(GameEntry::to_json).collect::<Vec<_>>(),
            "sprt": self.sprt.as_ref().map(SprtOutcome::to_json),
            "warnings": self.warnings,
            "rules": self.rules,
            "rules_digest": self.rules_digest,
        })
    }
}

/// What identifies a match in its output directory.
fn identity(config: &MatchConfig) -> Value {
    json!({
        "engines": config.engines.iter().map(Entrant::identity).collect::<Vec<_>>(),
        "games": config.games,
        "rules": config.preset,
        "time": crate::timecontrol::describe(&config.time),
        "margin": config.margin,
        "openings": config.openings.iter().map(|o| {
            let mut s = o.start.to_sfen();
            for m in &o.moves { s.push(' '); s.push_str(&m.to_string()); }
            s
        }).collect::<Vec<_>>(),
    })
}

/// Prepares the output directory: a new one gets `match.json`; an existing one must hold
/// the same match, and its finished games are returned.
fn prepare_out(dir: &Path, config: &MatchConfig) -> Result<Vec<GameEntry>, MatchError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let id_path = dir.join("match.json");
    let id = identity(config);
    if !id_path.exists() && std::fs::metadata(dir.join("results.jsonl")).is_ok_and(|m| m.len() > 0)
    {
        return Err(MatchError::Input(format!(
            "{} has results.jsonl but no match.json: which match they belong to cannot be \
             told; use another --out (or put its match.json back)",
            dir.display()
        )));
    }
    let stored = if id_path.exists() {
        let bytes =
            gyoku_kifu::files::read_regular(&id_path, 1 << 20).map_err(MatchError::Input)?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    } else {
        None
    };
    match stored {
        Some(text) => {
            let stored: Value = serde_json::from_str(&text).map_err(|e| {
                MatchError::Input(format!("{}: not a match identity: {e}", id_path.display()))
            })?;
            if stored != id {
                return Err(MatchError::Input(format!(
                    "{} holds a different match (engines, games, rules, time or openings differ); \
                     use another --out",
                    dir.display()
                )));
            }
        }
        None => gyoku_kifu::files::write_atomic(&id_path, format!("{id:#}\n").as_bytes())?,
    }
    let path = dir.join("results.jsonl");
    let text =
        match gyoku_kifu::files::read_regular(&path, gyoku_kifu::files::DEFAULT_MAX_FILE_BYTES) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) if !path.exists() => String::new(),
            Err(e) => return Err(MatchError::Run(e)),
        };
    let mut done: Vec<GameEntry> = Vec::new();
    let mut dropped = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        // A line cut short by an interruption or a full disk is dropped: that game is
        // played again.
        let Some(entry) = serde_json::from_str(line)
            .ok()
            .as_ref()
            .and_then(GameEntry::from_json)
            .filter(|e| e.number >= 1 && e.number <= config.games)
            // Engine 1 has Black in the odd games: a line saying otherwise is no game of
            // this match.
            .filter(|e| e.black == ((e.number - 1) % 2) as usize)
            .filter(|e| !done.iter().any(|d| d.number == e.number))
        else {
            eprintln!(
                "results.jsonl:{}: unreadable line dropped (that game is played again)",
                n + 1
            );
            dropped = true;
            continue;
        };
        // A finished game whose record was deleted is played again.
        let missing: Vec<String> = ["kif", "csa"]
            .iter()
            .map(|ext| format!("game-{:04}.{ext}", entry.number))
            .filter(|name| !dir.join(name).is_file())
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "results.jsonl:{}: game {} has no {} (deleted?); it is played again",
                n + 1,
                entry.number,
                missing.join(" or ")
            );
            dropped = true;
            continue;
        }
        done.push(entry);
    }
    // Rewrite the file without what was dropped (a torn last line included), so that the
    // games played again are appended after whole lines only.
    if dropped || !(text.is_empty() || text.ends_with('\n')) {
        let kept: String = done.iter().map(|e| format!("{}\n", e.to_json())).collect();
        gyoku_kifu::files::write_atomic(&path, kept.as_bytes())?;
    }
    Ok(done)
}

/// Writes a finished game's records (`game-NNNN.kif` in Shift_JIS, `game-NNNN.csa`),
/// each atomically, so an interruption never leaves half a record.
fn write_records(dir: &Path, number: u32, record: &Record) -> Result<(), String> {
    write_record_files(dir, &format!("game-{number:04}"), record)
}

/// Writes `<stem>.kif` (Shift_JIS) and `<stem>.csa` in `dir`, each atomically.
pub(crate) fn write_record_files(dir: &Path, stem: &str, record: &Record) -> Result<(), String> {
    for (format, ext) in [(Format::Kif, "kif"), (Format::Csa, "csa")] {
        let text = gyoku_kifu::write(record, format);
        let bytes = if format == Format::Kif {
            gyoku_kifu::encoding::Encoding::ShiftJis.encode(&text)
        } else {
            text.into_bytes()
        };
        gyoku_kifu::files::write_atomic(&dir.join(format!("{stem}.{ext}")), &bytes)?;
    }
    Ok(())
}

/// Appends a finished game's line, with the players' names (Black, White) for
/// `gyoku ratings`.
fn append_result(dir: &Path, entry: &GameEntry, names: &[String; 2]) -> Result<(), String> {
    let mut line = entry.to_json();
    let black = &names[entry.black];
    let white = &names[1 - entry.black];
    line["players"] = json!([black, white]);
    append_json_line(dir, &line)
}

/// Appends `line` to `dir/results.jsonl` and syncs it (a line per finished game).
pub(crate) fn append_json_line(dir: &Path, line: &Value) -> Result<(), String> {
    let path = dir.join("results.jsonl");
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writeln!(f, "{line}").map_err(|e| format!("{}: {e}", path.display()))?;
    f.sync_data()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The next delivery of `signal` (never, if it could not be listened to).
#[cfg(unix)]
async fn next_signal(signal: &mut Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}

/// Resolves when the runner is asked to stop: Ctrl-C (SIGINT), SIGTERM or SIGHUP.
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).ok();
        let mut hup = signal(SignalKind::hangup()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = next_signal(&mut term) => {}
            () = next_signal(&mut hup) => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

/// Runs a match; `progress` is called after each game. Ctrl-C, SIGTERM and SIGHUP stop it
/// cleanly (engines and everything they started are killed; finished games are kept for a
/// resume); even SIGKILL takes the engines with it on Linux (their parent-death signal).
///
/// # Errors
/// A message when an engine cannot start at all, or the output directory cannot be used.
pub async fn run(
    config: MatchConfig,
    progress: impl FnMut(&Progress),
) -> Result<MatchSummary, MatchError> {
    run_until(config, progress, stop_signal()).await
}

/// [`run`], stopped cleanly when `stop` resolves rather than on a signal: for a caller
/// that handles signals itself (the Python binding, whose interpreter owns them).
///
/// # Errors
/// As [`run`].
pub async fn run_until(
    config: MatchConfig,
    mut progress: impl FnMut(&Progress),
    stop: impl std::future::Future<Output = ()>,
) -> Result<MatchSummary, MatchError> {
    let mut config = config;
    config.rules = match_rules(config.rules);
    if config.openings.is_empty() {
        config.openings.push(Opening::startpos());
    }
    // An engine that cannot start at all is the command the user gave: an input error.
    let id_names = executor::probe(&config.engines, &config.rules)
        .await
        .map_err(MatchError::Input)?;
    let given = config.engines.clone().map(|e| e.name);
    let (names, warnings) = executor::unique_names(&given, &id_names);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let names: [String; 2] = [names[0].clone(), names[1].clone()];
    let mut games = match &config.out {
        Some(dir) => prepare_out(dir, &config)?,
        None => Vec::new(),
    };
    let resumed = games.len() as u32;
    let mut book = PairBook::default();
    for g in &games {
        book.add(g);
    }
    let sprt = config.sprt;
    let test_of = move |book: &PairBook| {
        sprt.map(|sprt| {
            let llr = sprt.llr(&book.0.tally);
            SprtOutcome {
                sprt,
                llr,
                tally: book.0.tally,
                decision: sprt.decide(llr),
            }
        })
    };
    let mut test = test_of(&book);
    let decided = |t: &Option<SprtOutcome>| t.is_some_and(|t| t.decision.is_some());
    // Games 2k+1 and 2k+2 play opening k, engine 1 Black first.
    let pending: VecDeque<Job> = (1..=config.games)
        .filter(|n| !games.iter().any(|g| g.number == *n))
        .filter(|_| !decided(&test))
        .map(|number| {
            let index = number - 1;
            let black = (index % 2) as usize;
            Job {
                number,
                round: 1,
                black,
                white: 1 - black,
                opening: (index / 2) as usize,
            }
        })
        .collect();
    let total = config.games;
    let preset = config.preset.clone();
    let conditions = Conditions {
        rules: config.rules,
        time: config.time,
        margin: config.margin,
        openings: config.openings.clone(),
        adjudication: config.adjudication,
        log_usi: config.log_usi.clone(),
    };
    if let Some(dir) = &conditions.log_usi {
        std::fs::create_dir_all(dir)
            .map_err(|e| MatchError::Input(format!("--log-usi {}: {e}", dir.display())))?;
    }
    let mut pool = Pool::start(
        config.engines.to_vec(),
        names.to_vec(),
        conditions,
        Arc::new(move |_: &Job| format!("gyoku match, rules {preset}")),
        pending,
        config.concurrency,
    );
    let score = |games: &[GameEntry]| {
        let mut s = [0; 3];
        for g in games {
            s[match g.winner {
                Some(0) => 0,
                Some(_) => 2,
                None => 1,
            }] += 1;
        }
        s
    };
    progress(&Progress {
        done: games.len() as u32,
        total,
        score: score(&games),
        sprt: test.map(|t| (t.llr, t.tally)),
        finished: None,
    });
    let mut interrupted = false;
    tokio::pin!(stop);
    loop {
        tokio::select! {
            finished = pool.next() => {
                let Some(Finished { job, report }) = finished else { break };
                let entry = entry_of(&job, &report);
                let (result, reason, ply) = report.ending();
                if let Some(dir) = &config.out {
                    let mut record = report.record;
                    record.start_comments.push(format!(
                        "gyoku match game {}: {} by {reason} at ply {ply}",
                        job.number,
                        match result {
                            GameResult::Win(c) => format!("{c} wins"),
                            GameResult::Draw => "draw".to_string(),
                            GameResult::NoContest => "no contest".to_string(),
                        },
                    ));
                    write_records(dir, job.number, &record)?;
                    append_result(dir, &entry, &names)?;
                }
                book.add(&entry);
                games.push(entry.clone());
                test = test_of(&book);
                progress(&Progress {
                    done: games.len() as u32,
                    total,
                    score: score(&games),
                    sprt: test.map(|t| (t.llr, t.tally)),
                    finished: Some(FinishedGame {
                        players: [names[entry.black].clone(), names[1 - entry.black].clone()],
                        result,
                        entry,
                    }),
                });
                if decided(&test) {
                    // The test has decided: the games under way are not needed.
                    break;
                }
            }
            _ = &mut stop => {
                interrupted = true;
                break;
            }
        }
    }
    pool.abort().await;
    games.sort_by_key(|g| g.number);
    interrupted |= (games.len() as u32) < total && !decided(&test);
    Ok(MatchSummary {
        names,
        games,
        resumed,
        total,
        interrupted,
        out: config.out.clone(),
        sprt: test,
        warnings,
        rules: config.preset.clone(),
        rules_digest: crate::executor::match_rules_digest(
            &config.preset,
            &config.rules,
            &config.time,
        ),
    })
}

/// A finished game as `results.jsonl` keeps it.
fn entry_of(job: &Job, report: &GameReport) -> GameEntry {
    let (result, reason, _) = report.ending();
    let winner = match result {
        GameResult::Win(Color::Black) => Some(job.black),
        GameResult::Win(Color::White) => Some(job.white),
        GameResult::Draw | GameResult::NoContest => None,
    };
    GameEntry {
        number: job.number,
        black: job.black,
        winner,
        reason,
        plies: report.game.plies().len() as u32,
        engine_moves: report.engine_moves,
        referee_us: report.referee_time.as_micros() as u64,
    }
}
