//! Rust values as Python objects, made directly (no JSON text in between).

use gyoku::{ImpasseReport, Position};
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
