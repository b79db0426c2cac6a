//! `gyoku engine` and `gyoku match`.

use std::io::IsTerminal;
use std::path::PathBuf;

use gyoku_arena::builtin::{self, Style};
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::openings;
use gyoku_arena::runner::{self, MatchConfig};
use gyoku_arena::sprt::Sprt;
use gyoku_arena::timecontrol::{describe, parse_duration, parse_time_control};
use indicatif::{ProgressBar, ProgressStyle};

use crate::Failure;
use crate::args::RuleArgs;

/// `gyoku engine [--style greedy|random] [--seed N]`.
pub fn run_engine(style: &str, seed: u64) -> Result<(), Failure> {
    let style = match style {
        "greedy" => Style::Greedy,
        "random" => Style::Random,
        other => {
            return Err(Failure::Input(format!(
                "--style: unknown style '{other}' (greedy, random)"
            )));
        }
    };
    let config = builtin::Config {
        style,
        seed,
        ..builtin::Config::default()
    };
    let stdin = std::io::stdin();
    builtin::run(stdin.lock(), std::io::stdout().lock(), config)
        .map_err(|e| Failure::Run(format!("engine: {e}")))
}

/// The arguments of `gyoku match`.
#[derive(Debug)]
pub struct MatchArgs {
    pub engines: Vec<String>,
    pub games: Option<u32>,
    pub sprt: Option<String>,
    pub adjudicate_resign: Option<String>,
    pub adjudicate_draw: Option<String>,
    pub rules: RuleArgs,
    pub time: Option<String>,
    pub byoyomi: Option<String>,
    pub margin: Option<String>,
    pub openings: Option<PathBuf>,
    pub opening_plies: Option<usize>,
    pub out: Option<PathBuf>,
    pub concurrency: Option<usize>,
    pub options: Vec<String>,
    pub json: bool,
}

/// Splits `--option` values: `NAME=VALUE` for both engines, `1:NAME=VALUE` for one.
fn engine_options(options: &[String]) -> Result<[Vec<(String, String)>; 2], Failure> {
    let mut out = [Vec::new(), Vec::new()];
    for o in options {
        let (which, rest) = match o.split_once(':') {
            Some(("1", rest)) => (vec![0], rest),
            Some(("2", rest)) => (vec![1], rest),
            Some((n, _)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(Failure::Input(format!(
                    "--option '{o}': there is no engine {n} (1 or 2)"
                )));
            }
            _ => (vec![0, 1], o.as_str()),
        };
        let (name, value) = rest.split_once('=').ok_or_else(|| {
            Failure::Input(format!(
                "--option '{o}': expected NAME=VALUE or 1:NAME=VALUE"
            ))
        })?;
        if name.is_empty() || name.contains(' ') {
            return Err(Failure::Input(format!("--option '{o}': bad option name")));
        }
        for k in which {
            out[k].push((name.to_string(), value.to_string()));
        }
    }
    Ok(out)
}

impl From<runner::MatchError> for Failure {
    fn from(e: runner::MatchError) -> Failure {
        match e {
            runner::MatchError::Input(m) => Failure::Input(m),
            runner::MatchError::Run(m) => Failure::Run(m),
        }
    }
}

/// `--adjudicate-resign` and `--adjudicate-draw`.
fn adjudication(
    resign: Option<&str>,
    draw: Option<&str>,
) -> Result<gyoku_arena::adjudication::Adjudication, Failure> {
    use gyoku_arena::adjudication::{Adjudication, DrawRule, ResignRule};
    Ok(Adjudication {
        resign: resign
            .map(ResignRule::parse)
            .transpose()
            .map_err(|e| Failure::Input(format!("--adjudicate-resign: {e}")))?,
        draw: draw
            .map(DrawRule::parse)
            .transpose()
            .map_err(|e| Failure::Input(format!("--adjudicate-draw: {e}")))?,
    })
}

/// What a match's or a tournament's games are played with, from their options.
struct Conditions {
    time: gyoku::TimeControl,
    margin: gyoku::Millis,
    openings: Vec<gyoku_arena::openings::Opening>,
}

/// Reads `--time`, `--byoyomi`, `--margin`, `--openings` and `--opening-plies`.
fn conditions(
    rules: &gyoku::RuleSet,
    time: Option<&str>,
    byoyomi: Option<&str>,
    margin: Option<&str>,
    openings: Option<&std::path::Path>,
    opening_plies: Option<usize>,
) -> Result<Conditions, Failure> {
    let time = parse_time_control(time, byoyomi)
        .map_err(|e| Failure::Input(format!("time control: {e}")))?;
    let margin = match margin {
        Some(m) => parse_duration(m).map_err(|e| Failure::Input(format!("--margin: {e}")))?,
        None => 0,
    };
    let openings = match openings {
        Some(path) => openings::load(path, opening_plies, rules, crate::records::max_file_bytes())
            .map_err(Failure::Input)?,
        None => Vec::new(),
    };
    Ok(Conditions {
        time,
        margin,
        openings,
    })
}

/// `gyoku match --engine CMD --engine CMD ...`.
pub fn run_match(args: MatchArgs) -> Result<(), Failure> {
    let [one, two] = args.engines.as_slice() else {
        return Err(Failure::Input(format!(
            "--engine: give exactly two engines (got {})",
            args.engines.len()
        )));
    };
    let (preset, rules) = args.rules.rule_set()?;
    let Conditions {
        time,
        margin,
        openings,
    } = conditions(
        &rules,
        args.time.as_deref(),
        args.byoyomi.as_deref(),
        args.margin.as_deref(),
        args.openings.as_deref(),
        args.opening_plies,
    )?;
    let sprt = args
        .sprt
        .as_deref()
        .map(Sprt::parse)
        .transpose()
        .map_err(|e| Failure::Input(format!("--sprt: {e}")))?;
    let games = args
        .games
        .unwrap_or(if sprt.is_some() { 100_000 } else { 2 });
    if sprt.is_some() && games % 2 == 1 {
        return Err(Failure::Input(format!(
            "--games {games} with --sprt: an even number (the test counts pairs)"
        )));
    }
    let [o1, o2] = engine_options(&args.options)?;
    let mut e1 = EngineConfig::new(one.clone());
    e1.options = o1;
    let mut e2 = EngineConfig::new(two.clone());
    e2.options = o2;
    // Default concurrency: cores / threads per engine (from a Threads, Thread or
    // USI_Threads option the user sets; 1 otherwise).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = e1
        .options
        .iter()
        .chain(&e2.options)
        .filter(|(n, _)| matches!(n.as_str(), "Threads" | "Thread" | "USI_Threads"))
        .filter_map(|(_, v)| v.parse::<usize>().ok())
        .max()
        .unwrap_or(1)
        .max(1);
    let config = MatchConfig {
        engines: [e1, e2],
        games,
        preset: preset.to_string(),
        rules,
        time,
        margin,
        openings,
        out: args.out.clone(),
        concurrency: args.concurrency.unwrap_or(cores / threads).max(1),
        adjudication: adjudication(
            args.adjudicate_resign.as_deref(),
            args.adjudicate_draw.as_deref(),
        )?,
        sprt,
    };
    if !args.json {
        eprintln!(
            "gyoku match: {} games, rules {preset}, {}, {} at once",
            if sprt.is_some() {
                format!("SPRT, at most {games}")
            } else {
                games.to_string()
            },
            describe(&time),
            config.concurrency
        );
    }
    let bar = (std::io::stderr().is_terminal() && !args.json).then(|| {
        let bar = ProgressBar::new(u64::from(games));
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed}]")
                .expect("a valid template"),
        );
        bar
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Run(format!("cannot start the runtime: {e}")))?;
    let summary = runtime
        .block_on(runner::run(config, |p| {
            if let Some(bar) = &bar {
                bar.set_position(u64::from(p.done));
                let mut message =
                    format!("engine 1: +{} ={} -{}", p.score[0], p.score[1], p.score[2]);
                if let (Some((llr, tally)), Some(s)) = (p.sprt, &sprt) {
                    let (lower, upper) = s.bounds();
                    let [a, b, c, d, e] = tally.pairs;
                    message.push_str(&format!(
                        "  LLR {llr:.2} ({lower:.2}, {upper:.2})  pairs [{a} {b} {c} {d} {e}]"
                    ));
                    if let Some((elo, error, los)) = tally.elo() {
                        message.push_str(&format!(
                            "  Elo {elo:+.1} ± {error:.1}  LOS {:.1} %",
                            los * 100.0
                        ));
                    }
                }
                bar.set_message(message);
            } else if let (Some((llr, tally)), Some(s), false) = (p.sprt, &sprt, args.json) {
                // Not a terminal: a line per finished pair.
                if p.done % 2 == 0 && p.done > 0 {
                    let (lower, upper) = s.bounds();
                    eprintln!(
                        "{} games: LLR {llr:.3} ({lower:.2}, {upper:.2}), pairs {:?}",
                        p.done, tally.pairs
                    );
                }
            }
        }))
        .map_err(Failure::from)?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if args.json {
        outln!("{}", summary.to_json());
    } else {
        out!("{}", summary.table());
    }
    if summary.interrupted {
        return Err(Failure::Run("the match was interrupted".into()));
    }
    Ok(())
}

/// `gyoku tournament --engine NAME=CMD ...`.
pub fn run_tournament(args: crate::args::TournamentArgs) -> Result<(), Failure> {
    use gyoku_arena::tournament::schedule::Plan;
    use gyoku_arena::tournament::{self, Format, TournamentConfig};
    let format: Format = args
        .format
        .parse()
        .map_err(|e| Failure::Input(format!("--format: {e}")))?;
    let mut engines: Vec<(String, EngineConfig)> = Vec::new();
    for spec in &args.engines {
        let (name, command) = match spec.split_once('=') {
            Some((name, command)) if !name.is_empty() && !name.contains(char::is_whitespace) => {
                (name.to_string(), command.to_string())
            }
            _ => {
                let first = shell_first_word(spec);
                let name = std::path::Path::new(&first)
                    .file_name()
                    .map_or(first.clone(), |n| n.to_string_lossy().into_owned());
                (name, spec.clone())
            }
        };
        if engines.iter().any(|(n, _)| *n == name) {
            return Err(Failure::Input(format!(
                "--engine: two engines named '{name}' (name them: NAME=COMMAND)"
            )));
        }
        engines.push((name, EngineConfig::new(command)));
    }
    if engines.len() < 2 {
        return Err(Failure::Input(format!(
            "--engine: give two engines or more (got {})",
            engines.len()
        )));
    }
    for o in &args.options {
        let (who, rest) = match o.split_once(':') {
            Some((who, rest)) if engines.iter().any(|(n, _)| n == who) => (Some(who), rest),
            _ => (None, o.as_str()),
        };
        let (name, value) = rest
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains(' '))
            .ok_or_else(|| {
                Failure::Input(format!("--option '{o}': NAME=VALUE or ENGINE:NAME=VALUE"))
            })?;
        for (n, e) in &mut engines {
            if who.is_none_or(|w| w == n) {
                e.options.push((name.to_string(), value.to_string()));
            }
        }
    }
    if args.games_per_encounter == 0 {
        return Err(Failure::Input("--games-per-encounter: 1 or more".into()));
    }
    let n = engines.len() as u32;
    let rounds = match (format, args.rounds) {
        (_, Some(0)) => return Err(Failure::Input("--rounds: 1 or more".into())),
        (_, Some(r)) => r,
        (Format::Swiss, None) => (32 - (n - 1).leading_zeros() + 1).min(n - 1).max(1),
        (_, None) => 1,
    };
    let (preset, rules) = args.rules.rule_set()?;
    let Conditions {
        time,
        margin,
        openings,
    } = conditions(
        &rules,
        args.time.as_deref(),
        args.byoyomi.as_deref(),
        args.margin.as_deref(),
        args.openings.as_deref(),
        args.opening_plies,
    )?;
    let plan = Plan {
        format,
        engines: engines.len(),
        rounds,
        games_per_encounter: args.games_per_encounter,
    };
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let config = TournamentConfig {
        engines,
        plan,
        preset: preset.to_string(),
        rules,
        time,
        margin,
        openings,
        out: args.out.clone(),
        concurrency: args.concurrency.unwrap_or(cores).max(1),
        adjudication: adjudication(
            args.adjudicate_resign.as_deref(),
            args.adjudicate_draw.as_deref(),
        )?,
    };
    let names: Vec<String> = config.engines.iter().map(|(n, _)| n.clone()).collect();
    if !args.json {
        eprintln!(
            "gyoku tournament: {} of {} engines, {} games{} ({} per encounter), rules {preset}, {}, {} at once",
            format.name(),
            names.len(),
            plan.total(),
            if format == Format::Knockout {
                " and any tie-breaks"
            } else {
                ""
            },
            plan.games_per_encounter,
            describe(&time),
            config.concurrency
        );
    }
    let bar = (std::io::stderr().is_terminal() && !args.json).then(|| {
        let bar = ProgressBar::new(u64::from(plan.total()));
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games [{elapsed}]\n{wide_msg}")
                .expect("a valid template"),
        );
        bar
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Run(format!("cannot start the runtime: {e}")))?;
    let summary = runtime
        .block_on(tournament::run(config, |p| {
            if let Some(bar) = &bar {
                bar.set_length(u64::from(p.total.max(p.done)));
                bar.set_position(u64::from(p.done));
                bar.set_message(p.standings.brief(&names));
            }
        }))
        .map_err(Failure::from)?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if args.json {
        outln!("{}", summary.to_json());
    } else {
        out!("{}", summary.text());
    }
    if summary.interrupted {
        return Err(Failure::Run("the tournament was interrupted".into()));
    }
    Ok(())
}

/// The first word of a command line (its program).
fn shell_first_word(command: &str) -> String {
    command
        .split_whitespace()
        .next()
        .unwrap_or(command)
        .trim_matches(['"', '\''])
        .to_string()
}

/// `gyoku csa-client`: a USI engine on a CSA server.
pub fn run_csa_client(args: crate::args::CsaClientArgs) -> Result<(), Failure> {
    use gyoku_arena::csa_bridge::{BridgeConfig, Ponder, run};
    let margin =
        parse_duration(&args.margin).map_err(|e| Failure::Input(format!("--margin: {e}")))?;
    let [options, _] = engine_options(&args.options)?;
    let mut engine = EngineConfig::new(args.engine);
    engine.options = options;
    let mut config = BridgeConfig::new(&args.host, args.port, &args.id, &args.password, engine);
    config.game = args.game;
    config.x1 = args.x1;
    config.games = if args.forever {
        None
    } else {
        Some(args.games.unwrap_or(1))
    };
    config.margin = std::time::Duration::from_millis(margin);
    let retry = parse_duration(&args.retry).map_err(|e| Failure::Input(format!("--retry: {e}")))?;
    config.retry = std::time::Duration::from_millis(retry);
    let grace = parse_duration(&args.server_grace)
        .map_err(|e| Failure::Input(format!("--server-grace: {e}")))?;
    config.server_grace = std::time::Duration::from_millis(grace);
    config.out = args.out;
    config.comments = !args.no_comments;
    config.restart_engine = args.restart_engine;
    config.ponder = match (args.ponder, args.early_ponder) {
        (_, true) => Ponder::AtOnce,
        (true, false) => Ponder::AfterEcho,
        (false, false) => Ponder::Off,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Run(e.to_string()))?;
    let reports = runtime
        .block_on(run(&config))
        .map_err(|e| Failure::Run(e.to_string()))?;
    let disagreeing = reports
        .iter()
        .filter(|r| !r.disagreements.is_empty())
        .count();
    eprintln!(
        "csa-client: {} games played, {} with a disagreement between the server and the rules",
        reports.len(),
        disagreeing
    );
    Ok(())
}
