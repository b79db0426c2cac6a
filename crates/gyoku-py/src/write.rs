//! Records out: `gyoku.Record` (a record as read, with its header, comments and
//! variations, or made from a game) and `gyoku.write`, byte for byte what `gyoku convert`
//! writes.

use gyoku_kifu::Format;
use gyoku_kifu::encoding::Encoding;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// A game record: everything the file said (header, comments, variations, times, the
/// foul, the end), as `gyoku.read` found it (its dicts' `record`), or a game's record so
/// far (`Game.record()`). Written by `gyoku.write`.
#[pyclass(module = "gyoku", frozen)]
pub struct Record {
    pub(crate) inner: gyoku_kifu::Record,
}

#[pymethods]
impl Record {
    /// Plies in the main line (the foul included).
    fn __len__(&self) -> usize {
        self.inner.moves.len() + usize::from(self.inner.foul.is_some())
    }

    fn __repr__(&self) -> String {
        format!(
            "<gyoku.Record {} plies, end {}>",
            self.__len__(),
            self.inner
                .end
                .as_ref()
                .map_or("none", gyoku_kifu::Terminal::code)
        )
    }
}

/// `kif`, `kifu` (KIF in UTF-8), `ki2`, `ki2u`, `csa`, `jkf`, `usi`: the format and its
/// usual encoding (Shift_JIS for `kif` and `ki2`, as files of those names are).
fn format_of(name: &str) -> PyResult<(Format, Encoding)> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "kif" => (Format::Kif, Encoding::ShiftJis),
        "kifu" => (Format::Kif, Encoding::Utf8),
        "ki2" => (Format::Ki2, Encoding::ShiftJis),
        "ki2u" => (Format::Ki2, Encoding::Utf8),
        "csa" => (Format::Csa, Encoding::Utf8),
        "jkf" => (Format::Jkf, Encoding::Utf8),
        "usi" => (Format::Usi, Encoding::Utf8),
        _ => {
            return Err(PyValueError::new_err(format!(
                "format: '{}' is not kif, kifu, ki2, ki2u, csa, jkf or usi",
                name.chars().take(20).collect::<String>()
            )));
        }
    })
}

fn encoding_of(name: &str) -> PyResult<Encoding> {
    match name.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "utf8" => Ok(Encoding::Utf8),
        "shiftjis" | "sjis" | "cp932" => Ok(Encoding::ShiftJis),
        "eucjp" => Ok(Encoding::EucJp),
        _ => Err(PyValueError::new_err(format!(
            "encoding: '{}' is not utf-8, shift_jis or euc-jp",
            name.chars().take(20).collect::<String>()
        ))),
    }
}

/// One record to write: a `Record`, a dict of `gyoku.read` (its `record`), or a `Game`.
fn record_of(obj: &Bound<'_, PyAny>) -> PyResult<gyoku_kifu::Record> {
    if let Ok(r) = obj.downcast::<Record>() {
        return Ok(r.get().inner.clone());
    }
    if let Ok(d) = obj.downcast::<PyDict>()
        && let Some(r) = d.get_item("record")?
    {
        return record_of(&r);
    }
    // A game: its record so far (`Game.record()`, called by name, so that this module
    // and the game's need not know each other).
    if !obj.is_instance_of::<PyDict>()
        && let Ok(method) = obj.getattr("record")
        && method.is_callable()
    {
        let r = method.call0()?;
        if r.downcast::<Record>().is_ok() {
            return record_of(&r);
        }
    }
    Err(PyTypeError::new_err(
        "write takes a gyoku.Record, a dict of gyoku.read, a gyoku.Game, or a list of them",
    ))
}

/// Writes `records` (one, or a list: several games in one file, as `gyoku convert` writes
/// a file of several) as `format`, encoded as `encoding` (by default Shift_JIS for `kif`
/// and `ki2`, UTF-8 for the others): the bytes `gyoku convert FILE --to FORMAT` writes.
///
/// >>> [r] = gyoku.read(b"V2.2\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n", format="csa")
/// >>> gyoku.write(r, "usi")
/// b'position startpos moves 7g7f 3c3d\n'
#[pyfunction]
#[pyo3(signature = (records, format="kif", encoding=None))]
pub fn write(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    format: &str,
    encoding: Option<&str>,
) -> PyResult<Py<PyBytes>> {
    let (format, usual) = format_of(format)?;
    let encoding = encoding.map(encoding_of).transpose()?.unwrap_or(usual);
    let list: Vec<gyoku_kifu::Record> = match records.downcast::<PyList>() {
        Ok(l) => l.iter().map(|r| record_of(&r)).collect::<PyResult<_>>()?,
        Err(_) => vec![record_of(records)?],
    };
    let bytes = py
        .allow_threads(|| gyoku_kifu::write_all(&list, format).map(|t| encoding.encode(&t)))
        .map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &bytes).unbind())
}
