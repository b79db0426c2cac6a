//! The JSON the CLI prints and the HTTP API answers: a game's outcome with the figures
//! that decided it, the impasse calculator's report, a record's judgement. One place, so
//! that `gyoku judge --json` and `POST /api/judge` say the same thing in the same words.

use gyoku::{ByColor, EndReason, Game, ImpasseCount, ImpasseReport, Outcome, Preset, RuleSet};
use serde_json::{Value, json};

use crate::Record;
pub use crate::judge::record_max_moves;
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
        EndReason::ClaimedFoul { mv, kind, by } => json!({
            "foul": kind.code(),
            "move": mv.to_string(),
            "by": by.name(),
            "claimed": true,
        }),
        EndReason::Sennichite { occurrences } => json!({
            "occurrences": occurrences,
            "repeated_sfen": game.position().to_sfen(),
        }),
        EndReason::AgreedSennichite { occurrences } => json!({
            "occurrences": occurrences,
            "repeated_sfen": game.position().to_sfen(),
            "agreed": true,
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
        "mate_by": report.mate.as_ref().map(mate_json),
    })
}

/// A mate search's answer as `gyoku mate --json` gives it: `result` (`mate`, `no_mate` or
/// `unknown`), `plies` (`null` without a mate) and `line` (USI) of a mate found, and the
/// `nodes` searched.
pub fn mate_report_json(report: &gyoku::mate::Report) -> Value {
    let line: Option<Vec<String>> = match &report.outcome {
        gyoku::mate::Outcome::Mate(line) => Some(line.iter().map(ToString::to_string).collect()),
        _ => None,
    };
    json!({
        "result": report.outcome.code(),
        "plies": line.as_ref().map(Vec::len),
        "line": line.unwrap_or_default(),
        "nodes": report.nodes,
    })
}

/// The calculator's mate prospects: for each side as the attacker, its search as
/// [`mate_report_json`] gives it; `nodes_each`, the budget.
pub fn mate_json(mate: &gyoku::mate::Prospects) -> Value {
    json!({
        "black": mate_report_json(&mate.by.black),
        "white": mate_report_json(&mate.by.white),
        "nodes_each": mate.limits.nodes,
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
    if j.decided_by == DecidedBy::UnclaimedFoul
        && let Some(foul) = &record.foul
    {
        // Under `fouls = claim`: played on after the foul, the record's end stands.
        v["result"] = json!(j.result.map(|r| r.code()));
        v["reason"] = json!(j.recorded.as_ref().map(|t| t.code()));
        v["ply"] = json!(foul.ply as usize + foul.rest.len() + 1);
        v["detail"] = json!({
            "unclaimed_foul": { "kind": foul.kind.code(), "move": foul.mv.to_string(), "ply": foul.ply },
            "decided_by": "unclaimed_foul",
        });
    }
    if let (Some(foul), Some(o)) = (&record.foul, j.game.outcome())
        && o.reason.code() == "illegal_move"
    {
        v["detail"]["foul_ply"] = json!(foul.ply);
    }
    // What the record says, and which of its statements was checked: the server's
    // summary where it has one (its end line beside it), a site's stated winner, else the
    // end line.
    let checked = if j.summary.as_ref().is_some_and(|s| s.result.is_some()) {
        Some("summary")
    } else if record.header("$X_WINNER").is_some() && j.recorded_result.is_some() {
        Some("site")
    } else {
        j.recorded.as_ref().map(|_| "end")
    };
    v["recorded"] = json!({
        "end": j.recorded.as_ref().map(|t| t.code()),
        "result": j.recorded_result.map(|r| r.code()),
        "end_result": j.end_result.map(|r| r.code()),
        "summary": j.summary.as_ref().map(|s| s.text.clone()),
        "checked": checked,
        "statements_disagree": j.statements_disagree(),
    });
    v["agrees"] = json!(j.agrees);
    v["why"] = json!(crate::explain::why_differs(record, j));
    v["damaged"] = json!(
        record
            .damage
            .as_ref()
            .map(|d| json!({"line": d.line, "what": d.what}))
    );
    v["limit"] = json!({
        "plies": j.game.rules().move_limit.map(|l| l.plies),
        "from": j.limit_from.code(),
    });
    v["decided_by"] = json!(j.decided_by.code());
    if let DecidedBy::Clock { ply, took_ms } = j.decided_by {
        // The move that ran past its side's time, as recorded.
        v["detail"]["clock"] = json!({ "ply": ply, "took_ms": took_ms });
    }
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

/// Judges `record` under `rules`, with the record's own move limit unless the user set
/// one (`user_max_moves`), and says where the limit applied came from.
///
/// ```
/// use gyoku_kifu::judge::LimitFrom;
/// let text = "V2.2\n'Max_Moves:40\nPI\n+\n+7776FU\n";
/// let r = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap().remove(0);
/// let j = gyoku_kifu::report::judge_record(&r, gyoku::Preset::Csa.rules(), false);
/// assert_eq!(j.limit_from, LimitFrom::Record);
/// ```
pub fn judge_record(record: &Record, rules: RuleSet, user_max_moves: bool) -> Judgement {
    judge_record_timed(record, rules, user_max_moves, None)
}

/// As [`judge_record`], and with `clock` the moves' recorded times are run through it: a
/// move past its side's time ends the game on time there
/// ([`crate::judge::judge_with_clock`]).
pub fn judge_record_timed(
    record: &Record,
    rules: RuleSet,
    user_max_moves: bool,
    clock: Option<gyoku::TimeControl>,
) -> Judgement {
    let rules = rules_for(record, rules, user_max_moves);
    let mut j = match clock {
        Some(control) => crate::judge::judge_with_clock(record, rules, control),
        None => crate::judge::judge(record, rules),
    };
    j.limit_from = if user_max_moves {
        crate::judge::LimitFrom::Option
    } else if record_max_moves(record).is_some() {
        crate::judge::LimitFrom::Record
    } else {
        crate::judge::LimitFrom::Rules
    };
    j
}

/// The rules a record's own header names, where it names them, with the words that say
/// so: Gyoku's own `'Rules:PRESET` comment; an event or site that names Floodgate
/// (`$EVENT:wdoor+floodgate-…`: `csa`), Shogi Wars (its `$X_` headers: `shogi-wars`),
/// 81Dojo (`81dojo`) or lishogi (`lishogi`); a Game_Summary's `Declaration:Jishogi 1.1`
/// comment (`csa`); a KIF of a JSA professional event (`棋戦` naming a title match or
/// league, with `手合割` and `持ち時間`: `jsa`).
///
/// ```
/// use gyoku::Preset;
/// let text = "V2.2\n$EVENT:wdoor+floodgate-300-10F+a+b+20260101000000\nPI\n+\n+7776FU\n";
/// let r = gyoku_kifu::read_str(text, gyoku_kifu::Format::Csa).unwrap().remove(0);
/// let (preset, why) = gyoku_kifu::report::rules_of_record(&r).unwrap();
/// assert_eq!(preset, Preset::Csa);
/// assert!(why.contains("Floodgate"), "{why}");
/// ```
pub fn rules_of_record(record: &Record) -> Option<(Preset, String)> {
    let comments = || record.start_comments.iter().map(|c| c.trim());
    if let Some(p) = comments().find_map(|c| c.strip_prefix("Rules:")) {
        let preset = p.trim().parse::<Preset>().ok()?;
        return Some((preset, format!("its 'Rules:{} comment", p.trim())));
    }
    let event = record.header("棋戦").unwrap_or("");
    let site = record.header("場所").unwrap_or("");
    let lower = format!("{event} {site}").to_lowercase();
    if lower.contains("floodgate") {
        return Some((Preset::Csa, format!("its event names Floodgate ({event})")));
    }
    if record.header("$X_FINAL").is_some()
        || record.header("$X_WINNER").is_some()
        || event.contains("将棋ウォーズ")
    {
        return Some((
            Preset::ShogiWars,
            "its headers are Shogi Wars' ($X_…)".into(),
        ));
    }
    if lower.contains("81dojo") {
        return Some((
            Preset::Dojo81,
            format!("its event or site names 81Dojo ({event} {site})"),
        ));
    }
    if lower.contains("lishogi") {
        return Some((
            Preset::Lishogi,
            format!("its event or site names lishogi ({event} {site})"),
        ));
    }
    if comments().any(|c| c.starts_with("Declaration:Jishogi")) {
        return Some((Preset::Csa, "its Game_Summary's Declaration:Jishogi".into()));
    }
    const JSA_EVENTS: [&str; 12] = [
        "竜王戦",
        "名人戦",
        "順位戦",
        "王位戦",
        "王座戦",
        "棋王戦",
        "王将戦",
        "棋聖戦",
        "叡王戦",
        "NHK杯",
        "朝日杯",
        "銀河戦",
    ];
    if record.header("手合割").is_some()
        && record.header("持ち時間").is_some()
        && let Some(name) = JSA_EVENTS.iter().find(|e| event.contains(*e))
    {
        return Some((
            Preset::Jsa,
            format!("a JSA professional event ({name}) with its time control"),
        ));
    }
    None
}
