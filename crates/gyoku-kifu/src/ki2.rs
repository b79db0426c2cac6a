//! KI2 output: moves as printed (`▲７六歩　△３四歩`), without origins, so a move that
//! another piece of the same kind could also make is told apart by the JSA notation rules:
//! a motion word (上 forward, 寄 sideways, 引 backward) when it is enough; else 直 for a
//! gold-moving piece or silver stepping straight forward; else 右/左 when the piece is the
//! outermost on that side; else both position and motion. Dragons and horses use 左/右
//! rather than 直. A drop is marked 打 only when a piece on the board could also move
//! there; 成/不成 as played where promotion was possible.
//!
//! Reading resolves each move from its destination, piece and qualifiers against the pieces
//! that can reach the square (legal moves first; a move no legal reading fits is resolved
//! against the pieces that could reach the square at all, and kept as the record's foul).
//! The end is learnt from the summary line (`まで172手で後手の勝ち`).
//!
//! ```
//! use gyoku_kifu::{read_str, Format, Terminal};
//! let text = "先手：A\n後手：B\n▲７六歩　△３四歩　▲２二角成　△同　銀\nまで4手で後手の勝ち\n";
//! let r = &read_str(text, Format::Ki2).unwrap()[0];
//! assert_eq!(r.moves.len(), 4);
//! assert_eq!(r.moves[3].mv.to_string(), "3a2b");
//! assert_eq!(r.end, Some(Terminal::Resign));
//! ```

use gyoku::{Color, Move, Position, Role, Square};

use crate::kakinoki::{self, MARKS, is_move_line, summary};
use crate::{Format, Foul, ReadError, ReadErrorKind, Record, RecordMove, Terminal, Variation};

fn err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Ki2, ReadErrorKind::Syntax, line, column, message)
}

fn move_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Ki2, ReadErrorKind::Move, line, column, message)
}

fn variation_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Ki2, ReadErrorKind::Variation, line, column, message)
}

/// The qualifiers of a KI2 move, as read.
#[derive(Default)]
struct Qualifiers {
    /// 右 (+1) or 左 (-1).
    side: Option<i32>,
    /// 上, 寄 or 引 as a sign of forwardness.
    motion: Option<i32>,
    straight: bool,
    drop: bool,
    promote: bool,
}

/// A KI2 move as written, before it is resolved against a position.
struct Written {
    to: Square,
    role: Role,
    q: Qualifiers,
}

fn parse_written(token: &str, previous_to: Option<Square>) -> Result<Written, String> {
    let (to, role, mut rest) = kakinoki::destination_and_piece(token, previous_to)?;
    let mut q = Qualifiers::default();
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("不成") {
            rest = r;
            continue;
        }
        match c {
            '右' => q.side = Some(1),
            '左' => q.side = Some(-1),
            '直' => q.straight = true,
            '上' | '行' | '入' => q.motion = Some(1),
            '寄' => q.motion = Some(0),
            '引' => q.motion = Some(-1),
            '打' => q.drop = true,
            '成' => q.promote = true,
            '生' => {}
            _ => return Err(format!("unexpected '{c}' in '{token}'")),
        }
        rest = &rest[c.len_utf8()..];
    }
    Ok(Written { to, role, q })
}

/// The move `w` means in `pos`, if any piece fits it; `Err` when it is ambiguous.
fn resolve(
    pos: &Position,
    w: &Written,
    previous_to: Option<Square>,
    token: &str,
) -> Result<Move, String> {
    let us = pos.turn();
    let drop = Move::Drop {
        role: w.role,
        to: w.to,
    };
    let as_drop = || {
        if w.role.is_hand_role() {
            Ok(drop)
        } else {
            Err(format!(
                "no {} can move to {}",
                w.role.kanji(),
                w.to.japanese()
            ))
        }
    };
    if w.q.drop {
        return as_drop();
    }
    let board = pos.board();
    let occupied = board.occupied();
    let reaching: Vec<Move> = board
        .by_piece(gyoku::Piece::new(us, w.role))
        .filter(|&from| gyoku::attacks::attacks(us, w.role, from, occupied).contains(w.to))
        .map(|from| Move::Normal {
            from,
            to: w.to,
            promote: w.q.promote,
        })
        .filter(|m| fits(us, w, m.from().expect("a board move"), &[]))
        .collect();
    let legal: Vec<Move> = reaching
        .iter()
        .copied()
        .filter(|&m| pos.is_legal(m))
        .collect();
    let candidates = if !legal.is_empty() {
        legal
    } else if pos.is_legal(drop) || reaching.is_empty() {
        return as_drop();
    } else {
        reaching
    };
    let others: Vec<Square> = candidates.iter().filter_map(|m| m.from()).collect();
    let chosen: Vec<Move> = candidates
        .iter()
        .copied()
        .filter(|m| fits(us, w, m.from().expect("a board move"), &others))
        .collect();
    match chosen.as_slice() {
        [m] => Ok(*m),
        [] => Err(format!("no {} can make '{token}'", w.role.kanji())),
        several => {
            // Writers differ on how much they say (cshogi `６八銀右` where the JSA rule wants
            // `６八銀右引`): take the one piece whose own notation says every qualifier written.
            let written: Vec<char> = token
                .chars()
                .filter(|c| "右左直上寄引".contains(*c))
                .collect();
            let saying: Vec<Move> = several
                .iter()
                .copied()
                .filter(|&m| {
                    let n = move_notation(pos, m, previous_to);
                    written.iter().all(|c| n.contains(*c))
                })
                .collect();
            match saying.as_slice() {
                [m] => Ok(*m),
                _ => Err(format!(
                    "'{token}' is ambiguous ({} pieces fit)",
                    several.len()
                )),
            }
        }
    }
}

/// The move that KI2 text (`▲５七銀右`, `同　銀`, `８六飛打`; the mark is optional) names in
/// `pos`, `previous_to` being the destination of the move before (for 同). The move is
/// not checked for legality beyond what resolving needs: a text only an illegal move fits
/// gives that move.
///
/// # Errors
/// A message when the text is not a KI2 move or more than one piece fits it.
///
/// ```
/// use gyoku::Position;
/// use gyoku_kifu::ki2::read_move;
/// let pos = Position::startpos();
/// assert_eq!(read_move(&pos, "▲５八金右", None).unwrap().to_string(), "4i5h");
/// assert!(read_move(&pos, "５八金", None).is_err());
/// ```
pub fn read_move(pos: &Position, text: &str, previous_to: Option<Square>) -> Result<Move, String> {
    let token = text.trim().trim_start_matches(MARKS).trim();
    let w = parse_written(token, previous_to)?;
    resolve(pos, &w, previous_to, token)
}

/// Whether the piece on `from` fits the qualifiers, `others` being the squares of every
/// piece that could make the move (empty: check only the motion and 直).
fn fits(us: Color, w: &Written, from: Square, others: &[Square]) -> bool {
    let d = forwardness(us, from, w.to).signum();
    if w.q.motion.is_some_and(|m| m != d) {
        return false;
    }
    if w.q.straight && !(from.file() == w.to.file() && d == 1) {
        return false;
    }
    match w.q.side {
        Some(side) if !others.is_empty() => {
            let r = rightness(us, from) * side;
            others.iter().all(|&o| rightness(us, o) * side <= r)
        }
        _ => true,
    }
}

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

/// Writes a record as KI2: the header as in KIF, moves six to a line, the summary line, then
/// each variation (`変化：N手`) with its own summary.
pub fn write(record: &Record) -> String {
    let kif = crate::kif::write(record);
    // The move list header starts a line (a header value may hold the same text).
    let header_end = kif.find("\n手数----").map_or(kif.len(), |i| i + 1);
    let mut out = kif[..header_end].to_string();
    write_moves(
        &mut out,
        record,
        record.start.clone(),
        None,
        &record.moves,
        record.foul.as_ref(),
        record.end.as_ref(),
        0,
    );
    let mut states = crate::lines::LineStates::default();
    for (i, v) in record.variations.iter().enumerate() {
        out.push_str(&format!("\n変化：{}手\n", v.start));
        let wanted = (v.start as usize).saturating_sub(1);
        let (before, kept) = states.after(record, v.parent.filter(|&p| p < i), wanted);
        let previous = (kept == wanted).then_some(before.previous).flatten();
        write_moves(
            &mut out,
            record,
            before.pos,
            previous,
            &v.moves,
            None,
            v.end.as_ref(),
            (v.start as usize).saturating_sub(1),
        );
    }
    out
}

/// Writes one line of play from `pos` (`plies_before` plies into the game), then its summary.
#[allow(clippy::too_many_arguments)]
fn write_moves(
    out: &mut String,
    record: &Record,
    mut pos: Position,
    mut previous: Option<Square>,
    moves: &[RecordMove],
    foul: Option<&Foul>,
    end: Option<&Terminal>,
    plies_before: usize,
) {
    let mut line = Vec::new();
    let flush = |out: &mut String, line: &mut Vec<String>| {
        if !line.is_empty() {
            out.push_str(&line.join("　"));
            out.push('\n');
            line.clear();
        }
    };
    let mut written = 0;
    for m in moves {
        // Variations are kept as read: write only what can be named.
        if !pos.is_legal(m.mv) {
            break;
        }
        line.push(move_notation(&pos, m.mv, previous));
        previous = Some(m.mv.to());
        pos.play_unchecked(m.mv);
        written += 1;
        if line.len() == 6 {
            flush(out, &mut line);
        }
        for c in &m.comments {
            flush(out, &mut line);
            out.push('*');
            out.push_str(c);
            out.push('\n');
        }
    }
    let mut foul_written = false;
    if let Some(foul) = foul {
        let mv = foul.mv;
        let out_of_turn = record.foul_out_of_turn();
        let text = move_notation(&pos, mv, previous);
        // KI2's marks are read as decoration, not as the mover, so a move out of turn
        // cannot be said either.
        if !out_of_turn && read_move(&pos, &text, previous) == Ok(mv) {
            line.push(text);
            written += 1;
            foul_written = true;
        } else {
            // A foul no piece could make as written (a pawn moving sideways): KI2 cannot
            // say it, so it is kept as a comment.
            flush(out, &mut line);
            let how = if out_of_turn { " out of turn" } else { "" };
            out.push_str(&format!("*illegal move {mv}{how} (not writable in KI2)\n"));
        }
    }
    flush(out, &mut line);
    let plies = plies_before + written;
    // The end is said relative to the side to move after every written ply, the foul included.
    let turn = if foul_written {
        !pos.turn()
    } else {
        pos.turn()
    };
    let ended = Record {
        end: end.cloned(),
        ..Record::new(record.start.clone())
    };
    if let Some(s) = summary(&ended, plies, turn) {
        out.push_str(&s);
        out.push('\n');
    }
}

/// The moves of a move line with the 1-based column of each mark.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    let mut column = 0;
    for (i, c) in line.char_indices() {
        column += 1;
        if MARKS.contains(&c) {
            if let Some((col, s)) = start {
                out.push((col, line[s..i].trim_matches(['　', ' ', '\t'])));
            }
            start = Some((column, i + c.len_utf8()));
        }
    }
    if let Some((col, s)) = start {
        out.push((col, line[s..].trim_matches(['　', ' ', '\t'])));
    }
    out
}

/// The line being read: the main line or a variation, with its position.
struct Line {
    pos: Position,
    previous_to: Option<Square>,
    /// Moves refused in a variation (it stops there).
    stopped: bool,
}

/// Reads a KI2 record.
///
/// The header and start position are read as in KIF. An illegal move of the main line is
/// kept as the record's foul; a variation stops at a move that is illegal or cannot be
/// resolved (variations are kept as read, and KI2 has no way to name a square it cannot
/// resolve).
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault.
pub fn read(text: &str) -> Result<Record, ReadError> {
    read_with(text, crate::ReadOptions::default())
}

/// [`read`] with [`crate::ReadOptions`] (its board diagram is read as KIF's is).
///
/// # Errors
/// As [`read`].
pub fn read_with(text: &str, options: crate::ReadOptions) -> Result<Record, ReadError> {
    // The header is everything before the first move, summary line or variation.
    let first_move = text
        .lines()
        .position(|l| {
            let l = l.trim_start();
            is_move_line(l) || l.starts_with("まで") || kakinoki::variation_header(l).is_some()
        })
        .unwrap_or(usize::MAX);
    let header: String = text
        .lines()
        .take(first_move)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut record = crate::kif::read_with(&header, options).map_err(|e| ReadError {
        format: Format::Ki2,
        ..e
    })?;
    if !record.moves.is_empty() || record.foul.is_some() || !record.variations.is_empty() {
        // KIF move lines before the first KI2 move: the KI2 moves would follow a line the
        // header already played. A file mixing the two is refused where the KIF moves are.
        let at = text
            .lines()
            .take(first_move)
            .position(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .unwrap_or(0);
        return Err(err(
            at + 1,
            1,
            "a KIF move line in a KI2 record (KI2 moves start with ▲ or △)",
        ));
    }
    let mut line = Line {
        pos: record.start.clone(),
        previous_to: None,
        stopped: false,
    };
    let mut variation: Option<Variation> = None;
    let mut states = crate::lines::LineStates::default();
    for (n, raw) in text.lines().enumerate().skip(first_move) {
        let line_no = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(c) = trimmed
            .strip_prefix('*')
            .or_else(|| trimmed.strip_prefix('&').map(|_| trimmed))
        {
            match variation.as_mut() {
                Some(v) => {
                    if let Some(m) = v.moves.last_mut() {
                        m.comments.push(c.to_string());
                    }
                }
                None => record.comment(c.to_string()),
            }
            continue;
        }
        if let Some(summary) = kakinoki::parse_summary(trimmed, record.start.turn()) {
            let end = summary.1;
            match variation.as_mut() {
                Some(v) => v.end = Some(end),
                None => record.end = Some(end),
            }
            continue;
        }
        if let Some(rest) = kakinoki::variation_header(trimmed) {
            let ply: u32 = rest
                .trim_end_matches('手')
                .trim()
                .parse()
                .ok()
                .ok_or_else(|| variation_err(line_no, 4, format!("bad variation '{trimmed}'")))?;
            if let Some(v) = variation.take() {
                record.variations.push(v);
            }
            // The parent is the most recent line that starts before this one.
            let parent = record.variations.iter().rposition(|v| v.start < ply);
            crate::check_nesting(&record, parent, Format::Ki2, line_no)?;
            // The game where the variation leaves its line (found from checkpoints, not by
            // replaying the line for every variation).
            let wanted = (ply as usize).saturating_sub(1);
            let (before, keep) = states.after(&record, parent, wanted);
            line = Line {
                pos: before.pos,
                previous_to: before.previous.filter(|_| keep > 0),
                // A variation that starts past the end of its line cannot be resolved.
                stopped: keep + 1 != ply as usize,
            };
            variation = Some(Variation {
                start: ply,
                parent,
                moves: Vec::new(),
                end: None,
            });
            continue;
        }
        if !is_move_line(trimmed) {
            // Free text after the moves: ignored, as in KIF.
            continue;
        }
        for (column, token) in tokens(raw) {
            if line.stopped {
                continue;
            }
            if variation.is_none()
                && let Some(f) = record.foul.as_mut()
            {
                f.rest.push(token.to_string());
                continue;
            }
            let resolved = parse_written(token, line.previous_to)
                .and_then(|w| resolve(&line.pos, &w, line.previous_to, token));
            match variation.as_mut() {
                None => {
                    let mv = resolved.map_err(|m| move_err(line_no, column, m))?;
                    line.previous_to = Some(mv.to());
                    record.push_move(&mut line.pos, mv, None);
                }
                Some(v) => match resolved {
                    Ok(mv) if line.pos.is_legal(mv) => {
                        line.pos.play_unchecked(mv);
                        line.previous_to = Some(mv.to());
                        v.moves.push(RecordMove {
                            mv,
                            time_ms: None,
                            comments: Vec::new(),
                        });
                    }
                    _ => line.stopped = true,
                },
            }
        }
    }
    if let Some(v) = variation {
        record.variations.push(v);
    }
    Ok(record)
}
