//! `gyoku judge --tsume`: record files judged as tsume problems and their solutions.

use std::path::PathBuf;

use gyoku::mate::Solver;
use gyoku::mate::tsume::{self, Fault, TsumeReport};
use gyoku::{Move, Position};
use gyoku_kifu::Record;
use serde_json::{Value, json};

use crate::Failure;

/// The table the searches share, in bytes.
const TABLE_BYTES: usize = 64 << 20;

/// Judges every record of `paths` (files or directories) as a tsume problem, each search
/// within `nodes`; exit status 1 when one is not proved correct.
pub fn run_tsume(paths: &[PathBuf], lenient: bool, nodes: u64, json: bool) -> Result<(), Failure> {
    let options = gyoku_kifu::ReadOptions {
        partial_boards: lenient,
    };
    let mut solver = Solver::new(TABLE_BYTES);
    let (mut correct, mut faulty, mut undecided) = (0usize, 0usize, 0usize);
    let mut shown = Vec::new();
    let unreadable = crate::records::for_each_record(paths, options, |name, record| {
        let moves = solution(record);
        let report = tsume::judge(&record.start, &moves, &mut solver, nodes);
        if report.is_correct() {
            correct += 1;
        } else if report.faults.is_empty() {
            undecided += 1;
        } else {
            faulty += 1;
        }
        if json {
            shown.push(report_json(name, &record.start, &report));
        } else {
            outln!("{}", report_line(name, &report));
        }
    })?;
    if json {
        outln!(
            "{}",
            json!({
                "records": shown,
                "correct": correct,
                "faulty": faulty,
                "undecided": undecided,
                "nodes_per_search": nodes,
            })
        );
    } else {
        outln!();
        outln!(
            "{correct} correct, {faulty} faulty, {undecided} undecided within {nodes} nodes a search"
        );
    }
    if unreadable > 0 {
        return Err(Failure::Input(format!(
            "{unreadable} record file(s) could not be read"
        )));
    }
    if faulty + undecided > 0 {
        return Err(Failure::No);
    }
    Ok(())
}

/// The record's moves, and the foul it stopped at if any (judged as an illegal move).
fn solution(record: &Record) -> Vec<Move> {
    let mut moves: Vec<Move> = record.moves.iter().map(|m| m.mv).collect();
    if let Some(foul) = &record.foul {
        moves.push(foul.mv);
    }
    moves
}

/// One record's line: "correct", or each fault at its ply.
fn report_line(name: &str, report: &TsumeReport) -> String {
    let name = gyoku_kifu::escape_controls(name);
    let mut line = if report.is_correct() {
        format!("{name}: correct, mate in {}", report.plies)
    } else if report.faults.is_empty() {
        format!(
            "{name}: not proved within the budget ({} other moves undecided, the first at ply {}: {})",
            report.undecided.len(),
            report.undecided[0].ply,
            report.undecided[0].mv
        )
    } else {
        let said: Vec<String> = report
            .faults
            .iter()
            .map(|f| format!("ply {}: {}", f.ply(report.plies), explain(f)))
            .collect();
        format!("{name}: {}", said.join("; "))
    };
    if !report.last_move_alternatives.is_empty() {
        let moves: Vec<String> = report
            .last_move_alternatives
            .iter()
            .map(ToString::to_string)
            .collect();
        line.push_str(&format!(
            " (the last move has other mates, tolerated: {})",
            moves.join(" ")
        ));
    }
    line
}

/// A fault in words.
fn explain(fault: &Fault) -> String {
    match fault {
        Fault::IllegalMove { mv, kind, .. } => format!("{mv} is illegal ({})", kind.code()),
        Fault::NotCheck { mv, .. } => format!("{mv} does not check"),
        Fault::NotMated { .. } => "the solution does not end in mate".to_string(),
        Fault::PiecesLeft { hand } => format!("pieces left in the attacker's hand: {hand}"),
        Fault::AlternativeMate { mv, plies, .. } => {
            format!("alternative solution (余詰): {mv} mates in {plies}")
        }
        Fault::Escape { mv, .. } => format!("the defender escapes with {mv} (不詰)"),
        Fault::LongerDefence {
            mv, plies: Some(p), ..
        } => format!("{mv} resists longer (mated in {p} after it)"),
        Fault::LongerDefence {
            mv, plies: None, ..
        } => {
            format!("{mv} resists longer (no mate found after it within the budget)")
        }
    }
}

/// One record's JSON.
fn report_json(name: &str, start: &Position, report: &TsumeReport) -> Value {
    let faults: Vec<Value> = report
        .faults
        .iter()
        .map(|f| {
            let mut v = json!({
                "kind": f.code(),
                "ply": f.ply(report.plies),
                "move": f.mv().map(|m| m.to_string()),
            });
            match f {
                Fault::AlternativeMate { plies, .. } => v["plies"] = json!(plies),
                Fault::LongerDefence { plies, .. } => v["plies"] = json!(plies),
                Fault::PiecesLeft { hand } => v["pieces"] = json!(hand.to_string()),
                Fault::IllegalMove { kind, .. } => v["illegal"] = json!(kind.code()),
                _ => {}
            }
            v["message"] = json!(explain(f));
            v
        })
        .collect();
    let undecided: Vec<Value> = report
        .undecided
        .iter()
        .map(|u| json!({"ply": u.ply, "move": u.mv.to_string()}))
        .collect();
    json!({
        "file": name,
        "sfen": start.to_sfen(),
        "correct": report.is_correct(),
        "plies": report.plies,
        "faults": faults,
        "undecided": undecided,
        "last_move_alternatives": report.last_move_alternatives.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "nodes": report.nodes,
    })
}
