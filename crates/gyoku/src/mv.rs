//! Moves, and their USI notation.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use crate::{Role, Square};

/// A move: a piece moved on the board (optionally promoting), or a piece dropped from hand.
///
/// A `Move` says nothing of the position it is played in; [`Position::check_move`]
/// says whether it is legal there, and why not. Its text form is USI: `7g7f`, `8h2b+`,
/// `P*5e`.
///
/// [`Position::check_move`]: crate::Position::check_move
///
/// ```
/// use gyoku::{Move, Role};
/// let m: Move = "P*5e".parse().unwrap();
/// assert_eq!(m, Move::Drop { role: Role::Pawn, to: "5e".parse().unwrap() });
/// assert_eq!("8h2b+".parse::<Move>().unwrap().to_string(), "8h2b+");
/// assert!("7g7f=".parse::<Move>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// A piece moves from `from` to `to`, promoting if `promote`.
    Normal {
        /// Where the piece stands.
        from: Square,
        /// Where it goes (capturing what stands there).
        to: Square,
        /// Whether it promotes.
        promote: bool,
    },
    /// A piece of `role` is dropped from hand onto the empty square `to`.
    Drop {
        /// The kind dropped.
        role: Role,
        /// Where.
        to: Square,
    },
}

impl Move {
    /// The destination square.
    #[inline]
    pub const fn to(self) -> Square {
        match self {
            Move::Normal { to, .. } | Move::Drop { to, .. } => to,
        }
    }

    /// The origin square; `None` for a drop.
    #[inline]
    pub const fn from(self) -> Option<Square> {
        match self {
            Move::Normal { from, .. } => Some(from),
            Move::Drop { .. } => None,
        }
    }

    /// Whether the move promotes.
    #[inline]
    pub const fn is_promotion(self) -> bool {
        matches!(self, Move::Normal { promote: true, .. })
    }

    /// Whether the move is a drop.
    #[inline]
    pub const fn is_drop(self) -> bool {
        matches!(self, Move::Drop { .. })
    }

    /// The move `text` spells in USI, if it spells one: [`Move::from_usi`] without the
    /// reason, small enough to inline where moves are read by the million (the Python
    /// binding's `push`). The two agree on every text (a property test).
    ///
    /// ```
    /// use gyoku::Move;
    /// assert_eq!(Move::from_usi_bytes(b"P*5e"), "P*5e".parse().ok());
    /// assert_eq!(Move::from_usi_bytes(b"7g7f+x"), None);
    /// ```
    #[inline]
    pub fn from_usi_bytes(text: &[u8]) -> Option<Move> {
        match *text {
            [piece, b'*', file, rank] => {
                let role = Role::from_letter(piece)
                    .filter(|r| r.is_hand_role() && piece.is_ascii_uppercase())?;
                let to = Square::from_usi_bytes(file, rank)?;
                Some(Move::Drop { role, to })
            }
            [f1, r1, f2, r2, ref promotion @ ..] => {
                let promote = match promotion {
                    [] => false,
                    [b'+'] => true,
                    _ => return None,
                };
                Some(Move::Normal {
                    from: Square::from_usi_bytes(f1, r1)?,
                    to: Square::from_usi_bytes(f2, r2)?,
                    promote,
                })
            }
            _ => None,
        }
    }

    /// Parses USI notation (`7g7f`, `7g7f+`, `P*5e`).
    ///
    /// # Errors
    /// [`ParseUsiMoveError`] says which character is wrong, and where.
    pub fn from_usi(text: &str) -> Result<Move, ParseUsiMoveError> {
        let err = |column: usize, kind: UsiMoveErrorKind| ParseUsiMoveError {
            text: text.chars().take(32).collect(),
            column,
            kind,
        };
        let b = text.as_bytes();
        if b.is_empty() {
            return Err(err(1, UsiMoveErrorKind::Empty));
        }
        let square_at = |i: usize| -> Result<Square, ParseUsiMoveError> {
            let (Some(&f), Some(&r)) = (b.get(i), b.get(i + 1)) else {
                return Err(err(b.len() + 1, UsiMoveErrorKind::TooShort));
            };
            if !(b'1'..=b'9').contains(&f) {
                return Err(err(i + 1, UsiMoveErrorKind::BadFile(char_at(text, i))));
            }
            if !(b'a'..=b'i').contains(&r) {
                return Err(err(i + 2, UsiMoveErrorKind::BadRank(char_at(text, i + 1))));
            }
            Ok(Square::from_usi_bytes(f, r).expect("checked above"))
        };
        if b.get(1) == Some(&b'*') {
            let role = Role::from_letter(b[0])
                .filter(|r| r.is_hand_role() && b[0].is_ascii_uppercase())
                .ok_or_else(|| err(1, UsiMoveErrorKind::BadDropPiece(char_at(text, 0))))?;
            let to = square_at(2)?;
            if b.len() > 4 {
                return Err(err(5, UsiMoveErrorKind::Trailing(char_at(text, 4))));
            }
            return Ok(Move::Drop { role, to });
        }
        let from = square_at(0)?;
        let to = square_at(2)?;
        let promote = match b.get(4) {
            None => false,
            Some(b'+') => true,
            Some(_) => return Err(err(5, UsiMoveErrorKind::Trailing(char_at(text, 4)))),
        };
        if b.len() > 5 {
            return Err(err(6, UsiMoveErrorKind::Trailing(char_at(text, 5))));
        }
        Ok(Move::Normal { from, to, promote })
    }

    /// The USI notation.
    pub fn to_usi(self) -> String {
        self.to_string()
    }
}

fn char_at(text: &str, byte: usize) -> char {
    text.get(byte..)
        .and_then(|s| s.chars().next())
        .unwrap_or('\u{fffd}')
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Normal { from, to, promote } => {
                write!(f, "{from}{to}{}", if promote { "+" } else { "" })
            }
            Move::Drop { role, to } => write!(f, "{}*{to}", role.sfen()),
        }
    }
}

impl FromStr for Move {
    type Err = ParseUsiMoveError;
    fn from_str(s: &str) -> Result<Move, ParseUsiMoveError> {
        Move::from_usi(s)
    }
}

/// A USI move that could not be read: the text, the 1-based column and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseUsiMoveError {
    /// The text (at most its first 32 characters).
    pub text: String,
    /// The 1-based character column of the fault.
    pub column: usize,
    /// What was wrong.
    pub kind: UsiMoveErrorKind,
}

/// What was wrong with a USI move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsiMoveErrorKind {
    /// No text.
    Empty,
    /// The text ends before the move does.
    TooShort,
    /// A file that is not 1–9.
    BadFile(char),
    /// A rank that is not a–i.
    BadRank(char),
    /// A drop of something other than `P L N S G B R`.
    BadDropPiece(char),
    /// Text after the move.
    Trailing(char),
}

impl fmt::Display for ParseUsiMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "usi move '{}': ", self.text)?;
        match &self.kind {
            UsiMoveErrorKind::Empty => f.write_str("empty move"),
            UsiMoveErrorKind::TooShort => write!(f, "ends early at column {}", self.column),
            UsiMoveErrorKind::BadFile(c) => {
                write!(f, "bad file '{c}' at column {} (expected 1-9)", self.column)
            }
            UsiMoveErrorKind::BadRank(c) => {
                write!(f, "bad rank '{c}' at column {} (expected a-i)", self.column)
            }
            UsiMoveErrorKind::BadDropPiece(c) => write!(
                f,
                "bad drop piece '{c}' at column {} (expected one of P L N S G B R)",
                self.column
            ),
            UsiMoveErrorKind::Trailing(c) => {
                write!(f, "unexpected '{c}' at column {}", self.column)
            }
        }
    }
}

impl std::error::Error for ParseUsiMoveError {}

/// The largest number of legal moves in any shogi position is 593; lists hold 600.
pub const MAX_MOVES: usize = 600;

/// A list of moves on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usi_round_trip_and_errors() {
        for text in ["7g7f", "8h2b+", "P*5e", "R*1a", "1a9i"] {
            assert_eq!(text.parse::<Move>().unwrap().to_string(), text);
        }
        let e = "7g7z".parse::<Move>().unwrap_err();
        assert_eq!((e.column, e.kind), (4, UsiMoveErrorKind::BadRank('z')));
        assert_eq!("K*5e".parse::<Move>().unwrap_err().column, 1);
        assert_eq!("p*5e".parse::<Move>().unwrap_err().column, 1);
        assert_eq!("7g7f++".parse::<Move>().unwrap_err().column, 6);
        assert_eq!(
            "7g".parse::<Move>().unwrap_err().kind,
            UsiMoveErrorKind::TooShort
        );
        assert!("７g7f".parse::<Move>().is_err());
        assert!(std::mem::size_of::<Move>() <= 4);
    }
}
