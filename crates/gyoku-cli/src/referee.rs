//! `gyoku judge`, `gyoku impasse` and `gyoku rules`.

use gyoku::mate::Outcome;
use gyoku::{Action, Color, Game, ImpasseReport, Position, Preset, RuleSet};
use gyoku_kifu::report::{detail_json, impasse_json, judge_json};
use serde_json::{Value, json};

use crate::Failure;
use crate::args::{RuleArgs, RuleOverrides, read_position};

/// The `--moves` token for both players agreeing to a sennichite before the fourth
/// occurrence. Refused, it is no move: the game goes on and the answer says why.
const AGREE_SENNICHITE: &str = "agree-sennichite";

/// An agreement the rules refused: the ply it stood at, and why.
pub struct Refusal {
    /// The ply the agreement would have taken.
    pub ply: u32,
    /// The token.
    pub token: String,
    /// Why the rules refused it.
    pub why: gyoku::GameError,
}

/// One token of `--moves`: a move or an action of the side to move.
fn action(game: &Game, token: &str) -> Result<Action, String> {
    let turn = game.turn();
    Ok(match token {
        "resign" => Action::Resign(turn),
        "win" => Action::Declare,
        "agree" => Action::AgreeImpasse,
        "claim" => Action::ClaimFoul(turn),
        AGREE_SENNICHITE => Action::AgreeSennichite,
        "timeout" => Action::TimeUp(turn),
        usi => Action::Move(
            usi.parse()
                .map_err(|e: gyoku::ParseUsiMoveError| e.to_string())?,
        ),
    })
}

/// Replays `tokens` in `game`. A refused action, or one after the end, is an input error
/// naming its ply and token; a refused `agree-sennichite` is no move, and is returned.
pub fn replay(game: &mut Game, tokens: &str) -> Result<Vec<Refusal>, Failure> {
    let mut refusals = Vec::new();
    for (i, token) in tokens.split_whitespace().enumerate() {
        let ply = i + 1 - refusals.len();
        if let Some(outcome) = game.outcome() {
            return Err(Failure::Input(format!(
                "--moves: ply {ply} '{token}': the game is already over ({outcome})"
            )));
        }
        let action =
            action(game, token).map_err(|e| Failure::Input(format!("--moves: ply {ply}: {e}")))?;
        match game.apply(action) {
            Err(why) if token == AGREE_SENNICHITE => refusals.push(Refusal {
                ply: ply as u32,
                token: token.to_string(),
                why,
            }),
            Err(e) => {
                return Err(Failure::Input(format!(
                    "--moves: ply {ply} '{token}' refused: {e}"
                )));
            }
            Ok(()) => {}
        }
    }
    Ok(refusals)
}

/// `gyoku judge`.
pub fn run_judge(
    sfen: &str,
    moves: &str,
    rule_args: &RuleArgs,
    lenient: bool,
    json: bool,
) -> Result<(), Failure> {
    let start = read_position(sfen, lenient, "--sfen")?;
    let (preset, rules) = rule_args.rule_set()?;
    let mut game = Game::new(start, rules);
    let refusals = replay(&mut game, moves)?;
    if json {
        let mut v = judge_json(&game);
        if !refusals.is_empty() {
            // An agreement the rules refused is no move: the game went on.
            v["refused"] = refusals
                .iter()
                .map(|r| {
                    json!({
                        "ply": r.ply,
                        "token": r.token,
                        "code": r.why.code(),
                        "why": format!(
                            "{}: not an ending, the game is not over (an agreement is no move)",
                            r.why
                        ),
                    })
                })
                .collect();
        }
        outln!("{v}");
        return Ok(());
    }
    for r in &refusals {
        outln!(
            "ply {} '{}' refused: {} (not an ending; an agreement is no move)",
            r.ply,
            r.token,
            r.why
        );
    }
    match game.outcome() {
        None => outln!(
            "not over after {} moves ({} to move) under {preset}",
            game.plies().len(),
            game.turn()
        ),
        Some(o) => {
            outln!("{o} under {preset}");
            let detail = detail_json(o, &game);
            if let Some(map) = detail.as_object() {
                for (k, v) in map {
                    outln!("  {k}: {v}");
                }
            }
        }
    }
    outln!("final position: {}", game.position().to_sfen());
    Ok(())
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `gyoku impasse`.
pub fn run_impasse(
    pos: &Position,
    initial: Option<&str>,
    mate_nodes: u64,
    json: bool,
) -> Result<(), Failure> {
    let initial = initial
        .map(|text| read_position(text, true, "--initial").map(|p| p.to_setup()))
        .transpose()?;
    let mut report = ImpasseReport::new(pos, initial.as_ref());
    report.search_mates(pos, mate_nodes);
    print_report(&report, json);
    Ok(())
}

/// Prints a calculator report.
pub fn print_report(report: &ImpasseReport, json: bool) {
    if json {
        outln!("{}", impasse_json(report));
        return;
    }
    outln!("side    entered  zone  total  declaration  in check");
    for color in Color::ALL {
        let c = report.counts.get(color);
        outln!(
            "{:<7} {:<8} {:>4}  {:>5}  {:>11}  {}",
            color.name(),
            yes(c.entered),
            c.zone_count,
            c.total_points,
            c.declaration_points,
            yes(c.in_check)
        );
    }
    outln!(
        "({} to move after {} move{}; handicap credit to White: {})",
        report.turn,
        report.moves_counted,
        if report.moves_counted == 1 { "" } else { "s" },
        report.credit
    );
    if let Some(mate) = &report.mate {
        outln!();
        outln!(
            "can still mate (by checks; {} nodes each)",
            mate.limits.nodes
        );
        for color in Color::ALL {
            let line = match &mate.by.get(color).outcome {
                Outcome::Mate(line) if !line.is_empty() => {
                    let shown: Vec<String> =
                        line.iter().take(12).map(ToString::to_string).collect();
                    let more = if line.len() > 12 { " …" } else { "" };
                    format!(": {}{more}", shown.join(" "))
                }
                _ => String::new(),
            };
            outln!("{:<7} {}{line}", color.name(), mate.describe(color));
        }
    }
    outln!();
    outln!(
        "rules        if {} declares now          agreement count now  already over by",
        report.turn
    );
    for v in &report.verdicts {
        let declaration = match v.declaration_failure() {
            Some(f) => format!("lose ({})", f.code()),
            None => v.declaration_code().to_string(),
        };
        outln!(
            "{:<12} {:<30} {:<20} {}",
            v.preset.name(),
            declaration,
            v.agreement_code(),
            v.ended.map_or("-", |e| e.code())
        );
    }
}

/// `gyoku rules`.
pub fn run_rules(
    preset: Option<&str>,
    overrides: &RuleOverrides,
    json: bool,
) -> Result<(), Failure> {
    let Some(name) = preset else {
        if json {
            let list: Vec<Value> = Preset::ALL
                .iter()
                .map(|&p| {
                    let mut v = preset_json(p, &p.rules());
                    v["name"] = json!(p.name());
                    v["description"] = json!(p.description());
                    v
                })
                .collect();
            outln!("{}", json!({ "presets": list }));
        } else {
            for p in Preset::ALL {
                outln!("{:<12} {}", p.name(), p.description());
            }
        }
        return Ok(());
    };
    let preset: Preset = name
        .parse()
        .map_err(|e: gyoku::ParsePresetError| Failure::Input(e.to_string()))?;
    let mut rules: RuleSet = preset.rules();
    overrides.apply(&mut rules)?;
    if json {
        let mut v = preset_json(preset, &rules);
        v["preset"] = json!(preset.name());
        outln!("{v}");
    } else {
        outln!("{preset}: {}", preset.description());
        for (k, v) in rules.fields() {
            outln!("  {k:<18} {v}");
        }
        if let Some(event) = preset.event() {
            outln!(
                "  {:<18} {}",
                "clock",
                gyoku_arena::timecontrol::describe(&event.clock)
            );
            outln!("  {:<18} {}", "since", event.since);
        }
        let digest = gyoku_league::rules_digest::of_rules(
            preset.name(),
            &rules,
            preset.event().map(|e| e.clock).as_ref(),
        );
        outln!("  {:<18} {digest}", "digest");
    }
    Ok(())
}

/// A preset's rules (as `rules` may have changed them) as `gyoku rules --json` shows
/// them: every field as text (`fields`) and as data (`rules`), an event's clock and since
/// when (`clock`, `since`; `null` for a rule set alone), and the `digest` that pins them.
fn preset_json(preset: Preset, rules: &RuleSet) -> Value {
    let clock = preset.event().map(|e| e.clock);
    let canonical = gyoku::rules::canonical_json(preset.name(), rules, clock.as_ref());
    let mut data: Value = serde_json::from_str(&canonical).unwrap_or(Value::Null);
    // The canonical text leaves out a later field that is not set (so older digests stand);
    // the data shown has every field.
    data["rules"]["agreed_sennichite"] = json!(rules.agreed_sennichite);
    data["rules"]["replay_clock"] = json!(rules.replay_clock.to_string());
    let fields: serde_json::Map<String, Value> = rules
        .fields()
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    json!({
        "fields": fields,
        "rules": data["rules"],
        "clock": data["clock"],
        "since": preset.event().map(|e| e.since),
        "digest": gyoku_league::rules_digest::of_rules(preset.name(), rules, clock.as_ref()),
    })
}
