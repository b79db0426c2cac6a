//! # gyoku-kifu: shogi game records
//!
//! Reads and writes the records people keep: CSA (V2.2 and V3.0, several games per file),
//! KIF (Kakinoki), KI2, JKF (JSON Kifu Format) and USI position lines (and writes Western
//! notation and PSN), in UTF-8, Shift_JIS or EUC-JP detected from the
//! bytes. A [`Record`] is format-neutral: header, start position, moves with times and
//! comments, variations, and how the record says the game ended.
//!
//! A move that breaks the rules is not a read error: it is kept ([`Record::foul`]) so that a
//! referee can judge it, and the moves after it in that line are kept only as text. A file
//! that cannot be read gets a [`ReadError`] with its line and column.
//!
//! ```
//! use gyoku_kifu::{read_str, Format, Terminal};
//! let records = read_str("V2.2\nPI\n+\n+7776FU\nT3\n-3334FU\n%TORYO\n", Format::Csa).unwrap();
//! let r = &records[0];
//! assert_eq!(r.moves.len(), 2);
//! assert_eq!(r.moves[0].time_ms, Some(3000));
//! assert_eq!(r.end, Some(Terminal::Resign));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod chart;
pub mod csa;
pub mod diagram;
pub mod encoding;
pub mod explain;
pub mod files;
pub mod fuzzing;
pub mod jkf;
pub mod judge;
mod kakinoki;
pub mod ki2;
pub mod kif;
mod lines;
pub mod report;
pub mod training;
pub mod usi;
#[cfg(unix)]
pub mod walk;
pub mod western;

use std::fmt;

use gyoku::{Color, GameResult, Handicap, IllegalMoveKind, Move, Position};

/// A record format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// CSA (`.csa`).
    Csa,
    /// KIF (`.kif` Shift_JIS, `.kifu` UTF-8).
    Kif,
    /// KI2 (`.ki2` Shift_JIS, `.ki2u` UTF-8): moves as printed, without origins.
    Ki2,
    /// USI position lines (`.usi`, `.sfen`).
    Usi,
    /// JKF, JSON Kifu Format (`.jkf`).
    Jkf,
}

impl Format {
    /// The format a user names (`kif`, `ki2`, `csa`, `usi`, `jkf`, in any case; `kifu`,
    /// `sfen` and `json` too), as the HTTP API's `format=` and Python's `format=` take it.
    ///
    /// ```
    /// use gyoku_kifu::Format;
    /// assert_eq!(Format::named("KIFU"), Some(Format::Kif));
    /// assert_eq!(Format::named("pgn"), None);
    /// ```
    pub fn named(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "kif" | "kifu" => Some(Format::Kif),
            "ki2" => Some(Format::Ki2),
            "csa" => Some(Format::Csa),
            "usi" | "sfen" => Some(Format::Usi),
            "jkf" | "json" => Some(Format::Jkf),
            _ => None,
        }
    }

    /// The format for a file name's extension.
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csa" => Some(Format::Csa),
            "kif" | "kifu" => Some(Format::Kif),
            "ki2" | "ki2u" => Some(Format::Ki2),
            "usi" | "sfen" | "txt" => Some(Format::Usi),
            // Only `.jkf`: other JSON files (a match's results) are not records, though
            // JKF text in any file is recognised by its content.
            "jkf" => Some(Format::Jkf),
            _ => None,
        }
    }

    /// Guesses the format from the text, for files without a known extension.
    pub fn sniff(text: &str) -> Option<Format> {
        let t = text.trim_start_matches('\u{feff}').trim_start();
        if t.starts_with('{') {
            return Some(Format::Jkf);
        }
        if t.starts_with("position ") || t.starts_with("sfen ") || t.starts_with("startpos") {
            return Some(Format::Usi);
        }
        for line in t.lines().take(200) {
            let line = line.trim();
            if line.starts_with("手数----") {
                return Some(Format::Kif);
            }
            if line.starts_with(['▲', '△', '☗', '☖', '▼', '▽']) {
                return Some(Format::Ki2);
            }
        }
        for line in t.lines().take(60) {
            let line = line.trim();
            if line.starts_with("V2")
                || line.starts_with("V3")
                || line.starts_with("PI")
                || line.starts_with("P1")
                || line.starts_with("N+")
                || line.starts_with("$EVENT")
            {
                return Some(Format::Csa);
            }
            if line.contains('：') || line.starts_with("手数----") || line.starts_with("#KIF") {
                return Some(Format::Kif);
            }
        }
        None
    }

    /// The name: `csa`, `kif`, `ki2`, `usi`, `jkf`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Csa => "csa",
            Format::Kif => "kif",
            Format::Ki2 => "ki2",
            Format::Usi => "usi",
            Format::Jkf => "jkf",
        }
    }
}

/// How a record says the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    /// The side to move resigned (投了, `%TORYO`, `resign`).
    Resign,
    /// The game was suspended (中断, `%CHUDAN`, `break`).
    Suspend,
    /// Sennichite (千日手, `%SENNICHITE`, `rep_draw`).
    Sennichite,
    /// Impasse, a draw or no contest (持将棋, `%JISHOGI`, `draw`).
    Jishogi,
    /// The side to move is mated (詰み, `%TSUMI`).
    Mate,
    /// Tsume: no mate (不詰, `%FUZUMI`).
    NoMate,
    /// The side to move ran out of time (切れ負け, `%TIME_UP`, `timeout`).
    TimeUp,
    /// The side to move declared and won (入玉勝ち, `%KACHI`, `win`).
    Declaration,
    /// The side to move made an illegal move (反則負け, `%ILLEGAL_MOVE`).
    IllegalLoss,
    /// The previous move was illegal: the side to move wins (反則勝ち).
    IllegalWin,
    /// The named side committed a foul and loses (`%+ILLEGAL_ACTION`, `%-ILLEGAL_ACTION`).
    IllegalAction(gyoku::Color),
    /// The move limit was reached (`%MAX_MOVES`, 最大手数).
    MaxMoves,
    /// A declared draw (`%HIKIWAKE`).
    Draw,
    /// A try (トライ).
    Try,
    /// Anything else, kept as written (`%ERROR`, 封じ手, 不戦勝, …).
    Other(String),
}

impl Terminal {
    /// The same end said relative to the side to move, `turn`: CSA's
    /// `%±ILLEGAL_ACTION` names the offender, KIF says 反則勝ち/反則負け.
    pub fn relative_to(&self, turn: gyoku::Color) -> Terminal {
        match self {
            Terminal::IllegalAction(c) if *c == turn => Terminal::IllegalLoss,
            Terminal::IllegalAction(_) => Terminal::IllegalWin,
            other => other.clone(),
        }
    }

    /// A stable code for reports: `resignation`, `suspended`, `sennichite`, `jishogi`,
    /// `checkmate`, `no_mate`, `time_up`, `declaration`, `illegal_move`, `illegal_win`,
    /// `illegal_action`, `move_limit`, `draw`, `try`, `other`.
    pub fn code(&self) -> &'static str {
        match self {
            Terminal::Resign => "resignation",
            Terminal::Suspend => "suspended",
            Terminal::Sennichite => "sennichite",
            Terminal::Jishogi => "jishogi",
            Terminal::Mate => "checkmate",
            Terminal::NoMate => "no_mate",
            Terminal::TimeUp => "time_up",
            Terminal::Declaration => "declaration",
            Terminal::IllegalLoss => "illegal_move",
            Terminal::IllegalWin => "illegal_win",
            Terminal::IllegalAction(_) => "illegal_action",
            Terminal::MaxMoves => "move_limit",
            Terminal::Draw => "draw",
            Terminal::Try => "try",
            Terminal::Other(_) => "other",
        }
    }
}

/// One move of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMove {
    /// The move.
    pub mv: Move,
    /// The time it took, in milliseconds, when recorded.
    pub time_ms: Option<u64>,
    /// Comments after the move.
    pub comments: Vec<String>,
}

/// How deep variations may nest (a variation of a variation of …): deeper ones are a read
/// error, so that no reader, writer or judge works in time or stack proportional to an
/// unbounded depth. Real records nest a few levels.
pub const MAX_VARIATION_DEPTH: usize = 100;

/// A variation (変化): moves replacing, from ply `start` (1-based), the line it branches
/// from. Variations are kept as read; only the main line is checked and judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variation {
    /// The ply of its first move.
    pub start: u32,
    /// The line it branches from: `None` for the main line, else an index into
    /// [`Record::variations`] (always an earlier one).
    pub parent: Option<usize>,
    /// Its moves.
    pub moves: Vec<RecordMove>,
    /// How it ends, if it says.
    pub end: Option<Terminal>,
}

/// An illegal move found while reading: kept for the referee, not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Foul {
    /// The ply (1-based) of the move.
    pub ply: u32,
    /// The move as read.
    pub mv: Move,
    /// Why it is illegal.
    pub kind: IllegalMoveKind,
    /// The side that played it: the side to move, but for a move out of turn (a second
    /// move in a row, which CSA's sign and JKF's `color` can say).
    pub by: Color,
    /// The text of the moves recorded after it in that line, in the source format (not
    /// interpreted, and not written by the writers).
    pub rest: Vec<String>,
}

/// A game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Header fields in file order, with KIF's Japanese keys (`先手`, `後手`, `棋戦`,
    /// `開始日時`, `持ち時間`, …); CSA's `N+`/`N-`/`$EVENT`… are mapped to them.
    pub header: Vec<(String, String)>,
    /// The start position.
    pub start: Position,
    /// The handicap, when the start is a standard handicap position.
    pub handicap: Option<Handicap>,
    /// Comments before the first move.
    pub start_comments: Vec<String>,
    /// The main line (legal moves only; see `foul`).
    pub moves: Vec<RecordMove>,
    /// The first illegal move of the main line, if any.
    pub foul: Option<Foul>,
    /// How the record says the game ended.
    pub end: Option<Terminal>,
    /// The time the end took (CSA writes `T` after `%TORYO`).
    pub end_time_ms: Option<u64>,
    /// Variations, in file order.
    pub variations: Vec<Variation>,
    /// Where the record is damaged, if it is: it was read up to there, and what follows in
    /// the game was passed over.
    pub damage: Option<Damage>,
    /// A KIF's closing line (`まで11手で先手の勝ち`), a statement of the result beside its
    /// end line; the judge checks it as it checks a CSA server's summary.
    pub closing: Option<Closing>,
}

/// A KIF's closing line, read: how many plies it counts and the end it names (relative
/// to the side to move after them, as [`Record::end`] is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closing {
    /// The line as written.
    pub text: String,
    /// The plies it counts.
    pub plies: u32,
    /// The end it names.
    pub end: Terminal,
    /// The result it names, whoever moved last (`後手の勝ち`: White wins).
    pub result: Option<gyoku::GameResult>,
}

/// A damaged record: where, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// The line (from 1) of the file.
    pub line: usize,
    /// What is wrong, in words.
    pub what: String,
}

impl Record {
    /// An empty record from `start`.
    pub fn new(start: Position) -> Record {
        let handicap = Handicap::from_setup(&start.to_setup());
        Record {
            header: Vec::new(),
            start,
            handicap,
            start_comments: Vec::new(),
            moves: Vec::new(),
            foul: None,
            end: None,
            end_time_ms: None,
            variations: Vec::new(),
            damage: None,
            closing: None,
        }
    }

    /// The record of a game played with [`gyoku::Game`]: its start, its moves, the illegal
    /// move that ended it (as [`Record::foul`]) and its end, said so that judging the record
    /// gives the game's outcome again. Times are left to the caller
    /// ([`RecordMove::time_ms`]).
    ///
    /// ```
    /// use gyoku::{Game, Position, Preset};
    /// use gyoku_kifu::{judge::judge, Record, Terminal};
    /// let mut game = Game::new(Position::startpos(), Preset::Csa.rules());
    /// game.play("7g7f".parse().unwrap()).unwrap();
    /// game.resign(gyoku::Color::White).unwrap();
    /// let record = Record::from_game(&game);
    /// assert_eq!((record.moves.len(), record.end.clone()), (1, Some(Terminal::Resign)));
    /// assert_eq!(judge(&record, Preset::Csa.rules()).result, game.outcome().map(|o| o.result));
    /// ```
    pub fn from_game(game: &gyoku::Game) -> Record {
        use gyoku::EndReason;
        let mut record = Record::new(game.initial().clone());
        record.moves = game
            .plies()
            .iter()
            .map(|p| RecordMove {
                mv: p.mv,
                time_ms: None,
                comments: Vec::new(),
            })
            .collect();
        let Some(outcome) = game.outcome() else {
            return record;
        };
        record.end = Some(match &outcome.reason {
            EndReason::Checkmate | EndReason::NoLegalMove => Terminal::Mate,
            EndReason::Resignation { .. } => Terminal::Resign,
            EndReason::IllegalMove { mv, kind } => {
                // The fouler lost (it is the side to move, but for a move out of turn).
                let by = match outcome.result {
                    GameResult::Win(winner) => !winner,
                    _ => game.position().turn(),
                };
                record.foul = Some(Foul {
                    ply: outcome.ply,
                    mv: *mv,
                    kind: *kind,
                    by,
                    rest: Vec::new(),
                });
                Terminal::IllegalAction(by)
            }
            EndReason::ClaimedFoul { mv, kind, by } => {
                // The foul was played and is the last move: the record holds it as its
                // foul, as one that lost at once, and judging under `claim` claims it.
                record.moves.pop();
                record.foul = Some(Foul {
                    ply: outcome.ply,
                    mv: *mv,
                    kind: *kind,
                    by: *by,
                    rest: Vec::new(),
                });
                Terminal::IllegalAction(*by)
            }
            EndReason::Sennichite { .. } | EndReason::AgreedSennichite { .. } => {
                Terminal::Sennichite
            }
            EndReason::PerpetualCheck { checker, .. } => Terminal::IllegalAction(*checker),
            EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => {
                Terminal::Jishogi
            }
            // The declaration is the action, whatever it won (CSA's %KACHI): judging the
            // record declares again and reaches the same verdict, a no contest included.
            EndReason::Declaration { .. } | EndReason::FailedDeclaration { .. } => {
                Terminal::Declaration
            }
            EndReason::AutomaticImpasse { .. } => Terminal::Declaration,
            EndReason::Try { .. } => Terminal::Try,
            EndReason::MoveLimit { .. } => Terminal::MaxMoves,
            EndReason::TimeUp { .. } => Terminal::TimeUp,
            EndReason::Forfeit { by, .. } => Terminal::IllegalAction(*by),
        });
        record
    }

    /// The value of header `key`.
    pub fn header(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The moves of the line that variation `index` branches from, up to its start.
    pub fn moves_before(&self, index: usize) -> Vec<Move> {
        self.line_before(index).iter().map(|m| m.mv).collect()
    }

    /// The moves (with their times and comments) of the line that variation `index`
    /// branches from, up to its start. Built without recursion, in time proportional to
    /// the line and the depth.
    pub fn line_before(&self, index: usize) -> Vec<&RecordMove> {
        // The chain of lines from the main line down to `index`'s parent.
        let mut chain = Vec::new();
        let mut at = index;
        while let Some(p) = self.variations[at].parent {
            if p >= at || chain.len() > self.variations.len() {
                // A parent must come earlier; anything else is no line.
                return Vec::new();
            }
            chain.push(p);
            at = p;
        }
        let mut line: Vec<&RecordMove> = self.moves.iter().collect();
        for &p in chain.iter().rev() {
            let v = &self.variations[p];
            line.truncate((v.start as usize).saturating_sub(1));
            line.extend(v.moves.iter());
        }
        line.truncate((self.variations[index].start as usize).saturating_sub(1));
        line
    }

    /// How deep variation `index` nests: 1 for a variation of the main line, 2 for a
    /// variation of one of those, and so on.
    pub fn variation_depth(&self, index: usize) -> usize {
        let mut depth = 1;
        let mut at = index;
        while let Some(p) = self.variations[at].parent {
            if p >= at {
                break;
            }
            depth += 1;
            at = p;
        }
        depth
    }

    /// The move at `ply` (1-based) of a line (`None`: the main line; `Some(i)`: variation
    /// `i`, as [`Record::line_before`] composes it: as much of the line it branches from as
    /// comes before its start, then its own moves), if the line has one. Without recursion,
    /// in time proportional to the depth.
    pub fn move_on_line(&self, line: Option<usize>, ply: u32) -> Option<Move> {
        let index = (ply as usize).checked_sub(1)?;
        // The chain from the main line down to `line`.
        let mut chain = Vec::new();
        let mut at = line;
        while let Some(i) = at {
            if chain.len() > self.variations.len() {
                return None;
            }
            chain.push(i);
            at = self.variations[i].parent.filter(|&p| p < i);
        }
        // Each line's length, top down: what it keeps of its parent, then its own moves.
        let mut kept = Vec::with_capacity(chain.len());
        let mut len = self.moves.len();
        for &i in chain.iter().rev() {
            let v = &self.variations[i];
            let keep = (v.start as usize).saturating_sub(1).min(len);
            kept.push(keep);
            len = keep + v.moves.len();
        }
        if index >= len {
            return None;
        }
        // Bottom up: the first line whose own moves hold `index`.
        for (&i, &keep) in chain.iter().zip(kept.iter().rev()) {
            if index >= keep {
                return Some(self.variations[i].moves[index - keep].mv);
            }
        }
        Some(self.moves[index].mv)
    }

    /// The position after the main line's legal moves.
    pub fn final_position(&self) -> Position {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(m.mv);
        }
        pos
    }

    /// Appends `mv` to the main line if it is legal in `pos` (and plays it on `pos`);
    /// otherwise records the foul. Returns whether the line goes on.
    pub(crate) fn push_move(&mut self, pos: &mut Position, mv: Move, time_ms: Option<u64>) -> bool {
        if self.foul.is_some() {
            return false;
        }
        match pos.check_move(mv) {
            Ok(()) => {
                pos.play_unchecked(mv);
                self.moves.push(RecordMove {
                    mv,
                    time_ms,
                    comments: Vec::new(),
                });
                true
            }
            Err(kind) => {
                self.foul = Some(Foul {
                    ply: self.moves.len() as u32 + 1,
                    mv,
                    kind,
                    by: pos.turn(),
                    rest: Vec::new(),
                });
                false
            }
        }
    }

    /// [`Record::push_move`] for a move whose record names its mover (CSA's sign, JKF's
    /// `color`): a move by the side not to move is the foul `out_of_turn`.
    pub(crate) fn push_move_by(
        &mut self,
        pos: &mut Position,
        mv: Move,
        time_ms: Option<u64>,
        mover: Color,
    ) -> bool {
        if self.foul.is_none() && mover != pos.turn() {
            self.foul = Some(Foul {
                ply: self.moves.len() as u32 + 1,
                mv,
                kind: IllegalMoveKind::OutOfTurn,
                by: mover,
                rest: Vec::new(),
            });
            return false;
        }
        self.push_move(pos, mv, time_ms)
    }

    /// Whether the record's foul is a move by the side not to move (a second move in a
    /// row), which KIF, KI2 and USI cannot say.
    pub fn foul_out_of_turn(&self) -> bool {
        self.foul
            .as_ref()
            .is_some_and(|f| f.by != turn_after(self.start.turn(), self.moves.len()))
    }

    /// Adds a comment to the last move (or to the start).
    pub(crate) fn comment(&mut self, text: String) {
        if self.foul.is_some() {
            return;
        }
        match self.moves.last_mut() {
            Some(m) => m.comments.push(text),
            None => self.start_comments.push(text),
        }
    }
}

/// The side to move after `plies` plies from a position with `start` to move.
pub(crate) fn turn_after(start: gyoku::Color, plies: usize) -> gyoku::Color {
    if plies.is_multiple_of(2) {
        start
    } else {
        !start
    }
}

/// A record that could not be read: where, what, and what kind of fault (for a program
/// to branch on; the message is for people).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The format being read.
    pub format: Format,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column (in characters).
    pub column: usize,
    /// What was wrong.
    pub message: String,
    /// The kind of fault.
    pub kind: ReadErrorKind,
}

/// The kind of fault a record has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// Text that is not the format's: a line that reads as nothing, bad JSON.
    Syntax,
    /// The start does not read or is no position: a board row, a hand, a SFEN.
    Position,
    /// A move does not read, or cannot be played where it stands.
    Move,
    /// A variation that does not read, or nests too deep.
    Variation,
    /// Nothing to read: an empty file, no game in it.
    Empty,
    /// The format cannot be told.
    Format,
}

impl ReadErrorKind {
    /// The stable code: `syntax`, `position`, `move`, `variation`, `empty`, `format`.
    ///
    /// ```
    /// use gyoku_kifu::{Format, ReadErrorKind, read_str};
    /// let e = read_str("P1-KY-KE\n", Format::Csa).unwrap_err();
    /// assert_eq!((e.kind, e.kind.code()), (ReadErrorKind::Position, "position"));
    /// assert_eq!(read_str(" \n", Format::Kif).unwrap_err().kind.code(), "empty");
    /// ```
    pub const fn code(self) -> &'static str {
        match self {
            ReadErrorKind::Syntax => "syntax",
            ReadErrorKind::Position => "position",
            ReadErrorKind::Move => "move",
            ReadErrorKind::Variation => "variation",
            ReadErrorKind::Empty => "empty",
            ReadErrorKind::Format => "format",
        }
    }
}

impl ReadError {
    /// An error of `kind` at `line`, `column`.
    pub(crate) fn new(
        format: Format,
        kind: ReadErrorKind,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> ReadError {
        ReadError {
            format,
            line,
            column,
            message: message.into(),
            kind,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} ({})",
            self.line,
            self.column,
            escape_controls(&self.message),
            self.format.name()
        )
    }
}

/// `text` with every control character (C0, DEL, C1: an escape sequence, a carriage
/// return, a line break) written as a visible escape (`\x1b`, `\u{9b}`), so that a message
/// quoting a record or an engine's output can never drive the terminal it is shown on.
/// Text without control characters is returned as it is.
///
/// ```
/// use gyoku_kifu::escape_controls;
/// assert_eq!(escape_controls("bad move '\x1b[2J7g7f'"), "bad move '\\x1b[2J7g7f'");
/// assert_eq!(escape_controls("７六歩"), "７六歩");
/// ```
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

impl std::error::Error for ReadError {}

/// How a record is read where formats leave room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// A board that gives only some of its rows (a KIF diagram, CSA's `P1`–`P9`), as a
    /// tsume problem's partial board does, is read as what it gives; otherwise a row left
    /// out is an error, since it would shift or drop pieces unseen.
    pub partial_boards: bool,
}

/// Reads every record in `text` (CSA files may hold several, separated by `/`).
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault.
pub fn read_str(text: &str, format: Format) -> Result<Vec<Record>, ReadError> {
    collect_records(|each| read_str_each(text, format, each))
}

/// `count` records read from a whole file: none is an error ("no game in the file").
pub(crate) fn at_least_one(count: usize, format: Format) -> Result<usize, ReadError> {
    if count == 0 {
        return Err(ReadError::new(
            format,
            ReadErrorKind::Empty,
            1,
            1,
            "no game in the file",
        ));
    }
    Ok(count)
}

/// Refuses a variation at `line` whose parent line `parent` already nests
/// [`MAX_VARIATION_DEPTH`] deep (the KIF and KI2 readers' check).
pub(crate) fn check_nesting(
    record: &Record,
    parent: Option<usize>,
    format: Format,
    line: usize,
) -> Result<(), ReadError> {
    match parent {
        Some(i) if record.variation_depth(i) >= MAX_VARIATION_DEPTH => Err(ReadError::new(
            format,
            ReadErrorKind::Variation,
            line,
            1,
            format!("variations nest deeper than {MAX_VARIATION_DEPTH} levels"),
        )),
        _ => Ok(()),
    }
}

/// Every record a reader that hands them over one at a time (`read_each`) reads.
pub(crate) fn collect_records(
    read: impl FnOnce(&mut dyn FnMut(Record)) -> Result<usize, ReadError>,
) -> Result<Vec<Record>, ReadError> {
    let mut records = Vec::new();
    read(&mut |r| records.push(r))?;
    Ok(records)
}

/// Reads the records in `text` one at a time, handing each to `each` as soon as it is read
/// (a CSA file of a million games is never held whole). Returns how many there were.
///
/// # Errors
/// [`ReadError`] with the line and column of the first fault; the records before it have
/// been handed over.
pub fn read_str_each(
    text: &str,
    format: Format,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    read_str_each_with(text, format, ReadOptions::default(), each)
}

/// [`read_str_each`] with [`ReadOptions`].
///
/// # Errors
/// As [`read_str_each`].
pub fn read_str_each_with(
    text: &str,
    format: Format,
    options: ReadOptions,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    let text = normalized(text);
    // One rule for every format: a file with nothing but white space holds no game (a KIF
    // reader would otherwise make it a game of no moves from the even start).
    if text.trim().is_empty() {
        return Err(ReadError::new(
            format,
            ReadErrorKind::Empty,
            1,
            1,
            "empty file: no game in it",
        ));
    }
    let one = |r: Result<Record, ReadError>, each: &mut dyn FnMut(Record)| {
        each(r?);
        Ok(1)
    };
    match format {
        Format::Csa => csa::read_each_with(&text, options, each),
        Format::Kif => one(kif::read_with(&text, options), each),
        Format::Ki2 => one(ki2::read_with(&text, options), each),
        Format::Usi => usi::read_each(&text, each),
        Format::Jkf => one(jkf::read(&text), each),
    }
}

/// The records of one part of a many-record file (CSA games after a `/`, USI lines),
/// whose lines start at `first_line`: none is no error. For [`files::read_records_each`].
pub(crate) fn read_part(
    text: &str,
    format: Format,
    first_line: usize,
    options: ReadOptions,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    let text = normalized(text);
    let read = match format {
        Format::Csa => csa::read_part(&text, options, each),
        _ => usi::read_part(&text, each),
    };
    read.map_err(|mut e| {
        e.line += first_line - 1;
        e
    })
}

/// `text` without a byte-order mark, with every line ending a `\n`.
fn normalized(text: &str) -> std::borrow::Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // NEL and lone CR occur as line ends in the wild; copy the text only when they do.
    let bytes = text.as_bytes();
    let odd_line_ends = memchr::memchr(b'\r', bytes).is_some()
        || memchr::memmem::find(bytes, "\u{85}".as_bytes()).is_some();
    if odd_line_ends {
        text.replace("\r\n", "\n")
            .replace(['\r', '\u{85}'], "\n")
            .into()
    } else {
        text.into()
    }
}

/// Reads a record file's bytes: detects the encoding, then the format (from `format`, or
/// by looking at the text).
///
/// # Errors
/// [`ReadError`]; an unknown format is reported at line 1.
pub fn read_bytes(bytes: &[u8], format: Option<Format>) -> Result<Vec<Record>, ReadError> {
    collect_records(|each| read_bytes_each(bytes, format, each))
}

/// [`read_bytes`], handing each record to `each` as soon as it is read (see
/// [`read_str_each`]). Returns how many there were.
///
/// # Errors
/// As [`read_bytes`]; the records before the fault have been handed over.
pub fn read_bytes_each(
    bytes: &[u8],
    format: Option<Format>,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    read_bytes_each_with(bytes, format, ReadOptions::default(), each)
}

/// [`read_bytes_each`] with [`ReadOptions`].
///
/// # Errors
/// As [`read_bytes`].
pub fn read_bytes_each_with(
    bytes: &[u8],
    format: Option<Format>,
    options: ReadOptions,
    each: &mut dyn FnMut(Record),
) -> Result<usize, ReadError> {
    let (text, _) = encoding::decode(bytes);
    let format = match format.or_else(|| Format::sniff(&text)) {
        Some(f) => f,
        None => {
            return Err(ReadError::new(
                Format::Usi,
                ReadErrorKind::Format,
                1,
                1,
                "unknown record format (expected CSA, KIF, KI2, JKF or USI)",
            ));
        }
    };
    read_str_each_with(&text, format, options, each)
}

/// Writes `records` as one file in `format`: CSA games separated by `/`, USI one a line.
///
/// # Errors
/// Several games in KIF, KI2 or JKF, which hold one a file (the message names how many).
pub fn write_all(records: &[Record], format: Format) -> Result<String, String> {
    if matches!(format, Format::Kif | Format::Ki2 | Format::Jkf) && records.len() > 1 {
        return Err(format!(
            "{} games, but a KIF, KI2 or JKF file holds one (csa or usi hold several)",
            records.len()
        ));
    }
    Ok(records
        .iter()
        .map(|r| write(r, format))
        .collect::<Vec<_>>()
        .join(if format == Format::Csa { "/\n" } else { "" }))
}

/// Writes `record` in `format` (as text; encode it with [`encoding::Encoding::encode`]).
pub fn write(record: &Record, format: Format) -> String {
    match format {
        Format::Csa => csa::write(record),
        Format::Kif => kif::write(record),
        Format::Ki2 => ki2::write(record),
        Format::Usi => usi::write(record),
        Format::Jkf => jkf::write(record),
    }
}
