//! What KIF and KI2 share, the Kakinoki family of formats: piece names, the destination and
//! piece that start a move (`７六歩`, `同　歩`), the side marks of a KI2 move, the `変化：N手`
//! line that opens a variation, and the `まで…` summary line that ends a record.

use gyoku::{Color, Role, Square};

use crate::{Record, Terminal};

/// Piece names on move lines and boards.
pub(crate) const NAMES: [(&str, Role); 19] = [
    ("成香", Role::ProLance),
    ("成桂", Role::ProKnight),
    ("成銀", Role::ProSilver),
    ("歩", Role::Pawn),
    ("香", Role::Lance),
    ("桂", Role::Knight),
    ("銀", Role::Silver),
    ("金", Role::Gold),
    ("角", Role::Bishop),
    ("飛", Role::Rook),
    ("玉", Role::King),
    ("王", Role::King),
    ("と", Role::ProPawn),
    ("杏", Role::ProLance),
    ("圭", Role::ProKnight),
    ("全", Role::ProSilver),
    ("馬", Role::Horse),
    ("龍", Role::Dragon),
    ("竜", Role::Dragon),
];

/// The side marks that start a KI2 move.
pub(crate) const MARKS: [char; 6] = ['▲', '△', '☗', '☖', '▼', '▽'];

pub(crate) fn is_move_line(line: &str) -> bool {
    line.trim_start().starts_with(MARKS)
}

/// The destination and piece that start a KIF or KI2 move (`７六歩`, `同　歩`, `同銀`), and
/// the text after them.
pub(crate) fn destination_and_piece(
    text: &str,
    previous_to: Option<Square>,
) -> Result<(Square, Role, &str), String> {
    let mut rest = text;
    let to = if let Some(r) = rest.strip_prefix('同') {
        rest = r.trim_start_matches(['　', ' ']);
        previous_to.ok_or("'同' with no previous move")?
    } else {
        let mut chars = rest.char_indices();
        let (_, f) = chars.next().ok_or("empty move")?;
        let (i, r) = chars.next().ok_or("no rank")?;
        let sq = Square::from_japanese(&format!("{f}{r}"))
            .ok_or_else(|| format!("bad square '{f}{r}'"))?;
        rest = &rest[i + r.len_utf8()..];
        sq
    };
    let (name, role) = NAMES
        .iter()
        .find(|(n, _)| rest.starts_with(n))
        .ok_or_else(|| format!("unknown piece in '{text}'"))?;
    Ok((to, *role, &rest[name.len()..]))
}

/// The ply after `変化：` (or `変化:`) when `line` (trimmed at the start) opens a
/// variation, KIF's and KI2's alike; a header whose name merely begins with 変化 does not.
pub(crate) fn variation_header(line: &str) -> Option<&str> {
    line.strip_prefix("変化：")
        .or_else(|| line.strip_prefix("変化:"))
}

/// The summary line (`まで172手で後手の勝ち`) for how `record` ends after `plies` plies with
/// `turn` to move; `None` for an end that has none.
pub(crate) fn summary(record: &Record, plies: usize, turn: Color) -> Option<String> {
    let winner = |c: Color| {
        if c == Color::Black {
            "先手"
        } else {
            "後手"
        }
    };
    Some(match record.end.as_ref()? {
        Terminal::Resign | Terminal::Mate => format!("まで{plies}手で{}の勝ち", winner(!turn)),
        Terminal::TimeUp => format!("まで{plies}手で時間切れにより{}の勝ち", winner(!turn)),
        Terminal::IllegalLoss => format!("まで{plies}手で{}の反則負け", winner(turn)),
        Terminal::IllegalWin => format!("まで{plies}手で{}の反則勝ち", winner(turn)),
        Terminal::Declaration => format!("まで{plies}手で{}の入玉勝ち", winner(turn)),
        Terminal::Sennichite => format!("まで{plies}手で千日手"),
        Terminal::Jishogi | Terminal::Draw => format!("まで{plies}手で持将棋"),
        Terminal::MaxMoves => format!("まで{plies}手で最大手数"),
        Terminal::Suspend => format!("まで{plies}手で中断"),
        Terminal::NoMate => format!("まで{plies}手で不詰"),
        Terminal::Try => format!("まで{plies}手でトライにより{}の勝ち", winner(turn)),
        Terminal::IllegalAction(c) => format!("まで{plies}手で{}の反則負け", winner(*c)),
        Terminal::Other(word)
            if !word.is_empty()
                && !word.contains(char::is_whitespace)
                && !word.starts_with('で') =>
        {
            format!("まで{plies}手で{word}")
        }
        Terminal::Other(_) => return None,
    })
}
