//! Squares, with their USI (`7g`) and Japanese (`７七`) names.

use std::fmt;
use std::str::FromStr;

use crate::Color;

/// One of the 81 squares.
///
/// Files are numbered 1–9 from Black's right, ranks 1–9 (USI letters `a`–`i`) from White's
/// side. The index is file-major: `(file - 1) * 9 + (rank - 1)`, so `1a` is 0, `1i` is 8,
/// `9i` is 80, and a file is nine consecutive bits of a [`Bitboard`](crate::Bitboard).
///
/// ```
/// use gyoku::Square;
/// let sq: Square = "7g".parse().unwrap();
/// assert_eq!((sq.file(), sq.rank()), (7, 7));
/// assert_eq!(sq.japanese(), "７七");
/// assert_eq!(Square::from_japanese("７六"), Square::new(7, 6));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

const FULLWIDTH_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const KANJI_DIGITS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

impl Square {
    /// Number of squares.
    pub const COUNT: usize = 81;

    /// The square on `file` and `rank`, both 1–9.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file >= 1 && file <= 9 && rank >= 1 && rank <= 9 {
            Some(Square((file - 1) * 9 + (rank - 1)))
        } else {
            None
        }
    }

    /// The square with file-major `index` (0–80).
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 81 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with `index`, which the caller knows to be below 81.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: u32) -> Square {
        debug_assert!(index < 81);
        Square(index as u8)
    }

    /// The file-major index, 0–80.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 1–9.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 / 9 + 1
    }

    /// The rank, 1–9 (USI `a`–`i`).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9 + 1
    }

    /// The rank counted from `color`'s far side: 1 is the last rank for `color`.
    #[inline]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::Black => self.rank(),
            Color::White => 10 - self.rank(),
        }
    }

    /// Whether the square is in `color`'s promotion zone (its three far ranks).
    #[inline]
    pub const fn in_zone(self, color: Color) -> bool {
        self.relative_rank(color) <= 3
    }

    /// All 81 squares in index order (1a, 1b, …, 9i).
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..81u8).map(Square)
    }

    /// The USI name, e.g. `7g`.
    pub fn usi(self) -> String {
        self.to_string()
    }

    /// The Japanese name with a full-width file digit and a kanji rank, e.g. `７六`.
    pub fn japanese(self) -> String {
        let mut s = String::with_capacity(6);
        s.push(FULLWIDTH_DIGITS[self.file() as usize - 1]);
        s.push(KANJI_DIGITS[self.rank() as usize - 1]);
        s
    }

    /// Parses a Japanese square name: a file digit (full-width `７` or ASCII `7`) and a rank
    /// (kanji `六`, full-width or ASCII digit).
    pub fn from_japanese(s: &str) -> Option<Square> {
        let mut chars = s.chars();
        let file = digit_value(chars.next()?)?;
        let rank = digit_value(chars.next()?)?;
        if chars.next().is_some() {
            return None;
        }
        Square::new(file, rank)
    }

    /// Parses the two USI bytes `7g`.
    pub(crate) fn from_usi_bytes(file: u8, rank: u8) -> Option<Square> {
        if (b'1'..=b'9').contains(&file) && (b'a'..=b'i').contains(&rank) {
            Square::new(file - b'0', rank - b'a' + 1)
        } else {
            None
        }
    }
}

fn digit_value(c: char) -> Option<u8> {
    if let Some(i) = FULLWIDTH_DIGITS.iter().position(|&d| d == c) {
        return Some(i as u8 + 1);
    }
    if let Some(i) = KANJI_DIGITS.iter().position(|&d| d == c) {
        return Some(i as u8 + 1);
    }
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        _ => None,
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), (b'a' + self.rank() - 1) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({self})")
    }
}

/// The text was not a square name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a square (expected a file 1-9 and a rank a-i, like 7g)")
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f, r] => Square::from_usi_bytes(*f, *r).ok_or(ParseSquareError),
            _ => Square::from_japanese(s).ok_or(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.usi().parse::<Square>(), Ok(sq));
            assert_eq!(Square::from_japanese(&sq.japanese()), Some(sq));
        }
        assert_eq!(Square::new(1, 1).unwrap().index(), 0);
        assert_eq!(Square::new(9, 9).unwrap().index(), 80);
        assert_eq!("5e".parse::<Square>().unwrap().japanese(), "５五");
        assert!("0a".parse::<Square>().is_err());
        assert!("5j".parse::<Square>().is_err());
    }

    #[test]
    fn zones() {
        let sq = Square::new(5, 3).unwrap();
        assert!(sq.in_zone(Color::Black));
        assert!(!sq.in_zone(Color::White));
        assert!(Square::new(5, 7).unwrap().in_zone(Color::White));
    }
}
