//! Mates in one by a check from close by: from a square next to the king or from a
//! knight's square. Such checks cannot be answered by a piece put between, and they are
//! the only checks that can mate when the defender could drop one between any other.

use super::checks::{every, opening_lines_onto};
use super::shallow::KingRoom;
use crate::{Bitboard, Color, Move, Position, Role, Setup, Square, attacks};

impl Position {
    /// The first check from close by that mates, where the side to move is not in check:
    /// a piece dropped or moved next to the king on a square another of its pieces
    /// defends (the king takes it otherwise), or a knight dropped or moved to a knight's
    /// square. Checks that uncover a slider are not among them.
    ///
    /// `free` are the squares the king can step to now: each must be attacked once the
    /// check is played, by the checker or along a line opened as it leaves its square
    /// (the pieces that may open one are `opening`, found here if not yet). A check that
    /// passes these tests is played on a copy.
    pub(super) fn close_mate_in_1(
        &self,
        room: &KingRoom,
        free: Bitboard,
        opening: &mut Option<Bitboard>,
    ) -> Option<Move> {
        debug_assert!(self.checkers.is_empty());
        let us = self.turn;
        let them = !us;
        let king = room.king;
        let board = &self.board;
        let own = board.by_color(us);
        let occupied = board.occupied();
        let beside = room.attacked & !own;
        let knight_squares = attacks::knight_attacks(them, king) & !own;
        // What the quick tests below leave open, a check played on a copy settles.
        let no_reply = |m: Move| {
            let mut after = self.clone();
            after.play_unchecked(m);
            !after.has_legal_moves()
        };

        // Drops, on the squares from which the piece attacks all of `free`.
        let hand = self.hands[us.index()];
        let drops = if hand.has_any(&CLOSE_DROPS) {
            &CLOSE_DROPS[..]
        } else {
            &[]
        };
        for &role in drops {
            if !hand.has(role) {
                continue;
            }
            let near = if role == Role::Knight {
                knight_squares
            } else {
                beside
            };
            let mut squares = near & !occupied & checks_from_close(them, role, king);
            // A step piece attacks a square from where a piece of the king's side of its
            // kind would attack it from that square.
            let step: Option<fn(Color, Square) -> Bitboard> = match role {
                Role::Knight => Some(attacks::knight_attacks),
                Role::Silver => Some(attacks::silver_attacks),
                Role::Gold => Some(attacks::gold_attacks),
                _ => None,
            };
            if let Some(step) = step {
                squares &= every(free, |sq| step(them, sq));
            }
            for to in self.legal_drops(role, squares) {
                // A slider next to the king attacks, of the squares next to the king,
                // those on its lines: beside it, or behind the king.
                let reach = match role {
                    Role::Lance => attacks::lance_rays(us, to),
                    Role::Bishop => attacks::bishop_rays(to),
                    Role::Rook => attacks::rook_rays(to),
                    _ => Bitboard::FULL,
                };
                let m = Move::Drop { role, to };
                if (free & !reach).is_empty() && no_reply(m) {
                    return Some(m);
                }
            }
        }

        // Moves, defended where they land next to the king: the piece on `to` (`role`,
        // promoted or not) attacks all of `free`, or, where leaving `from` may open a
        // line onto one of them, the king finds no square to step to.
        let mut mates = |m: Move, from: Square, role: Role| {
            let to = m.to();
            let after = occupied.with(to).without(king).without(from);
            if (free & !attacks::attacks(us, role, to, after)).is_empty() {
                return no_reply(m);
            }
            opening
                .get_or_insert_with(|| opening_lines_onto(self, free))
                .contains(from)
                && !self.king_steps_away_after(room, m)
                && no_reply(m)
        };
        let pinned_to = |from: Square| match self.kings[us.index()] {
            Some(ours) if self.pinned.contains(from) => attacks::line(ours, from),
            _ => Bitboard::FULL,
        };
        for to in knight_squares {
            if Setup::is_dead_square(us, Role::Knight, to) {
                continue;
            }
            let knights = attacks::knight_attacks(them, to) & board.by_role(Role::Knight) & own;
            for from in knights {
                let m = Move::Normal {
                    from,
                    to,
                    promote: false,
                };
                if pinned_to(from).contains(to) && mates(m, from, Role::Knight) {
                    return Some(m);
                }
            }
        }
        let movers = own & !board.by_role(Role::King);
        let sliders = (board.by_role(Role::Lance) | board.bishops() | board.rooks()) & own;
        for to in beside {
            let attackers = board.attackers_to(to, us, occupied);
            for from in attackers & movers {
                // The king takes a checker beside it that nothing defends: another piece
                // (the king of the side to move too), or a slider behind it on its line.
                let defended = attackers.without(from).is_nonempty()
                    || (attacks::line(to, from) & sliders)
                        .into_iter()
                        .any(|slider| {
                            let role = board.piece_at(slider).map_or(Role::King, |p| p.role);
                            attacks::between(to, slider).contains(from)
                                && attacks::reaches(us, role, slider, to, occupied.without(from))
                        });
                if !defended || !pinned_to(from).contains(to) {
                    continue;
                }
                let Some(piece) = board.piece_at(from) else {
                    continue;
                };
                let role = piece.role;
                if let Some(promoted) = role.promoted()
                    && (from.in_zone(us) || to.in_zone(us))
                    && checks_from_close(them, promoted, king).contains(to)
                {
                    let m = Move::Normal {
                        from,
                        to,
                        promote: true,
                    };
                    if mates(m, from, promoted) {
                        return Some(m);
                    }
                }
                if checks_from_close(them, role, king).contains(to)
                    && !Setup::is_dead_square(us, role, to)
                {
                    let m = Move::Normal {
                        from,
                        to,
                        promote: false,
                    };
                    if mates(m, from, role) {
                        return Some(m);
                    }
                }
            }
        }
        None
    }
}

/// The kinds whose drops may mate: all but the pawn, which may not (uchifuzume).
const CLOSE_DROPS: [Role; 6] = [
    Role::Rook,
    Role::Bishop,
    Role::Gold,
    Role::Silver,
    Role::Knight,
    Role::Lance,
];

/// The squares next to a king on `king`, and its knight's squares, from which a piece of
/// `role` of the side against `them` checks it: those a piece of `them` of that kind
/// would attack from the king's square, with a slider's reach cut to one step.
#[inline(always)]
fn checks_from_close(them: Color, role: Role, king: Square) -> Bitboard {
    match role {
        Role::Pawn | Role::Lance => attacks::pawn_attacks(them, king),
        Role::Knight => attacks::knight_attacks(them, king),
        Role::Silver => attacks::silver_attacks(them, king),
        Role::Gold | Role::ProPawn | Role::ProLance | Role::ProKnight | Role::ProSilver => {
            attacks::gold_attacks(them, king)
        }
        Role::Bishop => attacks::king_attacks(king) & attacks::bishop_rays(king),
        Role::Rook => attacks::king_attacks(king) & attacks::rook_rays(king),
        Role::Horse | Role::Dragon => attacks::king_attacks(king),
        Role::King => Bitboard::EMPTY,
    }
}
