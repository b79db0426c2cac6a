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
    pub fn for_each_check<B>(&self, f: impl FnMut(Move) -> ControlFlow<B>) -> ControlFlow<B> {
        self.checks_where(&Cover::ANY, f)
    }

    /// Whether the side to move has a check.
    pub(super) fn has_check(&self) -> bool {
        self.for_each_check(|_| ControlFlow::Break(())).is_break()
    }

    /// The checks that may mate at once, a superset of them: no pawn drop (a pawn
    /// dropped to mate is not a legal move, uchifuzume), and, by `cover`, no check that
    /// leaves a square the king can step to now unattacked.
    pub(super) fn checks_that_may_mate<B>(
        &self,
        cover: &Cover,
        f: impl FnMut(Move) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        self.checks_where(cover, f)
    }

    /// [`Position::for_each_check`], of the checks `cover` lets through.
    #[inline(always)]
    fn checks_where<B>(
        &self,
        cover: &Cover,
        mut f: impl FnMut(Move) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let us = self.turn;
        let them = !us;
        let Some(king) = self.kings[them.index()] else {
            return ControlFlow::Continue(());
        };
        let occupied = self.board.occupied();
        let discoverers = self.discoverers(us, king);
        let squares = CheckSquares::new(them, king, occupied);
        let lines = attacks::rook_rays(king) | attacks::bishop_rays(king);
        let mut on_piece = |pm: PieceMoves| {
            let Some(from) = pm.from else {
                let to = pm.to & squares.of(pm.role) & cover.of(pm.role) & cover.to;
                for to in to {
                    f(Move::Drop { role: pm.role, to })?;
                }
                return ControlFlow::Continue(());
            };
            // A step piece's checking squares do not depend on the squares it leaves,
            // unless it uncovers a slider; a slider's do when it stands on the king's
            // lines (it may check through its own square, moving away along them).
            let own_lines = lines.contains(from)
                && matches!(
                    pm.role,
                    Role::Lance | Role::Bishop | Role::Rook | Role::Horse | Role::Dragon
                );
            let mut targets = if own_lines || discoverers.contains(from) {
                CheckTargets::new(us, pm.role, from, king, occupied, discoverers)
            } else {
                squares.targets(pm.role)
            };
            if !(cover.exempt.contains(from) || discoverers.contains(from)) {
                targets.plain &= cover.moved(pm.role);
                if let Some(promoted) = pm.role.promoted() {
                    targets.promoted &= cover.moved(promoted);
                }
            }
            let to_mask = if cover.anywhere.contains(from) {
                Bitboard::FULL
            } else {
                cover.to
            };
            for to in pm.to & (targets.plain | targets.promoted) & to_mask {
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
            // The king's lines hold every checking square but a knight's.
            !own & (squares.of(Role::Knight) | lines)
        };
        // Only the sliders, the pieces that may uncover one, and the step pieces near
        // the king can check.
        let among = (attacks::step_checkers_near(king) & cover.steppers())
            | self.board.by_role(Role::Lance)
            | self.board.bishops()
            | self.board.rooks()
            | discoverers;
        self.piece_moves_among(among, reach, our_king, &mut on_piece)?;
        self.drops(
            |role| squares.of(role) & !occupied & cover.of(role),
            &mut on_piece,
        )
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
    pub(super) fn discoverers(&self, us: Color, king: Square) -> Bitboard {
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

/// Which checks a search wants, by where the checking piece stands: a mate in one's
/// checks must attack every square the king can step to now (see [`Cover::for_mate`]).
pub(super) struct Cover {
    /// By kind: where a piece of it, dropped or moved there, may be wanted.
    by_role: [Bitboard; 14],
    /// The pieces whose moves are all wanted: leaving their square may open a line onto
    /// a square next to the king.
    exempt: Bitboard,
    /// Where the checks may land.
    to: Bitboard,
    /// The pieces whose checks may land anywhere, whatever `to` says.
    anywhere: Bitboard,
}

impl Cover {
    /// Every check.
    const ANY: Cover = Cover {
        by_role: [Bitboard::FULL; 14],
        exempt: Bitboard::FULL,
        to: Bitboard::FULL,
        anywhere: Bitboard::FULL,
    };

    /// The checks that may mate a king on `king` that can step to `free` now (its
    /// neighbours without a piece of its own that the side to move, `us`, does not
    /// attack). A check that leaves one of `free` unattacked does not mate: putting a
    /// piece on the board only blocks lines, and the king takes a checker on a square of
    /// `free` unless a line opens behind it. So a piece dropped, or a step piece moved,
    /// must stand where it attacks all of `free` (and so on none of it); the sliders
    /// moved, and the pieces between a square of `free` and a slider of `us` that sees
    /// it on an empty board, are exempt. No pawn drop is wanted: one that mates is
    /// illegal (uchifuzume).
    pub(super) fn for_mate(pos: &Position, king: Square, free: Bitboard) -> Cover {
        let us = pos.turn;
        let them = !us;
        let board = &pos.board;
        let mut cover = Cover {
            by_role: [Bitboard::FULL; 14],
            exempt: Bitboard::EMPTY,
            to: Bitboard::FULL,
            anywhere: Bitboard::EMPTY,
        };
        if free.is_empty() {
            return cover.without_pawn_drops();
        }
        let occupied = board.occupied().without(king);
        let hand = pos.hands[us.index()];
        let (lance, bishop, rook) = (
            hand.has(Role::Lance),
            hand.has(Role::Bishop),
            hand.has(Role::Rook),
        );
        // The squares from which a piece of `us` of a kind attacks a square are those a
        // piece of `them` of the kind attacks from it; the sliders' only for drops.
        let by_role = &mut cover.by_role;
        by_role[Role::Pawn.index()] = every(free, |sq| attacks::pawn_attacks(them, sq));
        by_role[Role::Knight.index()] = every(free, |sq| attacks::knight_attacks(them, sq));
        by_role[Role::Silver.index()] = every(free, |sq| attacks::silver_attacks(them, sq));
        by_role[Role::Gold.index()] = every(free, |sq| attacks::gold_attacks(them, sq));
        if lance {
            by_role[Role::Lance.index()] =
                every(free, |sq| attacks::lance_attacks(them, sq, occupied));
        }
        if bishop {
            by_role[Role::Bishop.index()] = every(free, |sq| attacks::bishop_attacks(sq, occupied));
        }
        if rook {
            by_role[Role::Rook.index()] = every(free, |sq| attacks::rook_attacks(sq, occupied));
        }
        cover.exempt = opening_lines_onto(pos, free);
        cover.without_pawn_drops()
    }

    /// The checks that uncover a slider, the moves of `discoverers` (the pieces that
    /// stand alone between the other king and a slider of the side to move), and no
    /// other.
    pub(super) fn discovered(discoverers: Bitboard) -> Cover {
        Cover {
            by_role: [Bitboard::EMPTY; 14],
            exempt: Bitboard::EMPTY,
            to: Bitboard::EMPTY,
            anywhere: discoverers,
        }
    }

    /// Only the checks that land beside the king: most mates in one do, and their proofs
    /// need only the pieces they use (a mate from afar needs, besides, every kind the
    /// defender could interpose).
    pub(super) fn beside(mut self, king: Square) -> Cover {
        self.to = attacks::king_attacks(king);
        self
    }

    /// Whether no check is wanted.
    pub(super) fn is_none(&self) -> bool {
        self.to.is_empty() && self.anywhere.is_empty()
    }

    /// The kind's squares for a pawn drop are none; a pawn moved is still wanted where
    /// it attacks all of the free squares, which [`Cover::moved`] reads.
    fn without_pawn_drops(mut self) -> Cover {
        self.by_role[PAWN_MOVED] = self.by_role[Role::Pawn.index()];
        self.by_role[Role::Pawn.index()] = Bitboard::EMPTY;
        self
    }

    /// The squares of the step pieces whose moves may be wanted: all, or none when no
    /// step piece anywhere attacks every free square (the exempt are wanted apart).
    #[inline]
    fn steppers(&self) -> Bitboard {
        let any = [
            PAWN_MOVED,
            Role::Knight.index(),
            Role::Silver.index(),
            Role::Gold.index(),
        ]
        .iter()
        .any(|&i| self.by_role[i].is_nonempty());
        if any { Bitboard::FULL } else { self.exempt }
    }

    /// Where a drop of `role` may be wanted.
    #[inline]
    fn of(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// Where a piece that is `role` once moved may be wanted (a slider's every move is).
    #[inline]
    fn moved(&self, role: Role) -> Bitboard {
        match role {
            Role::Pawn => self.by_role[PAWN_MOVED],
            Role::Knight | Role::Silver | Role::Gold => self.by_role[role.index()],
            Role::ProPawn | Role::ProLance | Role::ProKnight | Role::ProSilver => {
                self.by_role[Role::Gold.index()]
            }
            _ => Bitboard::FULL,
        }
    }
}

/// The pieces of the side to move that stand between a square of `free` and a slider of
/// theirs that would attack it on an empty board: as they move, a line may open onto it.
pub(super) fn opening_lines_onto(pos: &Position, free: Bitboard) -> Bitboard {
    let us = pos.turn;
    let them = !us;
    let board = &pos.board;
    let own = board.by_color(us);
    let lances = board.by_role(Role::Lance) & own;
    let bishops = board.bishops() & own;
    let rooks = board.rooks() & own;
    let mut opening = Bitboard::EMPTY;
    for sq in free {
        let sliders = (attacks::lance_rays(them, sq) & lances)
            | (attacks::bishop_rays(sq) & bishops)
            | (attacks::rook_rays(sq) & rooks);
        for slider in sliders {
            opening |= attacks::between(sq, slider);
        }
    }
    opening
}

/// The squares that are in `attacked_from(sq)` for every square `sq` of `squares`.
#[inline(always)]
pub(super) fn every(squares: Bitboard, attacked_from: impl Fn(Square) -> Bitboard) -> Bitboard {
    let mut mask = Bitboard::FULL;
    for sq in squares {
        mask &= attacked_from(sq);
        if mask.is_empty() {
            break;
        }
    }
    mask
}

/// The kinds that may be dropped on any empty square: one in the defender's hand answers
/// every single check from afar.
pub(super) const INTERPOSE_ANYWHERE: [Role; 4] =
    [Role::Gold, Role::Silver, Role::Bishop, Role::Rook];

/// Where [`Cover`] keeps the pawn's squares for moves, apart from its drops: the king's
/// slot, which no drop or step piece reads.
const PAWN_MOVED: usize = Role::King.index();

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
