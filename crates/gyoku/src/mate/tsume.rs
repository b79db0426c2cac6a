//! A tsume problem's solution judged under the conventions of tsume collections: the
//! attacker checks at every move and ends with the defender mated; the defender resists
//! as long as it can, where a futile interposition (無駄合) counts for nothing; no piece is
//! left over in the attacker's hand (駒余り); and no other check of the attacker's mates
//! as soon (余詰), save at the last move, which conventions tolerate.
//!
//! ```
//! use gyoku::Position;
//! use gyoku::mate::{Solver, tsume};
//!
//! // A gold dropped on the king's head, guarded by the pawn.
//! let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1")?;
//! let mut solver = Solver::new(1 << 20);
//! let report = tsume::judge(&pos, &["G*5b".parse()?], &mut solver, 10_000);
//! assert!(report.is_correct(), "{report:?}");
//! // With a second gold in hand, one is left over.
//! let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b 2G 1")?;
//! let report = tsume::judge(&pos, &["G*5b".parse()?], &mut solver, 10_000);
//! assert_eq!(report.faults[0].code(), "pieces_left");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Limits, Solver, Within};
use crate::{Hand, IllegalMoveKind, Move, Position, Square};

/// A convention a solution breaks, and where (plies count from 1, the attacker's first
/// move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The rules refuse the move.
    IllegalMove {
        /// Its ply.
        ply: usize,
        /// The move.
        mv: Move,
        /// Why.
        kind: IllegalMoveKind,
    },
    /// An attacker's move that does not check.
    NotCheck {
        /// Its ply.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// The solution does not end with the defender mated.
    NotMated {
        /// The plies it has.
        plies: usize,
    },
    /// Pieces left in the attacker's hand at the end (駒余り).
    PiecesLeft {
        /// What is left.
        hand: Hand,
    },
    /// Another check mates within the plies the solution has left (余詰).
    AlternativeMate {
        /// The ply of the solution's move it replaces.
        ply: usize,
        /// The other check.
        mv: Move,
        /// The plies of the mate found after it, the check included.
        plies: u32,
    },
    /// Another reply of the defender is not mated at all (不詰).
    Escape {
        /// The ply of the solution's reply it replaces.
        ply: usize,
        /// The reply that escapes.
        mv: Move,
    },
    /// Another reply of the defender is not mated within the plies the solution has left:
    /// the solution's reply is not the longest resistance.
    LongerDefence {
        /// The ply of the solution's reply it replaces.
        ply: usize,
        /// The reply.
        mv: Move,
        /// The plies of a mate found after it (`None` when none was found in the budget).
        plies: Option<u32>,
    },
}

impl Fault {
    /// The stable name JSON output uses: `illegal_move`, `not_check`, `not_mated`,
    /// `pieces_left`, `alternative_mate`, `escape` or `longer_defence`.
    pub fn code(&self) -> &'static str {
        match self {
            Fault::IllegalMove { .. } => "illegal_move",
            Fault::NotCheck { .. } => "not_check",
            Fault::NotMated { .. } => "not_mated",
            Fault::PiecesLeft { .. } => "pieces_left",
            Fault::AlternativeMate { .. } => "alternative_mate",
            Fault::Escape { .. } => "escape",
            Fault::LongerDefence { .. } => "longer_defence",
        }
    }

    /// The ply the fault is at (the last for `not_mated` and `pieces_left`).
    pub fn ply(&self, plies: usize) -> usize {
        match *self {
            Fault::IllegalMove { ply, .. }
            | Fault::NotCheck { ply, .. }
            | Fault::AlternativeMate { ply, .. }
            | Fault::Escape { ply, .. }
            | Fault::LongerDefence { ply, .. } => ply,
            Fault::NotMated { .. } | Fault::PiecesLeft { .. } => plies,
        }
    }

    /// The move it names, if any.
    pub fn mv(&self) -> Option<Move> {
        match *self {
            Fault::IllegalMove { mv, .. }
            | Fault::NotCheck { mv, .. }
            | Fault::AlternativeMate { mv, .. }
            | Fault::Escape { mv, .. }
            | Fault::LongerDefence { mv, .. } => Some(mv),
            Fault::NotMated { .. } | Fault::PiecesLeft { .. } => None,
        }
    }
}

/// A move the search could not settle within its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undecided {
    /// The ply of the solution's move it stands beside.
    pub ply: usize,
    /// The other check (at an attacker's ply) or reply (at a defender's).
    pub mv: Move,
}

/// A solution's judgement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TsumeReport {
    /// The solution's plies.
    pub plies: usize,
    /// Every convention broken, by ply (when the line itself is not a mate, the searches
    /// for other moves are not made).
    pub faults: Vec<Fault>,
    /// Other moves the budget did not settle: the solution is then not proved correct.
    pub undecided: Vec<Undecided>,
    /// Other checks that mate at the last move (tolerated by the conventions).
    pub last_move_alternatives: Vec<Move>,
    /// Positions the searches expanded.
    pub nodes: u64,
}

impl TsumeReport {
    /// Whether the solution keeps every convention, every other move settled.
    pub fn is_correct(&self) -> bool {
        self.faults.is_empty() && self.undecided.is_empty()
    }
}

/// Judges `moves` as the solution of the tsume problem `start` (the attacker to move),
/// each search within `nodes`.
pub fn judge(start: &Position, moves: &[Move], solver: &mut Solver, nodes: u64) -> TsumeReport {
    let attacker = start.turn();
    let mut report = TsumeReport {
        plies: moves.len(),
        ..TsumeReport::default()
    };
    // The line itself, and the position before each move.
    let mut before = Vec::with_capacity(moves.len());
    let mut pos = start.clone();
    for (i, &mv) in moves.iter().enumerate() {
        let ply = i + 1;
        if let Err(kind) = pos.check_move(mv) {
            report.faults.push(Fault::IllegalMove { ply, mv, kind });
            return report;
        }
        if pos.turn() == attacker && !pos.gives_check(mv) {
            report.faults.push(Fault::NotCheck { ply, mv });
        }
        before.push(pos.clone());
        pos.play_unchecked(mv);
    }
    if pos.turn() == attacker || !super::dfpn::mated_by_convention(&mut pos.clone()) {
        report.faults.push(Fault::NotMated { plies: moves.len() });
    }
    if !report.faults.is_empty() {
        return report;
    }
    let left = pos.hand(attacker);
    if !left.is_empty() {
        report.faults.push(Fault::PiecesLeft { hand: left });
    }
    let n = moves.len();
    for (i, (pos, &played)) in before.iter().zip(moves).enumerate() {
        let ply = i + 1;
        // Plies after this move, to the end of the solution.
        let rest = u32::try_from(n - ply).unwrap_or(u32::MAX);
        if pos.turn() == attacker {
            for check in pos.checking_moves() {
                if check == played {
                    continue;
                }
                let mut after = pos.clone();
                after.play_unchecked(check);
                if ply == n {
                    if super::dfpn::mated_by_convention(&mut after) {
                        report.last_move_alternatives.push(check);
                    }
                    continue;
                }
                let limits = Limits {
                    nodes,
                    max_plies: rest,
                };
                let (within, spent) = solver.within(&after, attacker, &limits, true, None, None);
                report.nodes += spent;
                match within {
                    Within::Mate(plies) => report.faults.push(Fault::AlternativeMate {
                        ply,
                        mv: check,
                        plies: plies + 1,
                    }),
                    Within::Unknown => report.undecided.push(Undecided { ply, mv: check }),
                    Within::NotWithin | Within::NoMate => {}
                }
            }
        } else {
            for reply in pos.legal_moves() {
                if reply == played {
                    continue;
                }
                let interposed = interposition(pos, reply);
                let mut after = pos.clone();
                after.play_unchecked(reply);
                let limits = Limits {
                    nodes,
                    max_plies: rest,
                };
                let (within, spent) =
                    solver.within(&after, attacker, &limits, true, interposed, None);
                report.nodes += spent;
                match within {
                    Within::Mate(_) => {}
                    Within::Unknown => report.undecided.push(Undecided { ply, mv: reply }),
                    Within::NoMate => report.faults.push(Fault::Escape { ply, mv: reply }),
                    Within::NotWithin => {
                        // Not mated as soon: longer, or not at all.
                        let limits = Limits {
                            nodes,
                            ..Limits::default()
                        };
                        let (within, spent) =
                            solver.within(&after, attacker, &limits, true, interposed, None);
                        report.nodes += spent;
                        report.faults.push(match within {
                            Within::NoMate => Fault::Escape { ply, mv: reply },
                            Within::Mate(plies) => Fault::LongerDefence {
                                ply,
                                mv: reply,
                                plies: Some(plies),
                            },
                            Within::NotWithin | Within::Unknown => Fault::LongerDefence {
                                ply,
                                mv: reply,
                                plies: None,
                            },
                        });
                    }
                }
            }
        }
    }
    let plies = report.plies;
    report.faults.sort_by_key(|f| f.ply(plies));
    report
}

/// The checker's square and the drop's, when `reply` (the defender's, in check) drops a
/// piece between a distant checker and the king.
fn interposition(pos: &Position, reply: Move) -> Option<(Square, Square)> {
    let Move::Drop { to, .. } = reply else {
        return None;
    };
    let checker = pos.checkers().single_square()?;
    let king = pos.king(pos.turn())?;
    crate::attacks::between(checker, king)
        .contains(to)
        .then_some((checker, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Color;
    use crate::mate::tests::lenient as position;

    fn line(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    /// A fault's code and ply.
    type Said = (&'static str, usize);

    /// (SFEN, solution, the faults)
    const CASES: &[(&str, &str, &[Said])] = &[
        // Mate in three: the rook takes the silver and promotes, the king takes back, a
        // silver drop mates (the pawn may not be dropped to mate). Not a sound problem:
        // the pawn is left over, and the rook mates as well unpromoted.
        (
            "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1",
            "9a2a+ 1a2a S*2b",
            &[("alternative_mate", 1), ("pieces_left", 3)],
        ),
        // A gold on the king's head: sound.
        ("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", "G*5b", &[]),
        // A rook dropped far off: the pawn White could interpose anywhere on the file is
        // taken, and the king is mated as before, so the interposition is futile (無駄合)
        // and the rook's drop mates at once.
        ("7lk/7p1/7G1/9/9/9/9/9/9 b Rp 1", "R*1i", &[]),
        // Counting the futile interposition makes three plies where one will do: every
        // other rook drop mates sooner, and the pawn taken is left over.
        (
            "7lk/7p1/7G1/9/9/9/9/9/9 b Rp 1",
            "R*1i P*1e 1i1e",
            &[
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("alternative_mate", 1),
                ("pieces_left", 3),
            ],
        ),
        // The same with the defender's reply not taken back: not mated.
        (
            "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1",
            "9a2a+",
            &[("not_mated", 1)],
        ),
        // A quiet first move.
        (
            "4k4/9/4P4/9/9/9/9/9/4K4 b G 1",
            "5i4i",
            &[("not_check", 1), ("not_mated", 1)],
        ),
        // An illegal move ends the judging there.
        (
            "4k4/9/4P4/9/9/9/9/9/4K4 b G 1",
            "G*5a",
            &[("illegal_move", 1)],
        ),
    ];

    #[test]
    fn the_line_s_own_faults() {
        let mut solver = Solver::new(1 << 20);
        for &(sfen, solution, want) in CASES {
            let report = judge(&position(sfen), &line(solution), &mut solver, 100_000);
            let got: Vec<(&str, usize)> = report
                .faults
                .iter()
                .map(|f| (f.code(), f.ply(report.plies)))
                .collect();
            assert_eq!(got, want, "{sfen} {solution}: {report:?}");
            assert!(report.undecided.is_empty(), "{sfen}: {report:?}");
        }
    }

    #[test]
    fn a_futile_interposition_does_not_lengthen_a_mate() {
        // Every other rook drop on file 1 mates at once: the pawn White could put between
        // is taken, and counts for nothing (nor does its capture).
        let pos = position("7lk/7p1/7G1/9/9/9/9/9/9 b Rp 1");
        let report = judge(
            &pos,
            &line("R*1i P*1e 1i1e"),
            &mut Solver::new(1 << 20),
            100_000,
        );
        let lengths: Vec<u32> = report
            .faults
            .iter()
            .filter_map(|f| match f {
                Fault::AlternativeMate { plies, .. } => Some(*plies),
                _ => None,
            })
            .collect();
        assert_eq!(lengths, [1; 7], "{report:?}");
    }

    #[test]
    fn the_color_of_the_attacker_is_the_side_to_move() {
        let pos = Position::from_sfen("4k4/9/9/9/9/9/4p4/9/4K4 w g 1").unwrap();
        let report = judge(&pos, &line("G*5h"), &mut Solver::new(1 << 20), 1_000);
        assert!(report.is_correct(), "{report:?}");
        assert_eq!(pos.turn(), Color::White);
    }
}
