//! JKF (JSON Kifu Format 1.0): `header`, `initial` (a preset or a board), `moves` (the
//! first entry holds only start comments; alternatives to a move are its `forks`).

use gyoku::{Color, Handicap, Move, Piece, Position, Role, Setup, Square};
use serde_json::{Map, Value, json};

use crate::csa::role_code;
use crate::{Format, ReadError, Record, RecordMove, Terminal, Variation};

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

fn err(message: impl Into<String>) -> ReadError {
    ReadError {
        format: Format::Jkf,
        line: 1,
        column: 1,
        message: message.into(),
    }
}

fn role(code: &str) -> Option<Role> {
    Role::ALL.into_iter().find(|&r| role_code(r) == code)
}

fn square(v: &Value) -> Option<Square> {
    let x = u8::try_from(v.get("x")?.as_u64()?).ok()?;
    let y = u8::try_from(v.get("y")?.as_u64()?).ok()?;
    Square::new(x, y)
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

fn parse_move(entry: &Value) -> Result<Option<RecordMove>, ReadError> {
    let comments = entry
        .get("comments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let Some(m) = entry.get("move") else {
        return Ok(None);
    };
    let to = m
        .get("to")
        .and_then(square)
        .ok_or_else(|| err("move without 'to'"))?;
    let piece = m
        .get("piece")
        .and_then(Value::as_str)
        .and_then(role)
        .ok_or_else(|| err("move without 'piece'"))?;
    let mv = match m.get("from").and_then(square) {
        None => Move::Drop { role: piece, to },
        Some(from) => Move::Normal {
            from,
            to,
            promote: m.get("promote").and_then(Value::as_bool) == Some(true),
        },
    };
    let time = entry.get("time").and_then(|t| t.get("now")).map(|now| {
        (now.get("m").and_then(Value::as_u64).unwrap_or(0) * 60
            + now.get("s").and_then(Value::as_u64).unwrap_or(0))
            * 1000
    });
    Ok(Some(RecordMove {
        mv,
        time_ms: time,
        comments,
    }))
}

fn special(entry: &Value) -> Option<Terminal> {
    let s = entry.get("special")?.as_str()?;
    Some(
        SPECIALS
            .iter()
            .find(|(k, _)| *k == s)
            .map_or_else(|| Terminal::Other(s.to_string()), |(_, t)| t.clone()),
    )
}

/// Reads the forks of `entry` (alternatives to the move at `ply`) as variations.
fn forks(
    record: &mut Record,
    entry: &Value,
    ply: u32,
    parent: Option<usize>,
) -> Result<(), ReadError> {
    for fork in entry
        .get("forks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let index = record.variations.len();
        record.variations.push(Variation {
            start: ply,
            parent,
            moves: Vec::new(),
            end: None,
        });
        let mut nested = Vec::new();
        for (k, e) in fork.as_array().into_iter().flatten().enumerate() {
            if let Some(m) = parse_move(e)? {
                record.variations[index].moves.push(m);
                nested.push((e.clone(), ply + k as u32));
            } else if let Some(t) = special(e) {
                record.variations[index].end = Some(t);
            }
        }
        for (e, p) in nested {
            forks(record, &e, p, Some(index))?;
        }
    }
    Ok(())
}

/// Reads a JKF record.
///
/// # Errors
/// [`ReadError`]: JSON errors carry their line and column.
pub fn read(text: &str) -> Result<Record, ReadError> {
    let root: Value = serde_json::from_str(text).map_err(|e| ReadError {
        format: Format::Jkf,
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    // A JKF record is an object with at least one of its keys; other JSON is not one.
    if !["header", "initial", "moves"]
        .iter()
        .any(|k| root.get(k).is_some())
    {
        return Err(ReadError {
            format: Format::Jkf,
            line: 1,
            column: 1,
            message: "not a JKF record (no \"header\", \"initial\" or \"moves\")".to_string(),
        });
    }
    let (start_pos, handicap) = start(root.get("initial"))?;
    let mut record = Record::new(start_pos.clone());
    if record.handicap.is_none() {
        record.handicap = handicap;
    }
    if let Some(header) = root.get("header").and_then(Value::as_object) {
        for (k, v) in header {
            record.header.push((
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            ));
        }
    }
    let moves = root
        .get("moves")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut pos = start_pos;
    for (i, entry) in moves.iter().enumerate() {
        match parse_move(entry)? {
            None if i == 0 => {
                if let Some(c) = entry.get("comments").and_then(Value::as_array) {
                    record.start_comments = c
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect();
                }
            }
            None => {
                if let Some(t) = special(entry) {
                    record.end = Some(t);
                }
            }
            Some(RecordMove {
                mv,
                time_ms,
                comments,
            }) => {
                if record.push_move(&mut pos, mv, time_ms) {
                    if let Some(last) = record.moves.last_mut() {
                        last.comments = comments;
                    }
                } else if let Some(f) = record.foul.as_mut()
                    && f.mv != mv
                {
                    f.rest.push(entry.to_string());
                }
            }
        }
        if i > 0 {
            forks(&mut record, entry, i as u32, None)?;
        }
    }
    Ok(record)
}

fn move_json(
    pos: &Position,
    mv: Move,
    previous: Option<Square>,
    time: Option<(u64, u64)>,
    comments: &[String],
) -> Value {
    let us = pos.turn();
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
        entry.insert(
            "time".into(),
            json!({
                "now": {"m": now / 60, "s": now % 60},
                "total": {"h": total / 3600, "m": total / 60 % 60, "s": total % 60},
            }),
        );
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

/// The JSON entries of a line of play from `pos`, with the forks of `variations` attached.
fn line_json(
    record: &Record,
    pos: &Position,
    first_ply: u32,
    moves: &[RecordMove],
    end: Option<&Terminal>,
    parent: Option<usize>,
    mut previous: Option<Square>,
) -> Vec<Value> {
    let timed = moves.iter().any(|m| m.time_ms.is_some());
    let mut totals = [0u64; 2];
    let mut pos = pos.clone();
    let mut out = Vec::new();
    for (k, m) in moves.iter().enumerate() {
        let ply = first_ply + k as u32;
        let secs = m.time_ms.unwrap_or(0) / 1000;
        totals[pos.turn().index()] += secs;
        let mut entry = move_json(
            &pos,
            m.mv,
            previous,
            timed.then_some((secs, totals[pos.turn().index()])),
            &m.comments,
        );
        let forks: Vec<Value> = record
            .variations
            .iter()
            .enumerate()
            .filter(|(_, v)| v.parent == parent && v.start == ply)
            .map(|(i, v)| {
                Value::Array(line_json(
                    record,
                    &pos,
                    v.start,
                    &v.moves,
                    v.end.as_ref(),
                    Some(i),
                    previous,
                ))
            })
            .collect();
        if !forks.is_empty() {
            entry["forks"] = Value::Array(forks);
        }
        out.push(entry);
        previous = Some(m.mv.to());
        if pos.is_legal(m.mv) {
            pos.play_unchecked(m.mv);
        }
    }
    if let Some(end) = end {
        out.push(json!({ "special": special_code(end, pos.turn()) }));
    }
    out
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
    let mut moves = vec![if record.start_comments.is_empty() {
        json!({})
    } else {
        json!({"comments": record.start_comments})
    }];
    let mut main = record.moves.clone();
    if let Some(f) = &record.foul {
        main.push(RecordMove {
            mv: f.mv,
            time_ms: None,
            comments: Vec::new(),
        });
    }
    moves.extend(line_json(
        record,
        &record.start,
        1,
        &main,
        record.end.as_ref(),
        None,
        None,
    ));
    let root = json!({"header": header, "initial": initial, "moves": moves});
    serde_json::to_string_pretty(&root).unwrap_or_default() + "\n"
}
