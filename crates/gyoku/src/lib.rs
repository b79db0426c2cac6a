//! # Gyoku: the shogi rules, exactly
//!
//! Gyoku (玉) is a shogi rules engine and referee. This crate is its core: squares,
//! pieces, bitboards, positions read from SFEN and checked, legal move generation with
//! every drop restriction (dead pieces, nifu, uchifuzume), the reason any illegal move is
//! illegal, and perft; and the referee: a [`Game`] under a [`RuleSet`] decides every
//! ending (sennichite, perpetual check, every impasse rule, move limits, the Try rule),
//! the [`ImpasseReport`] calculator, and a pure [`Clock`].
//!
//! ```
//! use gyoku::{IllegalMoveKind, Move, Position, perft};
//!
//! let mut pos = Position::startpos();
//! assert_eq!(perft(&pos, 2), 900);
//! pos.play("7g7f".parse::<Move>()?)?;
//! assert_eq!(pos.check_move("7g7f".parse()?), Err(IllegalMoveKind::BadMovement));
//!
//! // Uchifuzume: the only defender of 1b, the silver on 2a, is pinned by the rook on 9a.
//! let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1")?;
//! assert_eq!(pos.check_move("P*1b".parse()?), Err(IllegalMoveKind::Uchifuzume));
//! assert_eq!(pos.legal_moves().len(), 110);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Validation is shakmaty's model: a [`Setup`] is anything SFEN can say; a [`Position`] is
//! a setup that passed [`Position::from_setup`], whose [`PositionError`] can accept the
//! faults that are safe to play through (a tsume problem without Black's king, say).

// No unsafe code but one measured hint: the mate table's prefetch (`mate/table.rs`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod attacks;
mod bitboard;
mod board;
mod clock;
mod color;
pub mod fuzzing;
mod game;
mod hand;
mod handicap;
pub mod impasse;
pub mod mate;
mod movegen;
mod mv;
mod outcome;
mod perft;
mod position;
mod role;
pub mod rules;
mod setup;
mod sfen;
mod square;
mod undo;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use clock::{
    Clock, ClockError, Flagged, Millis, MoveTime, ReplayClock, Rounding, ThinkingUnits, TimeControl,
};
pub use color::{ByColor, Color};
pub use game::{Action, Game, GameError, PlyRecord, Proposal};
pub use hand::{Hand, HandError};
pub use handicap::{Handicap, ParseHandicapError};
pub use impasse::{GameResult, ImpasseCount, ImpasseReport};
pub use movegen::PieceMoves;
pub use mv::{MAX_MOVES, Move, MoveList, ParseUsiMoveError, UsiMoveErrorKind};
pub use outcome::{EndReason, ForfeitCause, Outcome};
pub use perft::{divide, perft};
pub use position::{IllegalMoveKind, Position, PositionError, PositionErrorKinds, SfenError};
pub use role::{Piece, Role};
pub use rules::{ParsePresetError, Preset, RuleSet};
pub use setup::{STARTPOS_SFEN, Setup};
pub use sfen::{ParseSfenError, SfenErrorKind, SfenField};
pub use square::{ParseSquareError, Square};
pub use undo::Undo;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the manual's rules page (`docs/rules.md`), compiled and run as
/// doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rules.md")]
pub struct RulesPageDoctests;
