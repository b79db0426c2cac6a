//! The standard handicap starts.

use std::fmt;
use std::str::FromStr;

use crate::{Position, Setup};

/// A standard handicap (駒落ち). The giver (上手) is White and moves first; the pieces it
/// removes are White's.
///
/// ```
/// use gyoku::Handicap;
/// let h: Handicap = "2-piece".parse().unwrap();
/// assert_eq!(h.japanese(), "二枚落ち");
/// assert_eq!(h.removed_points(), 10);
/// assert_eq!(Handicap::from_sfen(h.sfen()), Some(h));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handicap {
    /// 香落ち: White's left lance (1a).
    Lance,
    /// 右香落ち: White's right lance (9a).
    RightLance,
    /// 角落ち: bishop.
    Bishop,
    /// 飛車落ち: rook.
    Rook,
    /// 飛香落ち: rook and left lance.
    RookLance,
    /// 二枚落ち: rook and bishop.
    TwoPiece,
    /// 三枚落ち: rook, bishop and left lance.
    ThreePiece,
    /// 四枚落ち: rook, bishop and both lances.
    FourPiece,
    /// 五枚落ち: four-piece and the right knight.
    FivePiece,
    /// 左五枚落ち: four-piece and the left knight.
    LeftFivePiece,
    /// 六枚落ち: rook, bishop, both lances and both knights.
    SixPiece,
    /// 左七枚落ち: six-piece and the right silver.
    LeftSevenPiece,
    /// 右七枚落ち: six-piece and the left silver.
    RightSevenPiece,
    /// 八枚落ち: all but the king and the golds.
    EightPiece,
    /// 十枚落ち: the king alone.
    TenPiece,
}

struct Info {
    handicap: Handicap,
    name: &'static str,
    japanese: &'static str,
    sfen: &'static str,
}

const TABLE: [Info; 15] = [
    Info {
        handicap: Handicap::Lance,
        name: "lance",
        japanese: "香落ち",
        sfen: "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::RightLance,
        name: "right-lance",
        japanese: "右香落ち",
        sfen: "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::Bishop,
        name: "bishop",
        japanese: "角落ち",
        sfen: "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::Rook,
        name: "rook",
        japanese: "飛車落ち",
        sfen: "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::RookLance,
        name: "rook-lance",
        japanese: "飛香落ち",
        sfen: "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::TwoPiece,
        name: "2-piece",
        japanese: "二枚落ち",
        sfen: "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::ThreePiece,
        name: "3-piece",
        japanese: "三枚落ち",
        sfen: "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::FourPiece,
        name: "4-piece",
        japanese: "四枚落ち",
        sfen: "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::FivePiece,
        name: "5-piece",
        japanese: "五枚落ち",
        sfen: "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::LeftFivePiece,
        name: "left-5-piece",
        japanese: "左五枚落ち",
        sfen: "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::SixPiece,
        name: "6-piece",
        japanese: "六枚落ち",
        sfen: "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::LeftSevenPiece,
        name: "left-7-piece",
        japanese: "左七枚落ち",
        sfen: "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::RightSevenPiece,
        name: "right-7-piece",
        japanese: "右七枚落ち",
        sfen: "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::EightPiece,
        name: "8-piece",
        japanese: "八枚落ち",
        sfen: "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
    Info {
        handicap: Handicap::TenPiece,
        name: "10-piece",
        japanese: "十枚落ち",
        sfen: "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    },
];

impl Handicap {
    /// Every handicap, lightest first.
    pub const ALL: [Handicap; 15] = [
        Handicap::Lance,
        Handicap::RightLance,
        Handicap::Bishop,
        Handicap::Rook,
        Handicap::RookLance,
        Handicap::TwoPiece,
        Handicap::ThreePiece,
        Handicap::FourPiece,
        Handicap::FivePiece,
        Handicap::LeftFivePiece,
        Handicap::SixPiece,
        Handicap::LeftSevenPiece,
        Handicap::RightSevenPiece,
        Handicap::EightPiece,
        Handicap::TenPiece,
    ];

    fn info(self) -> &'static Info {
        let info = &TABLE[self as usize];
        debug_assert_eq!(info.handicap, self);
        info
    }

    /// The stable English name, e.g. `2-piece`, `rook-lance`.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The Japanese name, e.g. `二枚落ち`.
    pub fn japanese(self) -> &'static str {
        self.info().japanese
    }

    /// The starting SFEN (White to move).
    pub fn sfen(self) -> &'static str {
        self.info().sfen
    }

    /// The starting position (built once, then copied).
    pub fn position(self) -> Position {
        static STARTS: std::sync::OnceLock<Vec<Position>> = std::sync::OnceLock::new();
        STARTS.get_or_init(|| {
            Handicap::ALL
                .iter()
                .map(|h| Position::from_sfen(h.sfen()).expect("handicap starts are legal"))
                .collect()
        })[self as usize]
            .clone()
    }

    /// The starting setup.
    pub fn setup(self) -> Setup {
        self.position().to_setup()
    }

    /// The handicap whose start has this board, hands and side to move (move number
    /// aside); `None` if it is no standard start.
    pub fn from_sfen(sfen: &str) -> Option<Handicap> {
        let setup = Setup::from_sfen(sfen).ok()?;
        Handicap::from_setup(&setup)
    }

    /// The handicap whose start is `setup` (move number aside).
    pub fn from_setup(setup: &Setup) -> Option<Handicap> {
        // Every handicap start has White to move and empty hands.
        if setup.turn != crate::Color::White
            || !setup.hands.black.is_empty()
            || !setup.hands.white.is_empty()
        {
            return None;
        }
        Handicap::ALL
            .into_iter()
            .find(|h| h.position().board() == &setup.board)
    }

    /// The impasse points of the pieces removed (5 per rook or bishop, 1 per other piece).
    pub fn removed_points(self) -> u32 {
        let setup = self.setup();
        27 - setup
            .board
            .iter()
            .filter(|(_, p)| p.color == crate::Color::White)
            .map(|(_, p)| p.role.points())
            .sum::<u32>()
    }
}

impl fmt::Display for Handicap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Not a handicap name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseHandicapError(pub String);

impl fmt::Display for ParseHandicapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown handicap '{}' (expected one of: ", self.0)?;
        for (i, h) in Handicap::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(h.name())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for ParseHandicapError {}

impl FromStr for Handicap {
    type Err = ParseHandicapError;

    /// Accepts the English name (`2-piece`) or the Japanese (`二枚落ち`).
    fn from_str(s: &str) -> Result<Handicap, ParseHandicapError> {
        Handicap::ALL
            .into_iter()
            .find(|h| h.name().eq_ignore_ascii_case(s) || h.japanese() == s)
            .ok_or_else(|| ParseHandicapError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_start_is_legal_and_named() {
        let points: Vec<u32> = Handicap::ALL.iter().map(|h| h.removed_points()).collect();
        assert_eq!(
            points,
            [1, 1, 5, 5, 6, 10, 11, 12, 13, 13, 14, 15, 15, 16, 18]
        );
        for h in Handicap::ALL {
            assert_eq!(h.position().turn(), crate::Color::White);
            assert_eq!(h.name().parse(), Ok(h));
            assert_eq!(h.japanese().parse(), Ok(h));
        }
        assert!(Handicap::from_sfen(crate::setup::STARTPOS_SFEN).is_none());
    }
}
