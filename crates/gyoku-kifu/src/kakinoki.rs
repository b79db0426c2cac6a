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

fn side_named(text: &str) -> Option<(Color, &str)> {
    for (word, color) in [
        ("先手", Color::Black),
        ("下手", Color::Black),
        ("後手", Color::White),
        ("上手", Color::White),
    ] {
        if let Some(rest) = text.strip_prefix(word) {
            return Some((color, rest));
        }
    }
    None
}

/// How a summary line (`まで172手で後手の勝ち`) says the game ended, `start_turn` being the
/// side to move at the start: the ply count and the end, relative to the side to move after
/// that many plies.
pub(crate) fn parse_summary(line: &str, start_turn: Color) -> Option<(u32, Terminal)> {
    let rest = line.strip_prefix("まで")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let plies: u32 = rest[..digits].parse().ok()?;
    let rest = rest[digits..].strip_prefix('手')?;
    let rest = rest.strip_prefix('で').unwrap_or(rest).trim();
    let turn = crate::turn_after(start_turn, plies as usize);
    let other = || Terminal::Other(rest.to_string());
    let end = match rest {
        "詰" | "詰み" => Terminal::Mate,
        "不詰" => Terminal::NoMate,
        "中断" => Terminal::Suspend,
        "千日手" => Terminal::Sennichite,
        "持将棋" => Terminal::Jishogi,
        "最大手数" => Terminal::MaxMoves,
        _ => {
            let (cause, side_text) = match rest.split_once("により") {
                Some((cause, side)) => (cause, side),
                None => ("", rest),
            };
            let Some((side, result)) = side_named(side_text) else {
                return Some((plies, other()));
            };
            // `先手の反則負け`, or Shogi Club 24's `先手 反則負け`.
            let result = result
                .strip_prefix('の')
                .unwrap_or(result.trim_start_matches([' ', '　']));
            match (cause, result) {
                ("", "反則負け") => Terminal::IllegalAction(side),
                ("", "反則勝ち") => Terminal::IllegalAction(!side),
                ("", "入玉勝ち") if side == turn => Terminal::Declaration,
                ("", "勝ち") if side != turn => Terminal::Resign,
                ("時間切れ", "勝ち") if side != turn => Terminal::TimeUp,
                ("トライ", "勝ち") if side == turn => Terminal::Try,
                _ => other(),
            }
        }
    };
    Some((plies, end))
}

/// The result a closing line (`まで172手で後手の勝ち`) names, whoever moved last: a side
/// that wins (`勝ち`, `反則勝ち`, `入玉勝ち`, after `…により` or not) or loses (`負け`,
/// `反則負け`, also Shogi Club 24's `先手 反則負け`), or a draw (`千日手`, `持将棋`).
pub(crate) fn closing_result(line: &str) -> Option<gyoku::GameResult> {
    let rest = line.strip_prefix("まで")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('手')?;
    let rest = rest.strip_prefix('で').unwrap_or(rest).trim();
    if matches!(rest, "千日手" | "持将棋") {
        return Some(gyoku::GameResult::Draw);
    }
    let said = rest.split_once("により").map_or(rest, |(_, side)| side);
    let (side, word) = side_named(said)?;
    let word = word
        .strip_prefix('の')
        .unwrap_or(word.trim_start_matches([' ', '　']));
    if word.ends_with("勝ち") {
        Some(gyoku::GameResult::Win(side))
    } else if word.ends_with("負け") {
        Some(gyoku::GameResult::Win(!side))
    } else {
        None
    }
}
