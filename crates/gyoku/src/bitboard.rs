//! 81-bit square sets.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::{Color, Square};

/// A set of squares: bit `i` is the square with file-major index `i` (see [`Square`]).
///
/// A file is nine consecutive bits, so lance and rook-file rays are contiguous runs.
///
/// ```
/// use gyoku::{Bitboard, Square};
/// let sq: Square = "5e".parse().unwrap();
/// let bb = Bitboard::from_square(sq) | Bitboard::file(1);
/// assert_eq!(bb.count(), 10);
/// assert!(bb.contains(sq));
/// assert_eq!(bb.first(), "1a".parse().ok());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u128);

const MASK81: u128 = (1u128 << 81) - 1;

/// Rank 1 (`a`) of every file: bit 0 of each file's nine bits.
const RANK_A: u128 = {
    let mut bb = 0u128;
    let mut f = 0;
    while f < 9 {
        bb |= 1u128 << (f * 9);
        f += 1;
    }
    bb
};

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 81 squares.
    pub const FULL: Bitboard = Bitboard(MASK81);

    /// The set of one square.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u128 << sq.index())
    }

    /// Every square of rank `rank` (1–9); empty for other values.
    pub const fn rank(rank: u8) -> Bitboard {
        if rank < 1 || rank > 9 {
            return Bitboard::EMPTY;
        }
        Bitboard(RANK_A << (rank - 1))
    }

    /// Every square of file `file` (1–9); empty for other values.
    pub const fn file(file: u8) -> Bitboard {
        if file < 1 || file > 9 {
            return Bitboard::EMPTY;
        }
        Bitboard(0x1ff << ((file as u32 - 1) * 9))
    }

    /// The promotion zone of `color`: its three far ranks.
    pub const fn zone(color: Color) -> Bitboard {
        match color {
            Color::Black => Bitboard(RANK_A * 0b111),
            Color::White => Bitboard(RANK_A * (0b111 << 6)),
        }
    }

    /// `color`'s `n` far ranks (`n` ≤ 9): where a piece of `color` reaches the end.
    pub const fn far_ranks(color: Color, n: u32) -> Bitboard {
        let ones = (1u128 << n) - 1;
        match color {
            Color::Black => Bitboard(RANK_A * ones),
            Color::White => Bitboard(RANK_A * (ones << (9 - n))),
        }
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has a square.
    #[inline]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u128 << sq.index()) != 0
    }

    /// The number of squares.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set has two or more squares.
    #[inline]
    pub const fn has_more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The square with the lowest index.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros()))
        }
    }

    /// The only square, when the set has exactly one.
    #[inline]
    pub const fn single_square(self) -> Option<Square> {
        if self.0 != 0 && !self.has_more_than_one() {
            self.first()
        } else {
            None
        }
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1u128 << sq.index()))
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u128 << sq.index()))
    }

    /// Every file that holds a square of the set, filled in full.
    ///
    /// Used for nifu: the files where a pawn may not be dropped.
    #[inline]
    pub const fn file_fill(self) -> Bitboard {
        const LOW8: u128 = RANK_A * 0xff;
        const TOP: u128 = RANK_A << 8;
        // Bit 8 of a file's nine bits is set when any of bits 0..=8 is: adding 0xff to the
        // low eight bits carries into bit 8 and never past it.
        let top = (((self.0 & LOW8) + LOW8) | self.0) & TOP;
        Bitboard((top - (top >> 8)) | top)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}
impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}
impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}
impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & MASK81)
    }
}
impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}
impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}
impl BitXorAssign for Bitboard {
    #[inline]
    fn bitxor_assign(&mut self, rhs: Bitboard) {
        self.0 ^= rhs.0;
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl fmt::Debug for Bitboard {
    /// Draws the board as Black sees it: rank 1 on top, file 9 on the left.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard(")?;
        for rank in 1..=9 {
            for file in (1..=9).rev() {
                let sq = Square::new(file, rank).expect("valid square");
                f.write_str(if self.contains(sq) { " X" } else { " ." })?;
            }
            writeln!(f)?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_fill_marks_each_file_with_a_square() {
        for sq in Square::all() {
            let bb = Bitboard::from_square(sq);
            assert_eq!(bb.file_fill(), Bitboard::file(sq.file()), "{sq}");
        }
        let full_file = Bitboard::file(4) | Bitboard::from_square(Square::new(9, 9).unwrap());
        assert_eq!(full_file.file_fill(), Bitboard::file(4) | Bitboard::file(9));
        assert_eq!(Bitboard::EMPTY.file_fill(), Bitboard::EMPTY);
        assert_eq!(Bitboard::FULL.file_fill(), Bitboard::FULL);
    }

    #[test]
    fn ranks_and_zones() {
        assert_eq!(Bitboard::zone(Color::Black).count(), 27);
        assert!(Bitboard::zone(Color::White).contains(Square::new(1, 7).unwrap()));
        assert_eq!(
            Bitboard::far_ranks(Color::White, 2),
            Bitboard::rank(8) | Bitboard::rank(9)
        );
        assert_eq!(Bitboard::far_ranks(Color::Black, 1), Bitboard::rank(1));
        assert_eq!((!Bitboard::EMPTY), Bitboard::FULL);
    }
}
