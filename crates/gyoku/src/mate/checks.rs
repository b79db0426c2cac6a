//! The checking moves: the legal moves of the side to move that attack the other king.
//!
//! A mate search's attacker plays nothing else, so it asks for these and no other move.
//! They are read off the legal moves a piece at a time: a destination checks when the
//! piece, standing there (promoted or not), attacks the king, or when the piece leaves the
//! line between the king and one of the mover's sliders.

use std::ops::ControlFlow;

use crate::{Bitboard, Color, Move, MoveList, PieceMoves, Position, Role, Setup, Square, attacks};

impl Position {
    /// Calls `f` with each legal move that gives check, until `f` breaks. A position whose
    /// other side has no king has none.
    ///
    /// Every move is legal, so a pawn drop that would mate (uchifuzume) is not among them.
    ///
    /// ```
    /// use gyoku::Position;
    /// use std::ops::ControlFlow;
    /// // A gold in hand and a pawn on 5c: the gold checks from 5b, 4b, 6b, 4a and 6a, and
    /// // the pawn pushed to 5b checks, promoted or not.
    /// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    /// let mut checks = Vec::new();
    /// let _ = pos.for_each_check(|m| {
    ///     checks.push(m.to_string());
    ///     ControlFlow::<()>::Continue(())
    /// });
    /// assert_eq!(checks.len(), 7);
    /// assert!(checks.contains(&"G*5b".to_string()) && checks.contains(&"5c5b+".to_string()));
    /// ```
    pub fn for_each_check<B>(&self, mut f: impl FnMut(Move) -> ControlFlow<B>) -> ControlFlow<B> {
        let us = self.turn;
        let them = !us;
        let Some(king) = self.kings[them.index()] else {
            return ControlFlow::Continue(());
        };
        let occupied = self.board.occupied();
        let discoverers = self.discoverers(us, king);
        let squares = CheckSquares::new(them, king, occupied);
        // A piece off the king's lines checks from the same squares as any other of its
        // kind; one on them may uncover a check or open a line for itself.
        let lines = attacks::rook_rays(king) | attacks::bishop_rays(king);
        let mut on_piece = |pm: PieceMoves| {
            let Some(from) = pm.from else {
                let to = pm.to & squares.of(pm.role);
                for to in to {
                    f(Move::Drop { role: pm.role, to })?;
                }
                return ControlFlow::Continue(());
            };
            let targets = if lines.contains(from) {
                CheckTargets::new(us, pm.role, from, king, occupied, discoverers)
            } else {
                squares.targets(pm.role)
            };
            for to in pm.to & (targets.plain | targets.promoted) {
                if targets.promoted.contains(to) && can_promote(us, pm.role, from, to) {
                    f(Move::Normal {
                        from,
                        to,
                        promote: true,
                    })?;
                }
                if targets.plain.contains(to) && !Setup::is_dead_square(us, pm.role, to) {
                    f(Move::Normal {
                        from,
                        to,
                        promote: false,
                    })?;
                }
            }
            ControlFlow::Continue(())
        };
        if self.checkers.is_nonempty() {
            // In check, only the evasions may check: the legal moves, filtered.
            return self.for_each_legal(on_piece);
        }
        let own = self.board.by_color(us);
        let our_king = self.kings[us.index()];
        // The king checks only by uncovering a slider.
        if let Some(ksq) = our_king.filter(|&k| discoverers.contains(k)) {
            let to = self
                .board
                .king_escapes(ksq, attacks::king_attacks(ksq) & !own, them);
            if to.is_nonempty() {
                on_piece(PieceMoves {
                    color: us,
                    role: Role::King,
                    from: Some(ksq),
                    to,
                })?;
            }
        }
        // Another piece checks only on a checking square of its kind or on the king's
        // lines (a slider moving along one), unless it uncovers a slider.
        let reach = if discoverers.is_nonempty() {
            !own
        } else {
            !own & (squares.any() | lines)
        };
        self.piece_moves(reach, our_king, &mut on_piece)?;
        self.drops(|role| squares.of(role) & !occupied, &mut on_piece)
    }

    /// The legal moves that give check, in the order [`Position::for_each_check`] finds
    /// them.
    ///
    /// ```
    /// use gyoku::Position;
    /// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    /// assert_eq!(pos.checking_moves().len(), 7);
    /// assert!(Position::startpos().checking_moves().is_empty());
    /// ```
    pub fn checking_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let _ = self.for_each_check(|m| {
            list.push(m);
            ControlFlow::<()>::Continue(())
        });
        list
    }

    /// Whether `m`, a legal move of the side to move, gives check.
    ///
    /// ```
    /// use gyoku::Position;
    /// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    /// assert!(pos.gives_check("G*4b".parse().unwrap()));
    /// assert!(!pos.gives_check("G*4c".parse().unwrap()));
    /// ```
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.turn;
        let them = !us;
        let Some(king) = self.kings[them.index()] else {
            return false;
        };
        let occupied = self.board.occupied();
        match m {
            Move::Drop { role, to } => attacks::attacks(them, role, king, occupied).contains(to),
            Move::Normal { from, to, promote } => {
                let Some(piece) = self.board.piece_at(from) else {
                    return false;
                };
                let discoverers = self.discoverers(us, king);
                let targets = CheckTargets::new(us, piece.role, from, king, occupied, discoverers);
                if promote {
                    targets.promoted.contains(to)
                } else {
                    targets.plain.contains(to)
                }
            }
        }
    }

    /// The pieces of `us` that stand alone between `king` and a slider of `us`: moved off
    /// that line, they give check.
    fn discoverers(&self, us: Color, king: Square) -> Bitboard {
        let them = !us;
        let board = &self.board;
        let occupied = board.occupied();
        let snipers = ((attacks::lance_rays(them, king) & board.by_role(Role::Lance))
            | (attacks::bishop_rays(king) & board.bishops())
            | (attacks::rook_rays(king) & board.rooks()))
            & board.by_color(us);
        let mut found = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if let Some(blocker) = blockers.single_square()
                && board.by_color(us).contains(blocker)
            {
                found = found.with(blocker);
            }
        }
        found
    }
}

/// Where a piece of each kind checks the king, standing on the board as it is: the
/// squares a piece of the king's side of that kind attacks from the king's square.
struct CheckSquares([Bitboard; 14]);

impl CheckSquares {
    fn new(them: Color, king: Square, occupied: Bitboard) -> CheckSquares {
        let gold = attacks::gold_attacks(them, king);
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let step = attacks::king_attacks(king);
        CheckSquares([
            attacks::pawn_attacks(them, king),
            attacks::lance_attacks(them, king, occupied),
            attacks::knight_attacks(them, king),
            attacks::silver_attacks(them, king),
            gold,
            bishop,
            rook,
            Bitboard::EMPTY,
            gold,
            gold,
            gold,
            gold,
            bishop | step,
            rook | step,
        ])
    }

    #[inline]
    fn of(&self, role: Role) -> Bitboard {
        self.0[role.index()]
    }

    /// Every square from which some piece checks.
    #[inline]
    fn any(&self) -> Bitboard {
        self.0.iter().fold(Bitboard::EMPTY, |all, &b| all | b)
    }

    /// Where a piece of `role` off the king's lines checks, as it is and promoted.
    #[inline]
    fn targets(&self, role: Role) -> CheckTargets {
        CheckTargets {
            plain: self.of(role),
            promoted: role.promoted().map_or(Bitboard::EMPTY, |p| self.of(p)),
        }
    }
}

/// Where a piece moving from one square checks the king: as it is, and promoted.
struct CheckTargets {
    plain: Bitboard,
    promoted: Bitboard,
}

impl CheckTargets {
    fn new(
        us: Color,
        role: Role,
        from: Square,
        king: Square,
        occupied: Bitboard,
        discoverers: Bitboard,
    ) -> CheckTargets {
        let them = !us;
        // The mover has left `from`: a slider may check through it.
        let occupied = occupied.without(from);
        let discovered = if discoverers.contains(from) {
            !attacks::line(king, from)
        } else {
            Bitboard::EMPTY
        };
        // Squares from which a piece of `us` attacks the king are those a piece of `them`
        // of the same kind attacks from the king's square.
        let plain = match role {
            Role::King => Bitboard::EMPTY,
            _ => attacks::attacks(them, role, king, occupied),
        } | discovered;
        let promoted = match role.promoted() {
            Some(promoted) => attacks::attacks(them, promoted, king, occupied) | discovered,
            None => Bitboard::EMPTY,
        };
        CheckTargets { plain, promoted }
    }
}

fn can_promote(us: Color, role: Role, from: Square, to: Square) -> bool {
    role.can_promote() && (from.in_zone(us) || to.in_zone(us))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checking moves are exactly the legal moves after which the other side is in
    /// check, over every position a few plies from some busy ones (discovered checks,
    /// promotions that check only promoted, drops, a king that uncovers a slider).
    #[test]
    fn checks_are_the_legal_moves_that_check() {
        fn walk(pos: &Position, depth: u32, compared: &mut u64) {
            let mut expected: Vec<Move> = pos
                .legal_moves()
                .into_iter()
                .filter(|&m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    after.is_check()
                })
                .collect();
            let mut found: Vec<Move> = pos.checking_moves().into_iter().collect();
            expected.sort();
            found.sort();
            assert_eq!(found, expected, "{}", pos.to_sfen());
            for &m in &expected {
                assert!(pos.gives_check(m), "{m} in {}", pos.to_sfen());
            }
            *compared += 1;
            if depth == 0 {
                return;
            }
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                walk(&child, depth - 1, compared);
            }
        }
        let mut compared = 0;
        for sfen in [
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8k/9/6GP1/9/9/9/9/9/K8 b RBGSNLP 1",
            // A bishop behind a silver, a rook behind a knight, a lance behind the king's
            // own pawn: discovered checks of every kind.
            "4k4/9/4N4/9/4R1S2/9/2B6/9/K8 b L 1",
            "3gk4/4p4/4L4/9/9/9/9/4K4/9 b S 1",
        ] {
            walk(&Position::from_sfen(sfen).unwrap(), 2, &mut compared);
        }
        assert!(compared > 10_000, "{compared}");
    }
}
