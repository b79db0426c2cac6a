//! How a game ends, as the server sees it, and what each ending says: the lines each player
//! and monitor hears, the record's last line, shogi-server's summary and the stored result.

use gyoku::{Color, EndReason, GameResult, IllegalMoveKind, Outcome};
use gyoku_proto::csa::{EndResult, GameEnd};
use gyoku_proto::csa_line::{Reason, ServerLine};

/// How a game ends, as the server sees it.
#[derive(Clone, Debug)]
pub(super) enum Ending {
    /// The referee decided.
    Decided(Outcome),
    /// A player left mid-game (shogi-server's `abnormal`): it loses.
    Left(Color),
    /// A player asked to suspend (`%CHUDAN`): no result, stored as suspended.
    Suspended,
}

/// What each side is told at an ending, and what the record and storage say.
pub(super) struct EndLines {
    pub(super) players: [Vec<ServerLine>; 2],
    pub(super) monitor: String,
    pub(super) record_end: Option<&'static str>,
    pub(super) summary: &'static str,
    pub(super) results: [&'static str; 2],
    pub(super) result: Option<&'static str>,
    pub(super) reason: &'static str,
}

/// CSA's end line for a foul, naming the side that lost by it (a record keeps the foul as
/// shogi-server's `'ILLEGAL_MOVE(…)` comment, which Gyoku reads back as the move).
fn foul_by(result: GameResult) -> Option<&'static str> {
    match result {
        GameResult::Win(Color::White) => Some("%+ILLEGAL_ACTION"),
        GameResult::Win(Color::Black) => Some("%-ILLEGAL_ACTION"),
        _ => None,
    }
}

/// A special line (`%TORYO` …), if any, then the reason line.
fn said(special: Option<&str>, end: GameEnd) -> Vec<ServerLine> {
    let special = special.map(|text| ServerLine::Special {
        text: text.to_string(),
        ms: None,
    });
    special
        .into_iter()
        .chain([ServerLine::Reason(Reason::Known(end))])
        .collect()
}

/// How an ending is told: the lines before each side's result, the record's last line,
/// shogi-server's summary word and the stored reason's code.
struct Told {
    lines: Vec<ServerLine>,
    record_end: Option<&'static str>,
    summary: &'static str,
    code: &'static str,
}

const fn told(
    lines: Vec<ServerLine>,
    record_end: Option<&'static str>,
    summary: &'static str,
    code: &'static str,
) -> Told {
    Told {
        lines,
        record_end,
        summary,
        code,
    }
}

/// A failed declaration, as shogi-server tells it (also a foul whose line was `%KACHI`).
fn illegal_kachi() -> Told {
    told(
        said(Some("%KACHI"), GameEnd::IllegalMove),
        Some("%KACHI"),
        "illegal kachi",
        "failed_declaration",
    )
}

/// How the referee's decision `o` is told; `foul_text` is the losing line of a foul
/// (`%KACHI` for a failed declaration).
fn decided(o: &Outcome, foul_text: Option<&str>) -> Told {
    match &o.reason {
        EndReason::Checkmate | EndReason::NoLegalMove => {
            // The protocol has no word for mate (shogi-server never sees one): the result
            // lines alone, which every client reads (python-shogi refuses any reason line
            // it does not know). The record says %TSUMI.
            told(Vec::new(), Some("%TSUMI"), "checkmate", o.reason.code())
        }
        EndReason::Resignation { .. } => told(
            said(Some("%TORYO"), GameEnd::Resign),
            Some("%TORYO"),
            "toryo",
            "resignation",
        ),
        EndReason::IllegalMove { kind, .. } | EndReason::ClaimedFoul { kind, .. } => told(
            said(None, GameEnd::IllegalMove),
            foul_by(o.result),
            match kind {
                IllegalMoveKind::Uchifuzume => "uchifuzume",
                IllegalMoveKind::KingInCheck => "oute_kaihimore",
                _ => "illegal move",
            },
            o.reason.code(),
        ),
        EndReason::Forfeit { .. } if foul_text == Some("%KACHI") => illegal_kachi(),
        EndReason::Forfeit { .. } => told(
            said(None, GameEnd::IllegalMove),
            foul_by(o.result),
            "illegal move",
            "illegal_move",
        ),
        EndReason::FailedDeclaration { .. } => illegal_kachi(),
        EndReason::Declaration { .. } => told(
            said(Some("%KACHI"), GameEnd::Jishogi),
            Some("%KACHI"),
            "kachi",
            "declaration",
        ),
        EndReason::AutomaticImpasse { .. } => told(
            said(None, GameEnd::Jishogi),
            None,
            "jishogi",
            "automatic_impasse",
        ),
        EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => told(
            said(None, GameEnd::Jishogi),
            Some("%JISHOGI"),
            "jishogi",
            o.reason.code(),
        ),
        EndReason::Sennichite { .. } | EndReason::AgreedSennichite { .. } => told(
            said(None, GameEnd::Sennichite),
            Some("%SENNICHITE"),
            "sennichite",
            o.reason.code(),
        ),
        EndReason::PerpetualCheck { .. } => told(
            said(None, GameEnd::OuteSennichite),
            foul_by(o.result),
            "oute_sennichite",
            "perpetual_check",
        ),
        EndReason::Try { .. } => told(
            vec![ServerLine::Reason(Reason::Unknown("#TRY".into()))],
            Some("%TRY"),
            "try",
            "try",
        ),
        EndReason::MoveLimit { .. } => told(
            said(None, GameEnd::MaxMoves),
            Some("%MAX_MOVES"),
            "max_moves",
            "move_limit",
        ),
        EndReason::TimeUp { .. } => told(
            said(None, GameEnd::TimeUp),
            Some("%TIME_UP"),
            "time up",
            "time_up",
        ),
    }
}

/// What is said at `ending`; `foul_text` is the losing line of a foul (`%KACHI` for a
/// failed declaration).
pub(super) fn end_lines(foul_text: Option<&str>, ending: &Ending) -> EndLines {
    let (
        Told {
            lines: reason_lines,
            record_end,
            summary,
            code,
        },
        result,
    ) = match ending {
        Ending::Left(color) => (
            told(
                said(Some("%TORYO"), GameEnd::Resign),
                Some("%TORYO"),
                "abnormal",
                "abnormal",
            ),
            Some(GameResult::Win(!*color)),
        ),
        Ending::Suspended => (
            told(
                said(None, GameEnd::Chudan),
                Some("%CHUDAN"),
                "chudan",
                "chudan",
            ),
            None,
        ),
        Ending::Decided(o) => (decided(o, foul_text), Some(o.result)),
    };
    let max_moves =
        matches!(ending, Ending::Decided(o) if matches!(o.reason, EndReason::MoveLimit { .. }));
    let per_side = |c: Color| -> (Option<ServerLine>, &'static str) {
        let line = |r: EndResult| Some(ServerLine::Result(r));
        match result {
            Some(GameResult::Win(w)) if w == c => (line(EndResult::Win), "win"),
            Some(GameResult::Win(_)) => (line(EndResult::Lose), "lose"),
            // shogi-server's result after `#MAX_MOVES`, read as a reason line.
            Some(_) if max_moves => (
                Some(ServerLine::Reason(Reason::Known(GameEnd::Censored))),
                "draw",
            ),
            Some(_) => (line(EndResult::Draw), "draw"),
            None => (None, "suspended"),
        }
    };
    let (b, bw) = per_side(Color::Black);
    let (w, ww) = per_side(Color::White);
    let monitor = if reason_lines.is_empty() {
        summary.to_string()
    } else {
        let words: Vec<String> = reason_lines.iter().map(ToString::to_string).collect();
        words.join(" ")
    };
    let with = |last: Option<ServerLine>| reason_lines.iter().cloned().chain(last).collect();
    EndLines {
        players: [with(b), with(w)],
        monitor,
        record_end,
        summary,
        results: [bw, ww],
        result: result.map(GameResult::code),
        reason: code,
    }
}
