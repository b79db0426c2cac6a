//! The subcommands' work and output.

use std::time::Instant;

use gyoku::{Position, divide, perft};
use serde_json::json;

use crate::Failure;
use crate::arena;
use crate::args::{Cli, Command, parse_move};
use crate::ratings;
use crate::records;
use crate::referee;
use crate::serve;

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), Failure> {
    records::set_max_file_bytes(cli.max_file_size);
    match cli.command {
        Command::Perft {
            depth,
            divide,
            position,
            json,
        } => run_perft(&position.position()?, depth, divide, json),
        Command::Moves { position, json } => run_moves(&position.position()?, json),
        Command::CheckMove { mv, position, json } => {
            let pos = position.position()?;
            let m = parse_move(&mv).map_err(Failure::Input)?;
            run_check_move(&pos, m, json)
        }
        Command::Mate {
            mut position,
            nodes,
            time,
            table_size,
            json,
        } => {
            position.lenient = true;
            crate::mate::run_mate(
                &position.position()?,
                nodes,
                time.as_deref(),
                table_size,
                json,
            )
        }
        Command::Judge {
            files,
            sfen,
            moves,
            rules,
            lenient,
            rules_of_record,
            time,
            byoyomi,
            clock,
            tsume,
            nodes,
            json,
        } => {
            if tsume {
                if files.is_empty() {
                    return Err(Failure::Input(
                        "--tsume judges record files: give one or more".into(),
                    ));
                }
                return crate::tsume::run_tsume(&files, lenient, nodes, json);
            }
            let timed = time.is_some()
                || byoyomi.is_some()
                || clock.periods.is_some()
                || clock.thinking_units.is_some()
                || clock.rounding.is_some();
            if files.is_empty() {
                if timed {
                    return Err(Failure::Input(
                        "--time, --byoyomi and the clock options judge record files' move \
                         times: give files (--moves has no times; its `timeout` token flags)"
                            .into(),
                    ));
                }
                referee::run_judge(&sfen, &moves, &rules, lenient, json)
            } else {
                let (_, rule_set) = rules.rule_set()?;
                let clock = if timed {
                    let tc = gyoku_arena::timecontrol::parse_time_control(
                        time.as_deref(),
                        byoyomi.as_deref(),
                    )
                    .map_err(|e| Failure::Input(format!("time control: {e}")))?;
                    Some(clock.apply(tc)?)
                } else {
                    None
                };
                let choice = records::RulesChoice {
                    given: rule_set,
                    user_max_moves: rules.overrides.max_moves.is_some(),
                    of_record: rules_of_record.then(|| rules.overrides.clone()),
                    clock,
                    read: gyoku_kifu::ReadOptions {
                        partial_boards: lenient,
                    },
                };
                records::run_judge_files(&files, &choice, json)
            }
        }
        Command::Convert { file, to, out } => records::run_convert(&file, &to, out.as_deref()),
        Command::Impasse {
            file: Some(file),
            ply,
            chart,
            mate_nodes,
            json,
            ..
        } => records::run_impasse_file(&file, ply, chart.as_deref(), mate_nodes, json),
        Command::Impasse {
            file: None,
            position,
            initial,
            mate_nodes,
            json,
            ..
        } => referee::run_impasse(&position.position()?, initial.as_deref(), mate_nodes, json),
        Command::Rules {
            preset,
            overrides,
            json,
        } => referee::run_rules(preset.as_deref(), &overrides, json),
        Command::Engine {
            style,
            seed,
            reseed_each_game,
            delay,
        } => arena::run_engine(&style, seed, reseed_each_game, delay.as_deref()),
        Command::Serve(args) => serve::run_serve(args),
        Command::EventKeys {
            file,
            keys_out,
            json,
        } => crate::event_keys::run_event_keys(&file, keys_out.as_deref(), json),
        Command::Ratings(args) => ratings::run_ratings(&args),
        Command::Test(args) => crate::engine_tests::run_test(args),
        Command::ExportTraining {
            paths,
            out,
            format,
            rules,
            json,
        } => crate::training::run_export(&paths, &out, &format, &rules, json),
        Command::Backup {
            out,
            db,
            data_dir,
            json,
        } => crate::backup::run_backup(&out, db.as_deref(), data_dir.as_deref(), json),
        Command::Restore {
            backup,
            db,
            data_dir,
            force,
            json,
        } => crate::backup::run_restore(&backup, db.as_deref(), data_dir.as_deref(), force, json),
        Command::Worker(args) => crate::engine_tests::run_worker(args),
        Command::Tournament(args) => arena::run_tournament(args),
        Command::CsaClient(args) => arena::run_csa_client(args),
        Command::Match {
            engines,
            games,
            sprt,
            adjudicate_resign,
            adjudicate_draw,
            rules,
            time,
            byoyomi,
            clock,
            margin,
            openings,
            opening_plies,
            out,
            concurrency,
            options,
            testing,
            json,
        } => arena::run_match(arena::MatchArgs {
            engines,
            games,
            sprt,
            adjudicate_resign,
            adjudicate_draw,
            rules,
            time,
            byoyomi,
            clock,
            margin,
            openings,
            opening_plies,
            out,
            concurrency,
            options,
            testing,
            json,
        }),
    }
}

fn run_perft(pos: &Position, depth: u32, split: bool, json: bool) -> Result<(), Failure> {
    let start = Instant::now();
    let rows = split.then(|| divide(pos, depth));
    let nodes = match &rows {
        Some(rows) => rows.iter().map(|(_, n)| n).sum(),
        None => perft(pos, depth),
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        (nodes as f64 / seconds).round()
    } else {
        0.0
    };
    if json {
        let mut out = json!({ "nodes": nodes, "seconds": seconds, "nps": nps });
        if let Some(rows) = &rows {
            let map: serde_json::Map<String, serde_json::Value> = rows
                .iter()
                .map(|(m, n)| (m.to_string(), json!(n)))
                .collect();
            out["divide"] = serde_json::Value::Object(map);
        }
        outln!("{out}");
    } else {
        if let Some(rows) = &rows {
            for (m, n) in rows {
                outln!("{m}: {n}");
            }
            outln!();
        }
        outln!("nodes   {nodes}");
        outln!("time    {seconds:.3} s");
        outln!("speed   {:.1} M nodes/s", nps / 1e6);
    }
    Ok(())
}

fn run_moves(pos: &Position, json: bool) -> Result<(), Failure> {
    let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    if json {
        outln!("{}", json!({ "moves": moves }));
    } else {
        let status = if moves.is_empty() {
            if pos.is_check() {
                " (checkmate)"
            } else {
                " (no legal move)"
            }
        } else if pos.is_check() {
            " (in check)"
        } else {
            ""
        };
        outln!("{} legal moves{status}", moves.len());
        if !moves.is_empty() {
            outln!("{}", moves.join(" "));
        }
    }
    Ok(())
}

fn run_check_move(pos: &Position, m: gyoku::Move, json: bool) -> Result<(), Failure> {
    let verdict = pos.check_move(m);
    match (verdict, json) {
        (Ok(()), true) => outln!("{}", json!({ "legal": true })),
        (Err(kind), true) => outln!("{}", json!({ "legal": false, "kind": kind.code() })),
        (Ok(()), false) => outln!("{m}: legal"),
        (Err(kind), false) => outln!("{m}: illegal: {} ({kind})", kind.code()),
    }
    verdict.map_err(|_| Failure::No)
}
