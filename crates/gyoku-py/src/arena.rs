//! `gyoku.match`: a match between two USI engines, refereed as `gyoku match` referees it
//! (the same runner: every ending rule, the clock, an engine's crash, hang or illegal move
//! a loss for it and the match going on), from Python.

use std::time::Duration;

use gyoku::Preset;
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::executor::Entrant;
use gyoku_arena::runner::{self, MatchConfig, MatchError};
use gyoku_arena::{openings, timecontrol};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The largest openings file read (as the CLI's default).
const MAX_OPENINGS_BYTES: u64 = 64 << 20;

/// How often a running match looks for a signal Python has to handle (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// An engine as the caller gives it: a command, `(name, command)`, or a dict with
/// `command` and optionally `name` and `options`.
fn entrant(item: &Bound<'_, PyAny>) -> PyResult<Entrant> {
    if let Ok(command) = item.extract::<String>() {
        return Ok(Entrant::new(EngineConfig::new(command)));
    }
    if let Ok(pair) = item.downcast::<PyTuple>() {
        let (name, command): (String, String) = pair.extract()?;
        return Ok(Entrant::new(EngineConfig::new(command)).named(name));
    }
    if let Ok(dict) = item.downcast::<PyDict>() {
        let command: String = dict
            .get_item("command")?
            .ok_or_else(|| PyValueError::new_err("engines: a dict needs its 'command'"))?
            .extract()?;
        let mut entrant = Entrant::new(EngineConfig::new(command));
        if let Some(name) = dict.get_item("name")? {
            entrant = entrant.named(name.extract::<String>()?);
        }
        if let Some(options) = dict.get_item("options")? {
            for (name, value) in options.downcast::<PyDict>()?.iter() {
                let value = match value.extract::<bool>() {
                    Ok(b) => b.to_string(),
                    Err(_) => value.str()?.to_string(),
                };
                entrant
                    .engine
                    .options
                    .push((name.str()?.to_string(), value));
            }
        }
        return Ok(entrant);
    }
    Err(PyTypeError::new_err(
        "engines: each a command, a (name, command) pair or a dict with 'command'",
    ))
}

/// Plays `games` games between two engines (each a command, a `(name, command)` pair or
/// a dict with `command`, `name` and `options`), engine 1 Black in odd games, under
/// `rules` (a preset's name) and a clock (`time` such as `10s` or `60s+1s`, `byoyomi`
/// such as `1s`; the preset's event clock, or a 1 s byoyomi, when neither is given), the
/// openings of a file (SFEN or USI lines, or records) used in turn, pair by pair, and
/// returns the summary `gyoku match --json` prints. With `out`, each game's record and
/// result are written there, and a match stopped half-way resumes. Ctrl-C stops it
/// cleanly (the engines killed, the games finished kept) and is raised when it returns.
#[pyfunction]
#[pyo3(name = "match", signature = (engines, *, games = 2, rules = "csa", time = None,
    byoyomi = None, openings = None, opening_plies = None, out = None, concurrency = 1))]
#[allow(clippy::too_many_arguments)]
pub fn run_match(
    py: Python<'_>,
    engines: Vec<Bound<'_, PyAny>>,
    games: u32,
    rules: &str,
    time: Option<&str>,
    byoyomi: Option<&str>,
    openings: Option<std::path::PathBuf>,
    opening_plies: Option<usize>,
    out: Option<std::path::PathBuf>,
    concurrency: usize,
) -> PyResult<Py<PyAny>> {
    let [first, second]: [Bound<'_, PyAny>; 2] = engines.try_into().map_err(|e: Vec<_>| {
        PyValueError::new_err(format!("engines: give exactly two (got {})", e.len()))
    })?;
    let entrants = [entrant(&first)?, entrant(&second)?];
    let preset: Preset = rules
        .parse()
        .map_err(|e| PyValueError::new_err(format!("rules: {e}")))?;
    let rule_set = preset.rules();
    let clock = match (time, byoyomi, preset.event()) {
        (None, None, Some(event)) => event.clock,
        _ => timecontrol::parse_time_control(time, byoyomi)
            .map_err(|e| PyValueError::new_err(format!("time control: {e}")))?,
    };
    let openings = match openings {
        Some(path) => openings::load(&path, opening_plies, &rule_set, MAX_OPENINGS_BYTES)
            .map_err(PyValueError::new_err)?,
        None => Vec::new(),
    };
    let config = MatchConfig {
        engines: entrants,
        games,
        preset: preset.name().to_string(),
        rules: rule_set,
        time: clock,
        margin: 0,
        openings,
        out,
        concurrency: concurrency.max(1),
        adjudication: Default::default(),
        sprt: None,
        log_usi: None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a runtime: {e}")))?;
    // Python owns the signals: the match looks for one it has to handle (Ctrl-C) every
    // tenth of a second, on this thread (the interpreter's main thread, where Python
    // handles them), and stops as a signal would stop `gyoku match`.
    let mut interrupt: Option<PyErr> = None;
    let summary = py.allow_threads(|| {
        runtime.block_on(runner::run_until(config, |_| {}, async {
            loop {
                tokio::time::sleep(SIGNAL_POLL).await;
                if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                    interrupt = Some(e);
                    return;
                }
            }
        }))
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    let summary = summary.map_err(|e| match e {
        MatchError::Input(m) => PyValueError::new_err(m),
        MatchError::Run(m) => PyRuntimeError::new_err(m),
    })?;
    crate::convert::value(py, &summary.to_json())
}

/// Runs Gyoku's built-in USI engine on this process's standard input and output until
/// `quit` or the input's end (`python -m gyoku.engine`): `style` `greedy` (a mate in one,
/// else the best capture or promotion) or `random`, its choices seeded by `seed`; with
/// `crash_at`, it exits without answering its `crash_at`-th `go` (for testing a referee).
#[pyfunction]
#[pyo3(signature = (style = "greedy", seed = 0, crash_at = None))]
pub fn builtin_engine(
    py: Python<'_>,
    style: &str,
    seed: u64,
    crash_at: Option<u32>,
) -> PyResult<()> {
    use gyoku_arena::builtin::{self, Quirk, Style};
    let style = Style::from_name(style).ok_or_else(|| {
        PyValueError::new_err(format!("style: unknown style '{style}' (greedy, random)"))
    })?;
    let config = builtin::Config {
        style,
        seed,
        quirk: crash_at.map(|_| Quirk::Crash),
        quirk_from: crash_at.unwrap_or(1),
        ..builtin::Config::default()
    };
    py.allow_threads(|| builtin::run(std::io::stdin().lock(), std::io::stdout().lock(), config))
        .map_err(|e| PyRuntimeError::new_err(format!("engine: {e}")))
}
