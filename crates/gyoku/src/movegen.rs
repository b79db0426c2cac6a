//! Legal move generation.
//!
//! The generator hands out moves a piece at a time, as a [`PieceMoves`]: one origin (or a
//! drop) and the set of legal destinations. A caller that only counts (perft, "has any
//! legal move") counts a whole set with a popcount; [`Position::legal_moves`] expands the
//! sets into a [`MoveList`].

use std::ops::ControlFlow;

use crate::attacks;
use crate::{Bitboard, Color, IllegalMoveKind, Move, MoveList, Piece, Position, Role, Square};

/// The legal moves of one piece, or the legal drops of one kind.
///
/// ```
/// use gyoku::Position;
/// let pos = Position::startpos();
/// let mut total = 0;
/// pos.for_each_legal(|pm| {
///     total += pm.len();
///     std::ops::ControlFlow::<()>::Continue(())
/// });
/// assert_eq!(total, 30);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceMoves {
    /// The side moving.
    pub color: Color,
    /// The kind moved or dropped.
    pub role: Role,
    /// The origin; `None` for drops.
    pub from: Option<Square>,
    /// The legal destinations.
    pub to: Bitboard,
}

/// Destinations where a piece of this kind, from this square, may promote *or* not, so
/// that they count twice.
#[inline]
fn both_ways(color: Color, role: Role, from: Square) -> Bitboard {
    match role {
        Role::Pawn | Role::Lance => Bitboard::far_ranks(color, 3) & !Bitboard::far_ranks(color, 1),
        Role::Knight => Bitboard::far_ranks(color, 3) & !Bitboard::far_ranks(color, 2),
        Role::Silver | Role::Bishop | Role::Rook => {
            if from.in_zone(color) {
                Bitboard::FULL
            } else {
                Bitboard::zone(color)
            }
        }
        _ => Bitboard::EMPTY,
    }
}

impl PieceMoves {
    /// The number of moves, counting a destination twice where the piece may promote or not.
    #[inline]
    pub fn len(&self) -> usize {
        match self.from {
            None => self.to.count() as usize,
            Some(from) => {
                (self.to.count() + (self.to & both_ways(self.color, self.role, from)).count())
                    as usize
            }
        }
    }

    /// Whether there is no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// Calls `f` with each move (a promotion before the move without it).
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(Move)) {
        let _ = self.try_for_each(|m| {
            f(m);
            ControlFlow::<()>::Continue(())
        });
    }

    /// Calls `f` with each move, as [`PieceMoves::for_each`] does, until `f` breaks.
    ///
    /// ```
    /// use gyoku::Position;
    /// use std::ops::ControlFlow;
    /// // The first legal move of the start position that is a promotion: there is none.
    /// let found = Position::startpos().for_each_legal(|pm| {
    ///     pm.try_for_each(|m| match m {
    ///         gyoku::Move::Normal { promote: true, .. } => ControlFlow::Break(m),
    ///         _ => ControlFlow::Continue(()),
    ///     })
    /// });
    /// assert!(found.is_continue());
    /// ```
    #[inline]
    pub fn try_for_each<B>(&self, mut f: impl FnMut(Move) -> ControlFlow<B>) -> ControlFlow<B> {
        let Some(from) = self.from else {
            for to in self.to {
                f(Move::Drop {
                    role: self.role,
                    to,
                })?;
            }
            return ControlFlow::Continue(());
        };
        let color = self.color;
        let can_promote = self.role.can_promote();
        for to in self.to {
            if can_promote && (from.in_zone(color) || to.in_zone(color)) {
                f(Move::Normal {
                    from,
                    to,
                    promote: true,
                })?;
                if crate::Setup::is_dead_square(color, self.role, to) {
                    continue;
                }
            }
            f(Move::Normal {
                from,
                to,
                promote: false,
            })?;
        }
        ControlFlow::Continue(())
    }
}

impl Position {
    /// The moves of the pieces on the board but the king, to squares in `target`.
    #[inline(always)]
    pub(crate) fn piece_moves<B>(
        &self,
        target: Bitboard,
        king: Option<Square>,
        f: &mut impl FnMut(PieceMoves) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        self.piece_moves_among(self.board.by_color(self.turn), target, king, f)
    }

    /// [`Position::piece_moves`] of the pieces of the side to move on `among` only.
    #[inline(always)]
    pub(crate) fn piece_moves_among<B>(
        &self,
        among: Bitboard,
        target: Bitboard,
        king: Option<Square>,
        f: &mut impl FnMut(PieceMoves) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let us = self.turn;
        let board = &self.board;
        let own = board.by_color(us) & among;
        let occupied = board.occupied();
        let pinned = self.pinned;
        let mut emit = |role: Role, from: Square, attacks: Bitboard| {
            let mut to = attacks & target;
            if let Some(ksq) = king
                && pinned.contains(from)
            {
                to &= attacks::line(ksq, from);
            }
            if to.is_nonempty() {
                f(PieceMoves {
                    color: us,
                    role,
                    from: Some(from),
                    to,
                })
            } else {
                ControlFlow::Continue(())
            }
        };
        for from in board.by_role(Role::Pawn) & own {
            emit(Role::Pawn, from, attacks::pawn_attacks(us, from))?;
        }
        for from in board.by_role(Role::Lance) & own {
            emit(
                Role::Lance,
                from,
                attacks::lance_attacks(us, from, occupied),
            )?;
        }
        for from in board.by_role(Role::Knight) & own {
            emit(Role::Knight, from, attacks::knight_attacks(us, from))?;
        }
        for from in board.by_role(Role::Silver) & own {
            emit(Role::Silver, from, attacks::silver_attacks(us, from))?;
        }
        for from in board.golds() & own {
            let role = board.piece_at(from).map_or(Role::Gold, |p| p.role);
            emit(role, from, attacks::gold_attacks(us, from))?;
        }
        for from in board.bishops() & own {
            let role = board.piece_at(from).map_or(Role::Bishop, |p| p.role);
            let mut to = attacks::bishop_attacks(from, occupied);
            if role == Role::Horse {
                to |= attacks::king_attacks(from);
            }
            emit(role, from, to)?;
        }
        for from in board.rooks() & own {
            let role = board.piece_at(from).map_or(Role::Rook, |p| p.role);
            let mut to = attacks::rook_attacks(from, occupied);
            if role == Role::Dragon {
                to |= attacks::king_attacks(from);
            }
            emit(role, from, to)?;
        }
        ControlFlow::Continue(())
    }

    /// Calls `f` with the legal moves, a piece (or a drop kind) at a time, until `f` breaks.
    ///
    /// Every legal move is in exactly one [`PieceMoves`]; none is illegal.
    #[inline]
    pub fn for_each_legal<B>(
        &self,
        mut f: impl FnMut(PieceMoves) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let us = self.turn;
        let them = !us;
        let board = &self.board;
        let own = board.by_color(us);
        let occupied = board.occupied();
        let mut target = !own;
        let mut drop_target = !occupied;

        if let Some(ksq) = self.kings[us.index()] {
            let king_to = board.king_escapes(ksq, attacks::king_attacks(ksq) & !own, them);
            if king_to.is_nonempty() {
                f(PieceMoves {
                    color: us,
                    role: Role::King,
                    from: Some(ksq),
                    to: king_to,
                })?;
            }
            if let Some(checker) = self.checkers.first() {
                if self.checkers.has_more_than_one() {
                    return ControlFlow::Continue(());
                }
                drop_target = attacks::between(ksq, checker);
                target = drop_target.with(checker);
            }
            self.piece_moves(target, Some(ksq), &mut f)?;
        } else {
            self.piece_moves(target, None, &mut f)?;
        }

        if drop_target.is_empty() {
            return ControlFlow::Continue(());
        }
        self.drops(|_| drop_target, &mut f)
    }

    /// The legal drops of each kind in hand onto `squares(kind)` (empty squares where a
    /// drop would not leave the mover in check), a kind at a time.
    #[inline(always)]
    pub(crate) fn drops<B>(
        &self,
        squares: impl Fn(Role) -> Bitboard,
        f: &mut impl FnMut(PieceMoves) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let hand = self.hands[self.turn.index()];
        for role in Role::HAND.into_iter().filter(|&r| hand.has(r)) {
            let to = self.legal_drops(role, squares(role));
            if to.is_nonempty() {
                f(PieceMoves {
                    color: self.turn,
                    role,
                    from: None,
                    to,
                })?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The squares of `to` (empty squares where a drop would not leave the mover in
    /// check) where the side to move may drop a `role` it holds: not where the piece could
    /// never move, no pawn on a file with its own unpromoted pawn, and no pawn that mates.
    #[inline]
    pub(crate) fn legal_drops(&self, role: Role, mut to: Bitboard) -> Bitboard {
        let us = self.turn;
        match role {
            Role::Pawn => {
                to &= !Bitboard::far_ranks(us, 1)
                    & !self.board.by_piece(Piece::new(us, Role::Pawn)).file_fill();
                if let Some(king) = self.kings[(!us).index()] {
                    // The one drop that checks: in front of the enemy king.
                    let checking = attacks::pawn_attacks(!us, king) & to;
                    if let Some(sq) = checking.first()
                        && self.is_pawn_drop_mate(sq)
                    {
                        to = to.without(sq);
                    }
                }
            }
            Role::Lance => to &= !Bitboard::far_ranks(us, 1),
            Role::Knight => to &= !Bitboard::far_ranks(us, 2),
            _ => {}
        }
        to
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let _ = self.for_each_legal(|pm| {
            pm.for_each(|m| list.push(m));
            ControlFlow::<()>::Continue(())
        });
        list
    }

    /// The illegal moves a player can physically make on a real board, with why each is
    /// illegal: a pawn dropped for nifu or uchifuzume, a piece moved or dropped where it
    /// could never move again, a move that leaves the mover's king in check. Every other
    /// illegal move (a piece moving as it cannot, a promotion that does not exist, a drop of
    /// a piece not in hand) cannot be played with real pieces. Under tournament rules these
    /// are the fouls that lose, as on 81Dojo; a board on a screen offers these and the
    /// legal moves, and nothing else.
    ///
    /// It asks [`Position::check_move`] of every move a piece could be put through, so it
    /// costs a few thousand checks: for a page, not a search.
    ///
    /// ```
    /// use gyoku::{IllegalMoveKind, Position};
    /// // White's pawn on 5c: Black's pawn drop on the 5th file is nifu.
    /// let pos = Position::from_sfen("4k4/9/4p4/9/9/9/4P4/9/4K4 b P 1").unwrap();
    /// let fouls = pos.physical_fouls();
    /// assert!(fouls.contains(&("P*5e".parse().unwrap(), IllegalMoveKind::Nifu)));
    /// assert!(fouls.iter().all(|(m, _)| !pos.legal_moves().contains(m)));
    /// ```
    pub fn physical_fouls(&self) -> Vec<(Move, IllegalMoveKind)> {
        let mut out = Vec::new();
        let mut consider = |m: Move| {
            if let Err(k) = self.check_move(m)
                && k.is_physical()
            {
                out.push((m, k));
            }
        };
        let mine = self.board.by_color(self.turn);
        for from in Square::all().filter(|&sq| mine.contains(sq)) {
            for to in Square::all().filter(|&sq| !mine.contains(sq)) {
                for promote in [false, true] {
                    consider(Move::Normal { from, to, promote });
                }
            }
        }
        let hand = self.hands[self.turn.index()];
        for (role, _) in hand.iter().filter(|&(_, n)| n > 0) {
            for to in Square::all().filter(|&sq| !self.board.occupied().contains(sq)) {
                consider(Move::Drop { role, to });
            }
        }
        out
    }

    /// The number of legal moves, counted without listing them.
    pub fn count_legal_moves(&self) -> usize {
        let mut n = 0;
        let count = |pm: PieceMoves| {
            n += pm.len();
            ControlFlow::<()>::Continue(())
        };
        let _ = match self.kings[self.turn.index()] {
            Some(king) if self.checkers.is_nonempty() => self.for_each_evasion(king, count),
            _ => self.for_each_legal(count),
        };
        n
    }

    /// Whether the side to move has a legal move.
    pub fn has_legal_moves(&self) -> bool {
        // Not in check, some piece other than the king usually has a move: look there
        // first, before the king's escapes.
        if self.checkers.is_empty() {
            // A gold, silver, bishop or rook in hand can be dropped on any empty square.
            let hand = self.hands[self.turn.index()];
            if (hand.has(Role::Gold)
                || hand.has(Role::Silver)
                || hand.has(Role::Bishop)
                || hand.has(Role::Rook))
                && self.board.occupied() != Bitboard::FULL
            {
                return true;
            }
            let target = !self.board.by_color(self.turn);
            let found = self
                .piece_moves(target, self.kings[self.turn.index()], &mut |_| {
                    ControlFlow::Break(())
                })
                .is_break();
            if found {
                return true;
            }
        } else if let Some(king) = self.kings[self.turn.index()] {
            return self
                .for_each_evasion(king, |_| ControlFlow::Break(()))
                .is_break();
        }
        self.for_each_legal(|_| ControlFlow::Break(())).is_break()
    }

    /// The legal moves of the side to move, in check, with its king on `king`, a piece
    /// at a time, found from the squares that answer the check: the king's steps; then,
    /// from a single check, each piece that takes the checker or goes between, one
    /// square at a time (a piece moves as it attacks, and a pinned one never answers a
    /// check, for the line it may move along meets the checker's line only at the king);
    /// then the drops between. Cheaper than [`Position::for_each_legal`] where few
    /// squares answer, which in check is the rule.
    fn for_each_evasion<B>(
        &self,
        king: Square,
        mut f: impl FnMut(PieceMoves) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let us = self.turn;
        let board = &self.board;
        let own = board.by_color(us);
        let steps = board.king_escapes(king, attacks::king_attacks(king) & !own, !us);
        if steps.is_nonempty() {
            f(PieceMoves {
                color: us,
                role: Role::King,
                from: Some(king),
                to: steps,
            })?;
        }
        let Some(checker) = self.checkers.single_square() else {
            return ControlFlow::Continue(());
        };
        let between = attacks::between(king, checker);
        let occupied = board.occupied();
        let movers = own.without(king) & !self.pinned;
        for to in between.with(checker) {
            for from in board.attackers_to(to, us, occupied) & movers {
                if let Some(piece) = board.piece_at(from) {
                    f(PieceMoves {
                        color: us,
                        role: piece.role,
                        from: Some(from),
                        to: Bitboard::EMPTY.with(to),
                    })?;
                }
            }
        }
        if between.is_empty() {
            return ControlFlow::Continue(());
        }
        self.drops(|_| between, &mut f)
    }

    /// Whether the side to move is in check and has no legal move.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }
}
