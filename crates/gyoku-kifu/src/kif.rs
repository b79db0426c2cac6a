//! KIF (Kakinoki) records: `key：value` headers, 手合割 or a BOD board diagram, numbered
//! move lines with times, `*` comments, special moves (投了, 千日手, …) and 変化 variations.

use gyoku::{Color, Handicap, Move, Piece, Position, Role, Setup, Square};

use crate::kakinoki::{self, NAMES, destination_and_piece, variation_header};
use crate::{Format, ReadError, ReadErrorKind, Record, RecordMove, Terminal, Variation};

fn position_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Kif, ReadErrorKind::Position, line, column, message)
}

fn move_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Kif, ReadErrorKind::Move, line, column, message)
}

fn variation_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Kif, ReadErrorKind::Variation, line, column, message)
}

const SPECIALS: [(&str, Terminal); 13] = [
    ("投了", Terminal::Resign),
    ("中断", Terminal::Suspend),
    ("千日手", Terminal::Sennichite),
    ("持将棋", Terminal::Jishogi),
    ("詰み", Terminal::Mate),
    ("不詰", Terminal::NoMate),
    ("切れ負け", Terminal::TimeUp),
    ("反則勝ち", Terminal::IllegalWin),
    ("反則負け", Terminal::IllegalLoss),
    ("入玉勝ち", Terminal::Declaration),
    ("入玉宣言", Terminal::Declaration),
    ("最大手数", Terminal::MaxMoves),
    ("トライ", Terminal::Try),
];

fn kanji_number(text: &str) -> Option<u8> {
    const DIGITS: [char; 10] = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
    if text.is_empty() {
        return Some(1);
    }
    if let Ok(n) = text.parse::<u8>() {
        return Some(n);
    }
    let mut total = 0u8;
    let mut current = 0u8;
    for c in text.chars() {
        if c == '十' {
            total = total.checked_add(if current == 0 { 10 } else { current * 10 })?;
            current = 0;
        } else {
            current = DIGITS.iter().position(|&d| d == c)? as u8;
        }
    }
    total.checked_add(current)
}

fn hand_text(setup: &mut Setup, color: Color, text: &str) -> Option<()> {
    let text = text.trim();
    if text == "なし" || text.is_empty() {
        return Some(());
    }
    for item in text.split([' ', '　']).filter(|s| !s.is_empty()) {
        let (name, count) = NAMES
            .iter()
            .filter(|(n, r)| item.starts_with(n) && r.is_hand_role())
            .map(|(n, r)| (*r, &item[n.len()..]))
            .next()?;
        let n = kanji_number(count)?;
        let hand = setup.hands.get_mut(color);
        hand.set(name, hand.count(name).checked_add(n)?).ok()?;
    }
    Some(())
}

/// The board diagram's rank labels, rank 1 to 9, written after each row (`|…|一`).
const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The rank a board row's label names (`|…|六` is 6), when it has one.
fn row_label(row: &str) -> Option<u8> {
    let inner = row.strip_prefix('|')?;
    let end = inner.find('|')?;
    let label = inner[end + 1..].trim().chars().next()?;
    let at = RANKS.iter().position(|&c| c == label)?;
    u8::try_from(at + 1).ok()
}

/// The board's rows read so far (bit `r` for rank `r`) must be all nine once it ends, at
/// `line`: a row left out would shift or drop pieces unseen.
fn board_complete(rows: u16, line: usize) -> Result<(), ReadError> {
    if rows == 0 || rows == 0b11_1111_1110 {
        return Ok(());
    }
    let missing: Vec<String> = (1..=9usize)
        .filter(|r| rows & (1 << r) == 0)
        .map(|r| RANKS[r - 1].to_string())
        .collect();
    let rows = if missing.len() == 1 { "row" } else { "rows" };
    Err(position_err(
        line,
        1,
        format!(
            "the board lacks {rows} {} (a KIF board gives all nine, 一 to 九)",
            missing.join(", ")
        ),
    ))
}

fn board_row(setup: &mut Setup, rank: u8, text: &str) -> Option<()> {
    let inner = text.strip_prefix('|')?;
    let end = inner.find('|')?;
    let cells: Vec<char> = inner[..end].chars().collect();
    let mut file = 9u8;
    let mut i = 0;
    while i < cells.len() && file >= 1 {
        let (color, c) = match cells[i] {
            'v' | 'V' => (Color::White, *cells.get(i + 1)?),
            ' ' | '^' => (Color::Black, *cells.get(i + 1)?),
            other => (Color::Black, other),
        };
        i += if matches!(cells[i], 'v' | 'V' | ' ' | '^') {
            2
        } else {
            1
        };
        if c != '・' {
            let s = c.to_string();
            let role = NAMES.iter().find(|(n, _)| *n == s).map(|&(_, r)| r)?;
            setup
                .board
                .set(Square::new(file, rank)?, Some(Piece::new(color, role)));
        }
        file -= 1;
    }
    (file == 0).then_some(())
}

/// The end a move line names: its first word (`投了`, `詰`, …), or a side and its foul as
/// Shogi Club 24 writes them (`先手 反則負け`, `後手 反則勝ち`).
fn end_named(text: &str) -> Terminal {
    let mut words = text.split([' ', '　']).filter(|w| !w.is_empty());
    let first = words.next().unwrap_or("");
    let side = match first {
        "先手" | "下手" => Some(Color::Black),
        "後手" | "上手" => Some(Color::White),
        _ => None,
    };
    match (side, words.next()) {
        (Some(side), Some("反則負け")) => Terminal::IllegalAction(side),
        (Some(side), Some("反則勝ち")) => Terminal::IllegalAction(!side),
        _ => terminal(if first == "詰" { "詰み" } else { first }),
    }
}

fn terminal(word: &str) -> Terminal {
    SPECIALS
        .iter()
        .find(|(w, _)| *w == word)
        .map_or_else(|| Terminal::Other(word.to_string()), |(_, t)| t.clone())
}

/// The 1-based character column where `part` (a slice of `line`) starts.
fn column_of(line: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize)
        .saturating_sub(line.as_ptr() as usize)
        .min(line.len());
    line.get(..offset).map_or(1, |s| s.chars().count() + 1)
}

/// Whether a move line's first word looks like a move (a square or 同 first, an origin, or
/// 打) rather than a special word.
fn move_shaped(word: &str) -> bool {
    word.starts_with('同')
        || word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || ('１'..='９').contains(&c))
        || word.contains('(')
        || word.contains('打')
}

/// A parsed move line (after its ply number): the move text and the time taken.
struct MoveLine<'a> {
    /// The move's number (`  12 …` is 12).
    number: u32,
    text: &'a str,
    time_ms: Option<u64>,
}

fn move_line(line: &str) -> Option<MoveLine<'_>> {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number = t[..digits].parse::<u32>().ok()?;
    let rest = t[digits..].trim_start();
    // The time is the parenthesised group holding a '/'.
    let (text, time_ms) = match rest.rfind('(').filter(|&i| rest[i..].contains('/')) {
        Some(i) => {
            let inside = rest[i + 1..].split(')').next().unwrap_or("");
            let now = inside.split('/').next().unwrap_or("").trim();
            // A time too large to hold in milliseconds is no time.
            let ms = now.split_once(':').and_then(|(m, s)| {
                let (m, s) = (m.trim().parse::<u64>().ok()?, s.trim().parse::<u64>().ok()?);
                m.checked_mul(60)?.checked_add(s)?.checked_mul(1000)
            });
            (rest[..i].trim_end(), ms)
        }
        None => (rest.trim_end().trim_end_matches('+').trim_end(), None),
    };
    Some(MoveLine {
        number,
        text,
        time_ms,
    })
}

/// Parses the move text `７六歩(77)`, `同　歩(76)`, `５五角打`, `２二角成(88)`.
fn parse_move(text: &str, previous_to: Option<Square>) -> Result<Move, String> {
    let (to, role, mut rest) = destination_and_piece(text, previous_to)?;
    let mut promote = false;
    if let Some(r) = rest.strip_prefix("不成") {
        rest = r;
    } else if let Some(r) = rest.strip_prefix('成') {
        promote = true;
        rest = r;
    }
    if rest.starts_with('打') {
        return Ok(Move::Drop { role, to });
    }
    let from = rest
        .strip_prefix('(')
        .and_then(|r| r.get(..2))
        .and_then(|d| {
            let b = d.as_bytes();
            Square::new(b[0].wrapping_sub(b'0'), b[1].wrapping_sub(b'0'))
        })
        .ok_or_else(|| format!("no origin '(xy)' or '打' in '{text}'"))?;
    Ok(Move::Normal { from, to, promote })
}

/// Reads a KIF record.
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault.
pub fn read(text: &str) -> Result<Record, ReadError> {
    read_with(text, crate::ReadOptions::default())
}

/// [`read`] with [`crate::ReadOptions`]: with `partial_boards`, a board diagram that gives
/// only some rows (a tsume problem's corner) is read as what it gives.
///
/// # Errors
/// As [`read`].
pub fn read_with(text: &str, options: crate::ReadOptions) -> Result<Record, ReadError> {
    let mut header = Vec::new();
    let mut setup: Option<Setup> = None;
    let mut handicap: Option<Handicap> = None;
    let mut turn: Option<Color> = None;
    let mut start_comments = Vec::new();
    let mut record: Option<Record> = None;
    let mut pos: Option<Position> = None;
    let mut variation: Option<Variation> = None;
    // The board's rows read (bit r for rank r), and whether the board is still being read.
    let mut rows = 0u16;
    let mut in_board = false;
    // From the standard start with no side to move said, the first move must be move 1.
    let mut first_is_one = false;
    let mut last_to: Option<Square> = None;

    let start = |setup: &mut Option<Setup>,
                 handicap: Option<Handicap>,
                 turn: Option<Color>,
                 line: usize|
     -> Result<Position, ReadError> {
        let mut s = match (setup.take(), handicap) {
            (Some(s), _) => s,
            (None, Some(h)) => h.setup(),
            (None, None) => Setup::startpos(),
        };
        if let Some(t) = turn {
            s.turn = t;
        } else if handicap.is_some() && setup.is_none() {
            s.turn = Color::White;
        }
        Position::from_setup(s)
            .or_else(|e| e.ignore_all_safe())
            .map_err(|e| position_err(line, 1, e.to_string()))
    };

    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.trim_end();
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(c) = line
            .strip_prefix('*')
            .or_else(|| line.strip_prefix('&').map(|_| line))
        {
            match (&mut variation, &mut record) {
                (Some(v), _) => {
                    if let Some(m) = v.moves.last_mut() {
                        m.comments.push(c.to_string());
                    }
                }
                (None, Some(r)) => r.comment(c.to_string()),
                (None, None) => start_comments.push(c.to_string()),
            }
            continue;
        }
        // Leading white space (a form feed, a full-width space) does not hide a
        // variation: KI2 reads `変化` lines trimmed too.
        let trimmed = line.trim_start();
        if let Some(rest) = variation_header(trimmed) {
            let ply: u32 = rest.trim_end_matches('手').trim().parse().map_err(|_| {
                let indent = line.chars().count() - trimmed.chars().count();
                variation_err(line_no, indent + 4, format!("bad variation '{trimmed}'"))
            })?;
            if let (Some(v), Some(r)) = (variation.take(), record.as_mut()) {
                r.variations.push(v);
            }
            // The parent is the most recent line that starts before this one.
            let parent = record
                .as_ref()
                .and_then(|r| r.variations.iter().rposition(|v| v.start < ply));
            if let Some(r) = record.as_ref() {
                crate::check_nesting(r, parent, Format::Kif, line_no)?;
            }
            // The move before the variation, on the line it branches from (for 同).
            last_to = record
                .as_ref()
                .and_then(|r| r.move_on_line(parent, ply.checked_sub(1)?))
                .map(|m| m.to());
            variation = Some(Variation {
                start: ply,
                parent,
                moves: Vec::new(),
                end: None,
            });
            continue;
        }
        if line.trim_start().starts_with("まで") {
            // The closing line: a statement of the result beside the end line.
            if let (None, Some(r)) = (&variation, record.as_mut())
                && let Some((plies, end)) = kakinoki::parse_summary(line.trim(), r.start.turn())
            {
                r.closing = Some(crate::Closing {
                    text: line.trim().to_string(),
                    plies,
                    end,
                    result: kakinoki::closing_result(line.trim()),
                });
            }
            continue;
        }
        if line.starts_with("手数----") || line.starts_with("手数＝") {
            continue;
        }
        if record.is_none() {
            // Header, board diagram and side to move.
            if let Some(row) = line.strip_prefix('|').map(|_| line) {
                // Read by its label: a row left out must not shift the rows below it up.
                let rank = match row_label(row) {
                    Some(rank) => rank,
                    None => (1..=9u8).find(|r| rows & (1 << r) == 0).unwrap_or(10),
                };
                if rows & (1 << rank) != 0 || rank > 9 {
                    let what = RANKS.get(usize::from(rank) - 1).map_or_else(
                        || "a tenth row".to_string(),
                        |c| format!("rank {c} given twice"),
                    );
                    return Err(position_err(line_no, 1, format!("bad board row: {what}")));
                }
                rows |= 1 << rank;
                in_board = true;
                let s = setup.get_or_insert_with(Setup::empty);
                board_row(s, rank, row)
                    .ok_or_else(|| position_err(line_no, 1, format!("bad board row '{line}'")))?;
                continue;
            }
            if std::mem::take(&mut in_board) && !options.partial_boards {
                board_complete(rows, line_no)?;
            }
            if line.starts_with("  ９") || line.starts_with("+---") || line.starts_with("+－") {
                continue;
            }
            match line.trim() {
                "後手番" | "上手番" => {
                    turn = Some(Color::White);
                    continue;
                }
                "先手番" | "下手番" => {
                    turn = Some(Color::Black);
                    continue;
                }
                _ => {}
            }
            // A KI2 move mark never starts a header, or the header would read back from
            // KI2 as a move.
            if let Some((key, value)) = line.split_once('：').or_else(|| line.split_once(':'))
                && move_line(line).is_none()
                && !kakinoki::is_move_line(key)
            {
                let value = value.trim().to_string();
                match key {
                    "手合割" => {
                        handicap = value.parse::<Handicap>().ok();
                        header.push((key.to_string(), value));
                    }
                    "先手の持駒" | "下手の持駒" | "後手の持駒" | "上手の持駒" =>
                    {
                        let color = if key.starts_with("先手") || key.starts_with("下手") {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let s = setup.get_or_insert_with(Setup::empty);
                        hand_text(s, color, &value).ok_or_else(|| {
                            position_err(
                                line_no,
                                key.chars().count() + 2,
                                format!("bad hand '{value}'"),
                            )
                        })?;
                    }
                    _ => header.push((key.to_string(), value)),
                }
                continue;
            }
            if move_line(line).is_none() {
                return Err(move_err(
                    line_no,
                    1,
                    format!(
                        "unexpected line '{}'",
                        line.chars().take(30).collect::<String>()
                    ),
                ));
            }
            first_is_one = setup.is_none() && turn.is_none();
            let p = start(&mut setup, handicap, turn, line_no)?;
            let mut r = Record::new(p.clone());
            r.header = std::mem::take(&mut header);
            r.start_comments = std::mem::take(&mut start_comments);
            if r.handicap.is_none() {
                r.handicap = handicap;
            }
            record = Some(r);
            pos = Some(p);
        }
        let Some(ml) = move_line(line) else {
            // Free text after the moves (a summary we do not know): ignored.
            continue;
        };
        let (Some(r), Some(p)) = (record.as_mut(), pos.as_mut()) else {
            continue;
        };
        if r.damage.is_some() {
            // Read up to the damage: the rest of the game cannot be placed.
            continue;
        }
        if std::mem::take(&mut first_is_one) && variation.is_none() && ml.number > 1 {
            let missing = if ml.number == 2 {
                "move 1 is missing".to_string()
            } else {
                format!("moves 1 to {} are missing", ml.number - 1)
            };
            let what = format!(
                "the moves start at move {} with no 後手番 line: {missing}",
                ml.number
            );
            r.damage = Some(crate::Damage {
                line: line_no,
                what,
            });
            continue;
        }
        let word = ml.text.split([' ', '　']).next().unwrap_or("");
        // Known special words, and any other word that is not shaped like a move (no
        // square or 同 first, no origin, no 打): unknown end words are kept, not refused.
        let move_shaped = move_shaped(word);
        let is_special = SPECIALS.iter().any(|(w, _)| *w == word)
            || ["封じ手", "不戦勝", "不戦敗", "詰"].contains(&word)
            || (!word.is_empty() && !move_shaped);
        if let Some(v) = variation.as_mut() {
            if is_special {
                v.end = Some(end_named(ml.text));
                continue;
            }
            let mv = parse_move(ml.text, last_to)
                .map_err(|m| move_err(line_no, column_of(line, ml.text), m))?;
            last_to = Some(mv.to());
            v.moves.push(RecordMove {
                mv,
                time_ms: ml.time_ms,
                comments: Vec::new(),
            });
            continue;
        }
        if is_special {
            r.end = Some(end_named(ml.text));
            r.end_time_ms = ml.time_ms;
            continue;
        }
        if let Some(f) = r.foul.as_mut() {
            f.rest.push(line.trim().to_string());
            continue;
        }
        let mv = parse_move(ml.text, last_to)
            .map_err(|m| move_err(line_no, column_of(line, ml.text), m))?;
        last_to = Some(mv.to());
        r.push_move(p, mv, ml.time_ms);
    }
    let mut r = match record {
        Some(r) => r,
        None => {
            // A record with no moves.
            if in_board && !options.partial_boards {
                board_complete(rows, text.lines().count())?;
            }
            let p = start(&mut setup, handicap, turn, 1)?;
            let mut r = Record::new(p);
            r.header = header;
            r.start_comments = start_comments;
            if r.handicap.is_none() {
                r.handicap = handicap;
            }
            r
        }
    };
    if let Some(v) = variation {
        r.variations.push(v);
    }
    // A record whose only statement of its end is its closing line ends as that line says,
    // when the line counts the plies the record has (a foul and the moves after it
    // included).
    let plies = r.moves.len() + r.foul.as_ref().map_or(0, |f| 1 + f.rest.len());
    if r.end.is_none()
        && r.damage.is_none()
        && let Some(c) = r.closing.as_ref().filter(|c| c.plies as usize == plies)
    {
        r.end = Some(c.end.clone());
    }
    Ok(r)
}

/// A piece's one-character name on a board diagram (杏, 圭, 全 for the promoted lance,
/// knight and silver).
pub(crate) fn board_kanji(role: Role) -> &'static str {
    match role {
        Role::ProLance => "杏",
        Role::ProKnight => "圭",
        Role::ProSilver => "全",
        other => other.kanji(),
    }
}

fn move_text(pos: &Position, mv: Move, previous_to: Option<Square>) -> String {
    let to = mv.to();
    let mut s = if Some(to) == previous_to {
        "同　".to_string()
    } else {
        to.japanese()
    };
    match mv {
        Move::Drop { role, .. } => {
            s.push_str(role.kanji());
            s.push('打');
        }
        Move::Normal { from, promote, .. } => {
            let role = pos.board().piece_at(from).map_or(Role::Pawn, |p| p.role);
            s.push_str(role.kanji());
            if promote {
                s.push('成');
            }
            s.push_str(&format!("({}{})", from.file(), from.rank()));
        }
    }
    s
}

fn width(text: &str) -> usize {
    text.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

fn special_word(end: &Terminal, turn: Color) -> String {
    match end {
        Terminal::Resign => "投了".into(),
        Terminal::Suspend => "中断".into(),
        Terminal::Sennichite => "千日手".into(),
        Terminal::Jishogi | Terminal::Draw => "持将棋".into(),
        Terminal::Mate => "詰み".into(),
        Terminal::NoMate => "不詰".into(),
        Terminal::TimeUp => "切れ負け".into(),
        Terminal::Declaration => "入玉勝ち".into(),
        Terminal::IllegalLoss => "反則負け".into(),
        Terminal::IllegalWin => "反則勝ち".into(),
        Terminal::IllegalAction(c) => {
            if *c == turn {
                "反則負け".into()
            } else {
                "反則勝ち".into()
            }
        }
        Terminal::MaxMoves => "最大手数".into(),
        Terminal::Try => "トライ".into(),
        Terminal::Other(s) => s.clone(),
    }
}

fn write_line(out: &mut String, ply: usize, text: &str, time: Option<(u64, u64)>) {
    out.push_str(&format!("{ply:>4} {text}"));
    if let Some((now, total)) = time {
        out.push_str(&" ".repeat(14usize.saturating_sub(width(text))));
        let (m, s) = (now / 60, now % 60);
        let (h, tm, ts) = (total / 3600, total / 60 % 60, total % 60);
        out.push_str(&format!("({m:>2}:{s:02}/{h:02}:{tm:02}:{ts:02})"));
    }
    out.push('\n');
}

/// Writes the move lines of one line of play from `start` (its first move at `first_ply`,
/// `previous_to` the square the move before it went to), each side's total time carrying on
/// from `totals`.
fn write_moves(
    out: &mut String,
    start: &Position,
    first_ply: usize,
    moves: &[RecordMove],
    // How the line ends, and the time the end took.
    end: (Option<&Terminal>, Option<u64>),
    mut previous_to: Option<Square>,
    mut totals: [u64; 2],
) {
    let (end, end_time) = end;
    let timed = moves.iter().any(|m| m.time_ms.is_some());
    let mut pos = start.clone();
    for (i, m) in moves.iter().enumerate() {
        let text = move_text(&pos, m.mv, previous_to);
        let side = pos.turn().index();
        let secs = m.time_ms.unwrap_or(0) / 1000;
        totals[side] = totals[side].saturating_add(secs);
        write_line(
            out,
            first_ply + i,
            &text,
            timed.then_some((secs, totals[side])),
        );
        for c in &m.comments {
            if c.starts_with('&') {
                out.push_str(c);
            } else {
                out.push('*');
                out.push_str(c);
            }
            out.push('\n');
        }
        previous_to = Some(m.mv.to());
        // Variations are kept as read: play only what is legal, never panic.
        if pos.is_legal(m.mv) {
            pos.play_unchecked(m.mv);
        }
    }
    if let Some(Terminal::Other(word)) = end
        && (word.is_empty()
            || move_shaped(word)
            || word.contains(char::is_whitespace)
            // A move line's trailing `+` is dropped when read.
            || word.ends_with('+'))
    {
        // Not writable as a special move: kept as a comment.
        out.push('*');
        out.push_str(&word.replace(['\n', '\r'], " "));
        out.push('\n');
        return;
    }
    if let Some(end) = end {
        let secs = end_time.unwrap_or(0) / 1000;
        let side = pos.turn().index();
        write_line(
            out,
            first_ply + moves.len(),
            &special_word(end, pos.turn()),
            timed.then_some((secs, totals[side].saturating_add(secs))),
        );
    }
}

/// A hand count as written after the piece: nothing for one, else `二` … `十八` (and on, for
/// the impossible hands a lenient read accepts: `二十四`).
fn kanji_count(n: u8) -> String {
    const DIGITS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    if n <= 1 {
        return String::new();
    }
    if n >= 100 {
        return n.to_string();
    }
    let (tens, units) = (usize::from(n / 10), usize::from(n % 10));
    let mut s = String::new();
    match tens {
        0 => {}
        1 => s.push('十'),
        t => {
            s.push_str(DIGITS[t % 10]);
            s.push('十');
        }
    }
    s.push_str(DIGITS[units]);
    s
}

/// KIF's board diagram of `pos`.
pub(crate) fn write_bod(out: &mut String, pos: &Position) {
    let hand = |c: Color| {
        let h = pos.hand(c);
        if h.is_empty() {
            return "なし".to_string();
        }
        h.iter()
            .map(|(r, n)| format!("{}{}", r.kanji(), kanji_count(n)))
            .collect::<Vec<_>>()
            .join("　")
    };
    out.push_str(&format!("後手の持駒：{}\n", hand(Color::White)));
    out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for rank in 1..=9u8 {
        out.push('|');
        for file in (1..=9u8).rev() {
            match pos
                .board()
                .piece_at(Square::new(file, rank).expect("valid square"))
            {
                None => out.push_str(" ・"),
                Some(p) => {
                    out.push(if p.color == Color::White { 'v' } else { ' ' });
                    out.push_str(board_kanji(p.role));
                }
            }
        }
        out.push('|');
        out.push(RANKS[usize::from(rank) - 1]);
        out.push('\n');
    }
    out.push_str("+---------------------------+\n");
    out.push_str(&format!("先手の持駒：{}\n", hand(Color::Black)));
    if pos.turn() == Color::White {
        out.push_str("後手番\n");
    }
}

/// Whether `key：…` reads back as a header named `key` (see the reader's order of tests:
/// comments, bookmarks, variations, board rows and borders, moves come first).
fn header_reads_back(key: &str) -> bool {
    let line = format!("{key}：");
    let trimmed = line.trim_start();
    !key.trim().is_empty()
        && !key.contains(['：', ':', '\n', '\r'])
        && !line.starts_with(['#', '*', '&', '|'])
        && variation_header(trimmed).is_none()
        && !trimmed.starts_with("まで")
        && !line.starts_with("手数----")
        && !line.starts_with("手数＝")
        && !line.starts_with("  ９")
        && !line.starts_with("+---")
        && !line.starts_with("+－")
        && move_line(&line).is_none()
        && !kakinoki::is_move_line(key)
}

/// Writes a record as KIF (UTF-8 text; encode as Shift_JIS for a `.kif` file).
pub fn write(record: &Record) -> String {
    let mut out = String::from("# ---- Gyoku 棋譜ファイル ----\n");
    for (key, value) in &record.header {
        if key == "手合割" {
            continue;
        }
        let value = value.replace(['\n', '\r'], " ");
        if header_reads_back(key) {
            out.push_str(&format!("{key}：{value}\n"));
        } else {
            // A name KIF would read as something else (a board row, a comment, a move, a
            // second colon): kept as a comment rather than lost or misread.
            out.push_str(&format!("*{}：{value}\n", key.replace(['\n', '\r'], " ")));
        }
    }
    let even = record.start.same_position(&Position::startpos());
    match record.handicap {
        _ if even => out.push_str("手合割：平手\n"),
        Some(h) if record.start.same_position(&h.position()) => {
            out.push_str(&format!("手合割：{}\n", h.japanese()))
        }
        _ => write_bod(&mut out, &record.start),
    }
    for c in &record.start_comments {
        out.push_str(&format!("*{c}\n"));
    }
    out.push_str("手数----指手---------消費時間--\n");
    let mut moves = record.moves.clone();
    match &record.foul {
        // KIF says the mover by the ply number alone: a move out of turn cannot be said,
        // so it is kept as a comment.
        Some(foul) if record.foul_out_of_turn() => {
            let note = format!("illegal move {} out of turn (not writable in KIF)", foul.mv);
            match moves.last_mut() {
                Some(last) => last.comments.push(note),
                None => out.push_str(&format!("*{note}\n")),
            }
        }
        Some(foul) => moves.push(RecordMove {
            mv: foul.mv,
            time_ms: None,
            comments: Vec::new(),
        }),
        None => {}
    }
    let end = record.end.as_ref();
    write_moves(
        &mut out,
        &record.start,
        1,
        &moves,
        (end, record.end_time_ms),
        None,
        [0; 2],
    );
    let plies = moves.len();
    let turn = crate::turn_after(record.start.turn(), plies);
    if let Some(line) = kakinoki::summary(record, plies, turn) {
        out.push_str(&line);
        out.push('\n');
    }
    let mut states = crate::lines::LineStates::default();
    for (i, v) in record.variations.iter().enumerate() {
        out.push_str(&format!("\n変化：{}手\n", v.start));
        // The game where the variation leaves its line; each side's total time carries on.
        let wanted = (v.start as usize).saturating_sub(1);
        let (before, kept) = states.after(record, v.parent.filter(|&p| p < i), wanted);
        // As the reader sees it: the move at the ply before the variation, if the line has one.
        let previous = (kept == wanted).then_some(before.previous).flatten();
        write_moves(
            &mut out,
            &before.pos,
            v.start as usize,
            &v.moves,
            (v.end.as_ref(), None),
            previous,
            before.totals,
        );
    }
    out
}
