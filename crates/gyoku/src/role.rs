//! Piece kinds and pieces.

use std::fmt;

use crate::Color;

/// One of the 14 kinds of piece.
///
/// The first seven are the kinds that can be held in hand, in the order SFEN writes hands
/// backwards (`P L N S G B R`); then the king; then the six promoted kinds.
///
/// ```
/// use gyoku::Role;
/// assert_eq!(Role::Silver.promoted(), Some(Role::ProSilver));
/// assert_eq!(Role::Dragon.unpromoted(), Role::Rook);
/// assert_eq!(Role::Horse.points(), 5);
/// assert_eq!(Role::from_sfen("+B"), Some(Role::Horse));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// 歩 (fu), pawn.
    Pawn = 0,
    /// 香 (kyō), lance.
    Lance = 1,
    /// 桂 (kei), knight.
    Knight = 2,
    /// 銀 (gin), silver.
    Silver = 3,
    /// 金 (kin), gold.
    Gold = 4,
    /// 角 (kaku), bishop.
    Bishop = 5,
    /// 飛 (hisha), rook.
    Rook = 6,
    /// 玉/王 (gyoku/ō), king.
    King = 7,
    /// と (tokin), promoted pawn.
    ProPawn = 8,
    /// 成香, promoted lance.
    ProLance = 9,
    /// 成桂, promoted knight.
    ProKnight = 10,
    /// 成銀, promoted silver.
    ProSilver = 11,
    /// 馬 (uma), promoted bishop.
    Horse = 12,
    /// 龍 (ryū), promoted rook.
    Dragon = 13,
}

impl Role {
    /// All 14 kinds, in index order.
    pub const ALL: [Role; 14] = [
        Role::Pawn,
        Role::Lance,
        Role::Knight,
        Role::Silver,
        Role::Gold,
        Role::Bishop,
        Role::Rook,
        Role::King,
        Role::ProPawn,
        Role::ProLance,
        Role::ProKnight,
        Role::ProSilver,
        Role::Horse,
        Role::Dragon,
    ];

    /// The seven kinds a hand can hold: pawn, lance, knight, silver, gold, bishop, rook.
    pub const HAND: [Role; 7] = [
        Role::Pawn,
        Role::Lance,
        Role::Knight,
        Role::Silver,
        Role::Gold,
        Role::Bishop,
        Role::Rook,
    ];

    /// The index 0–13.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with index `i` (0–13).
    #[inline]
    pub const fn from_index(i: usize) -> Option<Role> {
        if i < 14 { Some(Role::ALL[i]) } else { None }
    }

    /// Whether this kind can be held in hand (and so dropped).
    #[inline]
    pub const fn is_hand_role(self) -> bool {
        (self as u8) < 7
    }

    /// Whether this is a promoted kind.
    #[inline]
    pub const fn is_promoted(self) -> bool {
        (self as u8) >= 8
    }

    /// The promoted kind, or `None` for kinds that never promote (gold, king, promoted).
    #[inline]
    pub const fn promoted(self) -> Option<Role> {
        match self {
            Role::Pawn => Some(Role::ProPawn),
            Role::Lance => Some(Role::ProLance),
            Role::Knight => Some(Role::ProKnight),
            Role::Silver => Some(Role::ProSilver),
            Role::Bishop => Some(Role::Horse),
            Role::Rook => Some(Role::Dragon),
            _ => None,
        }
    }

    /// Whether this kind can promote.
    #[inline]
    pub const fn can_promote(self) -> bool {
        self.promoted().is_some()
    }

    /// The unpromoted kind (itself when not promoted): what a capture puts in hand.
    #[inline]
    pub const fn unpromoted(self) -> Role {
        match self {
            Role::ProPawn => Role::Pawn,
            Role::ProLance => Role::Lance,
            Role::ProKnight => Role::Knight,
            Role::ProSilver => Role::Silver,
            Role::Horse => Role::Bishop,
            Role::Dragon => Role::Rook,
            other => other,
        }
    }

    /// Impasse points (大駒5点・小駒1点): 5 for rook, bishop, dragon and horse; 0 for the
    /// king; 1 for every other kind.
    #[inline]
    pub const fn points(self) -> u32 {
        match self {
            Role::Rook | Role::Bishop | Role::Dragon | Role::Horse => 5,
            Role::King => 0,
            _ => 1,
        }
    }

    /// The SFEN letter(s) in upper case (Black's), e.g. `P`, `+R`.
    pub const fn sfen(self) -> &'static str {
        match self {
            Role::Pawn => "P",
            Role::Lance => "L",
            Role::Knight => "N",
            Role::Silver => "S",
            Role::Gold => "G",
            Role::Bishop => "B",
            Role::Rook => "R",
            Role::King => "K",
            Role::ProPawn => "+P",
            Role::ProLance => "+L",
            Role::ProKnight => "+N",
            Role::ProSilver => "+S",
            Role::Horse => "+B",
            Role::Dragon => "+R",
        }
    }

    /// Parses an SFEN/USI letter (either case) with an optional leading `+`.
    pub fn from_sfen(s: &str) -> Option<Role> {
        let (promote, letter) = match s.as_bytes() {
            [b'+', l] => (true, *l),
            [l] => (false, *l),
            _ => return None,
        };
        let role = Role::from_letter(letter)?;
        if promote { role.promoted() } else { Some(role) }
    }

    /// The unpromoted kind for an SFEN letter (`P L N S G B R K`, either case).
    pub const fn from_letter(letter: u8) -> Option<Role> {
        match letter.to_ascii_uppercase() {
            b'P' => Some(Role::Pawn),
            b'L' => Some(Role::Lance),
            b'N' => Some(Role::Knight),
            b'S' => Some(Role::Silver),
            b'G' => Some(Role::Gold),
            b'B' => Some(Role::Bishop),
            b'R' => Some(Role::Rook),
            b'K' => Some(Role::King),
            _ => None,
        }
    }

    /// The one-character Japanese name used in KIF (`歩`, `と`, `龍`, `玉`, …).
    pub const fn kanji(self) -> &'static str {
        match self {
            Role::Pawn => "歩",
            Role::Lance => "香",
            Role::Knight => "桂",
            Role::Silver => "銀",
            Role::Gold => "金",
            Role::Bishop => "角",
            Role::Rook => "飛",
            Role::King => "玉",
            Role::ProPawn => "と",
            Role::ProLance => "成香",
            Role::ProKnight => "成桂",
            Role::ProSilver => "成銀",
            Role::Horse => "馬",
            Role::Dragon => "龍",
        }
    }

    /// The number of pieces of this unpromoted kind in a full set (both sides): 18 pawns,
    /// 4 each of lance, knight, silver and gold, 2 bishops, 2 rooks, 2 kings.
    pub const fn full_set_count(self) -> u32 {
        match self.unpromoted() {
            Role::Pawn => 18,
            Role::Bishop | Role::Rook | Role::King => 2,
            _ => 4,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.sfen())
    }
}

/// A piece: a kind and its owner.
///
/// ```
/// use gyoku::{Color, Piece, Role};
/// let p = Piece::new(Color::White, Role::Dragon);
/// assert_eq!(p.sfen(), "+r");
/// assert_eq!(Piece::from_sfen("+r"), Some(p));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The owner.
    pub color: Color,
    /// The kind.
    pub role: Role,
}

impl Piece {
    /// A piece of `role` owned by `color`.
    #[inline]
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// Index 0–27: `color * 14 + role`.
    #[inline]
    pub const fn index(self) -> usize {
        self.color.index() * 14 + self.role.index()
    }

    /// SFEN text: upper case for Black, lower case for White, `+` for promoted.
    pub fn sfen(self) -> String {
        let s = self.role.sfen();
        match self.color {
            Color::Black => s.to_string(),
            Color::White => s.to_ascii_lowercase(),
        }
    }

    /// Parses SFEN text such as `P`, `+r`.
    pub fn from_sfen(s: &str) -> Option<Piece> {
        let letter = *s.as_bytes().last()?;
        let color = if letter.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        Some(Piece::new(color, Role::from_sfen(s)?))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.sfen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_is_consistent() {
        for role in Role::ALL {
            if let Some(p) = role.promoted() {
                assert!(p.is_promoted());
                assert_eq!(p.unpromoted(), role);
                assert_eq!(p.points(), role.points());
            }
            assert!(role.unpromoted().is_hand_role() || role == Role::King);
            assert_eq!(Role::from_sfen(role.sfen()), Some(role));
        }
        let total: u32 = Role::ALL
            .iter()
            .filter(|r| !r.is_promoted())
            .map(|r| r.full_set_count() * r.points())
            .sum();
        assert_eq!(total, 54);
    }
}
