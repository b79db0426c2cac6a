//! The JSON the CLI prints and the HTTP API answers: a game's outcome with the figures
//! that decided it, the impasse calculator's report, a record's judgement. One place, so
//! that `gyoku judge --json` and `POST /api/judge` say the same thing in the same words.

use gyoku::{ByColor, EndReason, Game, ImpasseCount, ImpasseReport, Outcome, RuleSet};
use serde_json::{Value, json};

use crate::Record;
use crate::judge::{DecidedBy, Judgement};

fn points_json(points: &ByColor<u32>) -> Value {
    json!({ "black": points.black, "white": points.white })
}

fn count_json(count: &ImpasseCount) -> Value {
    json!({
        "entered": count.entered,
        "zone_count": count.zone_count,
        "total_points": count.total_points,
        "declaration_points": count.declaration_points,
        "in_check": count.in_check,
    })
}

/// The `detail` object of an outcome: the figures that decided it.
pub fn detail_json(outcome: &Outcome, game: &Game) -> Value {
    let credit = game.handicap_credit();
    match &outcome.reason {
        EndReason::Checkmate | EndReason::NoLegalMove => json!({}),
        EndReason::Resignation { by } | EndReason::TimeUp { by } => json!({ "by": by.name() }),
        EndReason::Forfeit { by, cause } => json!({ "by": by.name(), "cause": cause.code() }),
        EndReason::IllegalMove { mv, kind } => {
            json!({ "foul": kind.code(), "move": mv.to_string() })
        }
        EndReason::Sennichite { occurrences } => json!({
            "occurrences": occurrences,
            "repeated_sfen": game.position().to_sfen(),
        }),
        EndReason::PerpetualCheck {
            checker,
            occurrences,
        } => json!({
            "checker": checker.name(),
            "occurrences": occurrences,
            "repeated_sfen": game.position().to_sfen(),
        }),
        EndReason::ImpasseAgreement { points } | EndReason::ImpasseCount { points } => {
            json!({ "points": points_json(points), "handicap_credit": credit })
        }
        EndReason::Declaration { declarer, count }
        | EndReason::AutomaticImpasse {
            winner: declarer,
            count,
        } => json!({
            "declarer": declarer.name(),
            "count": count_json(count),
            "handicap_credit": credit,
        }),
        EndReason::FailedDeclaration {
            declarer,
            failure,
            count,
        } => json!({
            "declarer": declarer.name(),
            "failed": failure.code(),
            "count": count_json(count),
            "handicap_credit": credit,
        }),
        EndReason::Try { square } => json!({ "square": square.to_string() }),
        EndReason::MoveLimit { limit } => json!({ "limit": limit }),
    }
}

/// The JSON object of `gyoku judge`.
pub fn judge_json(game: &Game) -> Value {
    match game.outcome() {
        Some(o) => json!({
            "result": o.result.code(),
            "reason": o.reason.code(),
            "ply": o.ply,
            "sfen": game.position().to_sfen(),
            "detail": detail_json(o, game),
        }),
        None => json!({
            "result": null,
            "reason": null,
            "ply": game.plies().len(),
            "sfen": game.position().to_sfen(),
            "detail": {},
        }),
    }
}

/// The impasse calculator's report (`gyoku impasse --json`): each side's count, and the
/// verdict under every preset.
pub fn impasse_json(report: &ImpasseReport) -> Value {
    let verdicts: serde_json::Map<String, Value> = report
        .verdicts
        .iter()
        .map(|v| {
            (
                v.preset.name().to_string(),
                json!({
                    "declaration": v.declaration_code(),
                    "declaration_failure": v.declaration_failure().map(|f| f.code()),
                    "agreement": v.agreement_code(),
                    "ended": v.ended.map(|e| e.code()),
                }),
            )
        })
        .collect();
    json!({
        "black": count_json(&report.counts.black),
        "white": count_json(&report.counts.white),
        "turn": report.turn.name(),
        "handicap_credit": report.credit,
        "moves_counted": report.moves_counted,
        "verdicts": verdicts,
    })
}

/// A record's judgement (`gyoku judge FILE --json`, without its `file`): the outcome as
/// [`judge_json`] says it, the foul's ply, what the record itself says (`recorded`),
/// whether they agree and what decided.
pub fn record_json(record: &Record, j: &Judgement) -> Value {
    let mut v = judge_json(&j.game);
    if j.decided_by == DecidedBy::ResignationStands
        && let Some(foul) = &record.foul
    {
        // The resignation came after the foul and the moves recorded after it.
        v["result"] = json!(j.result.map(|r| r.code()));
        v["reason"] = json!("resignation");
        v["ply"] = json!(foul.ply as usize + foul.rest.len() + 1);
        v["detail"] = json!({
            "unnoticed_foul": { "kind": foul.kind.code(), "move": foul.mv.to_string(), "ply": foul.ply },
            "decided_by": "resignation_stands",
        });
    }
    if let (Some(foul), Some(o)) = (&record.foul, j.game.outcome())
        && o.reason.code() == "illegal_move"
    {
        v["detail"]["foul_ply"] = json!(foul.ply);
    }
    v["recorded"] = json!({
        "end": j.recorded.as_ref().map(|t| t.code()),
        "result": j.recorded_result.map(|r| r.code()),
    });
    v["agrees"] = json!(j.agrees);
    v["decided_by"] = json!(j.decided_by.code());
    if let DecidedBy::Record(word) = j.decided_by {
        // What the record says that its moves cannot show.
        v["detail"]["record"] = json!(word.code());
        if j.game.outcome().is_none() {
            // Nothing in the rules ended it: the result is the record's own.
            v["result"] = json!(j.result.map(|r| r.code()));
            v["reason"] = json!(word.code());
        }
    }
    v
}

/// The rules for one record: a record's own move limit (CSA V3.0 `$MAX_MOVES`, KIF
/// `最大手数`, or the `'Max_Moves:N` comment shogi-server and Floodgate write from their
/// Game_Summary) applies unless the user set one.
///
/// ```
/// use gyoku_kifu::report::{record_max_moves, rules_for};
/// let text = "V2.2\n'Max_Moves:40\nPI\n+\n+7776FU\n";
/// let r = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap().remove(0);
/// assert_eq!(record_max_moves(&r), Some(40));
/// let rules = rules_for(&r, gyoku::Preset::Csa.rules(), false);
/// assert_eq!(rules.move_limit.map(|l| l.plies), Some(40));
/// ```
pub fn rules_for(record: &Record, rules: RuleSet, user_max_moves: bool) -> RuleSet {
    let mut rules = rules;
    if !user_max_moves && let Some(n) = record_max_moves(record) {
        rules.set_max_moves(n);
    }
    rules
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
