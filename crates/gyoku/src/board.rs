//! Piece placement: a mailbox and bitboards kept in step.

use std::fmt;

use crate::attacks;
use crate::{Bitboard, Color, Piece, Role, Square};

/// Where the pieces stand: for each square the piece on it, and a bitboard per side and
/// per kind (plus one for all pieces that move as gold).
///
/// ```
/// use gyoku::{Board, Color, Piece, Role, Square};
/// let mut board = Board::empty();
/// let sq: Square = "5i".parse().unwrap();
/// board.set(sq, Some(Piece::new(Color::Black, Role::King)));
/// assert_eq!(board.king_of(Color::Black), Some(sq));
/// assert_eq!(board.occupied().count(), 1);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    /// 0 for an empty square, else `0x20 | color << 4 | role` (see [`encode`]).
    squares: [u8; 81],
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 14],
    /// Pieces by how they move, both sides: see [`Group`].
    groups: [Bitboard; 4],
}

/// Each square's bitboard, read from a table rather than shifted into place: a shifted
/// bit lets the compiler narrow the toggles to a 32-bit store, and the 128-bit loads that
/// follow (the occupied squares, just after a move) then wait for the store buffer to
/// drain (a fifth of a move played and taken back, measured with perf).
static SQUARE_BITS: [Bitboard; 81] = {
    let mut t = [Bitboard::EMPTY; 81];
    let mut i = 0;
    while i < 81 {
        t[i] = Bitboard(1u128 << i);
        i += 1;
    }
    t
};

/// Movement groups kept as bitboards of their own, so attack queries need no ORs.
#[derive(Clone, Copy)]
#[repr(usize)]
enum Group {
    /// Gold and the four promoted small pieces.
    Gold = 0,
    /// Bishop and horse.
    Bishop = 1,
    /// Rook and dragon.
    Rook = 2,
    /// King, horse and dragon: the king's step.
    KingStep = 3,
}

/// For each role, a bit per [`Group`] it belongs to.
const GROUPS: [u8; 14] = {
    let mut g = [0u8; 14];
    g[Role::Gold as usize] = 1 << Group::Gold as usize;
    g[Role::ProPawn as usize] = 1 << Group::Gold as usize;
    g[Role::ProLance as usize] = 1 << Group::Gold as usize;
    g[Role::ProKnight as usize] = 1 << Group::Gold as usize;
    g[Role::ProSilver as usize] = 1 << Group::Gold as usize;
    g[Role::Bishop as usize] = 1 << Group::Bishop as usize;
    g[Role::Rook as usize] = 1 << Group::Rook as usize;
    g[Role::King as usize] = 1 << Group::KingStep as usize;
    g[Role::Horse as usize] = (1 << Group::Bishop as usize) | (1 << Group::KingStep as usize);
    g[Role::Dragon as usize] = (1 << Group::Rook as usize) | (1 << Group::KingStep as usize);
    g
};

#[inline]
const fn encode(piece: Piece) -> u8 {
    0x20 | ((piece.color as u8) << 4) | piece.role as u8
}

#[inline]
const fn decode(code: u8) -> Option<Piece> {
    if code == 0 {
        return None;
    }
    let color = if code & 0x10 == 0 {
        Color::Black
    } else {
        Color::White
    };
    match Role::from_index((code & 0xf) as usize) {
        Some(role) => Some(Piece::new(color, role)),
        None => None,
    }
}

/// For each role, per group, all ones if the role belongs to it: group updates without
/// branches.
const GROUP_MASKS: [[u128; 4]; 14] = {
    let mut m = [[0u128; 4]; 14];
    let mut role = 0;
    while role < 14 {
        let mut g = 0;
        while g < 4 {
            if GROUPS[role] & (1 << g) != 0 {
                m[role][g] = u128::MAX;
            }
            g += 1;
        }
        role += 1;
    }
    m
};

impl Board {
    /// A board with no pieces.
    pub const fn empty() -> Board {
        Board {
            squares: [0; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 14],
            groups: [Bitboard::EMPTY; 4],
        }
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.squares[sq.index()])
    }

    /// Puts `piece` on `sq` (or empties it with `None`), replacing what stood there.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        if let Some(old) = self.piece_at(sq) {
            self.remove_piece(sq, old);
        }
        if let Some(new) = piece {
            self.put_piece(sq, new);
        }
    }

    /// Places `piece` on the empty square `sq`.
    #[inline]
    pub(crate) fn put_piece(&mut self, sq: Square, piece: Piece) {
        debug_assert_eq!(self.squares[sq.index()], 0);
        self.squares[sq.index()] = encode(piece);
        self.toggle(sq, piece);
    }

    #[inline]
    fn toggle(&mut self, sq: Square, piece: Piece) {
        let bb = SQUARE_BITS[sq.index()];
        self.by_color[piece.color.index()] ^= bb;
        self.by_role[piece.role.index()] ^= bb;
        let masks = &GROUP_MASKS[piece.role.index()];
        for (group, mask) in self.groups.iter_mut().zip(masks) {
            group.0 ^= bb.0 & mask;
        }
    }

    /// Takes `piece`, which stands on `sq`, off the board.
    #[inline]
    pub(crate) fn remove_piece(&mut self, sq: Square, piece: Piece) {
        debug_assert_eq!(self.piece_at(sq), Some(piece));
        self.squares[sq.index()] = 0;
        self.toggle(sq, piece);
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of `color`'s pieces.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The squares of pieces of `role`, both sides.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares of `piece`.
    #[inline]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role[piece.role.index()] & self.by_color[piece.color.index()]
    }

    /// Pieces that move as gold: gold and the four promoted small pieces, both sides.
    #[inline]
    pub fn golds(&self) -> Bitboard {
        self.groups[Group::Gold as usize]
    }

    /// Bishops and horses, both sides.
    #[inline]
    pub fn bishops(&self) -> Bitboard {
        self.groups[Group::Bishop as usize]
    }

    /// Rooks and dragons, both sides.
    #[inline]
    pub fn rooks(&self) -> Bitboard {
        self.groups[Group::Rook as usize]
    }

    /// Kings, horses and dragons (the pieces with the king's step), both sides.
    #[inline]
    pub fn king_steppers(&self) -> Bitboard {
        self.groups[Group::KingStep as usize]
    }

    /// The square of `color`'s king, if it has one (the first, if it has several).
    #[inline]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.by_role[Role::King.index()] & self.by_color[color.index()]).first()
    }

    /// The step pieces (and the king steps of horses and dragons) of `attacker` that
    /// attack `sq`.
    #[inline]
    pub(crate) fn step_attackers_to(&self, sq: Square, attacker: Color) -> Bitboard {
        let defender = !attacker;
        ((attacks::pawn_attacks(defender, sq) & self.by_role(Role::Pawn))
            | (attacks::knight_attacks(defender, sq) & self.by_role(Role::Knight))
            | (attacks::silver_attacks(defender, sq) & self.by_role(Role::Silver))
            | (attacks::gold_attacks(defender, sq) & self.golds())
            | (attacks::king_attacks(sq) & self.king_steppers()))
            & self.by_color(attacker)
    }

    /// The pieces of `attacker` that attack `sq`, with `occupied` as the blockers.
    #[inline]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let defender = !attacker;
        let them = self.by_color(attacker);
        let step = (attacks::pawn_attacks(defender, sq) & self.by_role(Role::Pawn))
            | (attacks::knight_attacks(defender, sq) & self.by_role(Role::Knight))
            | (attacks::silver_attacks(defender, sq) & self.by_role(Role::Silver))
            | (attacks::gold_attacks(defender, sq) & self.golds())
            | (attacks::king_attacks(sq) & self.king_steppers());
        (step & them) | self.sliders_to(sq, attacker, occupied)
    }

    /// The lances, bishops, rooks, horses and dragons of `attacker` that reach `sq` along
    /// their lines, with `occupied` as the blockers.
    #[inline]
    pub(crate) fn sliders_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let defender = !attacker;
        let them = self.by_color(attacker);
        let mut found = Bitboard::EMPTY;
        let lances = self.by_role(Role::Lance) & them & attacks::lance_rays(defender, sq);
        if lances.is_nonempty() {
            found |= attacks::lance_attacks(defender, sq, occupied) & lances;
        }
        let bishops = self.bishops() & them & attacks::bishop_rays(sq);
        if bishops.is_nonempty() {
            found |= attacks::bishop_attacks(sq, occupied) & bishops;
        }
        let rooks = self.rooks() & them & attacks::rook_rays(sq);
        if rooks.is_nonempty() {
            found |= attacks::rook_attacks(sq, occupied) & rooks;
        }
        found
    }

    /// Whether any piece of `attacker` attacks `sq`, with `occupied` as the blockers.
    #[inline]
    pub fn is_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        let defender = !attacker;
        let them = self.by_color(attacker);
        let step = (attacks::pawn_attacks(defender, sq) & self.by_role(Role::Pawn))
            | (attacks::knight_attacks(defender, sq) & self.by_role(Role::Knight))
            | (attacks::silver_attacks(defender, sq) & self.by_role(Role::Silver))
            | (attacks::gold_attacks(defender, sq) & self.golds())
            | (attacks::king_attacks(sq) & self.king_steppers());
        if (step & them).is_nonempty() {
            return true;
        }
        let lances = self.by_role(Role::Lance) & them;
        let bishops = self.bishops() & them;
        let rooks = self.rooks() & them;
        ((lances & attacks::lance_rays(defender, sq)).is_nonempty()
            && (attacks::lance_attacks(defender, sq, occupied) & lances).is_nonempty())
            || ((bishops & attacks::bishop_rays(sq)).is_nonempty()
                && (attacks::bishop_attacks(sq, occupied) & bishops).is_nonempty())
            || ((rooks & attacks::rook_rays(sq)).is_nonempty()
                && (attacks::rook_attacks(sq, occupied) & rooks).is_nonempty())
    }

    /// The squares next to `king` (of the other side) in `candidates` that no piece of
    /// `attacker` attacks once the king has left its square: the king's destinations.
    ///
    /// Only the attacker's pieces that can reach the king's neighbourhood are looked at,
    /// each once.
    #[inline]
    pub(crate) fn king_escapes(
        &self,
        king: Square,
        candidates: Bitboard,
        attacker: Color,
    ) -> Bitboard {
        self.escapes_from(
            king,
            candidates,
            attacker,
            self.by_color(attacker),
            self.occupied().without(king),
        )
    }

    /// [`Board::king_escapes`] with only the `attacker`'s pieces on `pieces` counted (the
    /// board's roles on those squares) and `occupied` as the blockers: the king's
    /// destinations on a board changed in ways the caller accounts for.
    #[inline]
    pub(crate) fn escapes_from(
        &self,
        king: Square,
        candidates: Bitboard,
        attacker: Color,
        pieces: Bitboard,
        occupied: Bitboard,
    ) -> Bitboard {
        if candidates.is_empty() {
            return candidates;
        }
        let defender = !attacker;
        // Each kind of piece by its own attacks, with no look at a square's piece: the
        // step pieces near the king (a horse's or dragon's king step among them), the
        // sliders whose lines may reach its neighbours.
        let near = attacks::steppers_near(king) & pieces;
        let mut attacked = Bitboard::EMPTY;
        for sq in near & self.by_role(Role::Pawn) {
            attacked |= attacks::pawn_attacks(attacker, sq);
        }
        for sq in near & self.by_role(Role::Knight) {
            attacked |= attacks::knight_attacks(attacker, sq);
        }
        for sq in near & self.by_role(Role::Silver) {
            attacked |= attacks::silver_attacks(attacker, sq);
        }
        for sq in near & self.golds() {
            attacked |= attacks::gold_attacks(attacker, sq);
        }
        for sq in near & self.king_steppers() {
            attacked |= attacks::king_attacks(sq);
        }
        let lances = self.by_role(Role::Lance) & attacks::enemy_lances_near(defender, king);
        for sq in lances & pieces {
            attacked |= attacks::lance_attacks(attacker, sq, occupied);
        }
        for sq in self.bishops() & attacks::bishops_near(king) & pieces {
            attacked |= attacks::bishop_attacks(sq, occupied);
        }
        for sq in self.rooks() & attacks::rooks_near(king) & pieces {
            attacked |= attacks::rook_attacks(sq, occupied);
        }
        candidates & !attacked
    }

    /// Every piece on the board with its square, in square order.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in 1..=9 {
            for file in (1..=9).rev() {
                let sq = Square::new(file, rank).expect("valid square");
                match self.piece_at(sq) {
                    Some(p) => write!(f, "{:>3}", p.sfen())?,
                    None => f.write_str("  .")?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
