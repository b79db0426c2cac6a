//! KI2 output: moves as printed (`▲７六歩　△３四歩`), without origins, so a move that
//! another piece of the same kind could also make is told apart by the JSA notation rules:
//! a motion word (上 forward, 寄 sideways, 引 backward) when it is enough; else 直 for a
//! gold-moving piece or silver stepping straight forward; else 右/左 when the piece is the
//! outermost on that side; else both position and motion. Dragons and horses use 左/右
//! rather than 直. A drop is marked 打 only when a piece on the board could also move
//! there; 成/不成 as played where promotion was possible.
//!
//! Reading KI2 is not implemented yet.

use gyoku::{Color, Move, Position, Role, Square};

use crate::{Record, Terminal};

fn forwardness(color: Color, from: Square, to: Square) -> i32 {
    let d = i32::from(from.rank()) - i32::from(to.rank());
    if color == Color::Black { d } else { -d }
}

fn motion(color: Color, from: Square, to: Square) -> char {
    match forwardness(color, from, to) {
        d if d > 0 => '上',
        0 => '寄',
        _ => '引',
    }
}

/// How far right a square is for `color` (Black's right is file 1, White's is file 9).
fn rightness(color: Color, sq: Square) -> i32 {
    let file = i32::from(sq.file());
    if color == Color::Black { -file } else { file }
}

fn steps_straight(color: Color, from: Square, to: Square) -> bool {
    from.file() == to.file() && forwardness(color, from, to) == 1
}

/// The KI2 notation of `mv` in `pos` (with ▲ or △), `previous_to` being the destination
/// of the move before (for 同).
///
/// ```
/// use gyoku::Position;
/// use gyoku_kifu::ki2::move_notation;
/// let pos = Position::startpos();
/// assert_eq!(move_notation(&pos, "7g7f".parse().unwrap(), None), "▲７六歩");
/// assert_eq!(move_notation(&pos, "6i5h".parse().unwrap(), None), "▲５八金左");
/// ```
pub fn move_notation(pos: &Position, mv: Move, previous_to: Option<Square>) -> String {
    let us = pos.turn();
    let mut s = String::from(if us == Color::Black { "▲" } else { "△" });
    let to = mv.to();
    let role = match mv {
        Move::Drop { role, .. } => role,
        Move::Normal { from, .. } => pos.board().piece_at(from).map_or(Role::Pawn, |p| p.role),
    };
    let name = role.kanji();
    if Some(to) == previous_to {
        s.push('同');
        if name.chars().count() == 1 {
            s.push('　');
        }
    } else {
        s.push_str(&to.japanese());
    }
    s.push_str(name);
    // Other pieces of the same kind that can move to `to` legally.
    let others: Vec<Square> = pos
        .legal_moves()
        .iter()
        .filter_map(|m| match *m {
            Move::Normal { from, to: t, .. }
                if t == to
                    && Some(from) != mv.from()
                    && pos.board().piece_at(from).is_some_and(|p| p.role == role) =>
            {
                Some(from)
            }
            _ => None,
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    match mv {
        Move::Drop { .. } => {
            if !others.is_empty() {
                s.push('打');
            }
        }
        Move::Normal { from, promote, .. } => {
            if !others.is_empty() {
                s.push_str(&qualifier(us, role, from, to, &others));
            }
            if promote {
                s.push('成');
            } else if role.can_promote() && (from.in_zone(us) || to.in_zone(us)) {
                s.push_str("不成");
            }
        }
    }
    s
}

fn qualifier(us: Color, role: Role, from: Square, to: Square, others: &[Square]) -> String {
    let m = motion(us, from, to);
    if others.iter().all(|&o| motion(us, o, to) != m) {
        return m.to_string();
    }
    let big = matches!(role, Role::Dragon | Role::Horse);
    if !big && steps_straight(us, from, to) {
        return "直".to_string();
    }
    let r = rightness(us, from);
    let position = if others.iter().all(|&o| rightness(us, o) < r) {
        Some('右')
    } else if others.iter().all(|&o| rightness(us, o) > r) {
        Some('左')
    } else {
        None
    };
    if let Some(p) = position {
        return p.to_string();
    }
    // Tied for outermost on one side: that side, with the motion.
    if others.iter().all(|&o| rightness(us, o) <= r) {
        format!("右{m}")
    } else if others.iter().all(|&o| rightness(us, o) >= r) {
        format!("左{m}")
    } else {
        m.to_string()
    }
}

fn summary(record: &Record, plies: usize, turn: Color) -> Option<String> {
    let winner = |c: Color| {
        if c == Color::Black {
            "先手"
        } else {
            "後手"
        }
    };
    Some(match record.end.as_ref()?.relative_to(turn) {
        Terminal::Resign | Terminal::Mate => format!("まで{plies}手で{}の勝ち", winner(!turn)),
        Terminal::TimeUp => format!("まで{plies}手で時間切れにより{}の勝ち", winner(!turn)),
        Terminal::IllegalLoss => format!("まで{plies}手で{}の反則負け", winner(turn)),
        Terminal::IllegalWin => format!("まで{plies}手で{}の反則勝ち", winner(turn)),
        Terminal::Declaration => format!("まで{plies}手で{}の入玉勝ち", winner(turn)),
        Terminal::Sennichite => format!("まで{plies}手で千日手"),
        Terminal::Jishogi | Terminal::Draw | Terminal::MaxMoves => format!("まで{plies}手で持将棋"),
        Terminal::Suspend => format!("まで{plies}手で中断"),
        _ => return None,
    })
}

/// Writes a record as KI2 (the header as in KIF, moves six to a line, then the summary).
pub fn write(record: &Record) -> String {
    let kif = crate::kif::write(record);
    let header_end = kif.find("手数----").unwrap_or(kif.len());
    let mut out = kif[..header_end].to_string();
    let mut pos = record.start.clone();
    let mut previous = None;
    let mut line = Vec::new();
    for m in &record.moves {
        line.push(move_notation(&pos, m.mv, previous));
        previous = Some(m.mv.to());
        pos.play_unchecked(m.mv);
        if line.len() == 6 {
            out.push_str(&line.join("　"));
            out.push('\n');
            line.clear();
        }
        for c in &m.comments {
            if !line.is_empty() {
                out.push_str(&line.join("　"));
                out.push('\n');
                line.clear();
            }
            out.push('*');
            out.push_str(c);
            out.push('\n');
        }
    }
    if let Some(foul) = &record.foul {
        line.push(move_notation(&pos, foul.mv, previous));
    }
    if !line.is_empty() {
        out.push_str(&line.join("　"));
        out.push('\n');
    }
    let plies = record.moves.len() + usize::from(record.foul.is_some());
    if let Some(s) = summary(record, plies, pos.turn()) {
        out.push_str(&s);
        out.push('\n');
    }
    out
}
