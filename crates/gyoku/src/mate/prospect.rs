//! The condition that starts the JSA's impasse (Article 9): can either king still be
//! mated? Each side's chance, as a mate search by checks answers it.

use std::sync::atomic::AtomicBool;

use super::{Limits, Outcome, Report, Solver};
use crate::{ByColor, Color, Position};

/// What a mate search says of each side's chance to mate the other's king, for the impasse
/// calculator: a side's [`Report`] is [`Outcome::Mate`] with the line found, [`Outcome::NoMate`]
/// when no mate by checks exists (proved), or [`Outcome::Unknown`] within the budget.
///
/// The side to move is searched as it stands. The other side is searched as if it were its
/// turn (the side to move passes), unless the side to move is in check: then every reply
/// of the side to move is searched, and the other side mates only if it mates after each
/// (its line begins with the reply that resists longest; a side to move already mated
/// gives an empty line).
///
/// ```
/// use gyoku::{Color, Position};
/// use gyoku::mate::{Limits, Outcome, Prospects, Solver};
///
/// // Black to move has a gold for the head of White's king; White, with a lone pawn in
/// // hand, cannot mate Black's king.
/// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b Gp 1")?;
/// let limits = Limits { nodes: 10_000, ..Limits::default() };
/// let p = Prospects::search(&pos, &mut Solver::new(1 << 20), &limits, None);
/// assert!(matches!(&p.by.black.outcome, Outcome::Mate(line) if line.len() == 1));
/// assert_eq!(p.by.white.outcome, Outcome::NoMate);
/// assert_eq!(p.describe(Color::Black), "mate found in 1");
/// assert_eq!(p.describe(Color::White), "no mate (proved)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prospects {
    /// Each side's search, as the attacker: `by.black` is whether Black mates White.
    pub by: ByColor<Report>,
    /// The budget each side was searched with.
    pub limits: Limits,
}

impl Prospects {
    /// Searches both sides within `limits` each (the side not to move, when the side to
    /// move is in check, shares its budget among the replies).
    pub fn search(
        pos: &Position,
        solver: &mut Solver,
        limits: &Limits,
        cancel: Option<&AtomicBool>,
    ) -> Prospects {
        let mover = pos.turn();
        let own = solver.solve(pos, limits, cancel);
        let other = if pos.is_check() {
            after_each_reply(pos, solver, limits, cancel)
        } else {
            solver.solve(&passed(pos), limits, cancel)
        };
        let by = match mover {
            Color::Black => ByColor::new(own, other),
            Color::White => ByColor::new(other, own),
        };
        Prospects {
            by,
            limits: *limits,
        }
    }

    /// `color`'s chance in words: "mate found in N", "no mate within the budget" or "no
    /// mate (proved)".
    pub fn describe(&self, color: Color) -> String {
        match &self.by.get(color).outcome {
            Outcome::Mate(line) => format!("mate found in {}", line.len()),
            Outcome::Unknown => "no mate within the budget".to_string(),
            Outcome::NoMate => "no mate (proved)".to_string(),
        }
    }
}

/// `pos` with the other side to move, the board and hands unchanged.
fn passed(pos: &Position) -> Position {
    let mut setup = pos.to_setup();
    setup.turn = !setup.turn;
    // The side to move is not in check, so the new side not to move is not either; any
    // other fault was in `pos` already, accepted by whoever made it.
    Position::from_setup(setup).unwrap_or_else(|e| {
        e.ignore_all_safe()
            .expect("passing the turn of a position whose mover is not in check")
    })
}

/// Whether the side not to move mates after every reply of the side to move (in check).
fn after_each_reply(
    pos: &Position,
    solver: &mut Solver,
    limits: &Limits,
    cancel: Option<&AtomicBool>,
) -> Report {
    let mut nodes = 0u64;
    let mut longest: Option<Vec<crate::Move>> = Some(Vec::new());
    for reply in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(reply);
        let left = Limits {
            nodes: limits.nodes.saturating_sub(nodes).max(1),
            max_plies: limits.max_plies.saturating_sub(1),
        };
        let report = solver.solve(&after, &left, cancel);
        nodes += report.nodes;
        match report.outcome {
            Outcome::NoMate => {
                return Report {
                    outcome: Outcome::NoMate,
                    nodes,
                };
            }
            Outcome::Unknown => longest = None,
            Outcome::Mate(line) => {
                if let Some(best) = &mut longest
                    && line.len() + 1 > best.len()
                {
                    *best = std::iter::once(reply).chain(line).collect();
                }
            }
        }
    }
    Report {
        outcome: longest.map_or(Outcome::Unknown, Outcome::Mate),
        nodes,
    }
}
