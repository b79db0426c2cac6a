//! The two sides, and containers indexed by side.

use std::fmt;
use std::ops::Not;

/// A side: Black (sente, 先手, SFEN `b`) or White (gote, 後手, SFEN `w`).
///
/// Black moves first in an even game; in a handicap game the handicap giver is White and
/// moves first.
///
/// ```
/// use gyoku::Color;
/// assert_eq!(!Color::Black, Color::White);
/// assert_eq!(Color::White.sfen_char(), 'w');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Sente (先手), the side that moves first in an even game.
    Black = 0,
    /// Gote (後手).
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// 0 for Black, 1 for White.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The SFEN letter: `b` or `w`.
    pub const fn sfen_char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }

    /// Parses the SFEN letter `b` or `w`.
    pub const fn from_sfen_char(c: char) -> Option<Color> {
        match c {
            'b' => Some(Color::Black),
            'w' => Some(Color::White),
            _ => None,
        }
    }

    /// `black` or `white`: the stable name used in JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opposite()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each side.
///
/// ```
/// use gyoku::{ByColor, Color};
/// let mut points = ByColor::new(0, 0);
/// *points.get_mut(Color::White) += 5;
/// assert_eq!(points.white, 5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

impl<T> ByColor<T> {
    /// Both values, Black's first.
    pub const fn new(black: T, white: T) -> Self {
        ByColor { black, white }
    }

    /// The value for `color`.
    #[inline]
    pub const fn get(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// The value for `color`, mutably.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }

    /// A value for each side from a function of the side.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> Self {
        ByColor {
            black: f(Color::Black),
            white: f(Color::White),
        }
    }
}
