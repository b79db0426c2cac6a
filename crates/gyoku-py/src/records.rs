//! `gyoku.read` and `gyoku.judge`: records from paths, directories and bytes.

use std::collections::VecDeque;
use std::path::PathBuf;

use gyoku::Move;
use gyoku_kifu::files::{DEFAULT_MAX_FILE_BYTES, read_regular};
use gyoku_kifu::report::{judge_record, record_json};
#[cfg(unix)]
use gyoku_kifu::walk::RecordFiles;
use gyoku_kifu::{Format, Record, read_bytes_each};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList};
use serde_json::{Value, json};

use crate::{convert, moves, rule_set};

/// What a record source is: a file's path, or its bytes.
enum Source {
    Path(PathBuf),
    Bytes(Vec<u8>),
}

/// Why a source gave no (more) records.
enum SourceError {
    /// It could not be read (`OSError`): the file when known, and the message (which
    /// names it).
    Io(Option<String>, String),
    /// It was read and is no record (`ValueError`, `path:line:column: message`).
    Read {
        /// The path, or `<bytes>`.
        file: String,
        /// Where, and what.
        error: gyoku_kifu::ReadError,
    },
    /// It is neither a path nor bytes (`TypeError`).
    Type(String),
    /// The iterable of sources raised.
    Python(PyErr),
}

impl From<SourceError> for PyErr {
    fn from(e: SourceError) -> PyErr {
        match e {
            SourceError::Io(_, m) => PyOSError::new_err(m),
            SourceError::Read { file, error } => PyValueError::new_err(format!("{file}:{error}")),
            SourceError::Type(m) => PyTypeError::new_err(m),
            SourceError::Python(e) => e,
        }
    }
}

impl SourceError {
    /// The error as `gyoku.judge(..., errors="yield")` gives it: `{"kind", "file",
    /// "line", "column", "message"}` (`kind`: `io`, `read`, `type`, `python`; `file`,
    /// `line`, `column` null where unknown), and for `read` the fault's `read_kind`
    /// (`syntax`, `position`, `move`, `variation`, `empty`, `format`).
    fn value(&self) -> Value {
        match self {
            SourceError::Io(file, m) => json!({"kind": "io", "file": file, "line": null,
                "column": null, "message": m}),
            SourceError::Read { file, error } => json!({"kind": "read", "file": file,
                "line": error.line, "column": error.column, "read_kind": error.kind.code(),
                "message": format!("{} ({})", error.message, error.format.name())}),
            SourceError::Type(m) => json!({"kind": "type", "file": null, "line": null,
                "column": null, "message": m}),
            SourceError::Python(e) => json!({"kind": "python", "file": null, "line": null,
                "column": null, "message": e.to_string()}),
        }
    }
}

/// What `gyoku.judge` does with a source it cannot read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnError {
    /// Raise it at its place (the iteration may go on after it).
    Raise,
    /// Leave it out, counted (`Verdicts.skipped`).
    Skip,
    /// Give it at its place as a verdict-shaped dict with `error`.
    Yield,
}

impl Source {
    fn from_py(obj: &Bound<'_, PyAny>) -> Result<Source, SourceError> {
        if let Ok(b) = obj.downcast::<PyBytes>() {
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(p) = obj.extract::<PathBuf>() {
            return Ok(Source::Path(p));
        }
        Err(SourceError::Type(format!(
            "a record is a path (str or os.PathLike) or bytes, not {}",
            obj.get_type()
                .name()
                .map_or_else(|_| "this".to_string(), |n| n.to_string())
        )))
    }

    /// Hands each record to `each` as it is read (any format and encoding; `format`
    /// forces one, else a path's extension or the text decides). Errors say where, as the
    /// CLI's: `path:line:column: message`.
    fn each_record(
        &self,
        format: Option<Format>,
        each: &mut dyn FnMut(Record),
    ) -> Result<usize, SourceError> {
        match self {
            Source::Bytes(b) => {
                read_bytes_each(b, format, each).map_err(|error| SourceError::Read {
                    file: "<bytes>".into(),
                    error,
                })
            }
            Source::Path(p) => {
                let bytes = read_regular(p, DEFAULT_MAX_FILE_BYTES)
                    .map_err(|m| SourceError::Io(Some(p.display().to_string()), m))?;
                read_bytes_each(&bytes, format.or_else(|| Format::from_path(p)), each).map_err(
                    |error| SourceError::Read {
                        file: p.display().to_string(),
                        error,
                    },
                )
            }
        }
    }

    /// The name a verdict carries: the path (`path#k` for the k-th of several records, as
    /// `gyoku judge` names them), `None` for bytes.
    fn name(&self, k: usize, of: usize) -> Value {
        match self {
            Source::Bytes(_) => Value::Null,
            Source::Path(p) if of > 1 => json!(format!("{}#{k}", p.display())),
            Source::Path(p) => json!(p.display().to_string()),
        }
    }
}

fn format_named(name: Option<&str>) -> PyResult<Option<Format>> {
    name.map(|n| {
        Format::named(n).ok_or_else(|| {
            PyValueError::new_err(format!(
                "format: '{}' is not kif, ki2, csa, usi or jkf",
                n.to_ascii_lowercase()
            ))
        })
    })
    .transpose()
}

fn foul_value(r: &Record) -> Value {
    r.foul.as_ref().map_or(
        Value::Null,
        |f| json!({ "ply": f.ply, "move": f.mv.to_string(), "kind": f.kind.code() }),
    )
}

fn record_dict(py: Python<'_>, r: Record) -> PyResult<Py<PyAny>> {
    let header = PyDict::new(py);
    for (k, v) in &r.header {
        header.set_item(k, v)?;
    }
    let d = PyDict::new(py);
    d.set_item("header", header)?;
    d.set_item("start_sfen", r.start.to_sfen())?;
    d.set_item("moves", moves::text_list(py, r.moves.iter().map(|m| m.mv))?)?;
    d.set_item(
        "times_ms",
        PyList::new(py, r.moves.iter().map(|m| m.time_ms))?,
    )?;
    d.set_item("foul", convert::value(py, &foul_value(&r))?)?;
    d.set_item("end", r.end.as_ref().map(gyoku_kifu::Terminal::code))?;
    // All of it (comments, variations), for `gyoku.write`.
    d.set_item("record", crate::write::Record { inner: r })?;
    Ok(d.into_any().unbind())
}

/// The records in a file (a path) or in bytes: KIF, KI2, CSA, JKF or USI, Shift_JIS,
/// UTF-8 or EUC-JP, told by `format`, else a path's extension, else the text. Each is a
/// dict: `header`, `start_sfen`, `moves` (USI), `times_ms`, `foul` (`{ply, move, kind}` or
/// None), `end`, and `record` (a `gyoku.Record`: all of it, for `gyoku.write`).
#[pyfunction]
#[pyo3(signature = (source, format=None))]
pub fn read(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    format: Option<&str>,
) -> PyResult<Py<PyList>> {
    let source = Source::from_py(source)?;
    let format = format_named(format)?;
    // Each record is handed to Python as it is read: the archive is never held twice.
    let list = PyList::empty(py);
    let mut failed = None;
    source.each_record(format, &mut |r| {
        if failed.is_none()
            && let Err(e) = record_dict(py, r).and_then(|d| list.append(d))
        {
            failed = Some(e);
        }
    })?;
    match failed {
        Some(e) => Err(e),
        None => Ok(list.unbind()),
    }
}

/// Sources judged at once per thread before their verdicts are handed out: memory stays
/// bounded by a batch, however long the archive.
pub const BATCH_PER_THREAD: usize = 16;

/// A source larger than this (bytes, or a file) is judged as it is read, its verdicts
/// handed out as they come (a file of a million CSA games gives its first verdict at once,
/// and memory holds a few thousand of them, not all).
pub const STREAM_FROM_BYTES: u64 = 1 << 20;

/// Records a streamed source reads before they are judged (on `threads` threads) and
/// handed on; the verdicts waiting to be handed out are bounded by as many again.
const STREAM_CHUNK: usize = 2048;

/// Judges records under `rules` (a preset, with the CLI's overrides), as `gyoku judge
/// --json`: `sources` is one path (a file or a directory, walked as the CLI walks it) or
/// bytes, or an iterable of them. Returns an iterator of verdict dicts, in order (a file
/// with several games gives several), judged a batch at a time without the GIL on
/// `threads` threads (every core by default); a source that cannot be read raises at its
/// place, and the iteration may go on after it.
///
/// `errors` says what an unreadable source does: `"raise"` (the default) raises it at its
/// place; `"skip"` leaves it out and counts it (`Verdicts.skipped`); `"yield"` gives it at
/// its place as a dict with `error` (`{"kind", "file", "line", "column", "message"}`),
/// `file` and `source`, the verdict's other keys null — a comprehension over an archive
/// never stops.
#[pyfunction]
#[pyo3(signature = (sources, rules="jsa", max_moves=None, fouls=None, sennichite=None,
                    threads=None, errors="raise"))]
#[allow(clippy::too_many_arguments)]
pub fn judge(
    sources: &Bound<'_, PyAny>,
    rules: &str,
    max_moves: Option<u32>,
    fouls: Option<&str>,
    sennichite: Option<&str>,
    threads: Option<usize>,
    errors: &str,
) -> PyResult<Verdicts> {
    let on_error = match errors {
        "raise" => OnError::Raise,
        "skip" => OnError::Skip,
        "yield" => OnError::Yield,
        other => {
            return Err(PyValueError::new_err(format!(
                "errors: '{}' is not raise, skip or yield",
                other.chars().take(40).collect::<String>()
            )));
        }
    };
    let single = sources.downcast::<PyBytes>().is_ok() || sources.extract::<PathBuf>().is_ok();
    let iter = if single {
        PyList::new(sources.py(), [sources])?.try_iter()?.unbind()
    } else {
        sources.try_iter()?.unbind()
    };
    let rules = rule_set(rules, max_moves, fouls, sennichite)?;
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, 256);
    Ok(Verdicts {
        sources: Some(iter),
        walk: None,
        taken: 0,
        rules,
        user_max: max_moves.is_some(),
        threads,
        ready: VecDeque::new(),
        large: None,
        stream: None,
        on_error,
        skipped: 0,
    })
}

/// One judged record: its verdict without its moves, and the moves (made Python strings
/// under the GIL, from the shared table).
struct Verdict {
    value: Value,
    moves: Vec<Move>,
}

/// A source to judge: its place among the sources, and what it is (or why not).
type Item = (usize, Result<Source, SourceError>);

/// A large source being judged on a thread of its own: its place among the sources, and
/// its verdicts as they come.
type Streamed = (
    usize,
    std::sync::Mutex<std::sync::mpsc::Receiver<Result<Verdict, SourceError>>>,
);

/// The verdicts of `gyoku.judge`, judged a batch at a time as they are asked for.
#[pyclass(module = "gyoku")]
pub struct Verdicts {
    /// What is left of the sources (`None` once they are all taken).
    sources: Option<Py<PyIterator>>,
    /// A directory being walked, and its place among the sources.
    walk: Option<(usize, RecordFiles)>,
    /// How many sources have been taken.
    taken: usize,
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
    /// Verdicts judged and not yet handed out, in order; an error stands at its place.
    ready: VecDeque<(usize, Result<Verdict, SourceError>)>,
    /// A large source taken and not yet judged (the batch before it goes first).
    large: Option<(usize, Source)>,
    /// A large source being judged as it is read, on a thread of its own.
    stream: Option<Streamed>,
    /// What an unreadable source does.
    on_error: OnError,
    /// Unreadable sources left out (`errors="skip"`).
    skipped: usize,
}

impl Verdicts {
    /// The next file or bytes to judge: from the directory being walked, else the next
    /// source (a directory starts a walk).
    fn next_item(&mut self, py: Python<'_>) -> Option<Item> {
        loop {
            if let Some((i, walk)) = &mut self.walk {
                let i = *i;
                match walk.next() {
                    Some(Ok(path)) => return Some((i, Ok(Source::Path(path)))),
                    Some(Err(e)) => return Some((i, Err(SourceError::Io(None, e)))),
                    None => self.walk = None,
                }
            }
            let iter = self.sources.as_ref()?.bind(py).clone();
            let i = self.taken;
            let source = match iter.into_iter().next() {
                None => {
                    self.sources = None;
                    return None;
                }
                Some(Err(e)) => {
                    self.sources = None;
                    return Some((i, Err(SourceError::Python(e))));
                }
                Some(Ok(obj)) => Source::from_py(&obj),
            };
            self.taken += 1;
            match source {
                Ok(Source::Path(p)) if p.is_dir() => match walk(p) {
                    Ok(walk) => self.walk = Some((i, walk)),
                    Err(e) => return Some((i, Err(SourceError::Io(None, e)))),
                },
                other => return Some((i, other)),
            }
        }
    }
}

/// The record files under a directory, as `gyoku judge DIR` finds them.
#[cfg(unix)]
fn walk(dir: PathBuf) -> Result<RecordFiles, String> {
    RecordFiles::new(&[dir])
}

/// Directories are walked on Unix only (files are told apart by device and inode).
#[cfg(not(unix))]
fn walk(dir: PathBuf) -> Result<RecordFiles, String> {
    Err(format!(
        "{}: a directory (walked on Unix only; pass its files)",
        dir.display()
    ))
}

/// Nothing is walked where directories are not.
#[cfg(not(unix))]
type RecordFiles = std::iter::Empty<Result<PathBuf, String>>;

#[pymethods]
impl Verdicts {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Unreadable sources left out so far (`errors="skip"`).
    #[getter]
    fn skipped(&self) -> usize {
        self.skipped
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            let next = self.next_judged(py)?;
            match (next, self.on_error) {
                (Some((_, Err(_))), OnError::Skip) => self.skipped += 1,
                (Some((place, Err(e))), OnError::Yield) => {
                    let error = e.value();
                    let v = json!({
                        "error": error,
                        "file": error["file"],
                        "source": place,
                        "result": null,
                        "reason": null,
                        "ply": null,
                        "agrees": null,
                    });
                    return convert::value(py, &v).map(Some);
                }
                (Some((_, Err(e))), OnError::Raise) => return Err(e.into()),
                (Some((_, Ok(v))), _) => {
                    let dict = convert::value(py, &v.value)?;
                    dict.bind(py)
                        .set_item("moves", moves::text_list(py, v.moves.into_iter())?)?;
                    return Ok(Some(dict));
                }
                (None, _) => return Ok(None),
            }
        }
    }
}

impl Verdicts {
    /// The next verdict or error, in order, judging a batch when none is ready.
    fn next_judged(
        &mut self,
        py: Python<'_>,
    ) -> PyResult<Option<(usize, Result<Verdict, SourceError>)>> {
        while self.ready.is_empty() {
            if let Some((index, stream)) = &self.stream {
                let index = *index;
                let next = py.allow_threads(|| {
                    stream
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .recv()
                });
                match next {
                    Ok(v) => {
                        self.ready.push_back((index, v));
                        continue;
                    }
                    Err(_) => self.stream = None,
                }
            }
            if let Some((index, source)) = self.large.take() {
                let verdicts = stream(index, source, self.rules, self.user_max, self.threads);
                self.stream = Some((index, std::sync::Mutex::new(verdicts)));
                continue;
            }
            let mut batch = Vec::new();
            while batch.len() < self.threads * BATCH_PER_THREAD {
                match self.next_item(py) {
                    Some((index, Ok(source))) if source.is_large() => {
                        self.large = Some((index, source));
                        break;
                    }
                    Some(item) => batch.push(item),
                    None => break,
                }
            }
            if batch.is_empty() {
                if self.large.is_some() {
                    continue;
                }
                return Ok(None);
            }
            let (rules, user_max, threads) = (self.rules, self.user_max, self.threads);
            let places: Vec<usize> = batch.iter().map(|(i, _)| *i).collect();
            let judged = py.allow_threads(|| judge_batch(batch, rules, user_max, threads));
            for (place, one) in places.into_iter().zip(judged) {
                self.ready.extend(one.into_iter().map(|v| (place, v)));
            }
        }
        Ok(self.ready.pop_front())
    }
}

/// One source's verdicts in order, then the error that stopped it, if any.
type Judged = Vec<Result<Verdict, SourceError>>;

/// Judges `batch` on `threads` threads; each source's verdicts, in order (a source that
/// could not be taken stands as its error).
fn judge_batch(
    batch: Vec<Item>,
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
) -> Vec<Judged> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};
    let done: Vec<Mutex<Judged>> = batch.iter().map(|_| Mutex::new(Vec::new())).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(batch.len()) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((index, source)) = batch.get(k) else {
                        return;
                    };
                    if let Ok(source) = source {
                        *done[k].lock().unwrap_or_else(PoisonError::into_inner) =
                            judge_source(*index, source, rules, user_max);
                    }
                }
            });
        }
    });
    batch
        .into_iter()
        .zip(done)
        .map(|((_, source), judged)| match source {
            Ok(_) => judged.into_inner().unwrap_or_else(PoisonError::into_inner),
            Err(e) => vec![Err(e)],
        })
        .collect()
}

/// Every record of one source judged, each verdict naming its `file` and `source` (its
/// place among the sources), then the error that stopped reading it, if any.
fn judge_source(index: usize, source: &Source, rules: gyoku::RuleSet, user_max: bool) -> Judged {
    let mut out: Judged = Vec::new();
    let read = source.each_record(None, &mut |r| {
        out.push(Ok(verdict(&r, index, rules, user_max)));
    });
    let count = out.len();
    for (k, v) in out.iter_mut().enumerate() {
        if let Ok(v) = v {
            v.value["file"] = source.name(k + 1, count);
        }
    }
    if let Err(e) = read {
        out.push(Err(e));
    }
    out
}

impl Source {
    /// Whether it is judged as it is read ([`STREAM_FROM_BYTES`]).
    fn is_large(&self) -> bool {
        match self {
            Source::Bytes(b) => b.len() as u64 > STREAM_FROM_BYTES,
            Source::Path(p) => {
                std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > STREAM_FROM_BYTES)
            }
        }
    }
}

/// Judges a large source as it is read, on a thread of its own: its records a chunk at a
/// time on `threads` threads, the verdicts sent in order (at most a chunk waiting), then
/// the error that stopped the reading, if any. The thread stops reading once nobody takes
/// them.
fn stream(
    index: usize,
    source: Source,
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
) -> std::sync::mpsc::Receiver<Result<Verdict, SourceError>> {
    let (tx, rx) = std::sync::mpsc::sync_channel(STREAM_CHUNK);
    std::thread::spawn(move || {
        let mut chunk: Vec<Record> = Vec::with_capacity(STREAM_CHUNK);
        let mut named = Named::default();
        let mut gone = false;
        let flush = |chunk: &mut Vec<Record>, named: &mut Named, gone: &mut bool| {
            if *gone {
                chunk.clear();
                return;
            }
            for v in judge_records(std::mem::take(chunk), index, rules, user_max, threads) {
                for v in named.push(&source, v) {
                    if tx.send(Ok(v)).is_err() {
                        *gone = true;
                        return;
                    }
                }
            }
        };
        let read = source.each_record(None, &mut |r| {
            chunk.push(r);
            if chunk.len() >= STREAM_CHUNK {
                flush(&mut chunk, &mut named, &mut gone);
            }
        });
        flush(&mut chunk, &mut named, &mut gone);
        if !gone {
            if let Some(v) = named.finish(&source) {
                let _ = tx.send(Ok(v));
            }
            if let Err(e) = read {
                let _ = tx.send(Err(e));
            }
        }
    });
    rx
}

/// Names a streamed source's verdicts as [`judge_source`] does (`path#k` when the file
/// has several records), holding the first until a second shows whether there are.
#[derive(Default)]
struct Named {
    first: Option<Verdict>,
    count: usize,
}

impl Named {
    fn push(&mut self, source: &Source, mut v: Verdict) -> Vec<Verdict> {
        self.count += 1;
        if self.count == 1 {
            self.first = Some(v);
            return Vec::new();
        }
        v.value["file"] = source.name(self.count, usize::MAX);
        let mut out = Vec::with_capacity(2);
        if let Some(mut first) = self.first.take() {
            first.value["file"] = source.name(1, usize::MAX);
            out.push(first);
        }
        out.push(v);
        out
    }

    fn finish(&mut self, source: &Source) -> Option<Verdict> {
        let mut first = self.first.take()?;
        first.value["file"] = source.name(1, 1);
        Some(first)
    }
}

/// Judges `records` of the source `index` on `threads` threads, in order.
fn judge_records(
    records: Vec<Record>,
    index: usize,
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
) -> Vec<Verdict> {
    let per = records.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = records
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|r| verdict(r, index, rules, user_max))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_default())
            .collect()
    })
}

/// One record's verdict, as `gyoku judge --json` gives it, with its `source` (its place
/// among the sources).
fn verdict(r: &Record, index: usize, rules: gyoku::RuleSet, user_max: bool) -> Verdict {
    let j = judge_record(r, rules, user_max);
    let mut value = record_json(r, &j);
    value["start_sfen"] = json!(r.start.to_sfen());
    value["foul"] = foul_value(r);
    value["source"] = json!(index);
    Verdict {
        value,
        moves: r.moves.iter().map(|m| m.mv).collect(),
    }
}

/// `gyoku.training.write(sources, path, format="hcpe", rules="jsa")`: each position of
/// each game of `sources` (paths or bytes, as `read` takes them) with the move played from
/// it, labelled with the game's result as the referee judges it under `rules`, written to
/// `path` (atomically) in cshogi's `hcpe` form or YaneuraOu's `psv` (`PackedSfenValue`). Games not over (or no contest) are left
/// out. Answers `{"games", "positions", "skipped_games", "skipped_positions",
/// "relabelled"}`, `relabelled` listing the games whose judged result is not the one their
/// record states: `{"game", "recorded", "judged"}` (`black`, `white`, `draw`).
#[pyfunction]
#[pyo3(signature = (sources, path, format="hcpe", rules="jsa"))]
pub fn training_write(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    path: PathBuf,
    format: &str,
    rules: &str,
) -> PyResult<Py<PyAny>> {
    use gyoku::{Color, GameResult};
    let Some(format) = gyoku_kifu::training::TrainingFormat::parse(format) else {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "format '{format}': hcpe, psv or sfen"
        )));
    };
    let preset: gyoku::Preset = rules.parse().map_err(|_| {
        pyo3::exceptions::PyValueError::new_err(format!("rules '{rules}': not a preset"))
    })?;
    let list: Vec<Source> = sources
        .try_iter()?
        .map(|s| Source::from_py(&s?).map_err(PyErr::from))
        .collect::<PyResult<_>>()?;
    let word = |r: Option<GameResult>| match r {
        Some(GameResult::Win(Color::Black)) => Value::from("black"),
        Some(GameResult::Win(Color::White)) => Value::from("white"),
        Some(GameResult::Draw) => Value::from("draw"),
        Some(GameResult::NoContest) => Value::from("no_contest"),
        None => Value::Null,
    };
    let mut out = Vec::new();
    let (mut games, mut skipped_games, mut positions, mut skipped) = (0u64, 0u64, 0u64, 0u64);
    let mut relabelled = Vec::new();
    let mut index = 0usize;
    for source in &list {
        source.each_record(None, &mut |record| {
            let j = gyoku_kifu::judge::judge(&record, preset.rules());
            match j.result {
                Some(r @ (GameResult::Win(_) | GameResult::Draw)) => {
                    let e = format.game(&record, r, &mut out);
                    games += 1;
                    positions += e.written;
                    skipped += e.skipped;
                    if j.recorded_result.is_some_and(|rec| rec != r) {
                        relabelled.push(json!({"game": index, "recorded": word(j.recorded_result), "judged": word(Some(r))}));
                    }
                }
                _ => skipped_games += 1,
            }
            index += 1;
        })?;
    }
    gyoku_kifu::files::write_atomic(&path, &out).map_err(pyo3::exceptions::PyOSError::new_err)?;
    let answer = json!({
        "games": games, "positions": positions, "skipped_games": skipped_games,
        "skipped_positions": skipped, "relabelled": relabelled,
    });
    crate::convert::value(py, &answer)
}
