//! `gyoku.Board`: a position and the moves played on it, with the names cshogi and
//! python-shogi users know.

use std::cell::RefCell;

use gyoku::{Move, Position, Undo};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::GILProtected;
use pyo3::types::{PyInt, PyList, PyString};

use crate::{convert, illegal, moves, parse_move, read_position};

/// A position and the moves played on it, as cshogi's and python-shogi's `Board`. Every
/// move pushed is checked: an illegal one raises `IllegalMoveError` naming its kind.
///
/// >>> b = gyoku.Board()
/// >>> b.push_usi("7g7f"); b.sfen()
/// 'lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2'
//
// The class is frozen and its state sits behind the GIL in a `RefCell`: a method call
// then costs no atomic borrow flag (an eighth of a `push` + `pop` before, measured with
// perf). A method holds the borrow only while it runs Rust, never while it
// makes Python objects, so Python code run meanwhile (a finalizer) cannot meet it.
#[pyclass(module = "gyoku", frozen)]
pub struct Board {
    state: GILProtected<RefCell<State>>,
}

#[derive(Clone)]
struct State {
    /// The board's first position, for the impasse calculator's handicap credit.
    initial: Position,
    pos: Position,
    /// Each move played with what taking it back needs: for `pop` and repetitions.
    history: Vec<Undo>,
}

impl State {
    fn new(pos: Position) -> State {
        State {
            initial: pos.clone(),
            pos,
            history: Vec::new(),
        }
    }

    fn play(&mut self, m: Move) -> Result<(), gyoku::IllegalMoveKind> {
        self.pos.check_move(m)?;
        self.history.push(self.pos.play_undoable(m));
        Ok(())
    }

    fn last_move(&self) -> Option<Move> {
        self.history.last().map(Undo::mv)
    }
}

impl Board {
    /// The position's SFEN, for a caller in Rust.
    pub(crate) fn position_sfen(&self, py: Python<'_>) -> String {
        self.read(py, |s| s.pos.to_sfen())
    }

    fn with(state: State) -> Board {
        Board {
            state: GILProtected::new(RefCell::new(state)),
        }
    }

    /// Runs `f` on the state, borrowed for as long as `f` runs.
    fn read<R>(&self, py: Python<'_>, f: impl FnOnce(&State) -> R) -> R {
        f(&self.state.get(py).borrow())
    }

    /// Runs `f` on the state, borrowed mutably for as long as `f` runs.
    fn write<R>(&self, py: Python<'_>, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.state.get(py).borrow_mut())
    }

    fn play(&self, py: Python<'_>, m: Move, text: impl FnOnce() -> String) -> PyResult<()> {
        self.write(py, |s| s.play(m))
            .map_err(|k| illegal(py, &text(), k))
    }

    /// `push_usi`: plays a USI move; `IllegalMoveError` (with `kind`) if the rules refuse
    /// it.
    pub(crate) fn push_usi(&self, py: Python<'_>, m: &Bound<'_, PyAny>) -> PyResult<()> {
        let usi = m.downcast::<PyString>()?.to_str()?;
        let mv = match Move::from_usi_bytes(usi.as_bytes()) {
            Some(mv) => mv,
            None => parse_move(usi)?,
        };
        self.play(py, mv, || usi.to_owned())
    }

    /// `push`: plays a move, a USI string (as `push_usi`) or a `move16` int (as
    /// `legal_moves_int` gives them, and cshogi's `move16`).
    pub(crate) fn push(&self, py: Python<'_>, m: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(n) = m.downcast_exact::<PyInt>() {
            let mv = moves::extract(n)?;
            self.play(py, mv, || mv.to_string())
        } else if m.is_instance_of::<PyString>() {
            self.push_usi(py, m)
        } else {
            Err(PyTypeError::new_err(format!(
                "push: a move is a USI str or a move16 int, not {}",
                m.get_type().name()?
            )))
        }
    }

    /// `pop`: takes the last move back and returns it (USI); `IndexError` if there is none.
    pub(crate) fn pop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        let m = self
            .write(py, |s| {
                let undo = s.history.pop()?;
                s.pos.undo(undo);
                Some(undo.mv())
            })
            .ok_or_else(|| PyIndexError::new_err("no move to take back"))?;
        Ok(moves::text(py, m).into_bound(py))
    }

    /// `is_check`: whether the side to move is in check.
    pub(crate) fn is_check(&self, py: Python<'_>) -> bool {
        self.read(py, |s| s.pos.is_check())
    }

    /// `turn`: the side to move.
    pub(crate) fn side_to_move(&self, py: Python<'_>) -> gyoku::Color {
        self.read(py, |s| s.pos.turn())
    }

    /// `move_number`: the move number of the SFEN (the next move's).
    pub(crate) fn next_move_number(&self, py: Python<'_>) -> u32 {
        self.read(py, |s| s.pos.move_number())
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
        Ok(Board::with(State::new(read_position(sfen, lenient)?)))
    }

    /// The last move played (USI); `IndexError` if there is none.
    fn peek(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        let m = self
            .read(py, State::last_move)
            .ok_or_else(|| PyIndexError::new_err("no move played"))?;
        Ok(moves::text(py, m))
    }

    /// The legal moves, USI (each string made once per process and shared).
    #[getter]
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let moves = self.read(py, |s| s.pos.legal_moves());
        moves::text_list(py, moves.iter().copied())
    }

    /// The legal moves as `move16` ints, cshogi's form (`push` takes them): bits 0–6 the
    /// destination, 7–13 the origin (81 + the piece for a drop: pawn, lance, knight,
    /// silver, bishop, rook, gold), bit 14 a promotion; squares `1a` 0 to `9i` 80.
    fn legal_moves_int(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let moves = self.read(py, |s| s.pos.legal_moves());
        moves::int_list(py, moves.iter().copied())
    }

    /// Whether a move (a USI string or a `move16` int) is legal; one that does not read
    /// is not.
    fn is_legal(&self, py: Python<'_>, m: &Bound<'_, PyAny>) -> bool {
        let m = if let Ok(n) = m.downcast_exact::<PyInt>() {
            moves::extract(n).ok()
        } else {
            m.extract::<&str>()
                .ok()
                .and_then(|t| t.parse::<Move>().ok())
        };
        m.is_some_and(|m| self.read(py, |s| s.pos.is_legal(m)))
    }

    /// `None` for a legal move, else the kind of foul (`nifu`, `uchifuzume`, ...).
    fn check_move(&self, py: Python<'_>, usi: &str) -> PyResult<Option<&'static str>> {
        let m = parse_move(usi)?;
        Ok(self
            .read(py, |s| s.pos.check_move(m))
            .err()
            .map(gyoku::IllegalMoveKind::code))
    }

    /// Whether the side to move has no legal move (mated, or stalemated). The other
    /// endings (sennichite, impasse, the move limit) depend on the rules: see `gyoku.Game`.
    fn is_game_over(&self, py: Python<'_>) -> bool {
        self.read(py, |s| s.pos.legal_moves().is_empty())
    }

    /// How many times the position now (board, hands and side to move) stood on this board
    /// before: 3 makes this its fourth occurrence, a sennichite.
    fn repetitions(&self, py: Python<'_>) -> usize {
        self.read(py, |s| {
            let now = s.pos.hash();
            s.history.iter().filter(|u| u.hash_before() == now).count()
        })
    }

    /// The impasse calculator for the position now (as `gyoku.impasse`, `mate_nodes`
    /// included), the board's first position being the game's initial one (for handicap
    /// credit).
    #[pyo3(signature = (mate_nodes=0))]
    fn impasse(&self, py: Python<'_>, mate_nodes: u64) -> PyResult<Py<PyAny>> {
        let (pos, initial) = self.read(py, |s| (s.pos.clone(), s.initial.to_setup()));
        let mut report = gyoku::ImpasseReport::new(&pos, Some(&initial));
        py.allow_threads(|| report.search_mates(&pos, mate_nodes));
        convert::impasse_report(py, &report, &pos)
    }

    /// Sets the board to `sfen` (an SFEN, `startpos` or a handicap name), forgetting the
    /// moves played: cshogi's `set_sfen`. `ValueError` for one that does not read (the
    /// board is left as it was).
    fn set_sfen(&self, py: Python<'_>, sfen: &str) -> PyResult<()> {
        let pos = read_position(Some(sfen), false)?;
        self.write(py, |s| *s = State::new(pos));
        Ok(())
    }

    /// Sets the board to the usual start, forgetting the moves played: cshogi's `reset`.
    fn reset(&self, py: Python<'_>) {
        self.write(py, |s| *s = State::new(Position::startpos()));
    }

    /// The piece on square `sq` (0–80, file-major: 0 is 1a, 8 is 1i, 80 is 9i) as cshogi's
    /// piece code: 0 none; Black's 1 pawn, 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook,
    /// 7 gold, 8 king, 9–12 the promoted pawn, lance, knight and silver, 13 horse, 14
    /// dragon; White's the same plus 16. `IndexError` off the board.
    fn piece(&self, py: Python<'_>, sq: usize) -> PyResult<u8> {
        let sq = gyoku::Square::from_index(sq)
            .ok_or_else(|| PyIndexError::new_err(format!("square {sq}: 0 to 80")))?;
        Ok(self.read(py, |s| piece_code(s.pos.board().piece_at(sq))))
    }

    /// Every square's piece code (as `piece`), square 0 first: cshogi's `pieces`.
    #[getter]
    fn pieces(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let codes: Vec<u8> = self.read(py, |s| {
            (0..81)
                .filter_map(gyoku::Square::from_index)
                .map(|sq| piece_code(s.pos.board().piece_at(sq)))
                .collect()
        });
        Ok(PyList::new(py, codes)?.unbind())
    }

    /// Black's and White's pieces in hand, each `[pawn, lance, knight, silver, gold,
    /// bishop, rook]`: cshogi's `pieces_in_hand`.
    #[getter]
    fn pieces_in_hand(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        use gyoku::{Color, Role};
        let hands = self.read(py, |s| {
            [Color::Black, Color::White].map(|c| Role::HAND.map(|r| s.pos.hand(c).count(r)))
        });
        let [black, white] = hands;
        let pair = (PyList::new(py, black)?, PyList::new(py, white)?);
        Ok(pair.into_pyobject(py)?.into_any().unbind())
    }

    /// Whether the position repeats one within the last `ply` plies (every one by
    /// default), as cshogi's `is_draw` answers (YaneuraOu's and Apery's check, which
    /// counts a single repetition): 0 none (`NOT_REPETITION`); the same position with the
    /// same side to move 1 (`REPETITION_DRAW`), 2 (`REPETITION_WIN`: the other side has
    /// checked all along) or 3 (`REPETITION_LOSE`: the side to move has); the same board
    /// with the side to move holding as much as then or more, 4 (`REPETITION_SUPERIOR`), or
    /// as little or less, 5 (`REPETITION_INFERIOR`). The referee's sennichite (four
    /// times) is `is_game_over()` and `Game`'s.
    #[pyo3(signature = (ply = 2147483647))]
    fn is_draw(&self, py: Python<'_>, ply: i32) -> u8 {
        self.read(py, |s| {
            repetition(&s.pos, &s.history, usize::try_from(ply).unwrap_or(0))
        })
    }

    /// Whether the side to move may declare (entering king) and win under the 27-point
    /// rule (CSA's, as cshogi's `is_nyugyoku`): king in the zone, ten other pieces there,
    /// not in check, 28 points for Black and 27 for White. The other rule sets' verdicts:
    /// `impasse()`.
    fn is_nyugyoku(&self, py: Python<'_>) -> bool {
        use gyoku::impasse::{DeclarationVerdict, judge_declaration};
        use gyoku::rules::DeclarationRule;
        self.read(py, |s| {
            let color = s.pos.turn();
            let count = gyoku::ImpasseCount::of(&s.pos, color, 0);
            judge_declaration(DeclarationRule::Points27, &count, color) == DeclarationVerdict::Win
        })
    }

    /// A move (USI) that mates at once, or `None`: cshogi's `mate_move_in_1ply`. A pawn
    /// drop never qualifies (uchifuzume is illegal).
    fn mate_move_in_1ply(&self, py: Python<'_>) -> Option<Py<PyString>> {
        let m = self.read(py, |s| s.pos.mate_in_1())?;
        Some(moves::text(py, m))
    }

    /// Whether the side to move can force mate by checks (a df-pn search, mates in one
    /// and three first): `{"result": "mate" | "no_mate" | "unknown", "plies", "line",
    /// "nodes"}` as `gyoku mate --json` prints it. "no_mate" only when proved; "unknown"
    /// when `nodes` ran out first. The search lets other Python threads run.
    #[pyo3(signature = (nodes=1_000_000, table_mib=16))]
    fn mate(&self, py: Python<'_>, nodes: u64, table_mib: usize) -> PyResult<Py<PyAny>> {
        use gyoku::mate::{Limits, Outcome, Solver};
        let pos = self.read(py, |s| s.pos.clone());
        let limits = Limits {
            nodes,
            ..Limits::default()
        };
        let bytes = table_mib.saturating_mul(1 << 20);
        let report = py.allow_threads(|| Solver::new(bytes).solve(&pos, &limits, None));
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("result", report.outcome.code())?;
        match &report.outcome {
            Outcome::Mate(line) => {
                dict.set_item("plies", line.len())?;
                dict.set_item("line", moves::text_list(py, line.iter().copied())?)?;
            }
            _ => {
                dict.set_item("plies", py.None())?;
                dict.set_item("line", pyo3::types::PyList::empty(py))?;
            }
        }
        dict.set_item("nodes", report.nodes)?;
        Ok(dict.into_any().unbind())
    }

    /// The position's SFEN.
    fn sfen(&self, py: Python<'_>) -> String {
        self.read(py, |s| s.pos.to_sfen())
    }

    /// The position's Zobrist hash (board, hands and side to move).
    fn zobrist_hash(&self, py: Python<'_>) -> u64 {
        self.read(py, |s| s.pos.hash())
    }

    /// The moves played on this board, USI.
    #[getter]
    fn moves(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let moves: Vec<Move> = self.read(py, |s| s.history.iter().map(Undo::mv).collect());
        moves::text_list(py, moves.into_iter())
    }

    /// An independent copy.
    fn copy(&self, py: Python<'_>) -> Board {
        Board::with(self.read(py, State::clone))
    }

    fn __copy__(&self, py: Python<'_>) -> Board {
        self.copy(py)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("gyoku.Board('{}')", self.sfen(py))
    }

    /// The board as Japanese records print it (KIF's diagram, kanji).
    fn __str__(&self, py: Python<'_>) -> String {
        self.read(py, |s| gyoku_kifu::diagram::kanji(&s.pos))
    }

    /// The board as text: KIF's kanji diagram, or (`letters=True`) SFEN's letters with
    /// the hands and the side to move.
    #[pyo3(signature = (letters=false))]
    fn diagram(&self, py: Python<'_>, letters: bool) -> String {
        self.read(py, |s| {
            if letters {
                gyoku_kifu::diagram::letters(&s.pos)
            } else {
                gyoku_kifu::diagram::kanji(&s.pos)
            }
        })
    }

    /// The board as SVG: 81 squares, the pieces in kanji (White's turned round), the
    /// hands, the last move (`last_move=True`) and a king in check marked.
    #[pyo3(signature = (last_move=true))]
    fn svg(&self, py: Python<'_>, last_move: bool) -> String {
        self.read(py, |s| {
            let last = last_move.then(|| s.last_move()).flatten();
            gyoku_kifu::diagram::svg(&s.pos, last)
        })
    }

    /// Jupyter draws the board.
    fn _repr_svg_(&self, py: Python<'_>) -> String {
        self.svg(py, true)
    }
}

/// cshogi's piece code of what stands on a square (see `Board.piece`).
fn piece_code(piece: Option<gyoku::Piece>) -> u8 {
    use gyoku::Role;
    let Some(p) = piece else { return 0 };
    let kind = match p.role {
        Role::Pawn => 1,
        Role::Lance => 2,
        Role::Knight => 3,
        Role::Silver => 4,
        Role::Bishop => 5,
        Role::Rook => 6,
        Role::Gold => 7,
        Role::King => 8,
        Role::ProPawn => 9,
        Role::ProLance => 10,
        Role::ProKnight => 11,
        Role::ProSilver => 12,
        Role::Horse => 13,
        Role::Dragon => 14,
    };
    if p.color == gyoku::Color::White {
        kind + 16
    } else {
        kind
    }
}

/// `Board.is_draw`'s answer: the positions `history` led through, walked back from `pos`
/// at most `ply` plies, two at a time from the fourth.
fn repetition(pos: &Position, history: &[Undo], ply: usize) -> u8 {
    let last = history.len().min(ply);
    if last < 4 {
        return 0;
    }
    // Walk back: `back[d]` is the position `d` plies ago.
    let mut back = Vec::with_capacity(last + 1);
    let mut p = pos.clone();
    back.push(p.clone());
    for undo in history.iter().rev().take(last) {
        p.undo(*undo);
        back.push(p.clone());
    }
    // Each side's checks in a row, counted back from its latest move, two plies a check
    // (as YaneuraOu counts them): the side to move's moves led to back[1], back[3], …;
    // the other side's to back[0], back[2], ….
    let run = |first: usize| {
        2 * (first..=last)
            .step_by(2)
            .take_while(|&d| back[d].is_check())
            .count()
    };
    let (ours, theirs) = (run(1), run(0));
    let hand = |p: &Position| {
        let h = p.hand(p.turn());
        gyoku::Role::HAND.map(|r| h.count(r))
    };
    let now = hand(pos);
    for d in (4..=last).step_by(2) {
        let then = &back[d];
        if then.board() != pos.board() {
            continue;
        }
        let was = hand(then);
        if was == now {
            return if d <= ours {
                3
            } else if d <= theirs {
                2
            } else {
                1
            };
        }
        if now.iter().zip(&was).all(|(n, w)| n >= w) {
            return 4;
        }
        if was.iter().zip(&now).all(|(w, n)| w >= n) {
            return 5;
        }
    }
    0
}
