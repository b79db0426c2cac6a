//! Training data from judged games: each position of a game, the move played from it and
//! the game's result as the referee judged it, in cshogi's `hcpe` form
//! (`HuffmanCodedPosAndEval`, 38 bytes: Apery's 32-byte Huffman-coded position, an
//! evaluation (`i16`, 0: none), the move as a `move16`, the result — 0 a draw, 1 Black
//! won, 2 White won — and a padding byte), or YaneuraOu's `psv` (`PackedSfenValue`, 40
//! bytes: its 32-byte packed SFEN, a score (0), the move as a `move16`, the game's ply,
//! the result for the side to move — 1 won, -1 lost, 0 a draw — and a padding byte).

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
    /// What both codes begin with: the side to move (1 bit), each king's square (7 bits,
    /// Black's first); `None` without both kings.
    fn start(pos: &Position) -> Option<Bits> {
        let mut bits = Bits {
            data: [0; 32],
            at: 0,
        };
        bits.put(u8::from(pos.turn() == Color::White), 1)?;
        for color in [Color::Black, Color::White] {
            bits.put(pos.king(color)?.index() as u8, 7)?;
        }
        Some(bits)
    }

    /// The board's squares in order: an empty one as a 0 bit, a king not again (it was
    /// written first), any other piece as `piece` writes it.
    fn board(
        &mut self,
        pos: &Position,
        piece: impl Fn(&mut Bits, gyoku::Piece) -> Option<()>,
    ) -> Option<()> {
        for index in 0..81 {
            let sq = gyoku::Square::from_index(index)?;
            match pos.board().piece_at(sq) {
                None => self.put(0, 1)?,
                Some(p) if p.role == Role::King => {}
                Some(p) => piece(self, p)?,
            }
        }
        Some(())
    }

    /// The code, once it fills the 256 bits exactly.
    fn finish(self) -> Option<[u8; 32]> {
        (self.at == 256).then_some(self.data)
    }

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
    let mut bits = Bits::start(pos)?;
    bits.board(pos, |bits, p| {
        let (code, n) = BOARD[p.color.index()][p.role as usize];
        bits.put(code, n)
    })?;
    for color in [Color::Black, Color::White] {
        let hand = pos.hand(color);
        for (k, role) in Role::HAND.into_iter().enumerate() {
            let (code, n) = HAND[color.index()][k];
            for _ in 0..hand.count(role) {
                bits.put(code, n)?;
            }
        }
    }
    bits.finish()
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

/// YaneuraOu's packed-SFEN codes of the kinds (code, bits), by [`DROP_ORDER`]: on the
/// board each is followed by a promotion bit (not for gold) and a colour bit; in hand by
/// the code without its lowest bit, a 0 promotion bit (not for gold) and the colour bit.
const PACKED: [(u8, u8); 7] = [
    (0x01, 2),
    (0x03, 4),
    (0x0b, 4),
    (0x07, 4),
    (0x1f, 6),
    (0x3f, 6),
    (0x0f, 5),
];

/// The position as YaneuraOu's `PackedSfen` (32 bytes), which cshogi's `set_psfen` reads;
/// `None` where [`hcp`] has none (both kings and the forty pieces are needed).
///
/// ```
/// let p = gyoku_kifu::training::packed_sfen(&gyoku::Position::startpos()).unwrap();
/// let hex: String = p.iter().map(|b| format!("{b:02x}")).collect();
/// // What cshogi's `to_psfen` writes for the start.
/// assert_eq!(hex, "58a451220ceb67227e9653221caf447824c22b119e53221ceb6f223e9651220c");
/// ```
pub fn packed_sfen(pos: &Position) -> Option<[u8; 32]> {
    let mut bits = Bits::start(pos)?;
    let kind = |role: Role| DROP_ORDER.iter().position(|&r| r == role.unpromoted());
    bits.board(pos, |bits, p| {
        let (code, n) = PACKED[kind(p.role)?];
        bits.put(code, n)?;
        if p.role != Role::Gold {
            bits.put(u8::from(p.role.unpromoted() != p.role), 1)?;
        }
        bits.put(u8::from(p.color == Color::White), 1)
    })?;
    for color in [Color::Black, Color::White] {
        let hand = pos.hand(color);
        for (k, role) in DROP_ORDER.into_iter().enumerate() {
            let (code, n) = PACKED[k];
            for _ in 0..hand.count(role) {
                bits.put(code >> 1, n - 1)?;
                if role != Role::Gold {
                    bits.put(0, 1)?;
                }
                bits.put(u8::from(color == Color::White), 1)?;
            }
        }
    }
    bits.finish()
}

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

/// Bytes of one `psv` entry.
pub const PSV_BYTES: usize = 40;

/// Calls `entry` with each position of `record`'s main line from which a move was played
/// and that move (played from the record's start and checked: an illegal one ends the
/// line), and counts what `entry` wrote (`Some`) and left out (`None`).
fn each_position(
    record: &crate::Record,
    mut entry: impl FnMut(&Position, Move) -> Option<()>,
) -> GameEntries {
    let mut done = GameEntries::default();
    let mut pos = record.start.clone();
    for m in &record.moves {
        match entry(&pos, m.mv) {
            Some(()) => done.written += 1,
            None => done.skipped += 1,
        }
        if pos.play(m.mv).is_err() {
            break;
        }
    }
    done
}

/// Appends one `hcpe` entry for each position of `record`'s main line from which a move
/// was played, labelled with `result` (the game's judged result: a draw, or who won).
pub fn hcpe_game(record: &crate::Record, result: GameResult, out: &mut Vec<u8>) -> GameEntries {
    let label = match result {
        GameResult::Win(Color::Black) => 1u8,
        GameResult::Win(Color::White) => 2,
        GameResult::Draw | GameResult::NoContest => 0,
    };
    each_position(record, |pos, mv| {
        out.extend_from_slice(&hcp(pos)?);
        out.extend_from_slice(&0i16.to_le_bytes());
        out.extend_from_slice(&move16(mv).to_le_bytes());
        out.extend_from_slice(&[label, 0]);
        Some(())
    })
}

/// As [`hcpe_game`], in YaneuraOu's `PackedSfenValue` form: the result is the side to
/// move's (1 won, -1 lost, 0 a draw) and the ply the position's (the record's first move
/// number, then one more a move).
pub fn psv_game(record: &crate::Record, result: GameResult, out: &mut Vec<u8>) -> GameEntries {
    let first = record.start.move_number();
    let mut ply = 0u32;
    each_position(record, |pos, mv| {
        let number = u16::try_from(first + ply).unwrap_or(u16::MAX);
        ply += 1;
        let side: i8 = match result {
            GameResult::Win(c) if c == pos.turn() => 1,
            GameResult::Win(_) => -1,
            GameResult::Draw | GameResult::NoContest => 0,
        };
        out.extend_from_slice(&packed_sfen(pos)?);
        out.extend_from_slice(&0i16.to_le_bytes());
        out.extend_from_slice(&move16(mv).to_le_bytes());
        out.extend_from_slice(&number.to_le_bytes());
        out.extend_from_slice(&[side as u8, 0]);
        Some(())
    })
}

/// As [`psv_game`], as text: YaneuraOu's plain form, six lines a position (`sfen …`, `move
/// 7g7f`, `score 0`, `ply N`, `result 1|-1|0` for the side to move, `e`). Every position
/// is written (a handicap's too).
///
/// ```
/// let r = &gyoku_kifu::read_str("position startpos moves 7g7f 3c3d", gyoku_kifu::Format::Usi).unwrap()[0];
/// let mut out = Vec::new();
/// gyoku_kifu::training::sfen_game(r, gyoku::GameResult::Win(gyoku::Color::White), &mut out);
/// let text = String::from_utf8(out).unwrap();
/// assert!(text.starts_with("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\nmove 7g7f\nscore 0\nply 1\nresult -1\ne\n"));
/// assert_eq!(text.lines().count(), 12);
/// ```
pub fn sfen_game(record: &crate::Record, result: GameResult, out: &mut Vec<u8>) -> GameEntries {
    each_position(record, |pos, mv| {
        let side = match result {
            GameResult::Win(c) if c == pos.turn() => 1,
            GameResult::Win(_) => -1,
            GameResult::Draw | GameResult::NoContest => 0,
        };
        let text = format!(
            "sfen {}\nmove {mv}\nscore 0\nply {}\nresult {side}\ne\n",
            pos.to_sfen(),
            pos.move_number()
        );
        out.extend_from_slice(text.as_bytes());
        Some(())
    })
}

/// A training format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainingFormat {
    /// cshogi's `HuffmanCodedPosAndEval` ([`hcpe_game`]).
    Hcpe,
    /// YaneuraOu's `PackedSfenValue` ([`psv_game`]).
    Psv,
    /// YaneuraOu's plain text ([`sfen_game`]).
    Sfen,
}

impl TrainingFormat {
    /// `hcpe`, `psv` or `sfen`.
    pub fn parse(name: &str) -> Option<TrainingFormat> {
        match name {
            "hcpe" => Some(TrainingFormat::Hcpe),
            "psv" => Some(TrainingFormat::Psv),
            "sfen" => Some(TrainingFormat::Sfen),
            _ => None,
        }
    }

    /// Appends one game's entries in this format.
    pub fn game(
        self,
        record: &crate::Record,
        result: GameResult,
        out: &mut Vec<u8>,
    ) -> GameEntries {
        match self {
            TrainingFormat::Hcpe => hcpe_game(record, result, out),
            TrainingFormat::Psv => psv_game(record, result, out),
            TrainingFormat::Sfen => sfen_game(record, result, out),
        }
    }
}
