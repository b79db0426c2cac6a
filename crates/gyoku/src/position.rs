//! Checked positions: what one position allows.

use std::fmt;

use crate::attacks;
use crate::setup::STARTPOS_SFEN;
use crate::sfen::ParseSfenError;
use crate::zobrist;
use crate::{Bitboard, Board, ByColor, Color, Hand, Move, Piece, Role, Setup, Square};

/// A position the rules can play from: a [`Setup`] that passed validation, with the
/// pieces giving check and the pinned pieces cached, and its Zobrist hash kept up to date
/// move by move.
///
/// ```
/// use gyoku::{Move, Position};
/// let mut pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 30);
/// pos.play("7g7f".parse().unwrap()).unwrap();
/// assert_eq!(pos.to_sfen(), "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) hands: [Hand; 2],
    pub(crate) turn: Color,
    pub(crate) move_number: u32,
    pub(crate) kings: [Option<Square>; 2],
    /// Pieces of the side not to move that give check.
    pub(crate) checkers: Bitboard,
    /// Pieces of the side to move pinned to its king.
    pub(crate) pinned: Bitboard,
    pub(crate) board_key: u64,
    pub(crate) hand_key: u64,
}

/// Why a move is illegal. The stable code ([`IllegalMoveKind::code`]) is what JSON output
/// and stored results use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalMoveKind {
    /// `nifu`: a pawn dropped on a file that already holds an unpromoted pawn of the same side.
    Nifu,
    /// `uchifuzume`: a pawn drop that mates at once.
    Uchifuzume,
    /// `dead_piece`: a piece dropped, or moved without promoting, where it could never
    /// move again (pawn or lance on the last rank, knight on the last two).
    DeadPiece,
    /// `drop_promoted`: a drop of a promoted piece.
    DropPromoted,
    /// `illegal_promotion`: a promotion of a kind that does not promote, or outside the zone.
    IllegalPromotion,
    /// `king_in_check`: the move leaves or puts the mover's own king in check.
    KingInCheck,
    /// `bad_movement`: the piece cannot move that way (or there is no piece, or the square
    /// is the mover's own, or a drop onto an occupied square).
    BadMovement,
    /// `out_of_turn`: a piece of the side not to move was moved.
    OutOfTurn,
    /// `not_in_hand`: a drop of a piece the mover does not hold.
    NotInHand,
}

impl IllegalMoveKind {
    /// Every kind.
    pub const ALL: [IllegalMoveKind; 9] = [
        IllegalMoveKind::Nifu,
        IllegalMoveKind::Uchifuzume,
        IllegalMoveKind::DeadPiece,
        IllegalMoveKind::DropPromoted,
        IllegalMoveKind::IllegalPromotion,
        IllegalMoveKind::KingInCheck,
        IllegalMoveKind::BadMovement,
        IllegalMoveKind::OutOfTurn,
        IllegalMoveKind::NotInHand,
    ];

    /// The stable code, e.g. `uchifuzume`.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalMoveKind::Nifu => "nifu",
            IllegalMoveKind::Uchifuzume => "uchifuzume",
            IllegalMoveKind::DeadPiece => "dead_piece",
            IllegalMoveKind::DropPromoted => "drop_promoted",
            IllegalMoveKind::IllegalPromotion => "illegal_promotion",
            IllegalMoveKind::KingInCheck => "king_in_check",
            IllegalMoveKind::BadMovement => "bad_movement",
            IllegalMoveKind::OutOfTurn => "out_of_turn",
            IllegalMoveKind::NotInHand => "not_in_hand",
        }
    }

    /// Whether real pieces can make this foul on a board: nifu, uchifuzume, a dead piece,
    /// the king left in check (every other illegal move is one no piece can make).
    pub const fn is_physical(self) -> bool {
        matches!(
            self,
            IllegalMoveKind::Nifu
                | IllegalMoveKind::Uchifuzume
                | IllegalMoveKind::DeadPiece
                | IllegalMoveKind::KingInCheck
        )
    }

    /// The kind with stable code `code`.
    pub fn from_code(code: &str) -> Option<IllegalMoveKind> {
        IllegalMoveKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

impl fmt::Display for IllegalMoveKind {
    /// A plain English description (the stable code is [`IllegalMoveKind::code`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalMoveKind::Nifu => "a pawn dropped on a file with the mover's unpromoted pawn",
            IllegalMoveKind::Uchifuzume => "a pawn drop that mates at once",
            IllegalMoveKind::DeadPiece => "the piece could never move again from there",
            IllegalMoveKind::DropPromoted => "a promoted piece cannot be dropped",
            IllegalMoveKind::IllegalPromotion => "the piece cannot promote on this move",
            IllegalMoveKind::KingInCheck => "the move leaves the mover's king in check",
            IllegalMoveKind::BadMovement => "the piece cannot move that way",
            IllegalMoveKind::OutOfTurn => "a piece of the side not to move",
            IllegalMoveKind::NotInHand => "the piece is not in hand",
        })
    }
}

impl std::error::Error for IllegalMoveKind {}

/// The faults [`Position::from_setup`] found, as a set of flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PositionErrorKinds(u8);

impl PositionErrorKinds {
    /// A side has no king (allowed by `ignore_missing_king`, e.g. for tsume problems).
    pub const MISSING_KING: Self = Self(1);
    /// A side has more than one king. Never allowed.
    pub const TOO_MANY_KINGS: Self = Self(2);
    /// A pawn or lance on its last rank, or a knight on its last two.
    pub const DEAD_PIECE: Self = Self(4);
    /// Two unpromoted pawns of one side on a file.
    pub const NIFU: Self = Self(8);
    /// The side not to move is in check. Never allowed: the side to move could take the king.
    pub const OPPOSITE_CHECK: Self = Self(16);
    /// More pieces of a kind than a full set has (18 pawns; 4 lances, knights, silvers,
    /// golds; 2 bishops, rooks, kings).
    pub const TOO_MUCH_MATERIAL: Self = Self(32);
    /// More pieces of a kind than one hand can hold (15; 255 pawns), so a capture could not
    /// be counted. Never allowed.
    pub const IMPOSSIBLE_MATERIAL: Self = Self(64);

    const NAMES: [(Self, &'static str); 7] = [
        (Self::MISSING_KING, "missing king"),
        (Self::TOO_MANY_KINGS, "too many kings"),
        (Self::DEAD_PIECE, "dead piece on the board"),
        (Self::NIFU, "nifu on the board"),
        (Self::OPPOSITE_CHECK, "the side not to move is in check"),
        (Self::TOO_MUCH_MATERIAL, "too many pieces"),
        (
            Self::IMPOSSIBLE_MATERIAL,
            "more pieces of a kind than a hand can hold",
        ),
    ];

    /// Whether no fault is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every fault in `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    const fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// The names of the faults set.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |(k, _)| self.contains(*k))
            .map(|(_, n)| n)
    }
}

/// A setup that is not a legal position. It holds the position as built, so faults that
/// are safe to play through can be accepted:
///
/// ```
/// use gyoku::{Position, Setup};
/// // A tsume problem: Black has no king.
/// let setup = Setup::from_sfen("3rkr3/9/8p/4N4/1B7/9/1SG6/2S6/9 b LPp 1").unwrap();
/// let err = Position::from_setup(setup).unwrap_err();
/// assert_eq!(err.to_string(), "illegal position: missing king");
/// let pos = err.ignore_missing_king().unwrap();
/// assert!(!pos.is_legal("P*5b".parse().unwrap())); // uchifuzume
/// ```
#[derive(Clone)]
pub struct PositionError {
    pos: Box<Position>,
    kinds: PositionErrorKinds,
}

impl PositionError {
    /// The faults found.
    pub fn kinds(&self) -> PositionErrorKinds {
        self.kinds
    }

    fn ignore(mut self, kinds: PositionErrorKinds) -> Result<Position, PositionError> {
        self.kinds = self.kinds.without(kinds);
        if self.kinds.is_empty() {
            Ok(*self.pos)
        } else {
            Err(self)
        }
    }

    /// Accepts a side without a king.
    ///
    /// # Errors
    /// The other faults, if any remain.
    pub fn ignore_missing_king(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKinds::MISSING_KING)
    }

    /// Accepts dead pieces on the board (they simply cannot move).
    ///
    /// # Errors
    /// The other faults, if any remain.
    pub fn ignore_dead_pieces(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKinds::DEAD_PIECE)
    }

    /// Accepts two unpromoted pawns of a side on one file.
    ///
    /// # Errors
    /// The other faults, if any remain.
    pub fn ignore_nifu(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKinds::NIFU)
    }

    /// Accepts more pieces of a kind than a full set has.
    ///
    /// # Errors
    /// The other faults, if any remain.
    pub fn ignore_too_much_material(self) -> Result<Position, PositionError> {
        self.ignore(PositionErrorKinds::TOO_MUCH_MATERIAL)
    }

    /// Accepts every fault that is safe to play through (missing king, dead pieces, nifu,
    /// too much material), as for tsume problems and imported records. Two kings of one
    /// side, a side not to move in check, and more pieces of a kind than a hand can hold
    /// are never accepted.
    ///
    /// # Errors
    /// The faults that cannot be accepted.
    pub fn ignore_all_safe(self) -> Result<Position, PositionError> {
        self.ignore(
            PositionErrorKinds::MISSING_KING
                .union(PositionErrorKinds::DEAD_PIECE)
                .union(PositionErrorKinds::NIFU)
                .union(PositionErrorKinds::TOO_MUCH_MATERIAL),
        )
    }
}

impl fmt::Debug for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PositionError")
            .field("kinds", &self.kinds)
            .field("sfen", &self.pos.to_sfen())
            .finish()
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("illegal position: ")?;
        for (i, name) in self.kinds.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl std::error::Error for PositionError {}

/// An SFEN that could not be read, or that does not describe a legal position.
#[derive(Debug, Clone)]
pub enum SfenError {
    /// The text could not be read.
    Parse(ParseSfenError),
    /// The text was read, but the position breaks the rules.
    Position(PositionError),
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SfenError::Parse(e) => e.fmt(f),
            SfenError::Position(e) => write!(f, "sfen: {e}"),
        }
    }
}

impl std::error::Error for SfenError {}

impl From<ParseSfenError> for SfenError {
    fn from(e: ParseSfenError) -> Self {
        SfenError::Parse(e)
    }
}

impl From<PositionError> for SfenError {
    fn from(e: PositionError) -> Self {
        SfenError::Position(e)
    }
}

impl Position {
    /// The standard starting position (built once, then copied).
    pub fn startpos() -> Position {
        static START: std::sync::OnceLock<Position> = std::sync::OnceLock::new();
        START
            .get_or_init(|| {
                Position::from_sfen(STARTPOS_SFEN).expect("the start position is legal")
            })
            .clone()
    }

    /// Reads and validates an SFEN (see [`Setup::from_sfen`] for what is accepted).
    ///
    /// # Errors
    /// [`SfenError::Parse`] for text that is not SFEN, [`SfenError::Position`] for a
    /// position that breaks the rules (whose faults may be accepted, see
    /// [`PositionError`]).
    pub fn from_sfen(text: &str) -> Result<Position, SfenError> {
        Ok(Position::from_setup(Setup::from_sfen(text)?)?)
    }

    /// Validates a setup.
    ///
    /// # Errors
    /// [`PositionError`] with every fault found.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let mut kinds = PositionErrorKinds::default();
        let board = &setup.board;
        for color in Color::ALL {
            match board.by_piece(Piece::new(color, Role::King)).count() {
                0 => kinds = kinds.union(PositionErrorKinds::MISSING_KING),
                1 => {}
                _ => kinds = kinds.union(PositionErrorKinds::TOO_MANY_KINGS),
            }
            let pawns = board.by_piece(Piece::new(color, Role::Pawn));
            for file in 1..=9 {
                if (pawns & Bitboard::file(file)).has_more_than_one() {
                    kinds = kinds.union(PositionErrorKinds::NIFU);
                }
            }
        }
        if board
            .iter()
            .any(|(sq, p)| Setup::is_dead_square(p.color, p.role, sq))
        {
            kinds = kinds.union(PositionErrorKinds::DEAD_PIECE);
        }
        let material = setup.material();
        if Role::ALL[..8]
            .iter()
            .any(|r| material[r.index()] > r.full_set_count())
        {
            kinds = kinds.union(PositionErrorKinds::TOO_MUCH_MATERIAL);
        }
        if Role::HAND
            .iter()
            .any(|r| material[r.index()] > u32::from(Hand::capacity(*r)))
        {
            kinds = kinds.union(PositionErrorKinds::IMPOSSIBLE_MATERIAL);
        }
        let mut pos = Position {
            kings: [board.king_of(Color::Black), board.king_of(Color::White)],
            board: setup.board,
            hands: [setup.hands.black, setup.hands.white],
            turn: setup.turn,
            move_number: setup.move_number,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            board_key: 0,
            hand_key: 0,
        };
        (pos.board_key, pos.hand_key) = pos.full_keys();
        pos.update_check_info();
        let them = !pos.turn;
        if let Some(k) = pos.kings[them.index()]
            && pos.board.is_attacked(k, pos.turn, pos.board.occupied())
        {
            kinds = kinds.union(PositionErrorKinds::OPPOSITE_CHECK);
        }
        if kinds.is_empty() {
            Ok(pos)
        } else {
            Err(PositionError {
                pos: Box::new(pos),
                kinds,
            })
        }
    }

    /// The position as an unchecked [`Setup`].
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            hands: self.hands(),
            turn: self.turn,
            move_number: self.move_number,
        }
    }

    /// The canonical SFEN.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        crate::sfen::write_board(&mut s, &self.board);
        s.push(' ');
        s.push(self.turn.sfen_char());
        s.push(' ');
        crate::sfen::write_hands(&mut s, &self.hands());
        s.push(' ');
        s.push_str(&self.move_number.to_string());
        s
    }

    /// The pieces on the board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// `color`'s hand.
    #[inline]
    pub fn hand(&self, color: Color) -> Hand {
        self.hands[color.index()]
    }

    /// Both hands.
    pub fn hands(&self) -> ByColor<Hand> {
        ByColor::new(self.hands[0], self.hands[1])
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The SFEN move number.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// The square of `color`'s king, if it has one.
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.kings[color.index()]
    }

    /// The pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// The pieces of the side to move that are pinned to its king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    /// The Zobrist hash: a pure function of the board, both hands and the side to move
    /// (not the move number), kept up to date move by move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.board_key ^ self.hand_key
    }

    /// The hash computed from scratch; equal to [`Position::hash`] (tested).
    pub fn compute_hash(&self) -> u64 {
        let (b, h) = self.full_keys();
        b ^ h
    }

    /// Whether the board, hands and side to move equal `other`'s (the move number aside):
    /// the test for a repeated position.
    pub fn same_position(&self, other: &Position) -> bool {
        self.turn == other.turn && self.hands == other.hands && self.board == other.board
    }

    fn full_keys(&self) -> (u64, u64) {
        let mut board_key = 0;
        for (sq, piece) in self.board.iter() {
            board_key ^= zobrist::piece_square(piece, sq);
        }
        if self.turn == Color::White {
            board_key ^= zobrist::WHITE_TO_MOVE;
        }
        let mut hand_key = 0u64;
        for color in Color::ALL {
            for (role, n) in self.hands[color.index()].iter() {
                hand_key =
                    hand_key.wrapping_add(zobrist::hand(color, role).wrapping_mul(u64::from(n)));
            }
        }
        (board_key, hand_key)
    }

    /// Recomputes the checkers and pinned pieces of the side to move.
    fn update_check_info(&mut self) {
        let us = self.turn;
        let them = !us;
        let Some(ksq) = self.kings[us.index()] else {
            self.checkers = Bitboard::EMPTY;
            self.pinned = Bitboard::EMPTY;
            return;
        };
        let occupied = self.board.occupied();
        let board = &self.board;
        // Enemy sliders on the king's lines: with nothing between, a checker; with one of
        // our pieces between, a pin.
        let snipers = ((attacks::lance_rays(us, ksq) & board.by_role(Role::Lance))
            | (attacks::bishop_rays(ksq) & board.bishops())
            | (attacks::rook_rays(ksq) & board.rooks()))
            & board.by_color(them);
        let own = board.by_color(us);
        let mut checkers = board.step_attackers_to(ksq, them);
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(ksq, sniper) & occupied;
            if blockers.is_empty() {
                checkers = checkers.with(sniper);
            } else if !blockers.has_more_than_one() {
                pinned |= blockers & own;
            }
        }
        self.checkers = checkers;
        self.pinned = pinned;
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    /// The [`IllegalMoveKind`]; the position is unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveKind> {
        self.check_move(m)?;
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays `m`, which must be legal (see [`Position::is_legal`]); an illegal move leaves
    /// the position in an unspecified (but memory-safe) state.
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.turn;
        match m {
            Move::Normal { from, to, promote } => {
                let Some(piece) = self.board.piece_at(from) else {
                    debug_assert!(false, "no piece on {from}");
                    return;
                };
                if let Some(captured) = self.board.piece_at(to) {
                    self.board.remove_piece(to, captured);
                    self.board_key ^= zobrist::piece_square(captured, to);
                    let role = captured.role.unpromoted();
                    if role.is_hand_role() {
                        self.hands[us.index()].add(role);
                        self.hand_key = self.hand_key.wrapping_add(zobrist::hand(us, role));
                    }
                }
                self.board.remove_piece(from, piece);
                self.board_key ^= zobrist::piece_square(piece, from);
                let placed = if promote {
                    Piece::new(us, piece.role.promoted().unwrap_or(piece.role))
                } else {
                    piece
                };
                self.board.put_piece(to, placed);
                self.board_key ^= zobrist::piece_square(placed, to);
                if piece.role == Role::King {
                    self.kings[us.index()] = Some(to);
                }
            }
            Move::Drop { role, to } => {
                let piece = Piece::new(us, role);
                self.hands[us.index()].remove(role);
                self.hand_key = self.hand_key.wrapping_sub(zobrist::hand(us, role));
                self.board.put_piece(to, piece);
                self.board_key ^= zobrist::piece_square(piece, to);
            }
        }
        self.turn = !us;
        self.board_key ^= zobrist::WHITE_TO_MOVE;
        self.move_number = self.move_number.saturating_add(1);
        self.update_check_info();
    }

    /// Whether `m` is legal.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.check_move(m).is_ok()
    }

    /// Whether `m` is legal, and if not, why.
    ///
    /// Faults are reported in this order: the move's shape (no piece, another side's
    /// piece, a piece not in hand, a movement the piece does not have, a drop on an
    /// occupied square), then promotion (promoted drop, illegal promotion, dead piece),
    /// then nifu, then the mover's king, then uchifuzume.
    ///
    /// # Errors
    /// The first [`IllegalMoveKind`] that applies.
    ///
    /// ```
    /// use gyoku::{IllegalMoveKind, Position};
    /// let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
    /// assert_eq!(pos.check_move("P*1b".parse().unwrap()), Err(IllegalMoveKind::Uchifuzume));
    /// assert_eq!(pos.check_move("P*1a".parse().unwrap()), Err(IllegalMoveKind::BadMovement));
    /// assert_eq!(pos.check_move("2c2b+".parse().unwrap()), Err(IllegalMoveKind::IllegalPromotion));
    /// ```
    pub fn check_move(&self, m: Move) -> Result<(), IllegalMoveKind> {
        let us = self.turn;
        let them = !us;
        let occupied = self.board.occupied();
        match m {
            Move::Normal { from, to, promote } => {
                let piece = self
                    .board
                    .piece_at(from)
                    .ok_or(IllegalMoveKind::BadMovement)?;
                if piece.color != us {
                    return Err(IllegalMoveKind::OutOfTurn);
                }
                if self.board.by_color(us).contains(to)
                    || !attacks::reaches(us, piece.role, from, to, occupied)
                {
                    return Err(IllegalMoveKind::BadMovement);
                }
                if promote {
                    if !piece.role.can_promote() || !(from.in_zone(us) || to.in_zone(us)) {
                        return Err(IllegalMoveKind::IllegalPromotion);
                    }
                } else if Setup::is_dead_square(us, piece.role, to) {
                    return Err(IllegalMoveKind::DeadPiece);
                }
                if piece.role == Role::King {
                    if self.board.is_attacked(to, them, occupied.without(from)) {
                        return Err(IllegalMoveKind::KingInCheck);
                    }
                } else if let Some(ksq) = self.kings[us.index()] {
                    if let Some(checker) = self.checkers.first()
                        && (self.checkers.has_more_than_one()
                            || !(attacks::between(ksq, checker).with(checker)).contains(to))
                    {
                        return Err(IllegalMoveKind::KingInCheck);
                    }
                    if self.pinned.contains(from) && !attacks::line(ksq, from).contains(to) {
                        return Err(IllegalMoveKind::KingInCheck);
                    }
                }
                Ok(())
            }
            Move::Drop { role, to } => {
                if role.is_promoted() {
                    return Err(IllegalMoveKind::DropPromoted);
                }
                if !self.hands[us.index()].has(role) {
                    return Err(IllegalMoveKind::NotInHand);
                }
                if occupied.contains(to) {
                    return Err(IllegalMoveKind::BadMovement);
                }
                if Setup::is_dead_square(us, role, to) {
                    return Err(IllegalMoveKind::DeadPiece);
                }
                if role == Role::Pawn
                    && (self.board.by_piece(Piece::new(us, Role::Pawn)) & Bitboard::file(to.file()))
                        .is_nonempty()
                {
                    return Err(IllegalMoveKind::Nifu);
                }
                if let (Some(ksq), Some(checker)) = (self.kings[us.index()], self.checkers.first())
                    && (self.checkers.has_more_than_one()
                        || !attacks::between(ksq, checker).contains(to))
                {
                    return Err(IllegalMoveKind::KingInCheck);
                }
                if role == Role::Pawn
                    && self.kings[them.index()]
                        .is_some_and(|k| attacks::pawn_attacks(us, to).contains(k))
                    && self.is_pawn_drop_mate(to)
                {
                    return Err(IllegalMoveKind::Uchifuzume);
                }
                Ok(())
            }
        }
    }

    /// Whether a pawn of the side to move dropped on `to`, where it checks the enemy king,
    /// would mate: the dropped pawn blocks lines, a pinned defender cannot take it, and the
    /// king may take it only where it is not defended.
    pub(crate) fn is_pawn_drop_mate(&self, to: Square) -> bool {
        let us = self.turn;
        let them = !us;
        let Some(king) = self.kings[them.index()] else {
            return false;
        };
        let occupied = self.board.occupied().with(to);
        // A defender other than the king takes the pawn, unless that uncovers the king.
        let defenders = self.board.attackers_to(to, them, occupied).without(king);
        for defender in defenders {
            if !self.board.is_attacked(king, us, occupied.without(defender)) {
                return false;
            }
        }
        // The king steps away or takes the pawn. The pawn is not on `self.board`, so it
        // blocks through `occupied` but defends nothing, which is right: it attacks only
        // the king's square.
        let escapes = attacks::king_attacks(king) & !self.board.by_color(them);
        let without_king = occupied.without(king);
        for sq in escapes {
            if !self.board.is_attacked(sq, us, without_king) {
                return false;
            }
        }
        true
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_sfen())
    }
}

impl fmt::Display for Position {
    /// The SFEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_sfen())
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}
