//! USI position lines as a record format: one game per line, `position startpos moves …`
//! or `position sfen <sfen> moves …` (the words `position` and `moves` may be left out),
//! with an optional end token as ShogiGUI and ShogiHome write it: `resign`, `win`, `draw`,
//! `rep_draw`, `timeout`, `break`.

use gyoku::{Move, Position};

use crate::{Format, ReadError, Record, Terminal};

fn err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError {
        format: Format::Usi,
        line,
        column,
        message: message.into(),
    }
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

/// Reads one game per non-empty line.
///
/// # Errors
/// [`ReadError`] naming the line and the column of the bad token.
pub fn read(text: &str) -> Result<Vec<Record>, ReadError> {
    let mut records = Vec::new();
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
            gyoku::Setup::from_sfen(start_text).map_err(|e| err(line, 1, e.to_string()))?,
        )
        .or_else(|e| e.ignore_all_safe())
        .map_err(|e| err(line, 1, e.to_string()))?;
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
                let mv: Move = token
                    .parse()
                    .map_err(|e: gyoku::ParseUsiMoveError| err(line, column, e.to_string()))?;
                record.push_move(&mut pos, mv, None);
            }
            column += token.len() + 1;
        }
        records.push(record);
    }
    if records.is_empty() {
        return Err(err(1, 1, "no game in the file"));
    }
    Ok(records)
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
    if let Some(foul) = &record.foul {
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
