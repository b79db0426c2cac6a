//! Western notation (Hosking style, as English books print moves: `P-7f`, `+N-3f`, `Nx3f+`,
//! `S*5e`, `B-2b=`) and a PSN game file (PGN-like tag pairs, then numbered moves).
//!
//! A move is `<piece>[<origin>]<-|x|*><square>[+|=]`: the piece letter (as in SFEN, `+` before a
//! promoted piece), the origin only when another piece of the same kind could also move
//! to the square, `-` for a plain move, `x` for a capture, `*` for a drop, then `+` when the
//! piece promotes and `=` when it could have promoted and did not. Western notation is
//! written, not read: [`crate::Format`] lists the formats Gyoku reads.
//!
//! ```
//! use gyoku::Position;
//! use gyoku_kifu::western::move_notation;
//! let pos = Position::startpos();
//! assert_eq!(move_notation(&pos, "7g7f".parse().unwrap()), "P-7f");
//! assert_eq!(move_notation(&pos, "6i5h".parse().unwrap()), "G6i-5h");
//! ```

use gyoku::{Color, GameResult, Move, Position, Role};

use crate::Record;

/// The Western notation of `mv` in `pos` (Hosking style, squares as `7f`).
///
/// ```
/// use gyoku::Position;
/// use gyoku_kifu::western::move_notation;
/// let pos = Position::from_sfen("4k4/9/9/9/9/3p5/9/9/4K4 b N 1").unwrap();
/// assert_eq!(move_notation(&pos, "N*6g".parse().unwrap()), "N*6g");
/// let pos = Position::from_sfen("4k4/9/4p4/9/3N5/9/9/9/4K4 b - 1").unwrap();
/// assert_eq!(move_notation(&pos, "6e5c+".parse().unwrap()), "Nx5c+");
/// assert_eq!(move_notation(&pos, "6e5c".parse().unwrap()), "Nx5c=");
/// ```
pub fn move_notation(pos: &Position, mv: Move) -> String {
    match mv {
        Move::Drop { role, to } => format!("{}*{to}", role.sfen()),
        Move::Normal { from, to, promote } => {
            let role = pos.board().piece_at(from).map_or(Role::Pawn, |p| p.role);
            let us = pos.turn();
            let ambiguous = pos.legal_moves().iter().any(|m| match *m {
                Move::Normal { from: f, to: t, .. } => {
                    t == to && f != from && pos.board().piece_at(f).is_some_and(|p| p.role == role)
                }
                Move::Drop { .. } => false,
            });
            let mut s = String::from(role.sfen());
            if ambiguous {
                s.push_str(&from.to_string());
            }
            s.push(if pos.board().piece_at(to).is_some() {
                'x'
            } else {
                '-'
            });
            s.push_str(&to.to_string());
            if promote {
                s.push('+');
            } else if role.can_promote() && (from.in_zone(us) || to.in_zone(us)) {
                s.push('=');
            }
            s
        }
    }
}

/// The moves of a record's main line in Western notation, numbered like chess
/// (`1. P-7f P-3d 2. P-2f`); a game White starts (handicap) begins `1. ...`.
///
/// ```
/// use gyoku_kifu::{read_str, Format, western};
/// let r = &read_str("position startpos moves 7g7f 3c3d 8h2b+ 3a2b", Format::Usi).unwrap()[0];
/// assert_eq!(western::moves_text(r), "1. P-7f P-3d 2. Bx2b+ Sx2b");
/// ```
pub fn moves_text(record: &Record) -> String {
    moves_units(record).join(" ")
}

/// The moves as units that a line break may not split (`1. P-7f`).
fn moves_units(record: &Record) -> Vec<String> {
    let mut pos = record.start.clone();
    let mut out = Vec::new();
    let mut number = 1;
    if pos.turn() == Color::White && !record.moves.is_empty() {
        out.push("1. ...".to_string());
    }
    let foul = record.foul.as_ref().map(|f| f.mv);
    for mv in record.moves.iter().map(|m| m.mv).chain(foul) {
        let text = move_notation(&pos, mv);
        if pos.turn() == Color::Black {
            out.push(format!("{number}. {text}"));
        } else {
            out.push(text);
            number += 1;
        }
        if pos.is_legal(mv) {
            pos.play_unchecked(mv);
        }
    }
    out
}

/// PSN's result tag: `1-0` (Black, sente, wins), `0-1`, `1/2-1/2`, or `*`.
fn result_tag(record: &Record) -> &'static str {
    let plies = record.moves.len() + usize::from(record.foul.is_some());
    let turn = crate::turn_after(record.start.turn(), plies);
    match record
        .end
        .as_ref()
        .and_then(|e| crate::judge::recorded_result(e, turn))
    {
        Some(GameResult::Win(Color::Black)) => "1-0",
        Some(GameResult::Win(Color::White)) => "0-1",
        Some(GameResult::Draw | GameResult::NoContest) => "1/2-1/2",
        None => "*",
    }
}

/// Writes a record as PSN: tag pairs (`Sente`, `Gote`, `Event`, `Site`, `Date`, `Handicap` (its
/// English name, `2-piece`) or
/// `SFEN`, `Result`), then the numbered moves in Western notation, wrapped at 80 columns,
/// ending with the result.
pub fn write(record: &Record) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, key: &str, value: &str| {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{key} \"{value}\"]\n"));
    };
    for (key, name) in [
        ("先手", "Sente"),
        ("下手", "Sente"),
        ("後手", "Gote"),
        ("上手", "Gote"),
        ("棋戦", "Event"),
        ("場所", "Site"),
        ("開始日時", "Date"),
    ] {
        if let Some(v) = record.header(key) {
            tag(&mut out, name, v);
        }
    }
    let even = record.start.same_position(&Position::startpos());
    match record.handicap {
        _ if even => {}
        Some(h) if record.start.same_position(&h.position()) => {
            tag(&mut out, "Handicap", h.name());
        }
        _ => tag(&mut out, "SFEN", &record.start.to_sfen()),
    }
    let result = result_tag(record);
    tag(&mut out, "Result", result);
    out.push('\n');
    let mut line = String::new();
    for word in moves_units(record)
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(result))
    {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::move_notation;
    use gyoku::Position;

    /// (SFEN, USI move, Western notation): the issue's three examples, then each rule.
    const CASES: [(&str, &str, &str); 9] = [
        (gyoku::STARTPOS_SFEN, "7g7f", "P-7f"),
        ("4k4/9/9/9/9/9/5+N3/9/4K4 b - 1", "4g3f", "+N-3f"),
        ("4k4/9/9/9/9/6p2/9/5N3/4K4 b - 1", "4h3f", "Nx3f"),
        ("4k4/9/6p2/9/5N3/9/9/9/4K4 b - 1", "4e3c+", "Nx3c+"),
        ("4k4/9/6p2/9/5N3/9/9/9/4K4 b - 1", "4e3c", "Nx3c="),
        (gyoku::STARTPOS_SFEN, "4i5h", "G4i-5h"),
        ("4k4/9/9/9/9/9/9/9/4K4 b S 1", "S*5e", "S*5e"),
        ("4k4/9/9/9/9/9/9/1B7/4K4 b - 1", "8h3c+", "B-3c+"),
        ("4k4/9/9/9/9/9/9/9/4K4 w - 1", "5a4b", "K-4b"),
    ];

    #[test]
    fn western_cases() {
        for (sfen, usi, expected) in CASES {
            let pos = Position::from_sfen(sfen).unwrap();
            assert_eq!(
                move_notation(&pos, usi.parse().unwrap()),
                expected,
                "{usi} in {sfen}"
            );
        }
    }
}
