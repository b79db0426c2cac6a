//! `import gyoku`: Gyoku's rules, referee, impasse calculator and record readers for
//! Python, built with PyO3 and maturin (`pip install ./crates/gyoku-py`).
//!
//! Results are the objects the CLI prints as JSON (`gyoku judge --json`, `gyoku impasse
//! --json`), handed to Python as dicts and lists. Errors are Python exceptions carrying the
//! CLI's messages: `ValueError` for what does not read, [`IllegalMoveError`] (a
//! `ValueError`) with the kind for a move the rules refuse, `GameError` for an action a
//! game refuses, `OSError` for a file that cannot be read.

mod arena;
mod board;
mod convert;
mod engine;
mod game;
mod moves;
mod raw_methods;
mod records;
mod write;

use gyoku::rules::{Fouls, Resolution};
use gyoku::{Handicap, Move, Position, Preset, RuleSet, Setup};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    gyoku,
    IllegalMoveError,
    PyValueError,
    "A move the rules refuse; `kind` names why (`nifu`, `uchifuzume`, ...)."
);
create_exception!(
    gyoku,
    GameError,
    pyo3::exceptions::PyException,
    "An action a game refuses (it is over, no such rule, ...); `code` names it."
);

/// Reads a USI move; the error is the CLI's (`usi move '7g7x': bad rank 'x' at column 4
/// ...`).
fn parse_move(text: &str) -> PyResult<Move> {
    text.parse()
        .map_err(|e: gyoku::ParseUsiMoveError| PyValueError::new_err(e.to_string()))
}

/// Reads a position: `startpos`, a handicap name (`2-piece`, `二枚落ち`) or an SFEN. With
/// `lenient`, a position that breaks a rule but can be played through (a missing king,
/// dead pieces, nifu, extra pieces) is taken, as the CLI's `--lenient`.
fn read_position(text: Option<&str>, lenient: bool) -> PyResult<Position> {
    let text = match text {
        None | Some("startpos") => return Ok(Position::startpos()),
        Some(t) => t,
    };
    if let Ok(h) = text.parse::<Handicap>() {
        return Ok(h.position());
    }
    let setup = Setup::from_sfen(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    match Position::from_setup(setup) {
        Ok(pos) => Ok(pos),
        Err(e) if lenient => e
            .ignore_all_safe()
            .map_err(|e| PyValueError::new_err(format!("sfen: {e}"))),
        Err(e) => Err(PyValueError::new_err(format!(
            "sfen: {e} (lenient=True accepts a missing king, dead pieces, nifu and extra pieces)"
        ))),
    }
}

/// The handicap a game's initial position names (a handicap name or SFEN), for the
/// impasse credit; `None` when it is no recognised handicap start.
fn handicap_of(initial: &str) -> Option<Handicap> {
    initial
        .parse::<Handicap>()
        .ok()
        .or_else(|| Handicap::from_sfen(initial))
}

/// `IllegalMoveError` for `text`, with its `kind`: `'P*5e' is illegal: nifu (...)`.
fn illegal(py: Python<'_>, text: &str, kind: gyoku::IllegalMoveKind) -> PyErr {
    illegal_with(
        py,
        format!("'{text}' is illegal: {} ({kind})", kind.code()),
        kind,
    )
}

fn illegal_with(py: Python<'_>, message: String, kind: gyoku::IllegalMoveKind) -> PyErr {
    let err = IllegalMoveError::new_err(message);
    // Setting an attribute on a fresh exception object cannot fail.
    let _ = err.value(py).setattr("kind", kind.code());
    err
}

fn color_named(name: &str) -> PyResult<gyoku::Color> {
    match name {
        "black" | "sente" | "b" => Ok(gyoku::Color::Black),
        "white" | "gote" | "w" => Ok(gyoku::Color::White),
        other => Err(PyValueError::new_err(format!(
            "color: '{other}' is neither black nor white"
        ))),
    }
}

/// A preset's rules with the CLI's overrides (`--max-moves`, `--fouls`, `--sennichite`),
/// each refused with the CLI's words.
fn rule_set(
    rules: &str,
    max_moves: Option<u32>,
    fouls: Option<&str>,
    sennichite: Option<&str>,
) -> PyResult<RuleSet> {
    let preset: Preset = rules
        .parse()
        .map_err(|e| PyValueError::new_err(format!("rules: {e}")))?;
    let mut rules = preset.rules();
    if let Some(n) = max_moves {
        rules.set_max_moves(n);
    }
    if let Some(f) = fouls {
        rules.fouls = f.parse::<Fouls>().map_err(PyValueError::new_err)?;
    }
    if let Some(s) = sennichite {
        rules.sennichite = match s {
            "draw" => Resolution::Draw,
            "no-contest" | "no_contest" => Resolution::NoContest,
            other => {
                return Err(PyValueError::new_err(format!(
                    "sennichite: '{other}' is not 'draw' or 'no-contest'"
                )));
            }
        };
    }
    Ok(rules)
}

/// The impasse calculator: both sides' entry, pieces in the zone, points, check, and the
/// verdict under every preset (as `gyoku impasse --json`), after `moves` from `sfen`.
/// `initial` (a handicap name or SFEN) is the game's initial position, for handicap credit.
/// With `mate_nodes`, whether each side can still mate the other by checks (Article 9's
/// condition; `mate_by`, as `gyoku impasse --mate-nodes N --json`), each search at most
/// that many nodes, letting other Python threads run.
#[pyfunction]
#[pyo3(signature = (sfen="startpos", moves=None, initial=None, lenient=false, mate_nodes=0))]
fn impasse(
    py: Python<'_>,
    sfen: &str,
    moves: Option<Vec<String>>,
    initial: Option<&str>,
    lenient: bool,
    mate_nodes: u64,
) -> PyResult<Py<PyAny>> {
    let start = read_position(Some(sfen), lenient)?;
    let mut pos = start.clone();
    for text in moves.unwrap_or_default() {
        let m = parse_move(&text)?;
        pos.play(m).map_err(|k| illegal(py, &text, k))?;
    }
    let initial = match initial {
        Some(text) => read_position(Some(text), true)?.to_setup(),
        None => start.to_setup(),
    };
    let mut report = gyoku::ImpasseReport::new(&pos, Some(&initial));
    py.allow_threads(|| report.search_mates(&pos, mate_nodes));
    convert::impasse_report(py, &report, &pos)
}

/// The presets' names.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    Preset::ALL.iter().map(|p| p.name()).collect()
}

#[pymodule]
fn _gyoku(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<board::Board>()?;
    raw_methods::install(m.py())?;
    m.add_class::<game::Game>()?;
    m.add_class::<records::Verdicts>()?;
    m.add_class::<write::Record>()?;
    m.add_function(wrap_pyfunction!(impasse, m)?)?;
    m.add_function(wrap_pyfunction!(records::read, m)?)?;
    m.add_function(wrap_pyfunction!(records::judge, m)?)?;
    m.add_function(wrap_pyfunction!(records::training_write, m)?)?;
    m.add_function(wrap_pyfunction!(write::write, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(moves::move16, m)?)?;
    m.add_function(wrap_pyfunction!(moves::move_to_usi, m)?)?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    m.add("GameError", m.py().get_type::<GameError>())?;
    m.add_class::<engine::Engine>()?;
    m.add_function(wrap_pyfunction!(arena::run_match, m)?)?;
    m.add_function(wrap_pyfunction!(arena::builtin_engine, m)?)?;
    m.add_class::<engine::Thought>()?;
    m.add("EngineError", m.py().get_type::<engine::EngineError>())?;
    Ok(())
}
