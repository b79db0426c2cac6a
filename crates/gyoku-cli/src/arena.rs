//! `gyoku engine` and `gyoku match`.

use std::io::IsTerminal;
use std::path::PathBuf;

use gyoku_arena::builtin::{self, Style};
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::executor::Entrant;
use gyoku_arena::openings;
use gyoku_arena::runner::{self, MatchConfig};
use gyoku_arena::timecontrol::{describe, parse_duration, parse_time_control};
use gyoku_league::sprt::Sprt;
use indicatif::{ProgressBar, ProgressStyle};

use crate::Failure;
use crate::args::RuleArgs;
use crate::testing::{self, Output};

/// `gyoku engine [--style greedy|random] [--seed N] [--reseed-each-game]`.
pub fn run_engine(
    style: &str,
    seed: u64,
    reseed_each_game: bool,
    delay: Option<&str>,
) -> Result<(), Failure> {
    let style = Style::from_name(style).ok_or_else(|| {
        Failure::Input(format!("--style: unknown style '{style}' (greedy, random)"))
    })?;
    let delay = delay
        .map(parse_duration)
        .transpose()
        .map_err(|e| Failure::Input(format!("--delay: {e}")))?;
    let config = builtin::Config {
        style,
        seed,
        reseed_each_game,
        quirk: delay.map(|ms| builtin::Quirk::Slow(std::time::Duration::from_millis(ms))),
        quirk_from: 1,
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
    pub clock: crate::args::ClockArgs,
    pub margin: Option<String>,
    pub openings: Option<PathBuf>,
    pub opening_plies: Option<usize>,
    pub out: Option<PathBuf>,
    pub concurrency: Option<usize>,
    pub options: Vec<String>,
    pub testing: crate::args::TestingArgs,
    pub json: bool,
}

/// Splits `gyoku csa-client`'s `--option` values: `NAME=VALUE`, or `1:NAME=VALUE`.
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

/// Reads `--time`, `--byoyomi`, `--margin`, `--openings` and `--opening-plies`; with no
/// time given, an event preset's (`wcsc`, `denryu`, `floodgate`) own clock.
fn conditions(
    (preset, rules): (gyoku::Preset, &gyoku::RuleSet),
    (time, byoyomi, clock): (Option<&str>, Option<&str>, &crate::args::ClockArgs),
    margin: Option<&str>,
    openings: Option<&std::path::Path>,
    opening_plies: Option<usize>,
) -> Result<Conditions, Failure> {
    let time = match (time, byoyomi, preset.event()) {
        (None, None, Some(event)) => event.clock,
        _ => parse_time_control(time, byoyomi)
            .map_err(|e| Failure::Input(format!("time control: {e}")))?,
    };
    let time = clock.apply(time)?;
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

/// `gyoku match --engine [NAME=]CMD --engine [NAME=]CMD ...`.
pub fn run_match(args: MatchArgs) -> Result<(), Failure> {
    if args.engines.len() != 2 {
        return Err(Failure::Input(format!(
            "--engine: give exactly two engines (got {})",
            args.engines.len()
        )));
    }
    let output = testing::output(&args.testing.output, args.json)?;
    let specs: Vec<(Option<String>, String)> = args
        .engines
        .iter()
        .map(|e| testing::engine_spec(e))
        .collect();
    let given: Vec<Option<String>> = specs.iter().map(|(n, _)| n.clone()).collect();
    testing::check_unique(&given)?;
    let (preset, rules) = args.rules.rule_set()?;
    let Conditions {
        time,
        margin,
        mut openings,
    } = conditions(
        (preset, &rules),
        (args.time.as_deref(), args.byoyomi.as_deref(), &args.clock),
        args.margin.as_deref(),
        args.openings.as_deref(),
        args.opening_plies,
    )?;
    testing::order_openings(&args.testing, &mut openings)?;
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
    let mut entrants: Vec<Entrant> = specs
        .iter()
        .map(|(name, command)| Entrant {
            name: name.clone(),
            ..Entrant::new(EngineConfig::new(command.clone()))
        })
        .collect();
    testing::assign_options(&args.options, &given, &mut entrants)?;
    testing::apply(&args.testing, &given, &mut entrants)?;
    // Default concurrency: cores / threads per engine (from a Threads, Thread or
    // USI_Threads option the user sets; 1 otherwise).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = entrants
        .iter()
        .flat_map(|e| &e.engine.options)
        .filter(|(n, _)| matches!(n.as_str(), "Threads" | "Thread" | "USI_Threads"))
        .filter_map(|(_, v)| v.parse::<usize>().ok())
        .max()
        .unwrap_or(1)
        .max(1);
    let [e1, e2]: [Entrant; 2] = entrants.try_into().expect("two engines");
    let book = args.openings.as_ref().map_or("startpos".to_string(), |p| {
        p.file_name().map_or(p.display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        })
    });
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
        log_usi: args.testing.log_usi.clone(),
    };
    if output != Output::Json {
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
    let bar = (std::io::stderr().is_terminal() && output == Output::Text).then(|| {
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
            if let (Output::Fastchess, Some(g)) = (output, &p.finished) {
                let [black, white] = &g.players;
                outln!(
                    "{}",
                    gyoku_arena::fastchess::finished_line(
                        g.entry.number,
                        black,
                        white,
                        g.result,
                        &g.entry.reason
                    )
                );
            }
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
            } else if let (Some((llr, tally)), Some(s), Output::Text) = (p.sprt, &sprt, output) {
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
    match output {
        Output::Json => outln!("{}", summary.to_json()),
        Output::Text => out!("{}", summary.table()),
        Output::Fastchess => out!("{}", summary.fastchess_results(&describe(&time), &book)),
    }
    if summary.interrupted {
        return Err(Failure::Run("the match was interrupted".into()));
    }
    Ok(())
}

/// `gyoku tournament --engine NAME=CMD ...`.
pub fn run_tournament(args: crate::args::TournamentArgs) -> Result<(), Failure> {
    use gyoku_arena::tournament::{self, TournamentConfig};
    use gyoku_league::schedule::Format;
    use gyoku_league::schedule::Plan;
    let format: Format = args
        .format
        .parse()
        .map_err(|e| Failure::Input(format!("--format: {e}")))?;
    let output = testing::output(&args.testing.output, args.json)?;
    // A bare command is named after its file, as it always was (a tournament's directory
    // names its engines, and resumes by them).
    let given: Vec<Option<String>> = args
        .engines
        .iter()
        .map(|spec| match testing::engine_spec(spec) {
            (Some(name), _) => name,
            (None, _) => {
                let first = shell_first_word(spec);
                std::path::Path::new(&first)
                    .file_name()
                    .map_or(first.clone(), |n| n.to_string_lossy().into_owned())
            }
        })
        .map(Some)
        .collect();
    testing::check_unique(&given)?;
    let mut engines: Vec<Entrant> = args
        .engines
        .iter()
        .zip(&given)
        .map(|(spec, name)| Entrant {
            name: name.clone(),
            ..Entrant::new(EngineConfig::new(testing::engine_spec(spec).1))
        })
        .collect();
    if engines.len() < 2 {
        return Err(Failure::Input(format!(
            "--engine: give two engines or more (got {})",
            engines.len()
        )));
    }
    testing::assign_options(&args.options, &given, &mut engines)?;
    testing::apply(&args.testing, &given, &mut engines)?;
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
        mut openings,
    } = conditions(
        (preset, &rules),
        (args.time.as_deref(), args.byoyomi.as_deref(), &args.clock),
        args.margin.as_deref(),
        args.openings.as_deref(),
        args.opening_plies,
    )?;
    testing::order_openings(&args.testing, &mut openings)?;
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
        log_usi: args.testing.log_usi.clone(),
    };
    let names: Vec<String> = given.iter().flatten().cloned().collect();
    if output != Output::Json {
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
    let bar = (std::io::stderr().is_terminal() && output == Output::Text).then(|| {
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
            if let (Output::Fastchess, Some(g)) = (output, &p.finished) {
                use gyoku::{Color, GameResult};
                let result = match g.result.as_str() {
                    "black" => GameResult::Win(Color::Black),
                    "white" => GameResult::Win(Color::White),
                    "draw" => GameResult::Draw,
                    _ => GameResult::NoContest,
                };
                outln!(
                    "{}",
                    gyoku_arena::fastchess::finished_line(
                        g.number,
                        &names[g.players[0]],
                        &names[g.players[1]],
                        result,
                        &g.reason
                    )
                );
            }
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
    match output {
        Output::Json => outln!("{}", summary.to_json()),
        Output::Text | Output::Fastchess => out!("{}", summary.text()),
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
    let back = parse_duration(&args.reconnect_for)
        .map_err(|e| Failure::Input(format!("--reconnect-for: {e}")))?;
    config.reconnect_for = std::time::Duration::from_millis(back);
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
