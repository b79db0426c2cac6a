//! SFEN: reading and writing positions.
//!
//! Reading is lenient where real tools disagree and strict where a mistake would change
//! the position:
//! - a leading `sfen ` and the keyword `startpos` are accepted;
//! - the hand may list kinds in any order and repeat a letter (`PPPr` = `3Pr`), and a count
//!   may have two digits (`10p`, `18P`);
//! - the hand and move-number fields may be left out (`-` and 1);
//! - anything else out of place is an error that names the field and the 1-based column
//!   within that field.
//!
//! Writing is canonical: hands in the order `R B G S N L P`, Black's first.

use std::fmt;
use std::fmt::Write;

use crate::{ByColor, Color, Hand, Piece, Role, Setup, Square};

/// Which of the four SFEN fields an error is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SfenField {
    /// Field 1: the board.
    Board,
    /// Field 2: the side to move.
    Side,
    /// Field 3: the hands.
    Hands,
    /// Field 4: the move number.
    MoveNumber,
    /// Text after the fourth field.
    Trailing,
}

impl SfenField {
    /// The 1-based field number.
    pub const fn number(self) -> usize {
        match self {
            SfenField::Board => 1,
            SfenField::Side => 2,
            SfenField::Hands => 3,
            SfenField::MoveNumber => 4,
            SfenField::Trailing => 5,
        }
    }

    /// The field's name, as errors print it.
    pub const fn name(self) -> &'static str {
        match self {
            SfenField::Board => "board",
            SfenField::Side => "side",
            SfenField::Hands => "hands",
            SfenField::MoveNumber => "move number",
            SfenField::Trailing => "trailing",
        }
    }
}

/// What was wrong in an SFEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenErrorKind {
    /// The text is empty.
    Empty,
    /// A character that is no piece letter.
    UnknownPiece(char),
    /// A `+` before a kind that does not promote, or at the end.
    BadPromotion(char),
    /// A rank that does not describe exactly nine squares.
    BadRankLength {
        /// The rank (1–9).
        rank: u8,
        /// How many squares it described.
        squares: u32,
    },
    /// The board does not have nine ranks.
    BadRankCount(usize),
    /// The side is not `b` or `w`.
    BadSide(String),
    /// A count in the hand that is not followed by a piece, or is 0.
    BadCount,
    /// A king or promoted piece in hand.
    NotAHandPiece(char),
    /// More pieces of a kind in one hand than a hand can hold.
    HandOverflow(char),
    /// The move number is not a positive integer.
    BadMoveNumber(String),
    /// Text after the move number.
    Trailing(String),
}

/// An SFEN that could not be read.
///
/// ```
/// use gyoku::Setup;
/// let err = Setup::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b RXp 1").unwrap_err();
/// assert_eq!(err.to_string(), "sfen: field 3 (hands): unknown piece 'X' at column 2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSfenError {
    /// The field with the fault.
    pub field: SfenField,
    /// The 1-based column (in characters) within that field.
    pub column: usize,
    /// What was wrong.
    pub kind: SfenErrorKind,
}

impl fmt::Display for ParseSfenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sfen: field {} ({}): ",
            self.field.number(),
            self.field.name()
        )?;
        let col = self.column;
        match &self.kind {
            SfenErrorKind::Empty => f.write_str("empty"),
            SfenErrorKind::UnknownPiece(c) => write!(f, "unknown piece '{c}' at column {col}"),
            SfenErrorKind::BadPromotion(c) => {
                write!(f, "'+' before '{c}', which cannot promote, at column {col}")
            }
            SfenErrorKind::BadRankLength { rank, squares } => write!(
                f,
                "rank {rank} describes {squares} squares instead of 9 (at column {col})"
            ),
            SfenErrorKind::BadRankCount(n) => write!(f, "{n} ranks instead of 9"),
            SfenErrorKind::BadSide(s) => write!(f, "side '{s}' is not 'b' or 'w'"),
            SfenErrorKind::BadCount => write!(f, "bad count at column {col}"),
            SfenErrorKind::NotAHandPiece(c) => {
                write!(f, "'{c}' cannot be held in hand (column {col})")
            }
            SfenErrorKind::HandOverflow(c) => {
                write!(f, "too many '{c}' in hand (column {col})")
            }
            SfenErrorKind::BadMoveNumber(s) => {
                write!(f, "'{s}' is not a positive move number")
            }
            SfenErrorKind::Trailing(s) => write!(f, "unexpected '{s}' after the move number"),
        }
    }
}

impl std::error::Error for ParseSfenError {}

fn error(field: SfenField, column: usize, kind: SfenErrorKind) -> ParseSfenError {
    ParseSfenError {
        field,
        column,
        kind,
    }
}

impl Setup {
    /// Reads an SFEN (see the module docs for what is accepted).
    ///
    /// # Errors
    /// [`ParseSfenError`], naming the field and column.
    pub fn from_sfen(text: &str) -> Result<Setup, ParseSfenError> {
        let text = text.trim();
        let text = text.strip_prefix("sfen ").unwrap_or(text).trim_start();
        if text == "startpos" {
            return Setup::from_sfen(crate::setup::STARTPOS_SFEN);
        }
        let mut fields = text.split_ascii_whitespace();
        let board = fields
            .next()
            .ok_or_else(|| error(SfenField::Board, 1, SfenErrorKind::Empty))?;
        let mut setup = Setup::empty();
        parse_board(board, &mut setup)?;
        let side = fields
            .next()
            .ok_or_else(|| error(SfenField::Side, 1, SfenErrorKind::Empty))?;
        setup.turn = match side {
            "b" => Color::Black,
            "w" => Color::White,
            other => {
                return Err(error(
                    SfenField::Side,
                    1,
                    SfenErrorKind::BadSide(other.chars().take(16).collect()),
                ));
            }
        };
        if let Some(hands) = fields.next() {
            setup.hands = parse_hands(hands)?;
        }
        if let Some(number) = fields.next() {
            setup.move_number = number
                .parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    error(
                        SfenField::MoveNumber,
                        1,
                        SfenErrorKind::BadMoveNumber(number.chars().take(16).collect()),
                    )
                })?;
        }
        if let Some(extra) = fields.next() {
            return Err(error(
                SfenField::Trailing,
                1,
                SfenErrorKind::Trailing(extra.chars().take(16).collect()),
            ));
        }
        Ok(setup)
    }

    /// Writes the canonical SFEN.
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        write_board(&mut s, &self.board);
        s.push(' ');
        s.push(self.turn.sfen_char());
        s.push(' ');
        write_hands(&mut s, &self.hands);
        let _ = write!(s, " {}", self.move_number);
        s
    }
}

fn parse_board(field: &str, setup: &mut Setup) -> Result<(), ParseSfenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 9 {
        return Err(error(
            SfenField::Board,
            1,
            SfenErrorKind::BadRankCount(ranks.len()),
        ));
    }
    let mut column = 0usize;
    for (r, rank_text) in ranks.iter().enumerate() {
        let rank = r as u8 + 1;
        let mut file: u32 = 9;
        let mut squares: u32 = 0;
        let mut promoted = false;
        let rank_start = column + 1;
        for c in rank_text.chars() {
            column += 1;
            if let Some(d) = c.to_digit(10).filter(|&d| d >= 1) {
                if promoted {
                    return Err(error(
                        SfenField::Board,
                        column,
                        SfenErrorKind::BadPromotion(c),
                    ));
                }
                squares += d;
                file = file.saturating_sub(d);
                continue;
            }
            if c == '+' {
                if promoted {
                    return Err(error(
                        SfenField::Board,
                        column,
                        SfenErrorKind::BadPromotion(c),
                    ));
                }
                promoted = true;
                continue;
            }
            let role = c
                .is_ascii()
                .then(|| Role::from_letter(c as u8))
                .flatten()
                .ok_or_else(|| error(SfenField::Board, column, SfenErrorKind::UnknownPiece(c)))?;
            let role = if promoted {
                role.promoted().ok_or_else(|| {
                    error(SfenField::Board, column, SfenErrorKind::BadPromotion(c))
                })?
            } else {
                role
            };
            promoted = false;
            squares += 1;
            if squares > 9 || file == 0 {
                return Err(error(
                    SfenField::Board,
                    rank_start,
                    SfenErrorKind::BadRankLength { rank, squares },
                ));
            }
            let color = if c.is_ascii_uppercase() {
                Color::Black
            } else {
                Color::White
            };
            let sq = Square::new(file as u8, rank).expect("file and rank in range");
            setup.board.set(sq, Some(Piece::new(color, role)));
            file -= 1;
        }
        if promoted {
            return Err(error(
                SfenField::Board,
                column,
                SfenErrorKind::BadPromotion('+'),
            ));
        }
        if squares != 9 {
            return Err(error(
                SfenField::Board,
                rank_start,
                SfenErrorKind::BadRankLength { rank, squares },
            ));
        }
        column += 1; // the '/'
    }
    Ok(())
}

fn parse_hands(field: &str) -> Result<ByColor<Hand>, ParseSfenError> {
    let mut hands = ByColor::<Hand>::default();
    if field == "-" {
        return Ok(hands);
    }
    let mut count: Option<u32> = None;
    for (i, c) in field.chars().enumerate() {
        let column = i + 1;
        if let Some(d) = c.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n > 255 || (n == 0 && count.is_none()) {
                return Err(error(SfenField::Hands, column, SfenErrorKind::BadCount));
            }
            count = Some(n);
            continue;
        }
        let role = c
            .is_ascii()
            .then(|| Role::from_letter(c as u8))
            .flatten()
            .ok_or_else(|| error(SfenField::Hands, column, SfenErrorKind::UnknownPiece(c)))?;
        if !role.is_hand_role() {
            return Err(error(
                SfenField::Hands,
                column,
                SfenErrorKind::NotAHandPiece(c),
            ));
        }
        let color = if c.is_ascii_uppercase() {
            Color::Black
        } else {
            Color::White
        };
        let hand = hands.get_mut(color);
        let total = u32::from(hand.count(role)) + count.take().unwrap_or(1);
        let total = u8::try_from(total)
            .map_err(|_| error(SfenField::Hands, column, SfenErrorKind::HandOverflow(c)))?;
        hand.set(role, total)
            .map_err(|_| error(SfenField::Hands, column, SfenErrorKind::HandOverflow(c)))?;
    }
    if count.is_some() {
        return Err(error(
            SfenField::Hands,
            field.chars().count(),
            SfenErrorKind::BadCount,
        ));
    }
    Ok(hands)
}

pub(crate) fn write_board(s: &mut String, board: &crate::Board) {
    for rank in 1..=9u8 {
        if rank > 1 {
            s.push('/');
        }
        let mut empty = 0;
        for file in (1..=9u8).rev() {
            let sq = Square::new(file, rank).expect("valid square");
            match board.piece_at(sq) {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        let _ = write!(s, "{empty}");
                        empty = 0;
                    }
                    s.push_str(&piece.sfen());
                }
            }
        }
        if empty > 0 {
            let _ = write!(s, "{empty}");
        }
    }
}

pub(crate) fn write_hands(s: &mut String, hands: &ByColor<Hand>) {
    if hands.black.is_empty() && hands.white.is_empty() {
        s.push('-');
        return;
    }
    for color in Color::ALL {
        for (role, n) in hands.get(color).iter() {
            if n > 1 {
                let _ = write!(s, "{n}");
            }
            let letter = role.sfen();
            match color {
                Color::Black => s.push_str(letter),
                Color::White => s.push_str(&letter.to_ascii_lowercase()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> ParseSfenError {
        Setup::from_sfen(text).unwrap_err()
    }

    #[test]
    fn start_position_round_trips() {
        let s = Setup::startpos();
        assert_eq!(s.to_sfen(), crate::setup::STARTPOS_SFEN);
        assert_eq!(Setup::from_sfen("startpos").unwrap(), s);
        assert_eq!(
            Setup::from_sfen(&format!("sfen {}", crate::setup::STARTPOS_SFEN)).unwrap(),
            s
        );
    }

    #[test]
    fn lenient_hands() {
        let s = Setup::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b PPPPr 1").unwrap();
        assert_eq!(s.to_sfen(), "4k4/9/9/9/9/9/9/9/4K4 b 4Pr 1");
        let s = Setup::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 18P2r 1").unwrap();
        assert_eq!(s.hands.black.count(Role::Pawn), 18);
        let s = Setup::from_sfen("9/9/2B3B2/9/4k4/9/2B3B2/9/8K w").unwrap();
        assert_eq!(s.move_number, 1);
        assert!(s.hands.black.is_empty());
    }

    #[test]
    fn errors_name_field_and_column() {
        let e = err("4k4/9/9/9/9/9/9/9/4K4 b RXp 1");
        assert_eq!((e.field, e.column), (SfenField::Hands, 2));
        let e = err("4k4/9/9/9/9/9/9/9/4K3 b - 1");
        assert_eq!(e.field, SfenField::Board);
        assert!(matches!(
            e.kind,
            SfenErrorKind::BadRankLength {
                rank: 9,
                squares: 8
            }
        ));
        let e = err("4k4/9/9/9/9/9/9/9/4+G4 b - 1");
        assert_eq!(e.kind, SfenErrorKind::BadPromotion('G'));
        assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4 x - 1").field, SfenField::Side);
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b - 0").field,
            SfenField::MoveNumber
        );
        assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4 b +P 1").field, SfenField::Hands);
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 16L 1").kind,
            SfenErrorKind::HandOverflow('L')
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/4K4 b - 1").kind,
            SfenErrorKind::BadRankCount(8)
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b - 1 x").field,
            SfenField::Trailing
        );
        assert_eq!(err("").kind, SfenErrorKind::Empty);
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b K 1").kind,
            SfenErrorKind::NotAHandPiece('K')
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 2 1").kind,
            SfenErrorKind::BadCount
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 0P 1").kind,
            SfenErrorKind::BadCount
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/4K4 b 300P 1").kind,
            SfenErrorKind::BadCount
        );
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K41 b - 1").kind,
            SfenErrorKind::BadRankLength { .. }
        ));
        assert!(matches!(
            err("4k4/9/9/9/9/9/9/9/4K4é b - 1").kind,
            SfenErrorKind::UnknownPiece('é')
        ));
    }
}
