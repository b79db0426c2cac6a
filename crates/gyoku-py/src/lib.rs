//! `import gyoku`: Gyoku's rules, referee, impasse calculator and record readers for
//! Python, built with PyO3 and maturin (`pip install ./crates/gyoku-py`).
//!
//! Results are the same JSON the CLI prints (`gyoku judge --json`, `gyoku impasse --json`),
//! handed to Python as dicts and lists. Errors are Python exceptions carrying the CLI's
//! messages: `ValueError` for what does not read, [`IllegalMoveError`] (a `ValueError`)
//! with the kind for a move the rules refuse, `GameError` for an action a game refuses,
//! `OSError` for a file that cannot be read.

use std::path::PathBuf;

use gyoku::{Move, Position, Preset};
use gyoku_kifu::judge::judge as judge_record;
use gyoku_kifu::report::{impasse_json, judge_json, record_json, rules_for};
use gyoku_kifu::{Format, Record};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::{Value, json};

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

/// A JSON value as Python objects (through the standard `json` module).
fn to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (v.to_string(),))?.unbind())
}

fn parse_move(text: &str) -> PyResult<Move> {
    text.parse()
        .map_err(|e| PyValueError::new_err(format!("move '{text}': {e}")))
}

fn read_sfen(text: Option<&str>) -> PyResult<Position> {
    match text {
        None | Some("startpos") => Ok(Position::startpos()),
        Some(t) => {
            if let Ok(h) = t.parse::<gyoku::Handicap>() {
                return Ok(h.position());
            }
            Position::from_sfen(t).map_err(|e| PyValueError::new_err(format!("sfen: {e}")))
        }
    }
}

fn illegal(py: Python<'_>, text: &str, kind: gyoku::IllegalMoveKind) -> PyErr {
    let err = IllegalMoveError::new_err(format!("'{text}' is illegal: {} ({kind})", kind.code()));
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

fn preset_named(name: &str) -> PyResult<Preset> {
    name.parse()
        .map_err(|e| PyValueError::new_err(format!("rules: {e}")))
}

/// A position and the moves played on it, as cshogi's and python-shogi's `Board`.
///
/// >>> b = gyoku.Board()
/// >>> b.push_usi("7g7f"); b.sfen()
#[pyclass(module = "gyoku")]
#[derive(Clone)]
struct Board {
    pos: Position,
    /// The positions before each move played, for `pop`.
    history: Vec<(Position, Move)>,
}

#[pymethods]
impl Board {
    /// A board at `sfen` (`startpos`, an SFEN or a handicap name; the start by default).
    #[new]
    #[pyo3(signature = (sfen=None))]
    fn new(sfen: Option<&str>) -> PyResult<Board> {
        Ok(Board {
            pos: read_sfen(sfen)?,
            history: Vec::new(),
        })
    }

    /// Plays a USI move; `IllegalMoveError` (with `kind`) if the rules refuse it.
    fn push_usi(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        let m = parse_move(usi)?;
        let before = self.pos.clone();
        self.pos.play(m).map_err(|k| illegal(py, usi, k))?;
        self.history.push((before, m));
        Ok(())
    }

    /// Takes the last move back and returns it (USI); `IndexError` if there is none.
    fn pop(&mut self) -> PyResult<String> {
        let (before, m) = self
            .history
            .pop()
            .ok_or_else(|| PyIndexError::new_err("no move to take back"))?;
        self.pos = before;
        Ok(m.to_string())
    }

    /// The legal moves, USI.
    #[getter]
    fn legal_moves(&self) -> Vec<String> {
        self.pos
            .legal_moves()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Whether a USI move is legal (one that does not read is not).
    fn is_legal(&self, usi: &str) -> bool {
        usi.parse::<Move>().is_ok_and(|m| self.pos.is_legal(m))
    }

    /// `None` for a legal move, else the kind of foul (`nifu`, `uchifuzume`, ...).
    fn check_move(&self, usi: &str) -> PyResult<Option<&'static str>> {
        let m = parse_move(usi)?;
        Ok(self
            .pos
            .check_move(m)
            .err()
            .map(gyoku::IllegalMoveKind::code))
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos.is_check()
    }

    /// Whether the side to move has no legal move (mated, or stalemated).
    fn is_game_over(&self) -> bool {
        self.pos.legal_moves().is_empty()
    }

    /// The position's SFEN.
    fn sfen(&self) -> String {
        self.pos.to_sfen()
    }

    /// The position's Zobrist hash (board, hands and side to move).
    fn zobrist_hash(&self) -> u64 {
        self.pos.hash()
    }

    /// The side to move: `black` or `white`.
    #[getter]
    fn turn(&self) -> &'static str {
        self.pos.turn().name()
    }

    /// The move number of the SFEN (the next move's).
    #[getter]
    fn move_number(&self) -> u32 {
        self.pos.move_number()
    }

    /// The moves played on this board, USI.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.history.iter().map(|(_, m)| m.to_string()).collect()
    }

    /// An independent copy.
    fn copy(&self) -> Board {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!("gyoku.Board('{}')", self.pos.to_sfen())
    }
}

/// A game refereed under a rule set: moves and actions, and how it ended.
///
/// >>> g = gyoku.Game(rules="jsa"); g.move("7g7f"); g.resign("white"); g.outcome["reason"]
#[pyclass(module = "gyoku")]
struct Game {
    game: gyoku::Game,
}

impl Game {
    fn apply(&mut self, py: Python<'_>, action: gyoku::Action, what: &str) -> PyResult<()> {
        self.game.apply(action).map_err(|e| {
            if let gyoku::GameError::IllegalMove(kind) = e {
                return illegal(py, what, kind);
            }
            let err = GameError::new_err(e.to_string());
            let _ = err.value(py).setattr("code", e.code());
            err
        })
    }
}

#[pymethods]
impl Game {
    /// A game under `rules` (a preset: `jsa`, `csa`, `81dojo`, ...) from `sfen`, with a
    /// move limit of `max_moves` plies if given (0: none).
    #[new]
    #[pyo3(signature = (rules="jsa", sfen=None, max_moves=None))]
    fn new(rules: &str, sfen: Option<&str>, max_moves: Option<u32>) -> PyResult<Game> {
        let mut rules = preset_named(rules)?.rules();
        if let Some(n) = max_moves {
            rules.set_max_moves(n);
        }
        Ok(Game {
            game: gyoku::Game::new(read_sfen(sfen)?, rules),
        })
    }

    /// The side to move plays a USI move. Under tournament rules an illegal move ends the
    /// game (see `outcome`); under friendly ones it raises `IllegalMoveError`.
    #[pyo3(name = "move")]
    fn play(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        let m = parse_move(usi)?;
        self.apply(py, gyoku::Action::Move(m), usi)
    }

    /// `color` (`black` or `white`) resigns.
    fn resign(&mut self, py: Python<'_>, color: &str) -> PyResult<()> {
        let c = color_named(color)?;
        self.apply(py, gyoku::Action::Resign(c), "resign")
    }

    /// The side to move declares (入玉宣言); judged at once under the rules.
    fn declare(&mut self, py: Python<'_>) -> PyResult<()> {
        self.apply(py, gyoku::Action::Declare, "declare")
    }

    /// Both players agree to count the impasse now.
    fn agree(&mut self, py: Python<'_>) -> PyResult<()> {
        self.apply(py, gyoku::Action::AgreeImpasse, "agree")
    }

    /// `color`'s clock ran out.
    fn time_up(&mut self, py: Python<'_>, color: &str) -> PyResult<()> {
        let c = color_named(color)?;
        self.apply(py, gyoku::Action::TimeUp(c), "time_up")
    }

    /// How it ended — `{"result", "reason", "ply", "detail"}` as `gyoku judge --json` —
    /// or `None` while it goes on.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.game.outcome().is_none() {
            return Ok(None);
        }
        to_py(py, &judge_json(&self.game)).map(Some)
    }

    /// The position now.
    fn sfen(&self) -> String {
        self.game.position().to_sfen()
    }

    /// The side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        self.game.turn().name()
    }

    /// The moves played, USI.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.game.plies().iter().map(|p| p.mv.to_string()).collect()
    }
}

/// The impasse calculator: both sides' entry, pieces in the zone, points, check, and the
/// verdict under every preset (as `gyoku impasse --json`), after `moves` from `sfen`.
#[pyfunction]
#[pyo3(signature = (sfen="startpos", moves=None))]
fn impasse(py: Python<'_>, sfen: &str, moves: Option<Vec<String>>) -> PyResult<Py<PyAny>> {
    let initial = read_sfen(Some(sfen))?;
    let mut pos = initial.clone();
    for text in moves.unwrap_or_default() {
        let m = parse_move(&text)?;
        pos.play(m).map_err(|k| illegal(py, &text, k))?;
    }
    let report = gyoku::ImpasseReport::new(&pos, Some(&initial.to_setup()));
    let mut v = impasse_json(&report);
    v["sfen"] = json!(pos.to_sfen());
    to_py(py, &v)
}

/// What a record source is: a file's path, or its bytes.
enum Source {
    Path(PathBuf),
    Bytes(Vec<u8>),
}

impl Source {
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(b) = obj.downcast::<PyBytes>() {
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(p) = obj.extract::<PathBuf>() {
            return Ok(Source::Path(p));
        }
        Err(PyValueError::new_err(
            "a record is a path (str or os.PathLike) or bytes",
        ))
    }

    /// The records it holds (any format and encoding; `format` forces one).
    fn records(&self, format: Option<Format>) -> Result<Vec<Record>, SourceError> {
        let bytes = match self {
            Source::Bytes(b) => std::borrow::Cow::Borrowed(b.as_slice()),
            Source::Path(p) => std::borrow::Cow::Owned(
                gyoku_kifu::files::read_regular(p, gyoku_kifu::files::DEFAULT_MAX_FILE_BYTES)
                    .map_err(SourceError::Io)?,
            ),
        };
        let name = match self {
            Source::Path(p) => p.display().to_string(),
            Source::Bytes(_) => "record".into(),
        };
        gyoku_kifu::read_bytes(&bytes, format)
            .map_err(|e| SourceError::Read(format!("{name}: {e}")))
    }
}

enum SourceError {
    Io(String),
    Read(String),
}

impl From<SourceError> for PyErr {
    fn from(e: SourceError) -> PyErr {
        match e {
            SourceError::Io(m) => PyOSError::new_err(m),
            SourceError::Read(m) => PyValueError::new_err(m),
        }
    }
}

fn format_named(name: Option<&str>) -> PyResult<Option<Format>> {
    Ok(match name.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("kif" | "kifu") => Some(Format::Kif),
        Some("ki2") => Some(Format::Ki2),
        Some("csa") => Some(Format::Csa),
        Some("usi" | "sfen") => Some(Format::Usi),
        Some("jkf" | "json") => Some(Format::Jkf),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format: '{other}' is not kif, ki2, csa, usi or jkf"
            )));
        }
    })
}

fn record_value(r: &Record) -> Value {
    json!({
        "header": r.header.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<String, Value>>(),
        "start_sfen": r.start.to_sfen(),
        "moves": r.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>(),
        "times_ms": r.moves.iter().map(|m| m.time_ms).collect::<Vec<_>>(),
        "foul": r.foul.as_ref().map(|f| json!({"ply": f.ply, "move": f.mv.to_string(), "kind": f.kind.code()})),
        "end": r.end.as_ref().map(gyoku_kifu::Terminal::code),
    })
}

/// The records in a file (a path) or in bytes: KIF, KI2, CSA, JKF or USI, Shift_JIS,
/// UTF-8 or EUC-JP, sniffed unless `format` says. Each is a dict: `header`,
/// `start_sfen`, `moves` (USI), `times_ms`, `foul` (`{ply, move, kind}` or None), `end`.
#[pyfunction]
#[pyo3(signature = (source, format=None))]
fn read(py: Python<'_>, source: &Bound<'_, PyAny>, format: Option<&str>) -> PyResult<Py<PyAny>> {
    let source = Source::from_py(source)?;
    let format = format_named(format)?;
    let records = py.allow_threads(|| source.records(format))?;
    let values: Vec<Value> = records.iter().map(record_value).collect();
    to_py(py, &Value::Array(values))
}

/// Sources judged at once per thread before their verdicts are handed out: memory stays
/// bounded by a batch, however long the archive.
pub const BATCH_PER_THREAD: usize = 16;

/// Judges records under `rules` (a preset), as `gyoku judge --json`: `sources` is one
/// path or bytes, or a list (any iterable) of them. Returns an iterator of verdict dicts,
/// in order (a file with several games gives several), judged a batch at a time without
/// the GIL on `threads` threads (every core by default); a source that cannot be read
/// raises at its place.
#[pyfunction]
#[pyo3(signature = (sources, rules="jsa", max_moves=None, threads=None))]
fn judge(
    sources: &Bound<'_, PyAny>,
    rules: &str,
    max_moves: Option<u32>,
    threads: Option<usize>,
) -> PyResult<Verdicts> {
    let single = sources.downcast::<PyBytes>().is_ok() || sources.extract::<PathBuf>().is_ok();
    let iter = if single {
        pyo3::types::PyList::new(sources.py(), [sources])?
            .try_iter()?
            .unbind()
    } else {
        sources.try_iter()?.unbind()
    };
    let mut base = preset_named(rules)?.rules();
    if let Some(n) = max_moves {
        base.set_max_moves(n);
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .clamp(1, 256);
    Ok(Verdicts {
        sources: Some(iter),
        rules: base,
        user_max: max_moves.is_some(),
        threads,
        ready: std::collections::VecDeque::new(),
    })
}

/// The verdicts of [`judge`], judged a batch at a time as they are asked for.
#[pyclass(module = "gyoku")]
struct Verdicts {
    /// What is left to judge (`None` once it is all read).
    sources: Option<Py<pyo3::types::PyIterator>>,
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
    /// Verdicts judged and not yet handed out, in order; an error stops at its place.
    ready: std::collections::VecDeque<Result<Value, SourceError>>,
}

#[pymethods]
impl Verdicts {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        while self.ready.is_empty() {
            let Some(iter) = &self.sources else {
                return Ok(None);
            };
            let mut batch = Vec::new();
            let mut it = iter.bind(py).clone();
            while batch.len() < self.threads * BATCH_PER_THREAD {
                match it.next() {
                    Some(obj) => batch.push(Source::from_py(&obj?)?),
                    None => {
                        self.sources = None;
                        break;
                    }
                }
            }
            let (rules, user_max, threads) = (self.rules, self.user_max, self.threads);
            let judged = py.allow_threads(|| judge_batch(&batch, rules, user_max, threads));
            for r in judged {
                match r {
                    Ok(values) => self.ready.extend(values.into_iter().map(Ok)),
                    Err(e) => self.ready.push_back(Err(e)),
                }
            }
        }
        match self.ready.pop_front() {
            Some(Ok(v)) => to_py(py, &v).map(Some),
            Some(Err(e)) => Err(e.into()),
            None => Ok(None),
        }
    }
}

/// Judges `batch` on `threads` threads; each source's verdicts, in order.
fn judge_batch(
    batch: &[Source],
    rules: gyoku::RuleSet,
    user_max: bool,
    threads: usize,
) -> Vec<Judged> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Judged>>> =
        batch.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.min(batch.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(source) = batch.get(i) else { return };
                    let judged = source.records(None).map(|records| {
                        records
                            .iter()
                            .map(|r| judged_value(r, rules, user_max))
                            .collect()
                    });
                    *slots[i]
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(judged);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .unwrap_or(Ok(Vec::new()))
        })
        .collect()
}

/// One source's verdicts, or why it could not be read.
type Judged = Result<Vec<Value>, SourceError>;

fn judged_value(r: &Record, rules: gyoku::RuleSet, user_max: bool) -> Value {
    let j = judge_record(r, rules_for(r, rules, user_max));
    let mut v = record_json(r, &j);
    v["start_sfen"] = json!(r.start.to_sfen());
    v["moves"] = json!(r.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>());
    v["foul"] = r.foul.as_ref().map_or(
        Value::Null,
        |f| json!({ "ply": f.ply, "move": f.mv.to_string(), "kind": f.kind.code() }),
    );
    v
}

/// The presets' names.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    Preset::ALL.iter().map(|p| p.name()).collect()
}

#[pymodule]
fn _gyoku(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Board>()?;
    m.add_class::<Game>()?;
    m.add_class::<Verdicts>()?;
    m.add_function(wrap_pyfunction!(impasse, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    m.add("GameError", m.py().get_type::<GameError>())?;
    Ok(())
}
