//! USI position lines as a record format: one game per line, `position startpos moves …`
//! or `position sfen <sfen> moves …` (the words `position` and `moves` may be left out),
//! with an optional end token as ShogiGUI and ShogiHome write it: `resign`, `win`, `draw`,
//! `rep_draw`, `timeout`, `break`.

use gyoku::{Move, Position};

use crate::{Format, ReadError, ReadErrorKind, Record, Terminal};

fn position_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Usi, ReadErrorKind::Position, line, column, message)
}

fn move_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Usi, ReadErrorKind::Move, line, column, message)
}

fn terminal(token: &str) -> Option<Terminal> {
    Some(match token {
        "resign" => Terminal::Resign,
        "win" => Terminal::Declaration,
        "draw" => Terminal::Jishogi,
        "rep_draw" => Terminal::Sennichite,
        "timeout" => Terminal::TimeUp,
        "break" => Terminal::Suspend,
        _ => return None,
    })
}

/// A drop USI has no word for, which a record can still hold as its foul (CSA `+0055OU`,
/// `+0055TO`): written `K*5e` and `+P*5e` in the piece's SFEN letters, and read back here.
/// Such a move is never legal, so it is always the record's foul.
fn unusual_drop(token: &str) -> Option<Move> {
    let (piece, square) = token.split_once('*')?;
    let role = gyoku::Role::from_sfen(piece).filter(|r| !r.is_hand_role())?;
    if !piece.bytes().all(|b| b == b'+' || b.is_ascii_uppercase()) {
        return None;
    }
    let to = match square.as_bytes() {
        [_, _] => square.parse().ok()?,
        _ => return None,
    };
    Some(Move::Drop { role, to })
}

/// Reads one game per non-empty line.
///
/// # Errors
/// [`ReadError`] naming the line and the column of the bad token.
pub fn read(text: &str) -> Result<Vec<Record>, ReadError> {
    crate::collect_records(|each| read_each(text, each))
}

/// Reads the records of a USI file (one a line) one at a time, handing each to `each`:
/// memory holds one record, however many the file has. Returns how many there were.
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault; the records before it have
/// been handed over.
pub fn read_each(text: &str, each: &mut dyn FnMut(Record)) -> Result<usize, ReadError> {
    crate::at_least_one(read_part(text, each)?, Format::Usi)
}

/// [`read_each`] over some lines of a file, where no record is no error.
pub(crate) fn read_part(text: &str, each: &mut dyn FnMut(Record)) -> Result<usize, ReadError> {
    let mut count = 0;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let body = trimmed
            .strip_prefix("position ")
            .unwrap_or(trimmed)
            .trim_start();
        let (start_text, moves_text) = match body.find(" moves") {
            Some(i) => (&body[..i], body[i + 6..].trim_start()),
            None if body.starts_with("startpos") || body.starts_with("sfen ") => (body, ""),
            // A bare list of moves from the start position.
            None => ("startpos", body),
        };
        let start = Position::from_setup(
            gyoku::Setup::from_sfen(start_text)
                .map_err(|e| position_err(line, 1, e.to_string()))?,
        )
        .or_else(|e| e.ignore_all_safe())
        .map_err(|e| position_err(line, 1, e.to_string()))?;
        let mut record = Record::new(start.clone());
        let mut pos = start;
        let offset = raw.len() - raw.trim_start().len() + (trimmed.len() - moves_text.len());
        let mut column = offset + 1;
        for token in moves_text.split(' ') {
            if token.is_empty() {
                column += 1;
                continue;
            }
            if let Some(end) = terminal(token) {
                record.end = Some(end);
            } else if let Some(foul) = record.foul.as_mut() {
                foul.rest.push(token.to_string());
            } else {
                let mv: Move = match token.parse() {
                    Ok(mv) => mv,
                    Err(e) => {
                        unusual_drop(token).ok_or_else(|| move_err(line, column, e.to_string()))?
                    }
                };
                record.push_move(&mut pos, mv, None);
            }
            column += token.len() + 1;
        }
        count += 1;
        each(record);
    }
    Ok(count)
}

/// The USI end token of `end`, when USI has one.
pub fn end_token(end: &Terminal) -> Option<&'static str> {
    Some(match end {
        Terminal::Resign => "resign",
        Terminal::Declaration => "win",
        Terminal::Jishogi | Terminal::Draw | Terminal::MaxMoves => "draw",
        Terminal::Sennichite => "rep_draw",
        Terminal::TimeUp => "timeout",
        Terminal::Suspend => "break",
        _ => return None,
    })
}

/// Writes `position startpos moves …` (or `position sfen …`), with the end token when USI
/// has one.
pub fn write(record: &Record) -> String {
    let mut out = String::from("position ");
    if record.start.same_position(&Position::startpos()) && record.start.move_number() == 1 {
        out.push_str("startpos");
    } else {
        out.push_str("sfen ");
        out.push_str(&record.start.to_sfen());
    }
    let end = record.end.as_ref().and_then(end_token);
    if !record.moves.is_empty() || record.foul.is_some() || end.is_some() {
        out.push_str(" moves");
    }
    for m in &record.moves {
        out.push(' ');
        out.push_str(&m.mv.to_string());
    }
    // A USI line says no mover: a move out of turn would read as the other side's move,
    // so it is left out (USI has no comments to keep it in).
    if let Some(foul) = record.foul.as_ref().filter(|_| !record.foul_out_of_turn()) {
        out.push(' ');
        out.push_str(&foul.mv.to_string());
    }
    if let Some(t) = end {
        out.push(' ');
        out.push_str(t);
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Record;

    /// Fouls that USI has no word for are written in SFEN letters and read back as the
    /// same foul (the fuzz target found `K*1a` from a JKF king drop).
    #[test]
    fn king_and_promoted_drops_round_trip_as_fouls() {
        for (token, kind) in [
            ("K*5e", "not_in_hand"),
            ("+P*5e", "drop_promoted"),
            ("+R*1a", "drop_promoted"),
        ] {
            let line = format!("position startpos moves 7g7f {token} 3c3d resign\n");
            let r: &Record = &read(&line).unwrap()[0];
            let foul = r.foul.as_ref().unwrap();
            assert_eq!(
                (foul.ply, foul.mv.to_string(), foul.kind.code()),
                (2, token.to_string(), kind)
            );
            assert_eq!(foul.rest, ["3c3d"]);
            // The moves after a foul are not written; the foul is, and reads back the same.
            let written = write(r);
            assert_eq!(written, line.replace(" 3c3d", ""));
            assert_eq!(
                read(&written).unwrap()[0].foul.as_ref().map(|f| f.mv),
                Some(foul.mv)
            );
        }
        for bad in ["k*5e", "+p*5e", "+K*5e", "P*5e5", "K*５五", "+*5e"] {
            let e = read(&format!("startpos moves {bad}")).unwrap_err();
            assert_eq!(e.column, 16, "{bad}: {e}");
        }
    }
}
