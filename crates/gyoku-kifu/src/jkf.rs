//! JKF (JSON Kifu Format 1.0): `header`, `initial` (a preset or a board), `moves` (the
//! first entry holds only start comments; alternatives to a move are its `forks`).

use std::borrow::Cow;

use gyoku::{Color, Handicap, Move, Piece, Position, Role, Setup, Square};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::csa::role_code;
use crate::{Format, ReadError, ReadErrorKind, Record, RecordMove, Terminal, Variation};

const PRESETS: [(&str, Option<Handicap>); 16] = [
    ("HIRATE", None),
    ("KY", Some(Handicap::Lance)),
    ("KY_R", Some(Handicap::RightLance)),
    ("KA", Some(Handicap::Bishop)),
    ("HI", Some(Handicap::Rook)),
    ("HIKY", Some(Handicap::RookLance)),
    ("2", Some(Handicap::TwoPiece)),
    ("3", Some(Handicap::ThreePiece)),
    ("4", Some(Handicap::FourPiece)),
    ("5", Some(Handicap::FivePiece)),
    ("5_L", Some(Handicap::LeftFivePiece)),
    ("6", Some(Handicap::SixPiece)),
    ("7_L", Some(Handicap::LeftSevenPiece)),
    ("7_R", Some(Handicap::RightSevenPiece)),
    ("8", Some(Handicap::EightPiece)),
    ("10", Some(Handicap::TenPiece)),
];

const SPECIALS: [(&str, Terminal); 12] = [
    ("TORYO", Terminal::Resign),
    ("CHUDAN", Terminal::Suspend),
    ("SENNICHITE", Terminal::Sennichite),
    ("TIME_UP", Terminal::TimeUp),
    ("ILLEGAL_MOVE", Terminal::IllegalLoss),
    ("ILLEGAL_ACTION", Terminal::IllegalWin),
    ("JISHOGI", Terminal::Jishogi),
    ("KACHI", Terminal::Declaration),
    ("HIKIWAKE", Terminal::Draw),
    ("TSUMI", Terminal::Mate),
    ("FUZUMI", Terminal::NoMate),
    ("MAX_MOVES", Terminal::MaxMoves),
];

/// A fault of the start (`initial`), reported at the top of the file.
fn err(message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Jkf, ReadErrorKind::Position, 1, 1, message)
}

fn role(code: &str) -> Option<Role> {
    Role::ALL.into_iter().find(|&r| role_code(r) == code)
}

fn color(v: &Value) -> Color {
    if v.as_u64() == Some(1) {
        Color::White
    } else {
        Color::Black
    }
}

fn start(initial: Option<&Value>) -> Result<(Position, Option<Handicap>), ReadError> {
    let Some(initial) = initial else {
        return Ok((Position::startpos(), None));
    };
    let preset = initial
        .get("preset")
        .and_then(Value::as_str)
        .unwrap_or("HIRATE");
    if let Some((_, h)) = PRESETS.iter().find(|(p, _)| *p == preset) {
        return Ok(match h {
            None => (Position::startpos(), None),
            Some(h) => (h.position(), Some(*h)),
        });
    }
    if preset != "OTHER" {
        return Err(err(format!("unknown preset '{preset}'")));
    }
    let data = initial
        .get("data")
        .ok_or_else(|| err("preset OTHER without data"))?;
    let mut setup = Setup::empty();
    setup.turn = color(data.get("color").unwrap_or(&Value::Null));
    let board = data
        .get("board")
        .and_then(Value::as_array)
        .ok_or_else(|| err("no board"))?;
    for (x, column) in board.iter().enumerate().take(9) {
        for (y, cell) in column.as_array().into_iter().flatten().enumerate().take(9) {
            if let Some(kind) = cell.get("kind").and_then(Value::as_str) {
                let r = role(kind).ok_or_else(|| err(format!("unknown piece '{kind}'")))?;
                let c = color(cell.get("color").unwrap_or(&Value::Null));
                let sq = Square::new(x as u8 + 1, y as u8 + 1).ok_or_else(|| err("bad square"))?;
                setup.board.set(sq, Some(Piece::new(c, r)));
            }
        }
    }
    for (i, hand) in data
        .get("hands")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .take(2)
    {
        let c = if i == 0 { Color::Black } else { Color::White };
        for (kind, n) in hand.as_object().into_iter().flatten() {
            let r = role(kind).ok_or_else(|| err(format!("unknown piece '{kind}' in hand")))?;
            let n = u8::try_from(n.as_u64().unwrap_or(0)).map_err(|_| err("bad count"))?;
            setup
                .hands
                .get_mut(c)
                .set(r, n)
                .map_err(|e| err(e.to_string()))?;
        }
    }
    let pos = Position::from_setup(setup)
        .or_else(|e| e.ignore_all_safe())
        .map_err(|e| err(e.to_string()))?;
    Ok((pos, None))
}

/// The fields of a JKF record that Gyoku reads. `header` and `initial` are small and
/// loosely typed in the wild, so they stay JSON values; the moves, nearly all of a record,
/// are kept as their source text and read one by one into [`Entry`].
#[derive(Deserialize)]
struct Root<'a> {
    #[serde(default)]
    header: Option<Map<String, Value>>,
    #[serde(default)]
    initial: Option<Value>,
    #[serde(default, borrow)]
    moves: Option<Vec<&'a RawValue>>,
}

/// One entry of `moves`: a move, a special (the end), or (first) the start comments.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(default)]
    comments: Option<Vec<String>>,
    #[serde(rename = "move", default, borrow)]
    mv: Option<JkfMove<'a>>,
    #[serde(default)]
    time: Option<Time>,
    #[serde(default, borrow)]
    special: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    forks: Option<Vec<Vec<&'a RawValue>>>,
}

#[derive(Deserialize)]
struct JkfMove<'a> {
    /// The mover: 0 Black, 1 White (absent: the side to move).
    #[serde(default)]
    color: Option<u8>,
    #[serde(default)]
    to: Option<Place>,
    #[serde(default)]
    from: Option<Place>,
    #[serde(default, borrow)]
    piece: Option<Cow<'a, str>>,
    #[serde(default)]
    promote: Option<bool>,
}

#[derive(Deserialize)]
struct Place {
    x: u64,
    y: u64,
}

impl Place {
    fn square(&self) -> Option<Square> {
        Square::new(u8::try_from(self.x).ok()?, u8::try_from(self.y).ok()?)
    }
}

#[derive(Deserialize)]
struct Time {
    #[serde(default)]
    now: Option<Clock>,
}

#[derive(Deserialize)]
struct Clock {
    #[serde(default)]
    h: u64,
    #[serde(default)]
    m: u64,
    #[serde(default)]
    s: u64,
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// Reads the entries of a line of play, each from its source text within `text`; errors
/// carry the place in `text`.
struct Entries<'t> {
    text: &'t str,
}

impl<'t> Entries<'t> {
    /// An error at the start of `raw` (or, for a JSON error, where it happened within it).
    fn error(&self, raw: &RawValue, inner: Option<(usize, usize)>, message: String) -> ReadError {
        let offset = (raw.get().as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        let (line, column) = line_column(self.text, offset);
        let (line, column) = match inner {
            Some((1, c)) => (line, column + c - 1),
            Some((l, c)) => (line + l - 1, c),
            None => (line, column),
        };
        ReadError::new(Format::Jkf, ReadErrorKind::Move, line, column, message)
    }

    fn entry<'r>(&self, raw: &'r RawValue) -> Result<Entry<'r>, ReadError> {
        serde_json::from_str(raw.get()).map_err(|e| {
            // serde_json ends its message with the place within the entry; ours is the file's.
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let message = e.to_string();
            let message = message
                .strip_suffix(&suffix)
                .unwrap_or(&message)
                .to_string();
            self.error(raw, Some((e.line(), e.column())), message)
        })
    }

    /// The entry's move, if it has one.
    fn parse_move(&self, raw: &RawValue, entry: &Entry) -> Result<Option<RecordMove>, ReadError> {
        let Some(m) = &entry.mv else {
            return Ok(None);
        };
        let square = |place: &Place, key: &str| {
            place.square().ok_or_else(|| {
                self.error(
                    raw,
                    None,
                    format!(
                        "'{key}' {{\"x\": {}, \"y\": {}}} is not a square (x and y run 1-9)",
                        place.x, place.y
                    ),
                )
            })
        };
        let to = match &m.to {
            Some(place) => square(place, "to")?,
            None => return Err(self.error(raw, None, "move without 'to'".into())),
        };
        let piece = match m.piece.as_deref() {
            Some(code) => role(code)
                .ok_or_else(|| self.error(raw, None, format!("unknown piece '{code}'")))?,
            None => return Err(self.error(raw, None, "move without 'piece'".into())),
        };
        let from = m
            .from
            .as_ref()
            .map(|place| square(place, "from"))
            .transpose()?;
        let mv = match from {
            None => Move::Drop { role: piece, to },
            Some(from) => Move::Normal {
                from,
                to,
                promote: m.promote == Some(true),
            },
        };
        Ok(Some(RecordMove {
            mv,
            time_ms: time_ms(entry),
            comments: entry.comments.clone().unwrap_or_default(),
        }))
    }

    /// Reads the forks of `entry` (alternatives to the move at `ply`) as variations, at
    /// nesting `depth` (1 for the main line's forks; deeper is refused past
    /// [`crate::MAX_VARIATION_DEPTH`], so the recursion stays shallow).
    fn forks(
        &self,
        record: &mut Record,
        (raw, entry): (&RawValue, &Entry),
        ply: u32,
        parent: Option<usize>,
        depth: usize,
    ) -> Result<(), ReadError> {
        if entry.forks.is_some() && depth > crate::MAX_VARIATION_DEPTH {
            return Err(self.error(
                raw,
                None,
                format!(
                    "forks nest deeper than {} levels",
                    crate::MAX_VARIATION_DEPTH
                ),
            ));
        }
        for fork in entry.forks.iter().flatten() {
            let index = record.variations.len();
            record.variations.push(Variation {
                start: ply,
                parent,
                moves: Vec::new(),
                end: None,
            });
            let mut nested = Vec::new();
            for (k, &raw) in fork.iter().enumerate() {
                let e = self.entry(raw)?;
                if let Some(m) = self.parse_move(raw, &e)? {
                    record.variations[index].moves.push(m);
                    if e.forks.is_some() {
                        nested.push((raw, e, ply + k as u32));
                    }
                } else if let Some(t) = special(&e) {
                    record.variations[index].end = Some(t);
                }
            }
            for (raw, e, p) in nested {
                self.forks(record, (raw, &e), p, Some(index), depth + 1)?;
            }
        }
        Ok(())
    }
}

/// The offset of the first bracket that opens more than `max` nested JSON arrays and
/// objects, outside strings; `None` when the text stays within `max`.
fn nesting_exceeds(text: &[u8], max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The time an entry took (`time.now`), in milliseconds.
fn time_ms(entry: &Entry) -> Option<u64> {
    entry.time.as_ref().and_then(|t| t.now.as_ref()).map(|now| {
        now.h
            .saturating_mul(60)
            .saturating_add(now.m)
            .saturating_mul(60)
            .saturating_add(now.s)
            .saturating_mul(1000)
    })
}

fn special(entry: &Entry) -> Option<Terminal> {
    let s = entry.special.as_deref()?;
    Some(
        SPECIALS
            .iter()
            .find(|(k, _)| *k == s)
            .map_or_else(|| Terminal::Other(s.to_string()), |(_, t)| t.clone()),
    )
}

/// Reads a JKF record.
///
/// # Errors
/// [`ReadError`] with the line and column of the fault: the JSON's, or the move's entry.
pub fn read(text: &str) -> Result<Record, ReadError> {
    let json_error = |e: serde_json::Error| {
        ReadError::new(
            Format::Jkf,
            ReadErrorKind::Syntax,
            e.line(),
            e.column(),
            e.to_string(),
        )
    };
    // Each level of forks is three levels of JSON (the forks, a fork, an entry): a document
    // nested deeper than the forks may be is refused in one pass, before any parsing.
    let max_json_depth = 3 * crate::MAX_VARIATION_DEPTH + 16;
    if let Some(offset) = nesting_exceeds(text.as_bytes(), max_json_depth) {
        let (line, column) = line_column(text, offset);
        return Err(ReadError::new(
            Format::Jkf,
            ReadErrorKind::Variation,
            line,
            column,
            format!(
                "nested deeper than {max_json_depth} levels (forks nest at most {} levels)",
                crate::MAX_VARIATION_DEPTH
            ),
        ));
    }
    let root: Root = serde_json::from_str(text).map_err(json_error)?;
    // A JKF record is an object with at least one of its keys; other JSON is not one.
    if root.header.is_none() && root.initial.is_none() && root.moves.is_none() {
        return Err(ReadError::new(
            Format::Jkf,
            ReadErrorKind::Syntax,
            1,
            1,
            "not a JKF record (no \"header\", \"initial\" or \"moves\")",
        ));
    }
    let (start_pos, handicap) = start(root.initial.as_ref())?;
    let mut record = Record::new(start_pos.clone());
    if record.handicap.is_none() {
        record.handicap = handicap;
    }
    for (k, v) in root.header.into_iter().flatten() {
        let value = match v {
            Value::String(s) => s,
            other => other.to_string(),
        };
        record.header.push((k, value));
    }
    let entries = Entries { text };
    let moves = root.moves.unwrap_or_default();
    record.moves.reserve(moves.len());
    let mut pos = start_pos;
    for (i, &raw) in moves.iter().enumerate() {
        let entry = entries.entry(raw)?;
        match entries.parse_move(raw, &entry)? {
            None if i == 0 => {
                if let Some(c) = &entry.comments {
                    record.start_comments = c.clone();
                }
            }
            None => {
                if let Some(t) = special(&entry) {
                    record.end = Some(t);
                    record.end_time_ms = time_ms(&entry);
                }
            }
            Some(RecordMove {
                mv,
                time_ms,
                comments,
            }) => {
                let mover = match entry.mv.as_ref().and_then(|m| m.color) {
                    Some(1) => Color::White,
                    Some(_) => Color::Black,
                    None => pos.turn(),
                };
                if record.push_move_by(&mut pos, mv, time_ms, mover) {
                    if let Some(last) = record.moves.last_mut() {
                        last.comments = comments;
                    }
                } else if let Some(f) = record.foul.as_mut()
                    && f.mv != mv
                {
                    f.rest.push(raw.get().to_string());
                }
            }
        }
        if i > 0 {
            entries.forks(&mut record, (raw, &entry), i as u32, None, 1)?;
        }
    }
    Ok(record)
}

fn move_json(
    pos: &Position,
    (mv, us): (Move, Color),
    previous: Option<Square>,
    time: Option<(u64, u64)>,
    comments: &[String],
) -> Value {
    let to = mv.to();
    let mut m = Map::new();
    m.insert("color".into(), json!(us.index()));
    m.insert("to".into(), json!({"x": to.file(), "y": to.rank()}));
    match mv {
        Move::Drop { role, .. } => {
            m.insert("piece".into(), json!(role_code(role)));
        }
        Move::Normal { from, promote, .. } => {
            let role = pos.board().piece_at(from).map_or(Role::Pawn, |p| p.role);
            m.insert("from".into(), json!({"x": from.file(), "y": from.rank()}));
            m.insert("piece".into(), json!(role_code(role)));
            if promote {
                m.insert("promote".into(), json!(true));
            } else if role.can_promote() && (from.in_zone(us) || to.in_zone(us)) {
                m.insert("promote".into(), json!(false));
            }
            if let Some(c) = pos.board().piece_at(to) {
                m.insert("capture".into(), json!(role_code(c.role)));
            }
        }
    }
    if Some(to) == previous {
        m.insert("same".into(), json!(true));
    }
    let mut entry = Map::new();
    entry.insert("move".into(), Value::Object(m));
    if let Some((now, total)) = time {
        entry.insert("time".into(), time_json(now, total));
    }
    if !comments.is_empty() {
        entry.insert("comments".into(), json!(comments));
    }
    Value::Object(entry)
}

fn special_code(end: &Terminal, turn: Color) -> String {
    match end.relative_to(turn) {
        Terminal::Try => "TRY".into(),
        Terminal::Other(s) => s,
        t => SPECIALS
            .iter()
            .find(|(_, v)| *v == t)
            .map_or("CHUDAN", |(k, _)| k)
            .to_string(),
    }
}

/// A line of play to write: the main line or a fork.
struct Line<'a> {
    /// The position before its first move.
    pos: Position,
    first_ply: u32,
    moves: &'a [RecordMove],
    end: Option<&'a Terminal>,
    /// The time the end took (the main line's only).
    end_time_ms: Option<u64>,
    /// `None` for the main line, else the variation's index.
    parent: Option<usize>,
    /// The square the move before the line went to (`same`).
    previous: Option<Square>,
    /// Who played the line's last move when it is not the side to move (a foul out of
    /// turn).
    last_mover: Option<Color>,
    /// Each side's total seconds before the line's first move.
    totals: [u64; 2],
}

/// The time of an entry: seconds it took and the side's total after it.
fn time_json(now: u64, total: u64) -> Value {
    json!({
        "now": {"m": now / 60, "s": now % 60},
        "total": {"h": total / 3600, "m": total / 60 % 60, "s": total % 60},
    })
}

/// The variations of a record by the line they branch from and the ply they start at.
type ForkIndex = std::collections::HashMap<(Option<usize>, u32), Vec<usize>>;

/// The JSON entries of a line of play, with the forks of `record.variations` attached
/// (found through `forks`, so that writing is linear in the record; the recursion is as
/// deep as the variations nest, at most [`crate::MAX_VARIATION_DEPTH`] for a record read).
fn line_json(record: &Record, forks: &ForkIndex, line: Line, emit: &mut dyn FnMut(Value)) {
    let Line {
        mut pos,
        first_ply,
        moves,
        end,
        end_time_ms,
        parent,
        mut previous,
        last_mover,
        mut totals,
    } = line;
    let timed = moves.iter().any(|m| m.time_ms.is_some()) || end_time_ms.is_some();
    for (k, m) in moves.iter().enumerate() {
        let ply = first_ply + k as u32;
        let before = totals;
        let side = pos.turn().index();
        let secs = m.time_ms.unwrap_or(0) / 1000;
        totals[side] = totals[side].saturating_add(secs);
        let mover = match last_mover {
            Some(c) if k + 1 == moves.len() => c,
            _ => pos.turn(),
        };
        let mut entry = move_json(
            &pos,
            (m.mv, mover),
            previous,
            timed.then_some((secs, totals[side])),
            &m.comments,
        );
        let here: Vec<Value> = forks
            .get(&(parent, ply))
            .into_iter()
            .flatten()
            .map(|&i| {
                let v = &record.variations[i];
                let mut fork = Vec::new();
                line_json(
                    record,
                    forks,
                    Line {
                        pos: pos.clone(),
                        first_ply: v.start,
                        moves: &v.moves,
                        end: v.end.as_ref(),
                        end_time_ms: None,
                        parent: Some(i),
                        previous,
                        last_mover: None,
                        totals: before,
                    },
                    &mut |entry| fork.push(entry),
                );
                Value::Array(fork)
            })
            .collect();
        if !here.is_empty() {
            entry["forks"] = Value::Array(here);
        }
        emit(entry);
        previous = Some(m.mv.to());
        if pos.is_legal(m.mv) {
            pos.play_unchecked(m.mv);
        }
    }
    if let Some(end) = end {
        let mut entry = json!({ "special": special_code(end, pos.turn()) });
        if timed {
            let side = pos.turn().index();
            let secs = end_time_ms.unwrap_or(0) / 1000;
            entry["time"] = time_json(secs, totals[side].saturating_add(secs));
        }
        emit(entry);
    }
}

/// Writes a record as JKF (pretty-printed JSON).
pub fn write(record: &Record) -> String {
    let header: Map<String, Value> = record
        .header
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let even = record.start.same_position(&Position::startpos());
    let initial = match record.handicap {
        _ if even => json!({"preset": "HIRATE"}),
        Some(h) if record.start.same_position(&h.position()) => {
            let name = PRESETS
                .iter()
                .find(|(_, p)| *p == Some(h))
                .map_or("OTHER", |(n, _)| n);
            json!({"preset": name})
        }
        _ => {
            let board: Vec<Value> = (1..=9u8)
                .map(|x| {
                    Value::Array(
                        (1..=9u8)
                            .map(|y| {
                                match Square::new(x, y)
                                    .and_then(|s| record.start.board().piece_at(s))
                                {
                                    Some(p) => {
                                        json!({"color": p.color.index(), "kind": role_code(p.role)})
                                    }
                                    None => json!({}),
                                }
                            })
                            .collect(),
                    )
                })
                .collect();
            let hands: Vec<Value> = Color::ALL
                .iter()
                .map(|&c| {
                    let map: Map<String, Value> = record
                        .start
                        .hand(c)
                        .iter()
                        .map(|(r, n)| (role_code(r).to_string(), json!(n)))
                        .collect();
                    Value::Object(map)
                })
                .collect();
            json!({"preset": "OTHER", "data": {"color": record.start.turn().index(), "board": board, "hands": hands}})
        }
    };
    let first = if record.start_comments.is_empty() {
        json!({})
    } else {
        json!({"comments": record.start_comments})
    };
    let mut main = record.moves.clone();
    if let Some(f) = &record.foul {
        main.push(RecordMove {
            mv: f.mv,
            time_ms: None,
            comments: Vec::new(),
        });
    }
    let mut forks = ForkIndex::new();
    for (i, v) in record.variations.iter().enumerate() {
        // A parent must come earlier (as every reader makes it): anything else has no
        // place in the tree and is not written, rather than written forever.
        if v.parent.is_none_or(|p| p < i) {
            forks.entry((v.parent, v.start)).or_default().push(i);
        }
    }
    // One entry a line, each compact: readable, and never indented once per level of
    // nesting (a deeply forked record stays the size of its moves). Entries are written as
    // they are made, never all held as JSON values.
    let mut out = String::with_capacity(64 + record.moves.len() * 96);
    out.push_str("{\n  \"header\": ");
    out.push_str(&Value::Object(header).to_string());
    out.push_str(",\n  \"initial\": ");
    out.push_str(&initial.to_string());
    out.push_str(",\n  \"moves\": [\n    ");
    out.push_str(&first.to_string());
    line_json(
        record,
        &forks,
        Line {
            pos: record.start.clone(),
            first_ply: 1,
            moves: &main,
            end: record.end.as_ref(),
            end_time_ms: record.end_time_ms,
            parent: None,
            previous: None,
            last_mover: record.foul.as_ref().map(|f| f.by),
            totals: [0; 2],
        },
        &mut |entry| {
            out.push_str(",\n    ");
            out.push_str(&entry.to_string());
        },
    );
    out.push_str("\n  ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = r#"{
  "header": {"先手": "a", "手合割": 0},
  "moves": [
    {"comments": ["start"]},
    {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"},
     "time": {"now": {"m": 1, "s": 2}}, "comments": ["one"]},
    {"move": {"from": {"x": 3, "y": 3}, "to": {"x": 3, "y": 4}, "piece": "FU"},
     "forks": [[{"move": {"from": {"x": 8, "y": 3}, "to": {"x": 8, "y": 4}, "piece": "FU"}},
                {"special": "TORYO"}]]},
    {"special": "CHUDAN"}
  ]
}"#;

    #[test]
    fn reads_moves_times_comments_forks_and_the_end() {
        let r = read(GAME).unwrap();
        assert_eq!(
            r.header,
            [("先手".into(), "a".into()), ("手合割".into(), "0".into())]
        );
        assert_eq!(r.start_comments, ["start"]);
        assert_eq!(r.moves.len(), 2);
        assert_eq!(
            (r.moves[0].time_ms, &r.moves[0].comments[..]),
            (Some(62_000), &["one".to_string()][..])
        );
        assert_eq!(r.end, Some(Terminal::Suspend));
        assert_eq!(r.variations.len(), 1);
        assert_eq!((r.variations[0].start, r.variations[0].moves.len()), (2, 1));
        assert_eq!(r.variations[0].end, Some(Terminal::Resign));
    }

    /// Faults inside a move say where the move is: its line and column in the file.
    #[test]
    fn errors_say_where_the_entry_is() {
        for (from, to, line, column, message) in [
            (
                r#""to": {"x": 3, "y": 4}"#,
                r#""to": {"x": 3}"#,
                7,
                54,
                "missing field `y`",
            ),
            (r#""to": {"x": 3, "y": 4}, "#, "", 7, 5, "move without 'to'"),
            (
                r#", "piece": "FU"},
     "forks""#,
                "},\n     \"forks\"",
                7,
                5,
                "move without 'piece'",
            ),
            (
                r#""piece": "FU"},
     "forks""#,
                r#""piece": "XX"},
     "forks""#,
                7,
                5,
                "unknown piece 'XX'",
            ),
            ("\"TORYO\"", "7", 9, 29, "invalid type"),
        ] {
            let text = GAME.replacen(from, to, 1);
            assert_ne!(text, GAME);
            let e = read(&text).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{e}");
            assert!(e.message.contains(message), "{e}");
        }
    }

    /// A foul keeps the moves after it as their source text.
    #[test]
    fn moves_after_a_foul_are_kept_as_text() {
        let text = GAME.replace(
            r#""x": 3, "y": 3}, "to": {"x": 3, "y": 4}"#,
            r#""x": 3, "y": 3}, "to": {"x": 3, "y": 5}"#,
        );
        let text = text.replace(
            r#"{"special": "CHUDAN"}"#,
            r#"{"move": {"to": {"x": 5, "y": 5}, "piece": "KA"}}"#,
        );
        let r = read(&text).unwrap();
        let foul = r.foul.unwrap();
        assert_eq!((foul.ply, foul.kind.code()), (2, "bad_movement"));
        assert_eq!(
            foul.rest,
            [r#"{"move": {"to": {"x": 5, "y": 5}, "piece": "KA"}}"#]
        );
    }
}
