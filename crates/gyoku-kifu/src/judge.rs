//! Judging a record under a rule set, and comparing with how the record says it ended.

use gyoku::{Color, Game, GameResult, RuleSet};

use crate::{Record, Terminal};

/// Which rule decided a judged record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecidedBy {
    /// The rule set's own ending (`Game::outcome`).
    Rules,
    /// A foul nobody pointed out, after which the fouler's opponent resigned: under the
    /// JSA rules the resignation stands.
    ResignationStands,
    /// Under `fouls = claim`, a foul followed by more moves: its opponent played on
    /// instead of claiming it, so it is part of the game. The moves after it are kept as
    /// text, not replayed, so the record's own end stands.
    UnclaimedFoul,
    /// The clock a record was judged under (`gyoku judge FILE --time …`): a move's
    /// recorded time ran past what its side had left.
    Clock {
        /// The ply of the move that flagged.
        ply: u32,
        /// How long it took, as recorded.
        took_ms: u64,
    },
    /// The record's own word, which its moves cannot confirm or refute: a foul the
    /// arbiter saw that is not in the file (`%ILLEGAL_MOVE`, `%+ILLEGAL_ACTION`, KIF
    /// `反則負け`), or a time-up.
    Record(RecordWord),
}

/// What a record says that its moves cannot show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordWord {
    /// A side lost by a foul the record does not show as a move.
    UnseenFoul,
    /// A side's time ran out.
    TimeUp,
    /// The site's own statement of the winner where the record's end says nothing
    /// (Shogi Wars' `$X_WINNER`, with `$X_FINAL:切断`: a disconnection).
    Disconnection,
    /// The site's own statement of the winner, for another reason (`$X_FINAL`).
    StatedWinner,
}

impl RecordWord {
    /// `unseen_foul`, `time_up`, `disconnection` or `stated_winner`.
    pub const fn code(self) -> &'static str {
        match self {
            RecordWord::UnseenFoul => "unseen_foul",
            RecordWord::TimeUp => "time_up",
            RecordWord::Disconnection => "disconnection",
            RecordWord::StatedWinner => "stated_winner",
        }
    }
}

impl DecidedBy {
    /// `rules`, `resignation_stands`, `unclaimed_foul`, `clock` or `record`.
    pub const fn code(self) -> &'static str {
        match self {
            DecidedBy::Rules => "rules",
            DecidedBy::ResignationStands => "resignation_stands",
            DecidedBy::UnclaimedFoul => "unclaimed_foul",
            DecidedBy::Clock { .. } => "clock",
            DecidedBy::Record(_) => "record",
        }
    }
}

/// Where the move limit a record was judged under comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitFrom {
    /// The rule set's own (or none).
    Rules,
    /// The record's own (`$MAX_MOVES`, `最大手数`, `'Max_Moves:`).
    Record,
    /// The user's (`--max-moves`).
    Option,
}

impl LimitFrom {
    /// `rules`, `record` or `option`.
    pub const fn code(self) -> &'static str {
        match self {
            LimitFrom::Rules => "rules",
            LimitFrom::Record => "record",
            LimitFrom::Option => "option",
        }
    }
}

/// A judged record.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// The game as replayed and judged.
    pub game: Game,
    /// The result, which differs from `game.outcome()` only when a resignation stands.
    pub result: Option<GameResult>,
    /// Which rule decided.
    pub decided_by: DecidedBy,
    /// How the record says the game ended.
    pub recorded: Option<Terminal>,
    /// The result the record implies, where it implies one.
    pub recorded_result: Option<GameResult>,
    /// Whether the judged result is the recorded one (a record that does not say how it
    /// ended agrees; one that names a foul it does not show does not, since the foul
    /// cannot be checked).
    pub agrees: bool,
    /// The server's `'summary:` line, where the record has one: the result it names is
    /// the one checked.
    pub summary: Option<Summary>,
    /// The result the record's end line implies by itself (beside the summary's).
    pub end_result: Option<GameResult>,
    /// Where the move limit applied came from ([`crate::report::judge_record`] says;
    /// [`judge`] alone cannot know, and says `Rules`).
    pub limit_from: LimitFrom,
}

impl Judgement {
    /// Whether two statements of the record name different results: its end line and its
    /// summary (the summary is the one checked).
    pub fn statements_disagree(&self) -> bool {
        match (&self.summary, self.end_result) {
            (Some(s), Some(e)) => s.result.is_some() && !same(s.result, Some(e)),
            _ => false,
        }
    }
}

/// The result a record's end implies, `turn` being the side to move when it was written.
pub fn recorded_result(end: &Terminal, turn: Color) -> Option<GameResult> {
    Some(match end.relative_to(turn) {
        Terminal::Resign | Terminal::TimeUp | Terminal::IllegalLoss | Terminal::Mate => {
            GameResult::Win(!turn)
        }
        Terminal::Declaration | Terminal::IllegalWin | Terminal::Try => GameResult::Win(turn),
        Terminal::Sennichite | Terminal::Jishogi | Terminal::Draw | Terminal::MaxMoves => {
            GameResult::Draw
        }
        _ => return None,
    })
}

/// The result a shogi-server `summary` says (`toryo:alice lose:bob win`: Black's word
/// first), where it names one.
///
/// ```
/// use gyoku::{Color, GameResult};
/// use gyoku_kifu::judge::summary_result;
/// assert_eq!(summary_result("toryo:alice lose:bob win"), Some(GameResult::Win(Color::White)));
/// assert_eq!(summary_result("illegal kachi:a win:b lose"), Some(GameResult::Win(Color::Black)));
/// assert_eq!(summary_result("sennichite:a draw:b draw"), Some(GameResult::Draw));
/// assert_eq!(summary_result("chudan:a suspended:b suspended"), None);
/// ```
pub fn summary_result(summary: &str) -> Option<GameResult> {
    read_summary(summary, [None, None])?.result
}

/// A shogi-server `'summary:` line, read: its kind (`toryo`, `kachi`, `illegal kachi`,
/// `time up`, `sennichite`, `oute_sennichite`, `uchifuzume`, `max_moves`, `abnormal`, …)
/// and the result it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The kind, as written.
    pub kind: String,
    /// The result, when both words name one (`win`/`lose`, `draw`/`draw`).
    pub result: Option<GameResult>,
    /// The text after `summary:`.
    pub text: String,
}

impl Summary {
    /// The side the summary says lost, if one did.
    pub fn loser(&self) -> Option<Color> {
        match self.result? {
            GameResult::Win(c) => Some(!c),
            _ => None,
        }
    }
}

/// Reads a `summary` (`kind:name word:name word`). Today's shogi-server writes Black's
/// word first; the servers of 2006–2008 wrote the players in another order, so where
/// `names` (Black's and White's, from `N+`/`N-`) say whose word is whose, they decide.
///
/// ```
/// use gyoku::{Color, GameResult};
/// use gyoku_kifu::judge::read_summary;
/// // A 2008 Floodgate record: White (KShogi900) named first.
/// let s = read_summary("uchifuzume:KShogi900 lose:usapyon win", [Some("usapyon"), Some("KShogi900")]).unwrap();
/// assert_eq!((s.kind.as_str(), s.result), ("uchifuzume", Some(GameResult::Win(Color::Black))));
/// ```
pub fn read_summary(summary: &str, names: [Option<&str>; 2]) -> Option<Summary> {
    let mut parts = summary.split(':');
    let (kind, first, second) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let split = |side: &str| {
        side.trim()
            .rsplit_once(' ')
            .map(|(n, w)| (n.trim().to_string(), w.trim().to_string()))
    };
    let (a, b) = (split(first), split(second));
    // Whose word comes first: White's when the names say so, else Black's.
    let swapped = match (&a, &b, names) {
        (Some((na, _)), Some((nb, _)), [Some(black), Some(white)]) => {
            na == white && nb == black && black != white
        }
        _ => false,
    };
    let (black, white) = if swapped { (b, a) } else { (a, b) };
    let result = match (black.map(|x| x.1), white.map(|x| x.1)) {
        (Some(bw), Some(ww)) => match (bw.as_str(), ww.as_str()) {
            ("win", "lose") => Some(GameResult::Win(Color::Black)),
            ("lose", "win") => Some(GameResult::Win(Color::White)),
            ("draw", "draw") => Some(GameResult::Draw),
            _ => None,
        },
        _ => None,
    };
    Some(Summary {
        kind: kind.trim().to_string(),
        result,
        text: summary.to_string(),
    })
}

/// The kind a KIF's closing line is given as a [`Summary`]: a statement of the result, never
/// an action to play.
pub const CLOSING_KIND: &str = "まで";

/// A record's summary, read with its players' names.
pub fn record_summary(record: &Record) -> Option<Summary> {
    let names = [record.header("先手"), record.header("後手")];
    read_summary(record.header("summary")?, names)
}

/// A KIF's closing line (`まで11手で先手の勝ち`) as a statement to check (kind
/// [`CLOSING_KIND`]), where it says more than the end line: the record has no end line it
/// could be read into, or the two name different results (`end_result`, the end line's).
fn closing_statement(record: &Record, end_result: Option<Option<GameResult>>) -> Option<Summary> {
    let closing = record.closing.as_ref()?;
    let result = closing.result;
    let says_more = match end_result {
        None => true,
        // A closing line that names no result (`まで61手詰`) adds nothing to an end line.
        Some(said) => result.is_some() && !same(said, result),
    };
    says_more.then(|| Summary {
        kind: CLOSING_KIND.to_string(),
        result,
        text: closing.text.clone(),
    })
}

/// How a record says it ended, read as its writer meant it: Shogidokoro writes an
/// entering-king declaration's win as 持将棋 followed by the comment `Win by entering king
/// declaration.`, which is a declaration, not an impasse draw.
fn record_end(record: &Record) -> Option<Terminal> {
    let declared = || {
        let comments = record
            .moves
            .last()
            .map_or(&record.start_comments, |m| &m.comments);
        comments.iter().any(|c| {
            c.to_ascii_lowercase()
                .contains("win by entering king declaration")
        })
    };
    match &record.end {
        Some(Terminal::Jishogi) if declared() => Some(Terminal::Declaration),
        other => other.clone(),
    }
}

/// Shogi Wars' `$X_WINNER` (`▲`/`+` Black, `△`/`-` White) and what `$X_FINAL` says of it.
fn stated_winner(record: &Record) -> Option<(Color, RecordWord)> {
    let winner = match record.header("$X_WINNER")?.trim() {
        "▲" | "☗" | "+" => Color::Black,
        "△" | "☖" | "-" => Color::White,
        _ => return None,
    };
    let how = match record.header("$X_FINAL") {
        Some(f) if f.contains("切断") => RecordWord::Disconnection,
        _ => RecordWord::StatedWinner,
    };
    Some((winner, how))
}

fn same(a: Option<GameResult>, b: Option<GameResult>) -> bool {
    let norm = |r: Option<GameResult>| match r {
        Some(GameResult::NoContest) => Some(GameResult::Draw),
        other => other,
    };
    norm(a) == norm(b)
}

/// The record's moves played under `rules`, up to the first that ends the game or that
/// the rules refuse.
fn replayed(record: &Record, rules: RuleSet) -> Game {
    let mut game = Game::new(record.start.clone(), rules).with_handicap(record.handicap);
    for m in &record.moves {
        if game.outcome().is_some() || game.play(m.mv).is_err() {
            break;
        }
    }
    game
}

/// The first move whose recorded time runs past what its side has left under `control`
/// (periods, units and rounding as the control says), and how long it took: `(ply, side,
/// ms)`. A move without a recorded time costs nothing.
///
/// ```
/// use gyoku::{Color, TimeControl};
/// let text = "V2\nPI\n+\n+7776FU\nT5\n-3334FU\nT40\n%TORYO\n";
/// let r = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap().remove(0);
/// // 30 s of byoyomi: White's 40 s flags.
/// let flag = gyoku_kifu::judge::clock_flag(&r, TimeControl::byoyomi(0, 30_000));
/// assert_eq!(flag, Some((2, Color::White, 40_000)));
/// ```
pub fn clock_flag(record: &Record, control: gyoku::TimeControl) -> Option<(u32, Color, u64)> {
    let mut clock = gyoku::Clock::new(control, record.start.turn());
    for (i, m) in record.moves.iter().enumerate() {
        let mover = clock.turn();
        let took = m.time_ms.unwrap_or(0);
        let _ = clock.start(0);
        if let Ok(Err(_)) = clock.stop(took) {
            return Some((i as u32 + 1, mover, took));
        }
    }
    None
}

/// Judges `record` under `rules` and the clock `control`: as [`judge`], but a move whose
/// recorded time runs past what its side had left ends the game there, on time, unless the
/// rules ended it before ([`DecidedBy::Clock`]).
pub fn judge_with_clock(record: &Record, rules: RuleSet, control: gyoku::TimeControl) -> Judgement {
    let mut j = judge(record, rules);
    let Some((ply, side, took_ms)) = clock_flag(record, control) else {
        return j;
    };
    if j.game.outcome().is_some_and(|o| o.ply < ply) || record.damage.is_some() {
        return j;
    }
    // The game as it stood when the flagged move was begun.
    let mut before = record.clone();
    before.moves.truncate(ply as usize - 1);
    before.foul = None;
    before.end = None;
    let mut game = judge(&before, rules).game;
    if game.outcome().is_some() || game.turn() != side || game.time_up(side).is_err() {
        return j;
    }
    j.result = game.outcome().map(|o| o.result);
    j.game = game;
    j.decided_by = DecidedBy::Clock { ply, took_ms };
    j.agrees = j.recorded_result.is_none_or(|r| same(j.result, Some(r)));
    j
}

/// Replays `record` under `rules` and judges it: the moves, then the foul if the record
/// has one, then the record's end when it is an action (resignation, declaration, time,
/// an impasse count by agreement).
pub fn judge(record: &Record, rules: RuleSet) -> Judgement {
    if record.damage.is_some() {
        // Judged up to the damage, by the rules alone: what the record says of its end
        // belongs to moves that could not be read.
        let game = replayed(record, rules);
        return Judgement {
            result: game.outcome().map(|o| o.result),
            game,
            decided_by: DecidedBy::Rules,
            recorded: None,
            recorded_result: None,
            agrees: true,
            summary: None,
            end_result: None,
            limit_from: LimitFrom::Rules,
        };
    }
    let end = record_end(record);
    let mut game = replayed(record, rules);
    let mut foul_side = None;
    // Under `fouls = claim`, a foul its opponent played on after instead of claiming.
    let mut unclaimed = false;
    if let Some(foul) = &record.foul
        && game.outcome().is_none()
    {
        foul_side = Some(foul.by);
        let _ = if foul.by == game.turn() {
            game.play(foul.mv)
        } else {
            // A second move in a row: its mover loses.
            game.play_out_of_turn(foul.mv)
        };
        unclaimed = game.pending_foul().is_some() && !foul.rest.is_empty();
    }
    // The side to move when the record's end was written: from the record alone (its
    // moves, its foul and the moves after it), never from where the rules stopped the
    // game (a move limit before the foul must not turn who resigned round).
    let end_turn = match &record.foul {
        Some(f) => {
            if (1 + f.rest.len()) % 2 == 0 {
                f.by
            } else {
                !f.by
            }
        }
        None => {
            let start = record.start.turn();
            if record.moves.len().is_multiple_of(2) {
                start
            } else {
                !start
            }
        }
    };
    // A server's summary, else a KIF's closing line where it says more than the end line.
    let summary = record_summary(record).or_else(|| {
        let said = end.as_ref().map(|e| recorded_result(e, end_turn));
        closing_statement(record, said)
    });
    let mut word = None;
    // A summary with no end line: what the server did, on its word where the moves cannot
    // show it (a foul it refused and never wrote, a time-up, a disconnection).
    if game.outcome().is_none()
        && end.is_none()
        && let Some(s) = &summary
        && let Some(loser) = s.loser()
    {
        let _ = match s.kind.as_str() {
            "toryo" => game.resign(loser),
            // A declaration by the side to move: the winner's (`kachi`), or the loser's
            // that failed (`illegal kachi`).
            "kachi" if game.turn() == !loser => game.declare(),
            "illegal kachi" if game.turn() == loser => game.declare(),
            "time up" => {
                word = Some(RecordWord::TimeUp);
                game.time_up(loser)
            }
            "uchifuzume" | "oute_kaihimore" | "outori" | "illegal move" | "illegal_move"
                if record.foul.is_none() =>
            {
                word = Some(RecordWord::UnseenFoul);
                game.forfeit(loser, gyoku::ForfeitCause::IllegalAction)
            }
            _ => Ok(()),
        };
        if game.outcome().is_none() {
            word = None;
        }
    }
    if game.outcome().is_none()
        && !unclaimed
        && let Some(end) = &end
    {
        let turn = game.turn();
        // A referee's word that a side lost by a foul the record does not show as a move
        // (a line that was no move at all): that side forfeits by it, on the record's word.
        let unseen_foul = |c: Color| (record.foul.is_none()).then_some(c);
        let loser = match end {
            Terminal::IllegalAction(c) => unseen_foul(*c),
            Terminal::IllegalLoss => unseen_foul(end_turn),
            Terminal::IllegalWin => unseen_foul(!end_turn),
            _ => None,
        };
        let pending = game.pending_foul();
        let _ = match (end, loser) {
            // Under `fouls = claim`, the record's word that the foul lost: it was claimed
            // (a resignation instead stands, below).
            (Terminal::IllegalAction(_) | Terminal::IllegalLoss | Terminal::IllegalWin, None)
                if pending.is_some() =>
            {
                game.claim_foul(!pending.map_or(turn, |f| f.by))
            }
            (_, Some(c)) => {
                word = Some(RecordWord::UnseenFoul);
                game.forfeit(c, gyoku::ForfeitCause::IllegalAction)
            }
            (Terminal::Resign, _) => game.resign(turn),
            (Terminal::Declaration, _) => game.declare(),
            (Terminal::TimeUp, _) => {
                word = Some(RecordWord::TimeUp);
                game.time_up(turn)
            }
            (Terminal::Jishogi, _) => game.agree_impasse(),
            // A sennichite before the fourth occurrence: agreed, where the rules allow it.
            (Terminal::Sennichite, _) => game.agree_sennichite(),
            _ => Ok(()),
        };
        if game.outcome().is_none() {
            word = None;
        }
    }
    // Shogi Wars names the winner in `$X_WINNER` (▲ Black, △ White) and how in `$X_FINAL`
    // (切断 a disconnection), where its end line says only `%CHUDAN` or nothing.
    let stated = stated_winner(record);
    // A server's summary says the result outright; otherwise the end line implies it.
    let stated_result = summary
        .as_ref()
        .and_then(|s| s.result)
        .or(stated.map(|(w, _)| GameResult::Win(w)));
    let end_result = end.as_ref().and_then(|e| recorded_result(e, end_turn));
    let recorded_result = stated_result.or(end_result);
    let mut result = game.outcome().map(|o| o.result);
    let mut decided_by = word.map_or(DecidedBy::Rules, DecidedBy::Record);
    if result.is_none()
        && let Some((winner, how)) = stated
    {
        // The rules did not end it: the site's word stands, as such.
        result = Some(GameResult::Win(winner));
        decided_by = DecidedBy::Record(how);
    }
    // A server's summary that a player left mid-game (`abnormal`): its word stands.
    if result.is_none()
        && end.is_none()
        && let Some(s) = summary.as_ref().filter(|s| s.kind == "abnormal")
        && let Some(r) = s.result
    {
        result = Some(r);
        decided_by = DecidedBy::Record(RecordWord::Disconnection);
    }
    // Under `fouls = claim`, the foul unclaimed and the game played on: the record's word.
    if unclaimed && result.is_none() {
        result = recorded_result;
        decided_by = DecidedBy::UnclaimedFoul;
    }
    // JSA: the fouler's opponent resigned before anyone pointed out the foul.
    if let (Some(fouler), Some(Terminal::Resign)) = (foul_side, &end)
        && rules.unnoticed_foul_resignation_stands
        && end_turn != fouler
        && !unclaimed
    {
        result = Some(GameResult::Win(fouler));
        decided_by = DecidedBy::ResignationStands;
    }
    let agrees = match &end {
        _ if stated_result.is_some() => same(result, stated_result),
        // A record that does not say how it ended contradicts nothing.
        None => true,
        Some(Terminal::Suspend) | Some(Terminal::Other(_)) | Some(Terminal::NoMate) => {
            result.is_none()
        }
        _ => same(result, recorded_result),
    };
    Judgement {
        game,
        result,
        decided_by,
        recorded: end,
        recorded_result,
        agrees,
        summary,
        end_result,
        limit_from: LimitFrom::Rules,
    }
}

/// The move limit a record gives itself, if it does: its `最大手数` header (`$MAX_MOVES`),
/// else a `Max_Moves:N` comment before the moves.
pub fn record_max_moves(record: &Record) -> Option<u32> {
    record
        .header("最大手数")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .or_else(|| {
            record
                .start_comments
                .iter()
                .find_map(|c| c.trim().strip_prefix("Max_Moves:"))
                .and_then(|v| v.trim().parse::<u32>().ok())
        })
}
