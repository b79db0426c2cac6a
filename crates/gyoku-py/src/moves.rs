//! Moves as Python objects: USI strings, and ints in cshogi's `move16` form, each made once
//! per process and shared after, so that a list of moves costs a reference per move.
//!
//! `move16`, so that training-data code written for cshogi reads Gyoku's moves unchanged:
//! bits 0–6 the destination, 7–13 the origin (or, for a drop, 81 + the dropped piece: pawn
//! 0, lance 1, knight 2, silver 3, bishop 4, rook 5, gold 6), bit 14 set for a promotion.
//! Squares are file-major, `1a` 0 to `9i` 80.

use std::sync::OnceLock;

use gyoku::{Move, Role, Square};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};

/// The dropped pieces in the order of their `move16` origins (81, 82, ...).
const DROP_ROLES: [Role; 7] = gyoku_kifu::training::DROP_ORDER;

const PROMOTE: u32 = 1 << 14;

/// Moves on the board: from each square to each, promoting or not.
const NORMAL_SLOTS: usize = 81 * 81 * 2;
/// One slot per move that can be legal: normal moves, then drops of each kind on each
/// square (13,689 in all).
const SLOTS: usize = NORMAL_SLOTS + DROP_ROLES.len() * 81;

/// `m`'s slot in the tables, if it is a move that can be legal (a drop of a promoted piece
/// or of a king is none).
#[inline]
fn slot(m: Move) -> Option<usize> {
    match m {
        Move::Normal { from, to, promote } => {
            Some((from.index() * 81 + to.index()) * 2 + usize::from(promote))
        }
        Move::Drop { role, to } => {
            let piece = DROP_ROLES.iter().position(|&r| r == role)?;
            Some(NORMAL_SLOTS + piece * 81 + to.index())
        }
    }
}

/// The move in `slot` (below [`SLOTS`]).
fn slot_move(slot: usize) -> Move {
    let square = |i: usize| Square::from_index(i % 81).expect("below 81");
    if slot < NORMAL_SLOTS {
        Move::Normal {
            from: square(slot / 162),
            to: square(slot / 2),
            promote: slot % 2 == 1,
        }
    } else {
        let i = slot - NORMAL_SLOTS;
        Move::Drop {
            role: DROP_ROLES[(i / 81) % DROP_ROLES.len()],
            to: square(i),
        }
    }
}

/// Every move's Python object, made at the first call.
fn table<T>(
    cell: &'static OnceLock<Box<[Py<T>]>>,
    make: impl Fn(Move) -> Py<T>,
) -> &'static [Py<T>] {
    cell.get_or_init(|| (0..SLOTS).map(|i| make(slot_move(i))).collect())
}

static TEXTS: OnceLock<Box<[Py<PyString>]>> = OnceLock::new();
static INTS: OnceLock<Box<[Py<PyInt>]>> = OnceLock::new();

/// `m` in USI, as a Python string.
#[inline]
pub fn text(py: Python<'_>, m: Move) -> Py<PyString> {
    match slot(m) {
        Some(i) => table(&TEXTS, |m| PyString::new(py, &m.to_string()).unbind())[i].clone_ref(py),
        None => PyString::new(py, &m.to_string()).unbind(),
    }
}

/// `m` as a Python `move16` int.
#[inline]
pub fn int(py: Python<'_>, m: Move) -> Py<PyInt> {
    match slot(m) {
        Some(i) => table(&INTS, |m| PyInt::new(py, encode(m)).unbind())[i].clone_ref(py),
        None => PyInt::new(py, encode(m)).unbind(),
    }
}

/// Moves as a Python list of USI strings.
pub fn text_list(
    py: Python<'_>,
    moves: impl ExactSizeIterator<Item = Move>,
) -> PyResult<Py<PyList>> {
    Ok(PyList::new(py, moves.map(|m| text(py, m)))?.unbind())
}

/// Moves as a Python list of `move16` ints.
pub fn int_list(
    py: Python<'_>,
    moves: impl ExactSizeIterator<Item = Move>,
) -> PyResult<Py<PyList>> {
    Ok(PyList::new(py, moves.map(|m| int(py, m)))?.unbind())
}

/// `m` as a `move16` int. A drop of a kind no hand holds (which no position makes legal)
/// is written with the pawn's origin.
pub fn encode(m: Move) -> u32 {
    u32::from(gyoku_kifu::training::move16(m))
}

/// The move a `move16` int stands for, if any.
#[inline]
pub fn decode(n: u32) -> Option<Move> {
    if n >= PROMOTE << 1 {
        return None;
    }
    let to = Square::from_index((n & 0x7f) as usize)?;
    let origin = ((n >> 7) & 0x7f) as usize;
    let promote = n & PROMOTE != 0;
    match Square::from_index(origin) {
        Some(from) => Some(Move::Normal { from, to, promote }),
        None if promote => None,
        None => DROP_ROLES
            .get(origin - 81)
            .map(|&role| Move::Drop { role, to }),
    }
}

/// Why `n` stands for no move.
#[cold]
fn no_move(n: u32) -> PyErr {
    let why = if n >= PROMOTE << 1 {
        "above 32767 (a cshogi 32-bit move? pass cshogi.move16(m))"
    } else if n & 0x7f >= 81 {
        "no such destination"
    } else if n & PROMOTE != 0 {
        "a drop cannot promote"
    } else {
        "no such origin"
    };
    PyValueError::new_err(format!("move16 {n}: {why}"))
}

/// Reads a Python `move16` int.
#[inline(always)]
pub fn extract(n: &Bound<'_, PyInt>) -> PyResult<Move> {
    // Inlined into its caller, where the move stays in a register: a move handed back
    // through a `PyResult` in memory was written byte by byte and read back whole, which
    // stalled the store buffer (a tenth of a `push`, measured with perf).
    let value = n
        .extract::<u32>()
        .map_err(|_| PyValueError::new_err(format!("move16 {n}: not a move")))?;
    decode(value).ok_or_else(|| no_move(value))
}

/// A USI move as a `move16` int (cshogi's form; `Board.push` takes it).
///
/// >>> gyoku.move16("7g7f"), gyoku.move16("P*5e")
/// (7739, 10408)
#[pyfunction]
pub fn move16(usi: &str) -> PyResult<u32> {
    Ok(encode(crate::parse_move(usi)?))
}

/// A `move16` int as USI.
///
/// >>> gyoku.move_to_usi(7739)
/// '7g7f'
#[pyfunction]
pub fn move_to_usi(py: Python<'_>, move16: u32) -> PyResult<Py<PyString>> {
    let m = decode(move16).ok_or_else(|| no_move(move16))?;
    Ok(text(py, m))
}
