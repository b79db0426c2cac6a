//! Rust values as Python objects, made directly (no JSON text in between), and moves as
//! USI strings made once each.

use std::sync::OnceLock;

use gyoku::{ImpasseReport, Move, Position};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;

/// A JSON value as the Python object `json.loads` would make of its text.
pub fn value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_py_any(py)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_py_any(py)?,
            (None, Some(u)) => u.into_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_py_any(py)?,
        },
        Value::String(s) => PyString::new(py, s).into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, value(py, item)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// Moves on the board: from each square to each, promoting or not.
const NORMAL_SLOTS: usize = 81 * 81 * 2;
/// One slot per move there can be: normal moves, then drops of each kind on each square.
const MOVE_SLOTS: usize = NORMAL_SLOTS + 14 * 81;

fn slot(m: Move) -> usize {
    match m {
        Move::Normal { from, to, promote } => {
            (from.index() * 81 + to.index()) * 2 + usize::from(promote)
        }
        Move::Drop { role, to } => NORMAL_SLOTS + role.index() * 81 + to.index(),
    }
}

/// Each move's USI string, made the first time it is asked for and shared after (at most
/// 14,256 strings, about 0.8 MB): a list of legal moves costs a reference per move, as a
/// list of ints would.
static MOVE_TEXT: OnceLock<Box<[OnceLock<Py<PyString>>]>> = OnceLock::new();

/// `m` in USI, as a Python string.
pub fn move_text(py: Python<'_>, m: Move) -> Py<PyString> {
    let table = MOVE_TEXT.get_or_init(|| (0..MOVE_SLOTS).map(|_| OnceLock::new()).collect());
    table[slot(m)]
        .get_or_init(|| PyString::new(py, &m.to_string()).unbind())
        .clone_ref(py)
}

/// Moves as a Python list of USI strings.
pub fn move_list(
    py: Python<'_>,
    moves: impl ExactSizeIterator<Item = Move>,
) -> PyResult<Py<PyList>> {
    Ok(PyList::new(py, moves.map(|m| move_text(py, m)))?.unbind())
}

/// The calculator's report for `pos`, as `gyoku impasse --json`, with the position's SFEN.
pub fn impasse_report(
    py: Python<'_>,
    report: &ImpasseReport,
    pos: &Position,
) -> PyResult<Py<PyAny>> {
    let mut v = gyoku_kifu::report::impasse_json(report);
    v["sfen"] = Value::String(pos.to_sfen());
    value(py, &v)
}
