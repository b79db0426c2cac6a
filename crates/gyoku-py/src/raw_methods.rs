//! The board's hottest methods (`push`, `push_usi`, `pop`, `is_check`) as plain CPython
//! methods (`METH_O`, `METH_NOARGS`), and its hottest attributes (`turn`, `move_number`)
//! as plain CPython getters, installed on `gyoku.Board` beside the PyO3 ones.
//!
//! A PyO3 method call checks `self`'s type, counts the GIL, parses its arguments by name and
//! keeps a pool of deferred reference counts: about 10 ns a call on top of CPython's own
//! (a `push` + `pop` pair took 96 ns through PyO3's wrappers and 77 ns through these, one
//! after the other on one machine, timed as `bench/bench.py` times a call; cshogi's, Cython's
//! plain methods, 54 ns). These methods skip that: CPython's method descriptor has already
//! checked `self`'s type, the argument is the one object `METH_O` passes, and the body is the
//! same safe Rust the rest of the binding uses (`Board::push` and so on).

use std::any::Any;
use std::ffi::CStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;

use pyo3::Borrowed;
use pyo3::ffi;
use pyo3::panic::PanicException;
use pyo3::prelude::*;

use crate::board::Board;

type Body = fn(Python<'_>, &Board, Option<&Bound<'_, PyAny>>) -> PyResult<*mut ffi::PyObject>;

/// Runs a method's body: its result as a new reference, or NULL with the Python exception
/// set (a panic becomes `PanicException`, as in PyO3's own methods).
///
/// # Safety
/// `slf` must be a `gyoku.Board` and `arg` NULL or an object, both borrowed, and the GIL
/// held: what CPython guarantees when it calls a `Board` method descriptor.
unsafe fn run(slf: *mut ffi::PyObject, arg: *mut ffi::PyObject, body: Body) -> *mut ffi::PyObject {
    // SAFETY: CPython calls a method with the GIL held (the binding is built for the
    // stable ABI, which no free-threaded CPython offers).
    let py = unsafe { Python::assume_gil_acquired() };
    // SAFETY: a method descriptor calls its function only with `self` an instance of the
    // type it was made for (`Board`, which cannot be subclassed), borrowed for the call,
    // which outlives these borrows.
    let slf = unsafe { Borrowed::from_ptr(py, slf) };
    let board = unsafe { slf.downcast_unchecked::<Board>() };
    // SAFETY: `arg`, when not NULL, is the call's argument, borrowed for the call.
    let arg = (!arg.is_null()).then(|| unsafe { Borrowed::from_ptr(py, arg) });
    match catch_unwind(AssertUnwindSafe(|| body(py, board.get(), arg.as_deref()))) {
        Ok(Ok(object)) => object,
        Ok(Err(err)) => failed(err),
        Err(payload) => failed(PanicException::new_err(panic_message(payload.as_ref()))),
    }
}

/// Sets `err` as the Python exception and returns NULL. Raising makes objects (the
/// exception's type and arguments) whose references PyO3 gives back when they drop; a
/// reference dropped while PyO3 does not count the GIL as held (`assume_gil_acquired`
/// does not count it) waits in PyO3's pool until some PyO3 method runs, so a loop of
/// failing calls held memory without bound (2 M calls: 193 MiB, issue 43). Under
/// `with_gil` (cheap: the GIL is held, PyO3 only counts it) they go at once.
fn failed(err: PyErr) -> *mut ffi::PyObject {
    Python::with_gil(|py| err.restore(py));
    null_mut()
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic in gyoku.Board".to_owned())
}

fn none(py: Python<'_>) -> *mut ffi::PyObject {
    py.None().into_ptr()
}

fn argument<'a, 'py>(arg: Option<&'a Bound<'py, PyAny>>) -> PyResult<&'a Bound<'py, PyAny>> {
    // METH_O always passes one argument; this only keeps the body total.
    arg.ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("a move is needed"))
}

/// Defines the CPython entry point for a body.
macro_rules! entry {
    ($name:ident, $body:expr) => {
        unsafe extern "C" fn $name(
            slf: *mut ffi::PyObject,
            arg: *mut ffi::PyObject,
        ) -> *mut ffi::PyObject {
            // SAFETY: CPython calls this as a `Board` method (see `run`).
            unsafe { run(slf, arg, $body) }
        }
    };
}

entry!(push, |py, board, arg| {
    board.push(py, argument(arg)?)?;
    Ok(none(py))
});
entry!(push_usi, |py, board, arg| {
    board.push_usi(py, argument(arg)?)?;
    Ok(none(py))
});
entry!(pop, |py, board, _| Ok(board.pop(py)?.into_ptr()));
entry!(is_check, |py, board, _| Ok(pyo3::types::PyBool::new(
    py,
    board.is_check(py)
)
.to_owned()
.into_ptr()));

/// Defines the CPython getter for an attribute's body.
macro_rules! getter {
    ($name:ident, $body:expr) => {
        unsafe extern "C" fn $name(
            slf: *mut ffi::PyObject,
            _closure: *mut std::ffi::c_void,
        ) -> *mut ffi::PyObject {
            // SAFETY: CPython calls a getter with `self` an instance of the type its
            // descriptor was made for (`Board`), borrowed, and the GIL held (see `run`).
            unsafe { run(slf, null_mut(), $body) }
        }
    };
}

// The side's name is one of two interned strings: no string is made a read.
getter!(turn, |py, board, _| Ok(match board.side_to_move(py) {
    gyoku::Color::Black => pyo3::intern!(py, "black"),
    gyoku::Color::White => pyo3::intern!(py, "white"),
}
.clone()
.into_ptr()));
getter!(move_number, |py, board, _| Ok(board
    .next_move_number(py)
    .into_pyobject(py)?
    .into_ptr()));

type Getter = unsafe extern "C" fn(*mut ffi::PyObject, *mut std::ffi::c_void) -> *mut ffi::PyObject;

/// The attributes: name, getter, docstring.
const GETTERS: [(&CStr, Getter, &CStr); 2] = [
    (c"turn", turn, c"The side to move: `black` or `white`."),
    (
        c"move_number",
        move_number,
        c"The move number of the SFEN (the next move's).",
    ),
];

type Entry = unsafe extern "C" fn(*mut ffi::PyObject, *mut ffi::PyObject) -> *mut ffi::PyObject;

/// The methods: name, entry point, whether it takes an argument, and the docstring (with
/// the text signature `inspect` reads).
const METHODS: [(&CStr, Entry, bool, &CStr); 4] = [
    (
        c"push",
        push,
        true,
        c"push($self, move, /)\n--\n\nPlays a move: a USI string (as `push_usi`) or a `move16` int (as \
          `legal_moves_int` gives them, and cshogi's `move16`); `IllegalMoveError` (with `kind`) \
          if the rules refuse it.",
    ),
    (
        c"push_usi",
        push_usi,
        true,
        c"push_usi($self, usi, /)\n--\n\nPlays a USI move; `IllegalMoveError` (with `kind`) if the \
          rules refuse it.",
    ),
    (
        c"pop",
        pop,
        false,
        c"pop($self, /)\n--\n\nTakes the last move back and returns it (USI); `IndexError` if \
          there is none.",
    ),
    (
        c"is_check",
        is_check,
        false,
        c"is_check($self, /)\n--\n\nWhether the side to move is in check.",
    ),
];

/// Puts the methods on `gyoku.Board`.
pub fn install(py: Python<'_>) -> PyResult<()> {
    let ty = py.get_type::<Board>();
    for (name, entry, takes_argument, doc) in METHODS {
        // CPython keeps a pointer to the definition for as long as the method lives: the
        // life of the process (one of each per import of the module).
        let def = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: name.as_ptr(),
            ml_meth: ffi::PyMethodDefPointer { PyCFunction: entry },
            ml_flags: if takes_argument {
                ffi::METH_O
            } else {
                ffi::METH_NOARGS
            },
            ml_doc: doc.as_ptr(),
        }));
        // SAFETY: `ty` is a live type object and `def` a definition that outlives it.
        let descriptor = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewMethod(ty.as_type_ptr(), def))?
        };
        ty.setattr(name.to_str()?, descriptor)?;
    }
    for (name, get, doc) in GETTERS {
        // As the methods' definitions: kept for the life of the process.
        let def = Box::leak(Box::new(ffi::PyGetSetDef {
            name: name.as_ptr(),
            get: Some(get),
            set: None,
            doc: doc.as_ptr(),
            closure: null_mut(),
        }));
        // SAFETY: `ty` is a live type object and `def` a definition that outlives it.
        let descriptor = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewGetSet(ty.as_type_ptr(), def))?
        };
        ty.setattr(name.to_str()?, descriptor)?;
    }
    Ok(())
}
