//! Perft: counting the leaves of the legal-move tree.

use crate::{Move, Position};

/// The number of move sequences of length `depth` from `pos`. The last ply is counted,
/// not played ("bulk counting").
///
/// ```
/// use gyoku::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 3), 25_470);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            let mut nodes = 0;
            let _ = pos.for_each_legal(|pm| {
                pm.for_each(|m| {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    nodes += perft(&child, depth - 1);
                });
                std::ops::ControlFlow::<()>::Continue(())
            });
            nodes
        }
    }
}

/// Perft split by first move, in generation order: each legal move with the leaves under it.
///
/// ```
/// use gyoku::{divide, Position};
/// let rows = divide(&Position::startpos(), 2);
/// assert_eq!(rows.len(), 30);
/// assert!(rows.iter().all(|(_, n)| *n == 30));
/// ```
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth - 1))
        })
        .collect()
}
