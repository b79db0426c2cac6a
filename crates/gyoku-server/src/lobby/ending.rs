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

/// What is said at `ending`; `foul_text` is the losing line of a foul (`%KACHI` for a
/// failed declaration).
pub(super) fn end_lines(foul_text: Option<&str>, ending: &Ending) -> EndLines {
    // CSA's end line for a foul, naming the side that lost by it (a record keeps the foul
    // as shogi-server's `'ILLEGAL_MOVE(…)` comment, which Gyoku reads back as the move).
    let foul_by = |result: GameResult| match result {
        GameResult::Win(Color::White) => Some("%+ILLEGAL_ACTION"),
        GameResult::Win(Color::Black) => Some("%-ILLEGAL_ACTION"),
        _ => None,
    };
    let said = |special: Option<&str>, end: GameEnd| -> Vec<ServerLine> {
        let special = special.map(|text| ServerLine::Special {
            text: text.to_string(),
            ms: None,
        });
        special
            .into_iter()
            .chain([ServerLine::Reason(Reason::Known(end))])
            .collect()
    };
    let (reason_lines, result, record_end, summary, code): (
        Vec<ServerLine>,
        Option<GameResult>,
        Option<&'static str>,
        &'static str,
        &'static str,
    ) = match ending {
        Ending::Left(color) => (
            said(Some("%TORYO"), GameEnd::Resign),
            Some(GameResult::Win(!*color)),
            Some("%TORYO"),
            "abnormal",
            "abnormal",
        ),
        Ending::Suspended => (
            said(None, GameEnd::Chudan),
            None,
            Some("%CHUDAN"),
            "chudan",
            "chudan",
        ),
        Ending::Decided(o) => {
            let r = Some(o.result);
            match &o.reason {
                EndReason::Checkmate | EndReason::NoLegalMove => {
                    // The protocol has no word for mate (shogi-server never sees one):
                    // the result lines alone, which every client reads (python-shogi
                    // refuses any reason line it does not know). The record says %TSUMI.
                    (Vec::new(), r, Some("%TSUMI"), "checkmate", o.reason.code())
                }
                EndReason::Resignation { .. } => (
                    said(Some("%TORYO"), GameEnd::Resign),
                    r,
                    Some("%TORYO"),
                    "toryo",
                    "resignation",
                ),
                EndReason::IllegalMove { kind, .. } | EndReason::ClaimedFoul { kind, .. } => (
                    said(None, GameEnd::IllegalMove),
                    r,
                    foul_by(o.result),
                    match kind {
                        IllegalMoveKind::Uchifuzume => "uchifuzume",
                        IllegalMoveKind::KingInCheck => "oute_kaihimore",
                        _ => "illegal move",
                    },
                    o.reason.code(),
                ),
                EndReason::Forfeit { .. } if foul_text == Some("%KACHI") => (
                    said(Some("%KACHI"), GameEnd::IllegalMove),
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Forfeit { .. } => (
                    said(None, GameEnd::IllegalMove),
                    r,
                    foul_by(o.result),
                    "illegal move",
                    "illegal_move",
                ),
                EndReason::FailedDeclaration { .. } => (
                    said(Some("%KACHI"), GameEnd::IllegalMove),
                    r,
                    Some("%KACHI"),
                    "illegal kachi",
                    "failed_declaration",
                ),
                EndReason::Declaration { .. } => (
                    said(Some("%KACHI"), GameEnd::Jishogi),
                    r,
                    Some("%KACHI"),
                    "kachi",
                    "declaration",
                ),
                EndReason::AutomaticImpasse { .. } => (
                    said(None, GameEnd::Jishogi),
                    r,
                    None,
                    "jishogi",
                    "automatic_impasse",
                ),
                EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => (
                    said(None, GameEnd::Jishogi),
                    r,
                    Some("%JISHOGI"),
                    "jishogi",
                    o.reason.code(),
                ),
                EndReason::Sennichite { .. } | EndReason::AgreedSennichite { .. } => (
                    said(None, GameEnd::Sennichite),
                    r,
                    Some("%SENNICHITE"),
                    "sennichite",
                    o.reason.code(),
                ),
                EndReason::PerpetualCheck { .. } => (
                    said(None, GameEnd::OuteSennichite),
                    r,
                    foul_by(o.result),
                    "oute_sennichite",
                    "perpetual_check",
                ),
                EndReason::Try { .. } => (
                    vec![ServerLine::Reason(Reason::Unknown("#TRY".into()))],
                    r,
                    Some("%TRY"),
                    "try",
                    "try",
                ),
                EndReason::MoveLimit { .. } => (
                    said(None, GameEnd::MaxMoves),
                    r,
                    Some("%MAX_MOVES"),
                    "max_moves",
                    "move_limit",
                ),
                EndReason::TimeUp { .. } => (
                    said(None, GameEnd::TimeUp),
                    r,
                    Some("%TIME_UP"),
                    "time up",
                    "time_up",
                ),
            }
        }
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
