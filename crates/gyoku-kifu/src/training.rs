//! Training data from judged games: each position of a game, the move played from it and
//! the game's result as the referee judged it, in cshogi's `hcpe` form
//! (`HuffmanCodedPosAndEval`, 38 bytes: Apery's 32-byte Huffman-coded position, an
//! evaluation (`i16`, 0: none), the move as a `move16`, the result — 0 a draw, 1 Black
//! won, 2 White won — and a padding byte).

use gyoku::{Color, GameResult, Move, Position, Role};

/// Bytes of one `hcpe` entry.
pub const HCPE_BYTES: usize = 38;

/// (code, bits) of a piece on the board, by colour and role (Apery's table; a code's bits
/// are written lowest first). Kings are written apart, as their squares.
const BOARD: [[(u8, u8); 14]; 2] = [
    [
        (0b1, 4),
        (0b11, 6),
        (0b111, 6),
        (0b1011, 6),
        (0b1111, 6),
        (0b11111, 8),
        (0b111111, 8),
        (0, 0),
        (0b1001, 4),
        (0b100011, 6),
        (0b100111, 6),
        (0b101011, 6),
        (0b10011111, 8),
        (0b10111111, 8),
    ],
    [
        (0b101, 4),
        (0b10011, 6),
        (0b10111, 6),
        (0b11011, 6),
        (0b101111, 6),
        (0b1011111, 8),
        (0b1111111, 8),
        (0, 0),
        (0b1101, 4),
        (0b110011, 6),
        (0b110111, 6),
        (0b111011, 6),
        (0b11011111, 8),
        (0b11111111, 8),
    ],
];

/// (code, bits) of a piece in hand, by colour, in [`Role::HAND`]'s order.
const HAND: [[(u8, u8); 7]; 2] = [
    [
        (0b0, 3),
        (0b1, 5),
        (0b11, 5),
        (0b101, 5),
        (0b111, 5),
        (0b11111, 7),
        (0b111111, 7),
    ],
    [
        (0b100, 3),
        (0b10001, 5),
        (0b10011, 5),
        (0b10101, 5),
        (0b10111, 5),
        (0b1011111, 7),
        (0b1111111, 7),
    ],
];

/// 256 bits, written lowest bit of each byte first.
struct Bits {
    data: [u8; 32],
    at: usize,
}

impl Bits {
    fn put(&mut self, code: u8, bits: u8) -> Option<()> {
        for i in 0..bits {
            let byte = self.data.get_mut(self.at / 8)?;
            *byte |= ((code >> i) & 1) << (self.at % 8);
            self.at += 1;
        }
        Some(())
    }
}

/// The position as Apery's and cshogi's `HuffmanCodedPos` (32 bytes); `None` for one that
/// cannot be written so: without both kings, or without all forty pieces (a handicap, a
/// tsume problem).
///
/// ```
/// let hcp = gyoku_kifu::training::hcp(&gyoku::Position::startpos()).unwrap();
/// // Black to move (bit 0), Black's king on 5i (square 40 + 8 = 44), White's on 5a (36).
/// assert_eq!(hcp[0] & 1, 0);
/// assert_eq!((hcp[0] >> 1) & 0x7f, 44);
/// assert!(gyoku_kifu::training::hcp(&gyoku::Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b - 1").unwrap()).is_none());
/// ```
pub fn hcp(pos: &Position) -> Option<[u8; 32]> {
    let mut bits = Bits {
        data: [0; 32],
        at: 0,
    };
    bits.put(u8::from(pos.turn() == Color::White), 1)?;
    for color in [Color::Black, Color::White] {
        bits.put(pos.king(color)?.index() as u8, 7)?;
    }
    for index in 0..81 {
        let sq = gyoku::Square::from_index(index)?;
        match pos.board().piece_at(sq) {
            None => bits.put(0, 1)?,
            Some(p) if p.role == Role::King => {}
            Some(p) => {
                let (code, n) = BOARD[p.color.index()][p.role as usize];
                bits.put(code, n)?;
            }
        }
    }
    for color in [Color::Black, Color::White] {
        let hand = pos.hand(color);
        for (k, role) in Role::HAND.into_iter().enumerate() {
            let (code, n) = HAND[color.index()][k];
            for _ in 0..hand.count(role) {
                bits.put(code, n)?;
            }
        }
    }
    (bits.at == 256).then_some(bits.data)
}

/// The kinds a drop's `move16` names, in its order (origin 81 + the index): cshogi's and
/// YaneuraOu's piece-type order, gold after rook.
pub const DROP_ORDER: [Role; 7] = [
    Role::Pawn,
    Role::Lance,
    Role::Knight,
    Role::Silver,
    Role::Bishop,
    Role::Rook,
    Role::Gold,
];

/// `m` as a `move16` (cshogi's and YaneuraOu's 16-bit move): the destination, the origin
/// (81 + the kind's place in [`DROP_ORDER`] for a drop) shifted by 7, and 1 << 14 for a
/// promotion. A drop of a kind no hand holds is written as a pawn's.
///
/// ```
/// use gyoku_kifu::training::move16;
/// assert_eq!(move16("7g7f".parse().unwrap()), 7739);
/// assert_eq!(move16("L*5e".parse().unwrap()), 10536);
/// ```
pub fn move16(m: Move) -> u16 {
    match m {
        Move::Normal { from, to, promote } => {
            to.index() as u16 | (from.index() as u16) << 7 | if promote { 1 << 14 } else { 0 }
        }
        Move::Drop { role, to } => {
            let kind = DROP_ORDER.iter().position(|&r| r == role).unwrap_or(0);
            to.index() as u16 | (81 + kind as u16) << 7
        }
    }
}

/// What writing one game gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameEntries {
    /// Positions written.
    pub written: u64,
    /// Positions that cannot be written as `hcp` (not the forty pieces), left out.
    pub skipped: u64,
}

/// Appends one `hcpe` entry for each position of `record`'s main line from which a move
/// was played, labelled with `result` (the game's judged result: a draw, or who won). The
/// moves are played from the record's start and checked; an illegal one ends the line.
pub fn hcpe_game(record: &crate::Record, result: GameResult, out: &mut Vec<u8>) -> GameEntries {
    let label = match result {
        GameResult::Win(Color::Black) => 1u8,
        GameResult::Win(Color::White) => 2,
        GameResult::Draw | GameResult::NoContest => 0,
    };
    let mut done = GameEntries::default();
    let mut pos = record.start.clone();
    for m in &record.moves {
        match hcp(&pos) {
            Some(h) => {
                out.extend_from_slice(&h);
                out.extend_from_slice(&0i16.to_le_bytes());
                out.extend_from_slice(&move16(m.mv).to_le_bytes());
                out.push(label);
                out.push(0);
                done.written += 1;
            }
            None => done.skipped += 1,
        }
        if pos.play(m.mv).is_err() {
            break;
        }
    }
    done
}
