//! `gyoku.Board`: a position and the moves played on it, with the names cshogi and
//! python-shogi users know.

use gyoku::{Move, Position};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::{convert, illegal, parse_move, read_position};

/// A position and the moves played on it, as cshogi's and python-shogi's `Board`. Every
/// move pushed is checked: an illegal one raises `IllegalMoveError` naming its kind.
///
/// >>> b = gyoku.Board()
/// >>> b.push_usi("7g7f"); b.sfen()
/// 'lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2'
#[pyclass(module = "gyoku")]
#[derive(Clone)]
pub struct Board {
    pos: Position,
    /// The position before each move played, and the move: for `pop` and repetitions.
    history: Vec<(Position, Move)>,
}

impl Board {
    fn play(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        let m = parse_move(usi)?;
        self.pos.check_move(m).map_err(|k| illegal(py, usi, k))?;
        let before = self.pos.clone();
        self.pos.play_unchecked(m);
        self.history.push((before, m));
        Ok(())
    }
}

#[pymethods]
impl Board {
    /// A board at `sfen` (`startpos`, an SFEN or a handicap name; the start by default).
    /// `lenient=True` takes a position that breaks a rule but can be played through (a
    /// missing king, dead pieces, nifu, extra pieces).
    #[new]
    #[pyo3(signature = (sfen=None, lenient=false))]
    fn new(sfen: Option<&str>, lenient: bool) -> PyResult<Board> {
        Ok(Board {
            pos: read_position(sfen, lenient)?,
            history: Vec::new(),
        })
    }

    /// Plays a USI move; `IllegalMoveError` (with `kind`) if the rules refuse it.
    fn push_usi(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        self.play(py, usi)
    }

    /// Plays a move from `legal_moves` (a USI string): `push_usi` under cshogi's name.
    fn push(&mut self, py: Python<'_>, usi: &str) -> PyResult<()> {
        self.play(py, usi)
    }

    /// Takes the last move back and returns it (USI); `IndexError` if there is none.
    fn pop(&mut self, py: Python<'_>) -> PyResult<Py<PyString>> {
        let (before, m) = self
            .history
            .pop()
            .ok_or_else(|| PyIndexError::new_err("no move to take back"))?;
        self.pos = before;
        Ok(convert::move_text(py, m))
    }

    /// The last move played (USI); `IndexError` if there is none.
    fn peek(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        let (_, m) = self
            .history
            .last()
            .ok_or_else(|| PyIndexError::new_err("no move played"))?;
        Ok(convert::move_text(py, *m))
    }

    /// The legal moves, USI (each string made once per process and shared).
    #[getter]
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        convert::move_list(py, self.pos.legal_moves().iter().copied())
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

    /// Whether the side to move has no legal move (mated, or stalemated). The other
    /// endings (sennichite, impasse, the move limit) depend on the rules: see `gyoku.Game`.
    fn is_game_over(&self) -> bool {
        self.pos.legal_moves().is_empty()
    }

    /// How many times the position now (board, hands and side to move) stood on this board
    /// before: 3 makes this its fourth occurrence, a sennichite.
    fn repetitions(&self) -> usize {
        let now = self.pos.hash();
        self.history.iter().filter(|(p, _)| p.hash() == now).count()
    }

    /// The impasse calculator for the position now (as `gyoku.impasse`), the board's
    /// first position being the game's initial one (for handicap credit).
    fn impasse(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let initial = self.history.first().map_or(&self.pos, |(p, _)| p);
        let report = gyoku::ImpasseReport::new(&self.pos, Some(&initial.to_setup()));
        convert::impasse_report(py, &report, &self.pos)
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
    fn moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        convert::move_list(py, self.history.iter().map(|(_, m)| *m))
    }

    /// An independent copy.
    fn copy(&self) -> Board {
        self.clone()
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!("gyoku.Board('{}')", self.pos.to_sfen())
    }

    /// The board as Japanese records print it (KIF's diagram, kanji).
    fn __str__(&self) -> String {
        gyoku_kifu::diagram::kanji(&self.pos)
    }

    /// The board as text: KIF's kanji diagram, or (`letters=True`) SFEN's letters with
    /// the hands and the side to move.
    #[pyo3(signature = (letters=false))]
    fn diagram(&self, letters: bool) -> String {
        if letters {
            gyoku_kifu::diagram::letters(&self.pos)
        } else {
            gyoku_kifu::diagram::kanji(&self.pos)
        }
    }

    /// The board as SVG: 81 squares, the pieces in kanji (White's turned round), the
    /// hands, the last move (`last_move=True`) and a king in check marked.
    #[pyo3(signature = (last_move=true))]
    fn svg(&self, last_move: bool) -> String {
        let last = last_move
            .then(|| self.history.last().map(|(_, m)| *m))
            .flatten();
        gyoku_kifu::diagram::svg(&self.pos, last)
    }

    /// Jupyter draws the board.
    fn _repr_svg_(&self) -> String {
        self.svg(true)
    }
}
