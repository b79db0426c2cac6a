//! Make and unmake: a move played so that it can be taken back without keeping a copy of
//! the position, for callers that walk a tree or take moves back often (the Python
//! binding's `push`/`pop`).

use crate::{Bitboard, Move, Piece, Position};

/// What [`Position::play_undoable`] changed that a move does not tell: the piece taken
/// and the cached state before the move. Small (about 50 bytes) where a position is
/// about 500.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    mv: Move,
    captured: Option<Piece>,
    checkers: Bitboard,
    pinned: Bitboard,
    board_key: u64,
    hand_key: u64,
    move_number: u32,
}

impl Undo {
    /// The move this takes back.
    #[inline]
    pub fn mv(&self) -> Move {
        self.mv
    }

    /// The hash of the position before the move (see [`Position::hash`]).
    #[inline]
    pub fn hash_before(&self) -> u64 {
        self.board_key ^ self.hand_key
    }
}

impl Position {
    /// Plays `m`, which must be legal (see [`Position::check_move`]), and returns what
    /// [`Position::undo`] needs to take it back.
    ///
    /// ```
    /// use gyoku::Position;
    /// let mut pos = Position::startpos();
    /// let before = pos.clone();
    /// let undo = pos.play_undoable("7g7f".parse().unwrap());
    /// pos.undo(undo);
    /// assert!(pos == before);
    /// ```
    pub fn play_undoable(&mut self, m: Move) -> Undo {
        let captured = match m {
            Move::Normal { to, .. } => self.board.piece_at(to),
            Move::Drop { .. } => None,
        };
        let undo = Undo {
            mv: m,
            captured,
            checkers: self.checkers,
            pinned: self.pinned,
            board_key: self.board_key,
            hand_key: self.hand_key,
            move_number: self.move_number,
        };
        self.play_unchecked(m);
        undo
    }

    /// Takes back the move `undo` came from, which must be the last one played on this
    /// position: the position is then equal to the one before it.
    pub fn undo(&mut self, undo: Undo) {
        let us = !self.turn;
        match undo.mv {
            Move::Normal { from, to, promote } => {
                let Some(placed) = self.board.piece_at(to) else {
                    debug_assert!(false, "no piece on {to} to take back");
                    return;
                };
                self.board.remove_piece(to, placed);
                let moved = if promote {
                    Piece::new(us, placed.role.unpromoted())
                } else {
                    placed
                };
                self.board.put_piece(from, moved);
                if let Some(captured) = undo.captured {
                    self.board.put_piece(to, captured);
                    let role = captured.role.unpromoted();
                    if role.is_hand_role() {
                        self.hands[us.index()].remove(role);
                    }
                }
                if moved.role == crate::Role::King {
                    self.kings[us.index()] = Some(from);
                }
            }
            Move::Drop { role, to } => {
                self.board.remove_piece(to, Piece::new(us, role));
                self.hands[us.index()].add(role);
            }
        }
        self.turn = us;
        self.checkers = undo.checkers;
        self.pinned = undo.pinned;
        self.board_key = undo.board_key;
        self.hand_key = undo.hand_key;
        self.move_number = undo.move_number;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every legal move from positions a few plies deep (drops, captures, promotions,
    /// king moves), played and taken back, leaves the position as it was.
    #[test]
    fn undo_restores_every_position_of_a_small_tree() {
        fn walk(pos: &mut Position, depth: u32, checked: &mut u64) {
            if depth == 0 {
                return;
            }
            for m in pos.legal_moves() {
                let before = pos.clone();
                let undo = pos.play_undoable(m);
                assert_eq!(pos.hash(), pos.compute_hash());
                walk(pos, depth - 1, checked);
                pos.undo(undo);
                assert!(*pos == before, "{m} from {}", before.to_sfen());
                *checked += 1;
            }
        }
        let mut checked = 0;
        for sfen in [
            crate::STARTPOS_SFEN,
            // Both sides with pieces in hand, captures and promotions on offer, a king near
            // the edge.
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8k/9/6GP1/9/9/9/9/9/K8 b RBGSNLP 1",
        ] {
            walk(&mut Position::from_sfen(sfen).unwrap(), 3, &mut checked);
        }
        assert!(checked > 100_000, "{checked}");
    }
}
