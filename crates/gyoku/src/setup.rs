//! Positions that have not been checked.

use crate::{Board, ByColor, Color, Hand, Piece, Role, Square};

/// A position as read, before any rule is checked: the board, both hands, the side to
/// move and the move number. Any `Setup` can be written; [`Position::from_setup`] decides
/// whether it is one the rules can play from.
///
/// [`Position::from_setup`]: crate::Position::from_setup
///
/// ```
/// use gyoku::{Color, Setup};
/// let setup = Setup::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2P 1").unwrap();
/// assert_eq!(setup.turn, Color::Black);
/// assert_eq!(setup.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 2P 1");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The pieces on the board.
    pub board: Board,
    /// The pieces in each side's hand.
    pub hands: ByColor<Hand>,
    /// The side to move.
    pub turn: Color,
    /// The SFEN move number (1 for the first move of the game).
    pub move_number: u32,
}

/// The SFEN of the standard starting position.
pub const STARTPOS_SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

impl Setup {
    /// An empty board, empty hands, Black to move, move 1.
    pub fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            hands: ByColor::default(),
            turn: Color::Black,
            move_number: 1,
        }
    }

    /// The standard starting position of an even game.
    pub fn startpos() -> Setup {
        Setup::from_sfen(STARTPOS_SFEN).expect("the start position is valid SFEN")
    }

    /// Every piece of `color`, on the board and in hand, counted by unpromoted kind.
    pub(crate) fn material(&self) -> [u32; 8] {
        let mut counts = [0u32; 8];
        for (_, piece) in self.board.iter() {
            counts[piece.role.unpromoted().index()] += 1;
        }
        for color in Color::ALL {
            for (role, n) in self.hands.get(color).iter() {
                counts[role.index()] += u32::from(n);
            }
        }
        counts
    }

    /// Places `piece` on `sq`; a convenience for building positions by hand.
    pub fn put(&mut self, sq: Square, piece: Piece) -> &mut Setup {
        self.board.set(sq, Some(piece));
        self
    }

    /// Whether `role` could move again from `sq` if it were `color`'s (pawn and lance on
    /// the last rank, knight on the last two cannot).
    pub(crate) fn is_dead_square(color: Color, role: Role, sq: Square) -> bool {
        let rank = sq.relative_rank(color);
        match role {
            Role::Pawn | Role::Lance => rank == 1,
            Role::Knight => rank <= 2,
            _ => false,
        }
    }
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::startpos()
    }
}
