//! Mate search: can the side to move force mate by checks?
//!
//! A *mate* here is what a tsume problem asks: the attacker (the side to move) checks at
//! every move, the defender answers with any legal move, and the defender ends with no
//! legal move. Every move comes from the core's legal-move code, so a pawn drop that would
//! mate is never played (uchifuzume), while a pawn pushed to mate is.
//!
//! - [`Position::mate_in_1`] and [`Position::mate_in_3`]: direct search, shortest first.
//! - [`Solver`]: a df-pn search for longer mates, with a transposition table of a fixed
//!   size, bounded by nodes and cancellable from another thread. It answers
//!   [`Outcome::Mate`] with a line, [`Outcome::NoMate`] only when that is proved, or
//!   [`Outcome::Unknown`] when the budget ran out first.
//!
//! No I/O, no threads of its own.
//!
//! ```
//! use gyoku::Position;
//! use gyoku::mate::{Limits, Outcome, Solver};
//!
//! // A gold dropped on the king's head, guarded by the pawn: mate at once.
//! let pos = Position::from_sfen("8k/9/8P/9/9/9/9/9/4K4 b 2G 1")?;
//! let report = Solver::new(1 << 20).solve(&pos, &Limits::default(), None);
//! let Outcome::Mate(line) = report.outcome else { panic!("{report:?}") };
//! assert_eq!(line.len(), 1);
//!
//! // A lone pawn in hand cannot mate the same king.
//! let pos = Position::from_sfen("8k/9/9/9/9/9/9/9/4K4 b P 1")?;
//! let report = Solver::new(1 << 20).solve(&pos, &Limits::default(), None);
//! assert_eq!(report.outcome, Outcome::NoMate);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checks;
mod close;
mod dfpn;
mod far;
mod prospect;
mod shallow;
mod table;
pub mod tsume;

pub use prospect::Prospects;

use std::sync::atomic::AtomicBool;

use crate::{Move, Position};

/// How far a [`Solver`] may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most positions the df-pn search expands before it answers
    /// [`Outcome::Unknown`].
    pub nodes: u64,
    /// The longest line searched, in plies; a mate longer than this is not found.
    pub max_plies: u32,
}

impl Default for Limits {
    /// Ten million nodes, lines up to 1,000 plies.
    fn default() -> Limits {
        Limits {
            nodes: 10_000_000,
            max_plies: 1_000,
        }
    }
}

/// What a mate search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move mates: the line, attacker's move first, ending in mate. A line of
    /// one or three plies is the shortest mate; a longer one is the mate the search proved,
    /// which may not be the shortest.
    Mate(Vec<Move>),
    /// No mate exists, proved.
    NoMate,
    /// Neither proved within the budget (or the search was cancelled).
    Unknown,
}

impl Outcome {
    /// The stable name JSON output uses: `mate`, `no_mate` or `unknown`.
    ///
    /// ```
    /// assert_eq!(gyoku::mate::Outcome::NoMate.code(), "no_mate");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Outcome::Mate(_) => "mate",
            Outcome::NoMate => "no_mate",
            Outcome::Unknown => "unknown",
        }
    }
}

/// A search's answer and what it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// What was found.
    pub outcome: Outcome,
    /// Positions the df-pn search expanded (0 when a mate in one or three answered).
    pub nodes: u64,
}

/// A df-pn mate solver with its transposition table, allocated once and reused from one
/// search to the next (each search starts from an empty table).
pub struct Solver {
    table: table::Table,
}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("table_bytes", &self.table.bytes())
            .finish()
    }
}

impl Solver {
    /// A solver whose table takes about `table_bytes` bytes.
    pub fn new(table_bytes: usize) -> Solver {
        Solver {
            table: table::Table::with_bytes(table_bytes),
        }
    }

    /// The bytes the table takes.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Whether the side to move of `pos` can force mate. Mates in one and three are looked
    /// for directly first (so those lines are the shortest; within `limits.max_plies`),
    /// then the df-pn search runs
    /// within `limits`; setting `cancel` to true from another thread stops it soon after
    /// (answering [`Outcome::Unknown`]).
    pub fn solve(
        &mut self,
        pos: &Position,
        limits: &Limits,
        cancel: Option<&AtomicBool>,
    ) -> Report {
        let shallow = match limits.max_plies {
            0 => None,
            1 | 2 => pos.mate_in_1().map(|m| vec![m]),
            _ => pos.mate_in_3(),
        };
        if let Some(line) = shallow {
            return Report {
                outcome: Outcome::Mate(line),
                nodes: 0,
            };
        }
        self.table.clear();
        let mut search = dfpn::DfPn::new(
            &mut self.table,
            pos.turn(),
            limits.nodes,
            limits.max_plies,
            cancel,
        );
        let mut root = pos.clone();
        let entry = search.search(&mut root);
        let outcome = if entry.is_proof() {
            match search.line(pos) {
                Some(line) => Outcome::Mate(line),
                None => Outcome::Unknown,
            }
        } else if entry.dn == 0 && entry.basis != table::Basis::DepthLimit {
            Outcome::NoMate
        } else {
            Outcome::Unknown
        };
        Report {
            outcome,
            nodes: search.nodes,
        }
    }
}

/// What a search bounded in plies says of one side's mate ([`Solver::mate_within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// A mate in this many plies (the one the search proved; not always the shortest).
    Mate(u32),
    /// No mate within the plies allowed, proved; one may exist beyond them.
    NotWithin,
    /// No mate at all, proved.
    NoMate,
    /// Neither proved within the node budget.
    Unknown,
}

impl Solver {
    /// Whether `attacker` mates from `pos` within `limits.max_plies` plies, `pos` having
    /// either side to move (the defender to move: after a check). With `tsume`, a drop
    /// between a distant checker and the king that the checker takes, and after which
    /// the mate goes on without the piece taken, is a futile interposition (無駄合): it
    /// and its capture are not counted.
    ///
    /// ```
    /// use gyoku::{Color, Position};
    /// use gyoku::mate::{Limits, Solver, Within};
    /// // The rook takes the silver, the king takes back, a silver drop mates: three plies.
    /// let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1")?;
    /// let mut solver = Solver::new(1 << 20);
    /// let within = |n| Limits { nodes: 10_000, max_plies: n };
    /// let ask = |solver: &mut Solver, n| solver.mate_within(&pos, Color::Black, &within(n), false, None).0;
    /// assert_eq!(ask(&mut solver, 1), Within::NotWithin);
    /// assert_eq!(ask(&mut solver, 3), Within::Mate(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mate_within(
        &mut self,
        pos: &Position,
        attacker: crate::Color,
        limits: &Limits,
        tsume: bool,
        cancel: Option<&AtomicBool>,
    ) -> (Within, u64) {
        self.within(pos, attacker, limits, tsume, None, cancel)
    }

    /// [`Solver::mate_within`], with the interposition the defender's last move made (the
    /// checker's square and the drop's) when `pos` follows one.
    pub(crate) fn within(
        &mut self,
        pos: &Position,
        attacker: crate::Color,
        limits: &Limits,
        tsume: bool,
        interposed: Option<(crate::Square, crate::Square)>,
        cancel: Option<&AtomicBool>,
    ) -> (Within, u64) {
        self.table.clear();
        let max_plies = limits
            .max_plies
            .saturating_add(u32::from(interposed.is_some()));
        let mut search =
            dfpn::DfPn::new(&mut self.table, attacker, limits.nodes, max_plies, cancel);
        search.futile_drops = tsume;
        let mut root = pos.clone();
        let entry = search.search_from(&mut root, interposed);
        let within = if entry.is_proof() {
            Within::Mate(u32::try_from(entry.plies.max(0)).unwrap_or(0))
        } else if entry.dn == 0 && entry.basis == table::Basis::DepthLimit {
            Within::NotWithin
        } else if entry.dn == 0 {
            Within::NoMate
        } else {
            Within::Unknown
        };
        (within, search.nodes)
    }
}

#[cfg(test)]
mod tests;
