//! Mates in one by a check from afar: a slider two or more squares from the king on one
//! of its lines, or a piece that uncovers one.

use super::checks::{Cover, INTERPOSE_ANYWHERE, opening_lines_onto};
use super::shallow::KingRoom;
use crate::{Bitboard, Move, Position, Role, Setup, attacks};

impl Position {
    /// The first check from afar that mates, where the side to move is not in check and
    /// no check from close by mates ([`Position::close_mate_in_1`]): the moves that
    /// uncover a slider, anywhere; then, unless the defender holds a piece it may drop
    /// on any square between (a gold, silver, bishop or rook), a slider's check from two
    /// or more squares away that attacks every square of `free` (the squares the king can
    /// step to now), or that opens a line onto one as the slider leaves its square
    /// (`opening`, found here if not yet). Each is ruled out where the king steps away
    /// or a piece from hand is dropped between, else played on a copy.
    pub(super) fn far_mate_in_1(
        &self,
        room: &KingRoom,
        free: Bitboard,
        opening: &mut Option<Bitboard>,
    ) -> Option<Move> {
        let us = self.turn;
        let them = !us;
        let king = room.king;
        let board = &self.board;
        let discoverers = self.discoverers(us, king);
        if discoverers.is_nonempty()
            && let Some(mate) = self.mate_in_1_among(room, |_| Cover::discovered(discoverers))
        {
            return Some(mate);
        }
        if self.hands[them.index()].has_any(&INTERPOSE_ANYWHERE) {
            return None;
        }
        let own = board.by_color(us);
        let occupied = board.occupied();
        let hand = self.hands[us.index()];
        let sliders =
            (board.by_role(Role::Lance) | board.bishops() | board.rooks()) & own & !discoverers;
        if sliders.is_empty() && !hand.has_any(&[Role::Lance, Role::Bishop, Role::Rook]) {
            return None;
        }
        // A lance checks along the king's file, from the side it moves toward.
        let lance_line = attacks::lance_rays(them, king);
        let fitting = attacks::far_checks(king, free, occupied, false);
        for (role, squares) in [
            (Role::Rook, fitting.orthogonal),
            (Role::Bishop, fitting.diagonal),
            (Role::Lance, fitting.orthogonal & lance_line),
        ] {
            if hand.has(role) {
                for to in self.legal_drops(role, squares & !occupied) {
                    let m = Move::Drop { role, to };
                    if self.mates(room, m) {
                        return Some(m);
                    }
                }
            }
        }
        // A slider that opens a line onto a square of `free` may check from anywhere
        // afar: that line may attack what its own does not.
        // Such a slider stands on a line through a square of `free`.
        let mut aligned = Bitboard::EMPTY;
        for sq in free {
            aligned |= attacks::rook_rays(sq) | attacks::bishop_rays(sq);
        }
        let opens = if (sliders & aligned).is_nonempty() {
            *opening.get_or_insert_with(|| opening_lines_onto(self, free)) & sliders
        } else {
            Bitboard::EMPTY
        };
        let anywhere = if opens.is_nonempty() {
            attacks::far_checks(king, free, occupied, true)
        } else {
            fitting
        };
        for from in sliders {
            let Some(piece) = board.piece_at(from) else {
                continue;
            };
            let role = piece.role;
            let lines = if opens.contains(from) {
                anywhere
            } else {
                fitting
            };
            // Where the piece checks from afar, as it is and promoted.
            let (plain, promoted) = match role {
                Role::Lance => (lines.orthogonal & lance_line, Bitboard::EMPTY),
                Role::Bishop => (lines.diagonal, lines.diagonal),
                Role::Rook => (lines.orthogonal, lines.orthogonal | lines.dragon),
                Role::Horse => (lines.diagonal, Bitboard::EMPTY),
                Role::Dragon => (lines.orthogonal | lines.dragon, Bitboard::EMPTY),
                _ => continue,
            };
            let wanted = plain | promoted;
            if wanted.is_empty() {
                continue;
            }
            let mut reach = attacks::attacks(us, role, from, occupied) & !own & wanted;
            if let Some(ours) = self.kings[us.index()]
                && self.pinned.contains(from)
            {
                reach &= attacks::line(ours, from);
            }
            for to in reach {
                if promoted.contains(to)
                    && role.can_promote()
                    && (from.in_zone(us) || to.in_zone(us))
                {
                    let m = Move::Normal {
                        from,
                        to,
                        promote: true,
                    };
                    if self.mates(room, m) {
                        return Some(m);
                    }
                }
                if plain.contains(to) && !Setup::is_dead_square(us, role, to) {
                    let m = Move::Normal {
                        from,
                        to,
                        promote: false,
                    };
                    if self.mates(room, m) {
                        return Some(m);
                    }
                }
            }
        }
        None
    }
}
