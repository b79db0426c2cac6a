//! CSA records, V2.2 and V3.0: several games per file separated by `/`, several
//! statements per line separated by `,`, `'` comments, `%` end codes, `T` times (fractional
//! in V3.0).

use gyoku::{Color, Hand, Move, Piece, Position, Role, Setup, Square};

use crate::{Format, ReadError, ReadErrorKind, Record, Terminal};

const CODES: [(&str, Role); 14] = [
    ("FU", Role::Pawn),
    ("KY", Role::Lance),
    ("KE", Role::Knight),
    ("GI", Role::Silver),
    ("KI", Role::Gold),
    ("KA", Role::Bishop),
    ("HI", Role::Rook),
    ("OU", Role::King),
    ("TO", Role::ProPawn),
    ("NY", Role::ProLance),
    ("NK", Role::ProKnight),
    ("NG", Role::ProSilver),
    ("UM", Role::Horse),
    ("RY", Role::Dragon),
];

/// The CSA code of `role` (`FU`, `RY`, …).
pub fn role_code(role: Role) -> &'static str {
    CODES[role.index()].0
}

fn role_of(code: &str) -> Option<Role> {
    Some(match code.as_bytes() {
        b"FU" => Role::Pawn,
        b"KY" => Role::Lance,
        b"KE" => Role::Knight,
        b"GI" => Role::Silver,
        b"KI" => Role::Gold,
        b"KA" => Role::Bishop,
        b"HI" => Role::Rook,
        b"OU" => Role::King,
        b"TO" => Role::ProPawn,
        b"NY" => Role::ProLance,
        b"NK" => Role::ProKnight,
        b"NG" => Role::ProSilver,
        b"UM" => Role::Horse,
        b"RY" => Role::Dragon,
        _ => return None,
    })
}

const HEADER_KEYS: [(&str, &str); 7] = [
    ("MAX_MOVES", "最大手数"),
    ("EVENT", "棋戦"),
    ("SITE", "場所"),
    ("START_TIME", "開始日時"),
    ("END_TIME", "終了日時"),
    ("TIME_LIMIT", "持ち時間"),
    ("OPENING", "戦型"),
];

struct Reader {
    records: Vec<Record>,
    header: Vec<(String, String)>,
    comments: Vec<String>,
    setup: Option<Setup>,
    record: Option<Record>,
    position: Option<Position>,
    last_was_move: bool,
    /// The bytes from the current line to the end of the game it is in (the next `/` line
    /// or the end of the file): a guess at the game's moves, to size its move list once.
    game_bytes: usize,
    /// The last comment line read (its line and text), for a move glued onto it.
    last_comment: Option<(usize, String)>,
    /// The board rows (`P1`–`P9`) read for the position being set up: bit `r` for `Pr`.
    rows: u16,
    /// A board of only some rows is read as what it gives ([`crate::ReadOptions`]).
    partial_boards: bool,
}

/// Every board row, `P1` to `P9`, as [`Reader::rows`] holds them.
const ALL_ROWS: u16 = 0b11_1111_1110;

fn err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Csa, ReadErrorKind::Syntax, line, column, message)
}

fn position_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Csa, ReadErrorKind::Position, line, column, message)
}

fn move_err(line: usize, column: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(Format::Csa, ReadErrorKind::Move, line, column, message)
}

/// Whether `text` has a CSA move's shape (`+2726FU`).
fn move_shaped(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 7
        && matches!(b[0], b'+' | b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..].iter().all(u8::is_ascii_uppercase)
}

fn square(bytes: &[u8]) -> Option<Square> {
    match bytes {
        [f @ b'1'..=b'9', r @ b'1'..=b'9'] => Square::new(f - b'0', r - b'0'),
        _ => None,
    }
}

fn terminal(code: &str) -> Terminal {
    match code {
        "TORYO" => Terminal::Resign,
        "CHUDAN" => Terminal::Suspend,
        "SENNICHITE" => Terminal::Sennichite,
        "TIME_UP" => Terminal::TimeUp,
        "ILLEGAL_MOVE" => Terminal::IllegalLoss,
        "+ILLEGAL_ACTION" => Terminal::IllegalAction(Color::Black),
        "-ILLEGAL_ACTION" => Terminal::IllegalAction(Color::White),
        "JISHOGI" => Terminal::Jishogi,
        "KACHI" => Terminal::Declaration,
        "HIKIWAKE" => Terminal::Draw,
        "TSUMI" => Terminal::Mate,
        "FUZUMI" => Terminal::NoMate,
        "MAX_MOVES" => Terminal::MaxMoves,
        "TRY" => Terminal::Try,
        other => Terminal::Other(other.to_string()),
    }
}

/// Parses a time `T12` / `T6.123` into milliseconds.
fn time(text: &str) -> Option<u64> {
    // Whole seconds, the common case, without a float parse.
    if !text.is_empty() && text.len() <= 9 && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u64>().ok().map(|s| s * 1000);
    }
    let seconds: f64 = text.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

impl Reader {
    /// Reads one line: a `/` between games, a comment, or statements separated by `,`.
    fn line(&mut self, line: usize, raw: &str) -> Result<(), ReadError> {
        let b = raw.as_bytes();
        // Most lines of a record are moves (`+7776FU`): straight to the move.
        if b.len() == 7
            && matches!(b[0], b'+' | b'-')
            && b[6].is_ascii_uppercase()
            && raw.is_ascii()
        {
            return self.game_move(line, 1, raw);
        }
        // And times in whole seconds (`T12`).
        if let [b'T', digits @ ..] = b
            && (1..=9).contains(&digits.len())
            && digits.iter().all(u8::is_ascii_digit)
        {
            let seconds = digits.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0'));
            self.time(line, seconds * 1000);
            return Ok(());
        }
        if let Some(comment) = raw.strip_prefix('\'') {
            if !comment.starts_with("CSA encoding=") {
                self.comment(comment.to_string());
            }
            self.last_comment = Some((line, comment.to_string()));
            return Ok(());
        }
        self.last_comment = None;
        if !raw.as_bytes().contains(&b',') {
            let trimmed = raw.trim_start();
            if let Some(comment) = trimmed.strip_prefix('\'') {
                self.comment(comment.trim_end().to_string());
            } else if trimmed.trim_end() == "/" {
                self.finish();
            } else {
                self.statement(line, 1, trimmed)?;
            }
            return Ok(());
        }
        let mut col = 1;
        let mut rest = raw;
        while !rest.is_empty() {
            let trimmed = rest.trim_start();
            if let Some(comment) = trimmed.strip_prefix('\'') {
                // A comment runs to the end of the line, commas included.
                self.comment(comment.trim_end().to_string());
                break;
            }
            let (part, next) = rest.split_once(',').unwrap_or((rest, ""));
            self.statement(line, col, part.trim_start())?;
            col += part.chars().count() + 1;
            rest = next;
        }
        Ok(())
    }

    /// A `T` time: of the last move, or of the end (CSA writes `T` after `%TORYO`). A time
    /// before any move is damage: the first move was lost — most often glued onto the end
    /// of the comment line before it, as in a Floodgate file of 2012 (`'…+2726FU`, then
    /// `T1`) — and the game is read no further.
    fn time(&mut self, line: usize, ms: u64) {
        let glued = self.last_comment.as_ref().and_then(|(at, text)| {
            let tail = text.trim_end();
            let mv = tail.get(tail.len().checked_sub(7)?..)?;
            move_shaped(mv).then(|| (*at, mv.to_string()))
        });
        if let Some(record) = self.record.as_mut() {
            if record.damage.is_none()
                && record.end.is_none()
                && record.foul.is_none()
                && record.moves.is_empty()
                && !self.last_was_move
            {
                let what = match glued {
                    Some((at, mv)) => format!(
                        "a time before any move: the move {mv} is glued to the end of the comment on line {at}"
                    ),
                    None => "a time before any move: the first move is missing".to_string(),
                };
                record.damage = Some(crate::Damage { line, what });
                return;
            }
            if record.end.is_some() {
                record.end_time_ms = Some(ms);
            } else if self.last_was_move
                && record.foul.is_none()
                && let Some(m) = record.moves.last_mut()
            {
                m.time_ms = Some(ms);
            }
        }
    }

    /// A comment: on the last move of the game being read, or before the game.
    ///
    /// shogi-server writes the illegal move that ended a game as a comment,
    /// `'ILLEGAL_MOVE(+0055FU)`, not as a move: it is read as the record's foul (kept as a
    /// comment too), so that judging the record finds the foul that decided it.
    fn comment(&mut self, text: String) {
        // shogi-server's word on the result, `'summary:toryo:alice lose:bob win`: a header,
        // where the judge reads it (wherever it stands in the file).
        if let Some(summary) = text.strip_prefix("summary:") {
            let header = match self.record.as_mut() {
                Some(record) => &mut record.header,
                None => &mut self.header,
            };
            if !header.iter().any(|(k, _)| k == "summary") {
                header.push(("summary".to_string(), summary.to_string()));
            }
            return;
        }
        if let Some(inner) = text
            .strip_prefix("ILLEGAL_MOVE(")
            .and_then(|t| t.strip_suffix(')'))
            && let (Some(record), Some(pos)) = (self.record.as_mut(), self.position.as_mut())
            && record.foul.is_none()
            && record.end.is_none()
            && let Ok((mover, mv)) = parse_move(inner, pos)
            && pos.check_move(mv).is_err()
        {
            record.comment(text);
            record.push_move_by(pos, mv, None, mover);
            return;
        }
        match self.record.as_mut() {
            Some(record) => record.comment(text),
            None => self.comments.push(text),
        }
    }

    fn setup(&mut self) -> &mut Setup {
        self.setup.get_or_insert_with(Setup::empty)
    }

    /// Starts the game: the position is complete. A board given by rows must give all
    /// nine: a row left out would leave its pieces out unseen (a missing `P2` is White
    /// without rook and bishop).
    fn start(&mut self, line: usize, turn: Color) -> Result<(), ReadError> {
        let rows = std::mem::take(&mut self.rows);
        if rows != 0 && rows != ALL_ROWS && !self.partial_boards {
            let missing: Vec<String> = (1..=9)
                .filter(|r| rows & (1 << r) == 0)
                .map(|r| format!("P{r}"))
                .collect();
            return Err(position_err(
                line,
                1,
                format!(
                    "the board lacks {} (a CSA board gives all nine rows, P1 to P9)",
                    missing.join(", ")
                ),
            ));
        }
        let mut setup = self.setup.take().unwrap_or_else(Setup::startpos);
        setup.turn = turn;
        let position = Position::from_setup(setup)
            .or_else(|e| e.ignore_all_safe())
            .map_err(|e| position_err(line, 1, e.to_string()))?;
        let mut record = Record::new(position.clone());
        // A move line is at least 7 bytes and, with its time line, about 12: reserve for
        // this game's own size, never the file's.
        record.moves.reserve(self.game_bytes / 12);
        record.header = std::mem::take(&mut self.header);
        record.start_comments = std::mem::take(&mut self.comments);
        self.position = Some(position);
        self.record = Some(record);
        Ok(())
    }

    fn finish(&mut self) {
        if let Some(record) = self.record.take() {
            self.records.push(record);
        } else if self.setup.is_some() || !self.header.is_empty() {
            // A game with a position but no side-to-move line: Black to move.
            if self.start(0, Color::Black).is_ok()
                && let Some(record) = self.record.take()
            {
                self.records.push(record);
            }
        }
        self.setup = None;
        self.rows = 0;
        self.position = None;
        self.header.clear();
        self.comments.clear();
        self.last_was_move = false;
    }

    fn board_row(&mut self, line: usize, rank: u8, text: &str) -> Result<(), ReadError> {
        if self.rows & (1 << rank) != 0 {
            return Err(position_err(line, 1, format!("P{rank} is given twice")));
        }
        self.rows |= 1 << rank;
        // A board line starts a board, even an empty one (no piece is set on an empty row).
        self.setup();
        let bytes = text.as_bytes();
        let mut file = 9u8;
        let mut i = 2;
        while i < bytes.len() {
            match bytes[i] {
                b' ' => i += 1,
                b'*' => {
                    if file == 0 {
                        return Err(position_err(line, i + 1, "more than nine squares"));
                    }
                    file -= 1;
                    i += 1;
                }
                sign @ (b'+' | b'-') => {
                    let code = text.get(i + 1..i + 3).unwrap_or("");
                    let role = role_of(code).ok_or_else(|| {
                        position_err(line, i + 2, format!("unknown piece '{code}'"))
                    })?;
                    if file == 0 {
                        return Err(position_err(line, i + 1, "more than nine squares"));
                    }
                    let color = if sign == b'+' {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let sq = Square::new(file, rank).expect("valid square");
                    self.setup().board.set(sq, Some(Piece::new(color, role)));
                    file -= 1;
                    i += 3;
                }
                _ => {
                    return Err(position_err(
                        line,
                        i + 1,
                        format!("unexpected '{}'", char::from(bytes[i])),
                    ));
                }
            }
        }
        if file != 0 {
            return Err(position_err(
                line,
                1,
                format!("rank {rank} has {} squares instead of 9", 9 - file),
            ));
        }
        Ok(())
    }

    fn pieces(&mut self, line: usize, color: Color, text: &str) -> Result<(), ReadError> {
        let bytes = text.as_bytes();
        let mut i = 2;
        while i + 4 <= bytes.len() {
            let sq = &bytes[i..i + 2];
            let code = &text[i + 2..i + 4];
            if sq == b"00" && code == "AL" {
                // Every piece not placed yet goes to this hand.
                let setup = self.setup();
                let mut counts = [0u32; 7];
                for (_, p) in setup.board.iter() {
                    if p.role != Role::King {
                        counts[p.role.unpromoted().index()] += 1;
                    }
                }
                for c in Color::ALL {
                    for (r, n) in setup.hands.get(c).iter() {
                        counts[r.index()] += u32::from(n);
                    }
                }
                for role in Role::HAND {
                    let missing = role.full_set_count().saturating_sub(counts[role.index()]);
                    let hand = setup.hands.get_mut(color);
                    let now = u32::from(hand.count(role));
                    hand.set(
                        role,
                        (now + missing).min(u32::from(Hand::capacity(role))) as u8,
                    )
                    .map_err(|e| position_err(line, i + 1, e.to_string()))?;
                }
                i += 4;
                continue;
            }
            let role = role_of(code)
                .ok_or_else(|| position_err(line, i + 3, format!("unknown piece '{code}'")))?;
            if sq == b"00" {
                let hand = self.setup().hands.get_mut(color);
                let n = hand.count(role);
                hand.set(role, n.saturating_add(1))
                    .map_err(|e| position_err(line, i + 3, e.to_string()))?;
            } else {
                let sq = square(sq).ok_or_else(|| position_err(line, i + 1, "bad square"))?;
                self.setup().board.set(sq, Some(Piece::new(color, role)));
            }
            i += 4;
        }
        if i != bytes.len() {
            return Err(position_err(line, i + 1, "incomplete piece"));
        }
        Ok(())
    }

    fn handicap_removal(&mut self, line: usize, text: &str) -> Result<(), ReadError> {
        let mut setup = Setup::startpos();
        let bytes = text.as_bytes();
        let mut i = 2;
        while i + 4 <= bytes.len() {
            let sq =
                square(&bytes[i..i + 2]).ok_or_else(|| position_err(line, i + 1, "bad square"))?;
            role_of(&text[i + 2..i + 4])
                .ok_or_else(|| position_err(line, i + 3, "unknown piece"))?;
            setup.board.set(sq, None);
            i += 4;
        }
        if i != bytes.len() {
            return Err(position_err(line, i + 1, "incomplete piece"));
        }
        self.setup = Some(setup);
        Ok(())
    }

    fn game_move(&mut self, line: usize, col: usize, text: &str) -> Result<(), ReadError> {
        let (Some(record), Some(pos)) = (self.record.as_mut(), self.position.as_mut()) else {
            return Err(move_err(
                line,
                col,
                "a move before the side to move ('+' or '-')",
            ));
        };
        if record.damage.is_some() {
            // Read up to the damage: the rest of the game cannot be placed.
            return Ok(());
        }
        let (mover, mv) =
            parse_move(text, pos).map_err(|(at, message)| move_err(line, col + at, message))?;
        if record.foul.is_some() {
            if let Some(f) = record.foul.as_mut() {
                f.rest.push(text.to_string());
            }
        } else {
            record.push_move_by(pos, mv, None, mover);
        }
        self.last_was_move = true;
        Ok(())
    }

    fn statement(&mut self, line: usize, col: usize, text: &str) -> Result<(), ReadError> {
        let text = text.trim_end();
        if text.is_empty() {
            return Ok(());
        }
        let b = text.as_bytes();
        // Positions, moves, times and end codes are ASCII; only names, header values and
        // comments may hold other text.
        if matches!(b[0], b'P' | b'+' | b'-' | b'T')
            && !text.is_ascii()
            && let Some(bad) = text.char_indices().find(|(_, c)| !c.is_ascii())
        {
            return Err(err(
                line,
                col + text[..bad.0].chars().count(),
                format!("unexpected '{}'", bad.1),
            ));
        }
        match b[0] {
            b'V' => {}
            b'N' if b.len() >= 2 && (b[1] == b'+' || b[1] == b'-') => {
                let key = if b[1] == b'+' { "先手" } else { "後手" };
                self.header.push((key.to_string(), text[2..].to_string()));
            }
            b'$' => {
                let (key, value) = text[1..].split_once(':').unwrap_or((&text[1..], ""));
                let key = HEADER_KEYS
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or_else(|| format!("${key}"), |(_, jp)| (*jp).to_string());
                self.header.push((key, value.to_string()));
            }
            b'P' if b.len() >= 2 => match b[1] {
                b'I' => self.handicap_removal(line, text)?,
                b'1'..=b'9' => self.board_row(line, b[1] - b'0', text)?,
                b'+' => self.pieces(line, Color::Black, text)?,
                b'-' => self.pieces(line, Color::White, text)?,
                _ => {
                    return Err(position_err(
                        line,
                        col + 1,
                        format!("unknown position line '{text}'"),
                    ));
                }
            },
            b'+' | b'-' if b.len() == 1 => {
                let turn = if b[0] == b'+' {
                    Color::Black
                } else {
                    Color::White
                };
                self.start(line, turn)?;
            }
            b'+' | b'-' => self.game_move(line, col, text)?,
            b'T' => {
                let ms = time(&text[1..])
                    .ok_or_else(|| err(line, col + 1, format!("bad time '{text}'")))?;
                self.time(line, ms);
            }
            b'%' => {
                if self.record.is_none() {
                    self.start(line, Color::Black)?;
                }
                if let Some(record) = self.record.as_mut().filter(|r| r.damage.is_none()) {
                    record.end = Some(terminal(&text[1..]));
                }
                self.last_was_move = false;
            }
            _ => {
                return Err(err(
                    line,
                    col,
                    format!(
                        "unknown statement '{}'",
                        text.chars().take(20).collect::<String>()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Reads every game in a CSA file.
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault.
pub fn read(text: &str) -> Result<Vec<Record>, ReadError> {
    crate::collect_records(|each| read_each(text, each))
}

/// Reads the games of a CSA file one at a time, handing each to `each` as soon as it is
/// read: memory holds one game, however many the file has. Returns how many there were.
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault; the games before it have
/// been handed over.
pub fn read_each(text: &str, each: &mut dyn FnMut(Record)) -> Result<usize, ReadError> {
    read_each_with(text, crate::ReadOptions::default(), each)
}

/// [`read_each`] with [`crate::ReadOptions`].
///
/// # Errors
/// As [`read_each`].
pub fn read_each_with(
    text: &str,
    options: crate::ReadOptions,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    crate::at_least_one(read_part(text, options, each)?, Format::Csa)
}

/// [`read_each`] over a part of a file (games after a `/`), where no game is no error.
pub(crate) fn read_part(
    text: &str,
    options: crate::ReadOptions,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    let mut count = 0;
    let mut r = Reader {
        records: Vec::new(),
        header: Vec::new(),
        comments: Vec::new(),
        setup: None,
        record: None,
        position: None,
        last_was_move: false,
        game_bytes: 0,
        last_comment: None,
        rows: 0,
        partial_boards: options.partial_boards,
    };
    // Where the game that holds a line ends: the next `/` separator line, found once per
    // game (so a file of many games is scanned once in all).
    let mut game_end = 0;
    // Lines are found with memchr, and a line without a comma (nearly all of them) is one
    // statement: most of a record is short move and time lines.
    let mut line_start = 0;
    let mut newlines = memchr::memchr_iter(b'\n', text.as_bytes());
    for n in 1.. {
        let (raw, last) = match newlines.next() {
            Some(end) => (&text[line_start..end], false),
            None if line_start < text.len() => (&text[line_start..], true),
            None => break,
        };
        if line_start >= game_end {
            game_end = memchr::memmem::find(&text.as_bytes()[line_start..], b"\n/")
                .map_or(text.len(), |i| line_start + i + 1);
        }
        r.game_bytes = game_end - line_start;
        line_start += raw.len() + 1;
        r.line(n, raw.strip_suffix('\r').unwrap_or(raw))?;
        for record in r.records.drain(..) {
            count += 1;
            each(record);
        }
        if last {
            break;
        }
    }
    r.finish();
    for record in r.records.drain(..) {
        count += 1;
        each(record);
    }
    Ok(count)
}

fn write_position(out: &mut String, pos: &Position) {
    if pos.same_position(&Position::startpos()) {
        out.push_str("PI\n+\n");
        return;
    }
    out.push_str(&board_text(pos));
}

/// A position as CSA board lines, always all nine (`P1`–`P9`, never `PI`), then the hands
/// (`P+00HI…`, `P-…`) and the side to move (`+`/`-`), each line ending in a line end: the
/// form shogi-server writes in records and Game_Summary.
///
/// ```
/// let text = gyoku_kifu::csa::board_text(&gyoku::Position::startpos());
/// assert!(text.starts_with("P1-KY-KE-GI-KI-OU-KI-GI-KE-KY\nP2 * -HI *  *  *  *  * -KA * \n"));
/// assert!(text.ends_with("P9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n+\n"));
/// ```
pub fn board_text(pos: &Position) -> String {
    let mut out = String::with_capacity(9 * 30 + 8);
    for rank in 1..=9u8 {
        out.push_str(&format!("P{rank}"));
        for file in (1..=9u8).rev() {
            let sq = Square::new(file, rank).expect("valid square");
            match pos.board().piece_at(sq) {
                None => out.push_str(" * "),
                Some(p) => {
                    out.push(if p.color == Color::Black { '+' } else { '-' });
                    out.push_str(role_code(p.role));
                }
            }
        }
        out.push('\n');
    }
    for color in Color::ALL {
        let hand = pos.hand(color);
        if hand.is_empty() {
            continue;
        }
        out.push_str(if color == Color::Black { "P+" } else { "P-" });
        for (role, n) in hand.iter() {
            for _ in 0..n {
                out.push_str("00");
                out.push_str(role_code(role));
            }
        }
        out.push('\n');
    }
    out.push_str(if pos.turn() == Color::Black {
        "+\n"
    } else {
        "-\n"
    });
    out
}

/// Reads a CSA move (`+7776FU`: the mover's sign, the origin (`00` for a drop), the
/// destination, and the piece *after* the move, so that a promotion shows as a change of
/// piece) in `pos`. The move is not checked for legality.
///
/// ```
/// use gyoku::{Color, Position};
/// let pos = Position::startpos();
/// let (mover, mv) = gyoku_kifu::csa::parse_move("+7776FU", &pos).unwrap();
/// assert_eq!((mover, mv.to_string()), (Color::Black, "7g7f".to_string()));
/// assert_eq!(gyoku_kifu::csa::move_text(&pos, mv, mover), "+7776FU");
/// assert_eq!(gyoku_kifu::csa::parse_move("+7776XX", &pos).unwrap_err(), (5, "unknown piece 'XX'".to_string()));
/// ```
///
/// # Errors
/// The byte offset of the fault in `text` and what it is.
pub fn parse_move(text: &str, pos: &Position) -> Result<(Color, Move), (usize, String)> {
    let bytes = text.as_bytes();
    if bytes.len() != 7 || !matches!(bytes[0], b'+' | b'-') || !text.is_ascii() {
        return Err((0, format!("bad move '{text}'")));
    }
    let mover = if bytes[0] == b'+' {
        Color::Black
    } else {
        Color::White
    };
    let to = square(&bytes[3..5]).ok_or((3, "bad destination square".to_string()))?;
    let role =
        role_of(&text[5..7]).ok_or_else(|| (5, format!("unknown piece '{}'", &text[5..7])))?;
    let mv = if &bytes[1..3] == b"00" {
        Move::Drop { role, to }
    } else {
        let from = square(&bytes[1..3]).ok_or((1, "bad origin square".to_string()))?;
        let promote = pos
            .board()
            .piece_at(from)
            .is_some_and(|p| p.role != role && p.role.promoted() == Some(role));
        Move::Normal { from, to, promote }
    };
    Ok((mover, mv))
}

/// `mv` as a CSA move line (`+7776FU`) by `mover` (the side to move, but for a move out of
/// turn).
pub fn move_text(pos: &Position, mv: Move, mover: Color) -> String {
    let sign = if mover == Color::Black { '+' } else { '-' };
    match mv {
        Move::Drop { role, to } => format!("{sign}00{}{}{}", to.file(), to.rank(), role_code(role)),
        Move::Normal { from, to, promote } => {
            let role = pos.board().piece_at(from).map_or(Role::Pawn, |p| p.role);
            let role = if promote {
                role.promoted().unwrap_or(role)
            } else {
                role
            };
            format!(
                "{sign}{}{}{}{}{}",
                from.file(),
                from.rank(),
                to.file(),
                to.rank(),
                role_code(role)
            )
        }
    }
}

fn time_text(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("T{}", ms / 1000)
    } else {
        format!("T{}.{:03}", ms / 1000, ms % 1000)
    }
}

fn end_text(end: &Terminal, turn: Color) -> String {
    match end {
        Terminal::Resign => "%TORYO".into(),
        Terminal::Suspend => "%CHUDAN".into(),
        Terminal::Sennichite => "%SENNICHITE".into(),
        Terminal::Jishogi => "%JISHOGI".into(),
        Terminal::Mate => "%TSUMI".into(),
        Terminal::NoMate => "%FUZUMI".into(),
        Terminal::TimeUp => "%TIME_UP".into(),
        Terminal::Declaration => "%KACHI".into(),
        Terminal::IllegalLoss => "%ILLEGAL_MOVE".into(),
        Terminal::IllegalWin => {
            if turn == Color::Black {
                "%-ILLEGAL_ACTION".into()
            } else {
                "%+ILLEGAL_ACTION".into()
            }
        }
        Terminal::IllegalAction(Color::Black) => "%+ILLEGAL_ACTION".into(),
        Terminal::IllegalAction(Color::White) => "%-ILLEGAL_ACTION".into(),
        Terminal::MaxMoves => "%MAX_MOVES".into(),
        Terminal::Draw => "%HIKIWAKE".into(),
        Terminal::Try => "%TRY".into(),
        // A sealed move (封じ手) is a suspension to CSA.
        Terminal::Other(s) if s == "封じ手" => "%CHUDAN".into(),
        // Only a plain code can stand on a `%` line; anything else is kept as a comment.
        Terminal::Other(s)
            if !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_') =>
        {
            format!("%{s}")
        }
        Terminal::Other(s) => format!("'{}", clean(s)),
    }
}

/// A value fit for one CSA statement: no commas (they separate statements) and no line
/// breaks.
fn clean(value: &str) -> String {
    value.replace(',', "，").replace(['\n', '\r'], " ")
}

/// Writes a record as CSA V2.2 (with `%MAX_MOVES` from V3.0 where a record has it).
pub fn write(record: &Record) -> String {
    let mut out = String::from("V2.2\n");
    for (key, value) in &record.header {
        match key.as_str() {
            "先手" | "下手" => out.push_str(&format!("N+{}\n", clean(value))),
            "後手" | "上手" => out.push_str(&format!("N-{}\n", clean(value))),
            k => {
                let value = clean(value);
                if let Some((csa, _)) = HEADER_KEYS.iter().find(|(_, jp)| *jp == k) {
                    out.push_str(&format!("${csa}:{value}\n"));
                } else if let Some(raw) = k.strip_prefix('$') {
                    out.push_str(&format!("${}:{value}\n", clean(raw)));
                } else {
                    out.push_str(&format!("'{}:{value}\n", clean(k)));
                }
            }
        }
    }
    for c in &record.start_comments {
        out.push_str(&format!("'{c}\n"));
    }
    write_position(&mut out, &record.start);
    let mut pos = record.start.clone();
    for m in &record.moves {
        out.push_str(&move_text(&pos, m.mv, pos.turn()));
        out.push('\n');
        if let Some(ms) = m.time_ms {
            out.push_str(&time_text(ms));
            out.push('\n');
        }
        for c in &m.comments {
            out.push_str(&format!("'{c}\n"));
        }
        pos.play_unchecked(m.mv);
    }
    if let Some(foul) = &record.foul {
        // The foul is written; what the source recorded after it is not (it is kept only as
        // the source format's text). CSA says promotion by the piece code, so a promotion
        // of a piece that has no promoted form cannot be written: it is kept as a comment.
        let unwritable = matches!(foul.mv, gyoku::Move::Normal { from, promote: true, .. }
            if pos.board().piece_at(from).is_none_or(|p| !p.role.can_promote()));
        if unwritable {
            out.push_str(&format!(
                "'illegal move {} (not writable in CSA)\n",
                foul.mv
            ));
        } else {
            // A move out of turn keeps its mover's sign, or it would read back as legal.
            out.push_str(&move_text(&pos, foul.mv, foul.by));
            out.push('\n');
        }
    }
    if let Some(end) = &record.end {
        out.push_str(&end_text(end, pos.turn()));
        out.push('\n');
        if let Some(ms) = record.end_time_ms {
            out.push_str(&time_text(ms));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 11, item 6: each game of a many-game file reserves moves for its own size, not
    /// the file's (10,000 tiny games used to reserve 2.6 TB between them).
    #[test]
    fn each_game_reserves_for_its_own_size() {
        let game = "PI\n+\n+7776FU\n-3334FU\n%TORYO\n";
        let text = vec![game; 10_000].join("/\n");
        let records = read(&text).unwrap();
        assert_eq!(records.len(), 10_000);
        for r in &records {
            assert_eq!(r.moves.len(), 2);
            assert!(r.moves.capacity() < 16, "{}", r.moves.capacity());
        }
    }

    /// The fast paths for move and time lines read exactly what the general statement
    /// reader does: the same game written with one statement a line, with statements
    /// joined by commas, with CR LF, and without a final newline.
    #[test]
    fn line_shapes_read_the_same() {
        let plain =
            "V2.2\nPI\n+\n+7776FU\nT12\n-3334FU\nT3\n'after 2\n+8822UM\nT0012\n%TORYO\nT1\n";
        let forms = [
            plain.to_string(),
            plain.replace('\n', "\r\n"),
            plain.trim_end().to_string(),
            "V2.2\nPI\n+\n+7776FU,T12\n-3334FU,T3,'after 2\n+8822UM,T0012\n%TORYO,T1".to_string(),
            "V2.2\nPI\n+\n +7776FU\nT12 \n-3334FU\nT3\n  'after 2\n+8822UM\nT0012\n%TORYO\nT1"
                .to_string(),
        ];
        let expected = read(plain).unwrap();
        let r = &expected[0];
        let times: Vec<_> = r.moves.iter().map(|m| m.time_ms).collect();
        assert_eq!(times, [Some(12_000), Some(3000), Some(12_000)]);
        assert_eq!(r.moves[1].comments, ["after 2"]);
        assert_eq!(
            (r.end.clone(), r.end_time_ms),
            (Some(Terminal::Resign), Some(1000))
        );
        assert_eq!(r.moves[2].mv.to_string(), "8h2b+");
        for text in &forms {
            assert_eq!(read(text).unwrap(), expected, "{text:?}");
        }
    }

    /// Lines that look like the fast paths' but are not: the general reader reports them.
    #[test]
    fn near_misses_are_errors_with_columns() {
        for (text, line, column) in [
            ("PI\n+\n+7776F!\n", 3, 6),
            ("PI\n+\n+77X6FU\n", 3, 4),
            ("PI\n+\n+7776FU\nT\n", 4, 2),
            ("PI\n+\n+7776FU\nT1x\n", 4, 2),
            ("PI\n+\n+7776ＦU\n", 3, 6),
        ] {
            let e = read(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
        }
    }
}
