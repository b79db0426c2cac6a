//! Pieces in hand.

use std::fmt;

use crate::Role;

/// The pieces one side holds in hand, packed in a `u32`.
///
/// Pawns use eight bits (up to 255), every other kind four (up to 15), so any position a
/// record can describe fits, and two hands compare with one instruction.
///
/// ```
/// use gyoku::{Hand, Role};
/// let mut hand = Hand::EMPTY;
/// hand.add(Role::Pawn);
/// hand.add(Role::Pawn);
/// hand.add(Role::Rook);
/// assert_eq!(hand.count(Role::Pawn), 2);
/// assert_eq!(hand.points(), 7);
/// assert_eq!(hand.to_string(), "R2P");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

const SHIFT: [u32; 7] = [0, 8, 12, 16, 20, 24, 28];
const WIDTH_MASK: [u32; 7] = [0xff, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf];

impl Hand {
    /// A hand with nothing in it.
    pub const EMPTY: Hand = Hand(0);

    /// The largest count a hand can hold for `role` (255 pawns, 15 of any other kind).
    pub const fn capacity(role: Role) -> u8 {
        WIDTH_MASK[role.index()] as u8
    }

    /// How many pieces of `role` are held; 0 for the king and promoted kinds.
    #[inline]
    pub const fn count(self, role: Role) -> u8 {
        if role.is_hand_role() {
            ((self.0 >> SHIFT[role.index()]) & WIDTH_MASK[role.index()]) as u8
        } else {
            0
        }
    }

    /// Whether any piece of `role` is held.
    #[inline]
    pub const fn has(self, role: Role) -> bool {
        self.count(role) != 0
    }

    /// Whether the hand holds a piece of any of `roles` (kinds held in hand).
    #[inline]
    pub(crate) const fn has_any(self, roles: &[Role]) -> bool {
        let mut mask = 0;
        let mut i = 0;
        while i < roles.len() {
            let index = roles[i].index();
            mask |= WIDTH_MASK[index] << SHIFT[index];
            i += 1;
        }
        self.0 & mask != 0
    }

    /// Whether the hand is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether this hand holds at least as many of every kind as `other`.
    ///
    /// ```
    /// use gyoku::{Hand, Role};
    /// let (mut small, mut big) = (Hand::EMPTY, Hand::EMPTY);
    /// small.add(Role::Gold);
    /// big.add(Role::Gold);
    /// big.add(Role::Pawn);
    /// assert!(big.covers(small) && !small.covers(big) && small.covers(small));
    /// ```
    #[inline]
    pub fn covers(self, other: Hand) -> bool {
        Role::HAND
            .iter()
            .all(|&role| self.count(role) >= other.count(role))
    }

    /// Sets the count for `role`.
    ///
    /// # Errors
    /// `role` is not a hand kind, or `count` is above [`Hand::capacity`]; the hand is
    /// unchanged.
    pub fn set(&mut self, role: Role, count: u8) -> Result<(), HandError> {
        if !role.is_hand_role() {
            return Err(HandError::NotAHandRole(role));
        }
        let i = role.index();
        if u32::from(count) > WIDTH_MASK[i] {
            return Err(HandError::TooMany(role));
        }
        self.0 = (self.0 & !(WIDTH_MASK[i] << SHIFT[i])) | (u32::from(count) << SHIFT[i]);
        Ok(())
    }

    /// Adds one piece of `role`, which must be a hand kind below capacity.
    #[inline]
    pub fn add(&mut self, role: Role) {
        debug_assert!(role.is_hand_role() && self.count(role) < Hand::capacity(role));
        self.0 += 1 << SHIFT[role.index()];
    }

    /// Takes one piece of `role`, which must be held.
    #[inline]
    pub fn remove(&mut self, role: Role) {
        debug_assert!(self.has(role));
        self.0 -= 1 << SHIFT[role.index()];
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        Role::HAND.iter().map(|&r| u32::from(self.count(r))).sum()
    }

    /// Impasse points of the pieces held (rook and bishop 5, others 1).
    pub fn points(self) -> u32 {
        Role::HAND
            .iter()
            .map(|&r| u32::from(self.count(r)) * r.points())
            .sum()
    }

    /// The kinds held, with their counts, in SFEN order (rook first).
    pub fn iter(self) -> impl Iterator<Item = (Role, u8)> {
        Role::HAND
            .into_iter()
            .rev()
            .map(move |r| (r, self.count(r)))
            .filter(|&(_, n)| n > 0)
    }

    /// The packed value, for hashing and storage.
    pub const fn bits(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Hand {
    /// The SFEN form for Black (`R2P`); empty for an empty hand.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (role, n) in self.iter() {
            if n > 1 {
                write!(f, "{n}")?;
            }
            f.write_str(role.sfen())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hand({self})")
    }
}

/// A hand count that cannot be set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandError {
    /// Kings and promoted pieces are never held.
    NotAHandRole(Role),
    /// More pieces than a hand can hold.
    TooMany(Role),
}

impl fmt::Display for HandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandError::NotAHandRole(r) => write!(f, "{r} cannot be held in hand"),
            HandError::TooMany(r) => {
                write!(f, "more than {} of {r} in one hand", Hand::capacity(*r))
            }
        }
    }
}

impl std::error::Error for HandError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_independent() {
        let mut h = Hand::EMPTY;
        for (i, r) in Role::HAND.into_iter().enumerate() {
            h.set(r, Hand::capacity(r) - i as u8).unwrap();
        }
        for (i, r) in Role::HAND.into_iter().enumerate() {
            assert_eq!(h.count(r), Hand::capacity(r) - i as u8);
        }
        assert_eq!(h.set(Role::Gold, 16), Err(HandError::TooMany(Role::Gold)));
        assert_eq!(
            h.set(Role::King, 1),
            Err(HandError::NotAHandRole(Role::King))
        );
        h.remove(Role::Rook);
        assert_eq!(h.count(Role::Rook), 8);
        assert_eq!(h.count(Role::Bishop), 10);
    }
}
