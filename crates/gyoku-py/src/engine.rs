//! `gyoku.Engine`: a USI engine as a child process, driven from Python with the match
//! runner's safety (`gyoku_arena::engine`): every wait has a deadline, the engine's output
//! is read line by line with a length limit, and its whole process group is killed when
//! the object goes (or the interpreter dies).
//!
//! The engine runs on a small runtime of the object's own (one worker thread, which reads
//! the engine's output as it comes and starts the process, so that the kernel's
//! parent-death signal is tied to a thread that lives as long as the object). Every call
//! gives up the GIL while it waits.

use std::time::Duration;

use gyoku::{Color, Move};
use gyoku_arena::engine::{Engine as Usi, EngineConfig, EngineFailure, Thought as Answer};
use gyoku_proto::{BestMove, Command, Go, PositionStart, Score};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use tokio::time::Instant;

use crate::board::Board;

pyo3::create_exception!(
    gyoku,
    EngineError,
    PyRuntimeError,
    "A USI engine that cannot go on; `cause` says why (`spawn`, `crash`, `hang`, `garbage`, \
     `flood`, `closed`). The engine is gone: its process group was killed."
);

/// How long `go` waits beyond the time the engine was given (its own clock's reading,
/// the pipe, a loaded machine) before the engine is held to have hung.
const MARGIN: Duration = Duration::from_secs(5);

/// How long `go` waits when the engine was given no time (`depth`, `nodes`).
const UNTIMED: Duration = Duration::from_secs(60);

/// A USI engine: started by the constructor (`usi` … `usiok`, the options, `isready` …
/// `readyok`), asked for moves with `go`, stopped with `stop`, ended with `quit` (or the
/// `with` block's end).
#[pyclass(module = "gyoku")]
pub struct Engine {
    /// The engine (`None` once closed). Declared before the runtime, so that it is
    /// dropped first, its process group killed while the runtime still runs.
    engine: Option<Usi>,
    runtime: tokio::runtime::Runtime,
    /// Whether a `go(infinite=True)` awaits its `stop`.
    searching: bool,
}

/// What an engine answered to `go` (or `stop`): its move and what its last main-line
/// `info` said.
#[pyclass(module = "gyoku", frozen, get_all)]
pub struct Thought {
    /// The move in USI (`7g7f`, `P*5e`), or `resign`, or `win` (an impasse declaration).
    bestmove: String,
    /// The reply it expects, as written (`bestmove … ponder …`).
    ponder: Option<String>,
    /// The last `depth`.
    depth: Option<u32>,
    /// The last `score cp`, from the mover's view.
    score_cp: Option<i64>,
    /// The last `score mate` (plies; negative when being mated), if the last score was one.
    mate: Option<i64>,
    /// The last `nodes`.
    nodes: Option<u64>,
    /// The last `pv`, as written.
    pv: Vec<String>,
    /// The last main-line `info` line, as written.
    info: Option<String>,
}

#[pymethods]
impl Thought {
    fn __repr__(&self) -> String {
        let score = match (self.mate, self.score_cp) {
            (Some(m), _) => format!(" mate {m}"),
            (None, Some(cp)) => format!(" cp {cp}"),
            _ => String::new(),
        };
        format!("Thought({}{score})", self.bestmove)
    }
}

impl Thought {
    fn read(usi: &Usi, best: &BestMove, ponder: Option<String>) -> Thought {
        let info = usi.last_info();
        Thought {
            bestmove: best.to_string(),
            ponder,
            depth: info.and_then(|i| i.depth),
            score_cp: usi.reading().score_cp,
            mate: match info.and_then(|i| i.score) {
                Some(Score::Mate(m)) => Some(m),
                _ => None,
            },
            nodes: info.and_then(|i| i.nodes),
            pv: usi.reading().pv.clone(),
            info: info.map(|i| i.raw.trim_end().to_string()),
        }
    }
}

/// `EngineError` with its `cause`.
fn engine_error(py: Python<'_>, cause: &str, message: String) -> PyErr {
    let err = EngineError::new_err(message);
    // Setting an attribute on a fresh exception object cannot fail.
    let _ = err.value(py).setattr("cause", cause);
    err
}

fn failure(py: Python<'_>, e: &EngineFailure) -> PyErr {
    let cause = match e {
        EngineFailure::Spawn(_) => "spawn",
        _ => e.cause().code(),
    };
    engine_error(py, cause, e.to_string())
}

/// A `setoption` value as USI writes it: `true`/`false` for a bool, the text of anything
/// else.
fn option_value(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.extract::<bool>() {
        return Ok(if b { "true" } else { "false" }.to_string());
    }
    Ok(value.str()?.to_string())
}

/// Milliseconds from seconds given by Python.
fn millis(what: &str, seconds: Option<f64>) -> PyResult<Option<u64>> {
    match seconds {
        None => Ok(None),
        Some(s) if (0.0..1e9).contains(&s) => Ok(Some((s * 1000.0).round() as u64)),
        Some(s) => Err(PyValueError::new_err(format!(
            "{what}: {s} is not a number of seconds from 0"
        ))),
    }
}

/// The `position` command for `position` (a Board, an SFEN, a handicap's name,
/// `startpos`, or None) and the moves after it, and the side to move at the end.
fn position_command(
    py: Python<'_>,
    position: Option<&Bound<'_, PyAny>>,
    moves: Vec<String>,
) -> PyResult<(Command, Color)> {
    let text = match position {
        None => "startpos".to_string(),
        Some(p) => match p.downcast::<Board>() {
            Ok(board) => board.get().position_sfen(py),
            Err(_) => p.extract::<String>().map_err(|_| {
                PyValueError::new_err("position: a Board, an SFEN, a handicap or 'startpos'")
            })?,
        },
    };
    let text = text.strip_prefix("sfen ").unwrap_or(&text);
    let pos = crate::read_position(Some(text), true)?;
    let start = if text == "startpos" {
        PositionStart::Startpos
    } else {
        PositionStart::Sfen(pos.to_sfen())
    };
    let mut turn = pos.turn();
    let mut parsed: Vec<Move> = Vec::with_capacity(moves.len());
    for m in &moves {
        parsed.push(crate::parse_move(m)?);
        turn = !turn;
    }
    Ok((
        Command::Position {
            start,
            moves: parsed,
        },
        turn,
    ))
}

/// Runs `$body` (a future of `$usi`, the engine) on the engine's runtime without the GIL;
/// a failure kills the engine (its process group) and is raised.
macro_rules! on_engine {
    ($self:ident, $py:ident, |$usi:ident| $body:expr) => {{
        let runtime = &$self.runtime;
        let result = match $self.engine.as_mut() {
            None => Err(closed($py)),
            Some($usi) => Ok($py.allow_threads(|| runtime.block_on($body))),
        }?;
        result.map_err(|e| {
            $self.close($py);
            failure($py, &e)
        })
    }};
}

/// `EngineError('closed')`.
fn closed(py: Python<'_>) -> PyErr {
    engine_error(py, "closed", "the engine is closed".into())
}

impl Engine {
    /// The engine, or `EngineError('closed')` once it is gone.
    fn usi(&mut self, py: Python<'_>) -> PyResult<&mut Usi> {
        self.engine.as_mut().ok_or_else(|| closed(py))
    }

    /// Kills the engine's process group now.
    fn close(&mut self, py: Python<'_>) {
        if let Some(usi) = self.engine.take() {
            let runtime = &self.runtime;
            py.allow_threads(|| runtime.block_on(usi.kill()));
        }
        self.searching = false;
    }

    /// Waits for `bestmove` until `deadline`; an engine that has none by then is killed.
    fn answer(&mut self, py: Python<'_>, deadline: Instant) -> PyResult<Thought> {
        let thought = on_engine!(self, py, |usi| usi.bestmove(deadline))?;
        match thought {
            Answer::Answer { best, ponder, .. } => {
                let usi = self.usi(py)?;
                Ok(Thought::read(usi, &best, ponder))
            }
            Answer::NoAnswer => {
                self.close(py);
                Err(engine_error(
                    py,
                    "hang",
                    "hung: no bestmove in time (the engine was killed)".into(),
                ))
            }
        }
    }
}

#[pymethods]
impl Engine {
    /// Starts `command` (split as a shell would) and waits for it to be ready: at most
    /// `timeout` seconds for `usiok` (10 at most) and as long again for `readyok`;
    /// `options` are sent as `setoption` (a bool as `true`/`false`).
    #[new]
    #[pyo3(signature = (command, options = None, *, timeout = 30.0))]
    fn new(
        py: Python<'_>,
        command: &str,
        options: Option<&Bound<'_, PyDict>>,
        timeout: f64,
    ) -> PyResult<Engine> {
        let mut config = EngineConfig::new(command);
        if let Some(options) = options {
            for (name, value) in options.iter() {
                config
                    .options
                    .push((name.str()?.to_string(), option_value(&value)?));
            }
        }
        let wait = Duration::from_millis(millis("timeout", Some(timeout))?.unwrap_or_default());
        config.limits.ready = wait;
        config.limits.handshake = config.limits.handshake.min(wait);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("gyoku-engine")
            .enable_all()
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a runtime: {e}")))?;
        // Started on the runtime's worker: see the module's comment.
        let started = py.allow_threads(|| {
            runtime.block_on(async {
                let config = config.clone();
                runtime
                    .spawn(async move { Usi::start(&config, &[]).await })
                    .await
            })
        });
        let usi = match started {
            Ok(Ok(usi)) => usi,
            Ok(Err(e)) => return Err(failure(py, &e)),
            Err(e) => return Err(engine_error(py, "crash", format!("cannot start: {e}"))),
        };
        Ok(Engine {
            engine: Some(usi),
            runtime,
            searching: false,
        })
    }

    /// The engine's `id name`.
    #[getter]
    fn name(&mut self, py: Python<'_>) -> PyResult<String> {
        Ok(self.usi(py)?.name().to_string())
    }

    /// The names of the options the engine declared.
    #[getter]
    fn option_names(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self
            .usi(py)?
            .options()
            .iter()
            .map(|o| o.name.clone())
            .collect())
    }

    /// `isready` … `readyok`, then `usinewgame`.
    fn new_game(&mut self, py: Python<'_>) -> PyResult<()> {
        on_engine!(self, py, |usi| usi.new_game())
    }

    /// Sends `position` (a Board, an SFEN or `startpos`; the start position when None)
    /// with `moves`, and `go` with the limits given (times in seconds), and returns the
    /// engine's answer. It waits `timeout` seconds, or else the time the engine was given
    /// (`movetime`, or the mover's time with its byoyomi and increment) and 5 more, or 60
    /// when it was given none; an engine with no answer by then has hung and is killed.
    /// With `infinite=True` it returns None at once: `stop()` gives the answer.
    #[pyo3(signature = (position = None, moves = None, *, btime = None, wtime = None,
        byoyomi = None, binc = None, winc = None, movetime = None, depth = None,
        nodes = None, infinite = false, timeout = None))]
    #[allow(clippy::too_many_arguments)]
    fn go(
        &mut self,
        py: Python<'_>,
        position: Option<&Bound<'_, PyAny>>,
        moves: Option<Vec<String>>,
        btime: Option<f64>,
        wtime: Option<f64>,
        byoyomi: Option<f64>,
        binc: Option<f64>,
        winc: Option<f64>,
        movetime: Option<f64>,
        depth: Option<u32>,
        nodes: Option<u64>,
        infinite: bool,
        timeout: Option<f64>,
    ) -> PyResult<Option<Thought>> {
        if self.searching {
            return Err(PyValueError::new_err(
                "the engine is searching (go(infinite=True)): stop() it first",
            ));
        }
        let (command, turn) = position_command(py, position, moves.unwrap_or_default())?;
        let go = Go {
            btime: millis("btime", btime)?,
            wtime: millis("wtime", wtime)?,
            byoyomi: millis("byoyomi", byoyomi)?,
            binc: millis("binc", binc)?,
            winc: millis("winc", winc)?,
            movetime: millis("movetime", movetime)?,
            depth,
            nodes,
            infinite,
            ..Go::default()
        };
        let given = go.movetime.or_else(|| {
            let (own, inc) = match turn {
                Color::Black => (go.btime, go.binc),
                Color::White => (go.wtime, go.winc),
            };
            (own.is_some() || go.byoyomi.is_some())
                .then(|| own.unwrap_or(0) + go.byoyomi.unwrap_or(0) + inc.unwrap_or(0))
        });
        let wait = match millis("timeout", timeout)? {
            Some(ms) => Duration::from_millis(ms),
            None => given.map_or(UNTIMED, |ms| Duration::from_millis(ms) + MARGIN),
        };
        let deadline = Instant::now() + wait;
        on_engine!(self, py, |usi| usi.go(&command, &go))?;
        if infinite {
            self.searching = true;
            return Ok(None);
        }
        self.answer(py, deadline).map(Some)
    }

    /// `stop`: ends the search `go(infinite=True)` started and returns its answer
    /// (waiting at most `timeout` seconds).
    #[pyo3(signature = (timeout = 10.0))]
    fn stop(&mut self, py: Python<'_>, timeout: f64) -> PyResult<Thought> {
        if !self.searching {
            return Err(PyValueError::new_err(
                "no search to stop: go(infinite=True) starts one",
            ));
        }
        let wait = Duration::from_millis(millis("timeout", Some(timeout))?.unwrap_or(0));
        self.searching = false;
        on_engine!(self, py, |usi| usi.stop())?;
        self.answer(py, Instant::now() + wait)
    }

    /// `quit`; the process group is killed if the engine has not exited within two
    /// seconds. Closing a closed engine does nothing.
    fn quit(&mut self, py: Python<'_>) {
        if let Some(usi) = self.engine.take() {
            let runtime = &self.runtime;
            py.allow_threads(|| runtime.block_on(usi.quit()));
        }
        self.searching = false;
    }

    /// Whether the engine is gone (quit, or killed after a failure).
    #[getter]
    fn closed(&self) -> bool {
        self.engine.is_none()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) {
        self.quit(py);
    }

    fn __repr__(&self) -> String {
        match &self.engine {
            Some(usi) => format!("Engine('{}')", usi.name().replace('\'', "\\'")),
            None => "Engine(closed)".to_string(),
        }
    }
}
