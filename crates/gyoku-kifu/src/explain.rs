//! Why a judged record differs from what it says, in words: the rule that decided, at
//! which ply, with its figures, set against the record's own statement.

use gyoku::impasse::DeclarationFailure;
use gyoku::{Color, EndReason, GameResult, Outcome};

use crate::judge::Judgement;
use crate::{Record, Terminal};

/// `Black`, `White`.
fn side(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// A result in words: `Black wins`, `a draw`, `a no contest`.
fn result_words(r: GameResult) -> String {
    match r {
        GameResult::Win(c) => format!("{} wins", side(c)),
        GameResult::Draw => "a draw".into(),
        GameResult::NoContest => "a no contest".into(),
    }
}

/// What a failed declaration lacked.
fn failure_words(f: DeclarationFailure) -> &'static str {
    match f {
        DeclarationFailure::KingNotEntered => "the king has not entered the zone",
        DeclarationFailure::ZoneCount => "fewer than 10 pieces besides the king are in the zone",
        DeclarationFailure::InCheck => "the declarer is in check",
        DeclarationFailure::Points => "too few points",
        DeclarationFailure::AfterMoveLimit => "the move limit has been reached",
        DeclarationFailure::NoTime => "the declarer's time has run out",
        DeclarationFailure::NoRule => "these rules have no declaration",
    }
}

/// What the record says, in words: its summary's (the statement checked) or its end
/// line's, with where it says it.
fn recorded_words(record: &Record, j: &Judgement) -> String {
    if let Some(s) = &j.summary {
        let result = s
            .result
            .map_or(String::new(), |r| format!(", {}", result_words(r)));
        if s.kind == crate::judge::CLOSING_KIND {
            return match s.result {
                Some(r) => format!("its closing line ({}) says {}", s.text, result_words(r)),
                None => format!("its closing line says {}", s.text),
            };
        }
        return format!("the server's summary says {}{result}", s.kind);
    }
    match (&j.recorded, j.recorded_result) {
        (Some(end), Some(r)) => format!("the record says {} by {}", result_words(r), end.code()),
        (Some(end), None) => format!("the record ends with {}", end.code()),
        (None, _) if record.moves.is_empty() => "the record has no moves".into(),
        (None, _) => "the record does not say how it ended".into(),
    }
}

/// `12, 16, 20 and 24`.
fn plies_list(plies: &[u32]) -> String {
    match plies.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            let rest: Vec<String> = rest.iter().map(u32::to_string).collect();
            format!("{} and {last}", rest.join(", "))
        }
        Some((last, _)) => last.to_string(),
        None => String::new(),
    }
}

/// How many times the final position has stood on the board (the start included).
fn occurrences(j: &Judgement) -> usize {
    let plies = j.game.plies();
    let Some(last) = plies.last() else { return 1 };
    let start = usize::from(j.game.initial().hash() == last.hash);
    start + plies.iter().filter(|p| p.hash == last.hash).count()
}

/// Why the judged result is not the recorded one, in a sentence or two; `None` when they
/// agree.
///
/// ```
/// let text = "V2.2\nPI\n+\n+7776FU\n-3334FU\n+8822UM\n%TSUMI\n";
/// let record = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap().remove(0);
/// let j = gyoku_kifu::judge::judge(&record, gyoku::Preset::Csa.rules());
/// let why = gyoku_kifu::explain::why_differs(&record, &j).unwrap();
/// assert!(why.contains("White is not mated"), "{why}");
/// ```
pub fn why_differs(record: &Record, j: &Judgement) -> Option<String> {
    if j.decided_by == crate::judge::DecidedBy::UnclaimedFoul
        && let Some(foul) = &record.foul
    {
        // Said whether or not the record agrees: the foul was let stand.
        let said = recorded_words(record, j);
        return Some(format!(
            "the foul at ply {} ({}: {}) was not claimed before {}'s next move: under \
             `fouls = claim` it is part of the game; the {} move(s) after it are not \
             replayed, so the record's end stands: {said}",
            foul.ply,
            foul.kind.code(),
            foul.mv,
            side(!foul.by),
            foul.rest.len()
        ));
    }
    if j.agrees {
        return None;
    }
    if let crate::judge::DecidedBy::Clock { ply, took_ms } = j.decided_by {
        let said = recorded_words(record, j);
        let loser = j.game.turn();
        return Some(format!(
            "ply {ply} took {:.1} s as recorded, past what {} had left under the clock given: \
             {} loses on time there; {said}",
            took_ms as f64 / 1000.0,
            side(loser),
            side(loser)
        ));
    }
    let said = recorded_words(record, j);
    let recorded_plies = record.moves.len() + usize::from(record.foul.is_some());
    let text = match j.game.outcome() {
        Some(o) => ended(record, j, o, &said, recorded_plies),
        None => not_over(j, &said),
    };
    Some(text)
}

/// The rules ended the game; the record says otherwise.
fn ended(record: &Record, j: &Judgement, o: &Outcome, said: &str, recorded_plies: usize) -> String {
    let ply = o.ply;
    match &o.reason {
        EndReason::MoveLimit { limit } => {
            let own = crate::judge::record_max_moves(record).is_some();
            format!(
                "the move limit of {limit} plies ends the game at ply {ply}: {}{}; the \
                 record goes on to ply {recorded_plies} and {said}{}",
                result_words(o.result),
                if own { " (the record's own limit)" } else { "" },
                if own {
                    String::new()
                } else {
                    " (the record states no limit of its own: `--max-moves 0` judges it without one)"
                        .into()
                }
            )
        }
        EndReason::IllegalMove { mv, kind } => format!(
            "ply {ply}, {mv}, is a foul: {kind}; under these rules a foul loses at once, so \
             the game was over there and {}",
            said.replacen("the record says", "what the record says came after it:", 1)
        ),
        EndReason::FailedDeclaration {
            declarer,
            failure,
            count,
        } => format!(
            "{}'s declaration at ply {ply} fails: {} ({} declaration points, {} pieces in the \
             zone{}), so {}; {said}",
            side(*declarer),
            failure_words(*failure),
            count.declaration_points,
            count.zone_count,
            if count.in_check { ", in check" } else { "" },
            result_words(o.result)
        ),
        EndReason::PerpetualCheck {
            checker,
            occurrences,
        } => format!(
            "{said}; but the same position stood four times (after plies {}) and every move \
             {} made in the repetition gave check: perpetual check, which {} loses",
            plies_list(occurrences),
            side(*checker),
            side(*checker)
        ),
        EndReason::AgreedSennichite { occurrences } => format!(
            "the same position stood {} times (after plies {}), fewer than four, and the \
             players agreed to a sennichite, which these rules allow (JSA, 2019-10-01): {}; \
             {said}",
            occurrences.len(),
            plies_list(occurrences),
            result_words(o.result)
        ),
        EndReason::Sennichite { occurrences } => format!(
            "the same position stood four times (after plies {}): sennichite, {}; {said}",
            plies_list(occurrences),
            result_words(o.result)
        ),
        EndReason::Declaration { declarer, count } => format!(
            "{} declares at ply {ply} and wins under these rules ({} declaration points, {} \
             pieces in the zone); {said}",
            side(*declarer),
            count.declaration_points,
            count.zone_count
        ),
        EndReason::Checkmate | EndReason::NoLegalMove => format!(
            "{} is mated after ply {ply}, so {}; {said}",
            side(j.game.turn()),
            result_words(o.result)
        ),
        _ => format!(
            "the rules end the game at ply {ply} by {}: {}; {said}",
            o.reason.code(),
            result_words(o.result)
        ),
    }
}

/// The rules did not end the game; the record says it ended.
fn not_over(j: &Judgement, said: &str) -> String {
    let n = j.game.plies().len();
    let turn = j.game.turn();
    let summary_kind = j.summary.as_ref().map(|s| s.kind.as_str());
    match (&j.recorded, summary_kind) {
        (_, Some("sennichite" | "oute_sennichite")) | (Some(Terminal::Sennichite), _) => {
            let why = j
                .game
                .sennichite_agreeable()
                .err()
                .map_or(String::new(), |e| format!(", and it cannot be agreed: {e}"));
            format!(
                "{said}; but the position after ply {n} has stood {} time(s), not four: no \
                 sennichite yet{why}",
                occurrences(j)
            )
        }
        (Some(Terminal::Mate), _) => {
            let legal = j.game.position().legal_moves();
            let example = legal
                .first()
                .map_or(String::new(), |m| format!(", {m} among them"));
            format!(
                "{said}; but after ply {n} {} is not mated: it has {} legal moves{example}",
                side(turn),
                legal.len()
            )
        }
        (Some(Terminal::Jishogi), _) => {
            let mut g = j.game.clone();
            let why = g
                .agree_impasse()
                .err()
                .map_or("it is not countable".to_string(), |e| e.to_string());
            format!(
                "{said}; but an impasse cannot be agreed after ply {n} under these rules: {why}"
            )
        }
        _ => format!(
            "{said}; but after ply {n} the game is not over under these rules ({} to move)",
            side(turn)
        ),
    }
}
