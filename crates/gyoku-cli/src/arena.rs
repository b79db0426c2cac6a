//! `gyoku engine` and `gyoku match`.

use std::io::IsTerminal;
use std::path::PathBuf;

use gyoku_arena::builtin::{self, Style};
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::openings;
use gyoku_arena::runner::{self, MatchConfig};
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
    pub games: u32,
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

/// `gyoku match --engine CMD --engine CMD ...`.
pub fn run_match(args: MatchArgs) -> Result<(), Failure> {
    let [one, two] = args.engines.as_slice() else {
        return Err(Failure::Input(format!(
            "--engine: give exactly two engines (got {})",
            args.engines.len()
        )));
    };
    let (preset, rules) = args.rules.rule_set()?;
    let time = parse_time_control(args.time.as_deref(), args.byoyomi.as_deref())
        .map_err(|e| Failure::Input(format!("time control: {e}")))?;
    let margin = match &args.margin {
        Some(m) => parse_duration(m).map_err(|e| Failure::Input(format!("--margin: {e}")))?,
        None => 0,
    };
    let openings = match &args.openings {
        Some(path) => openings::load(
            path,
            args.opening_plies,
            &rules,
            crate::records::max_file_bytes(),
        )
        .map_err(Failure::Input)?,
        None => Vec::new(),
    };
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
        games: args.games,
        preset: preset.to_string(),
        rules,
        time,
        margin,
        openings,
        out: args.out.clone(),
        concurrency: args.concurrency.unwrap_or(cores / threads).max(1),
    };
    if !args.json {
        eprintln!(
            "gyoku match: {} games, rules {preset}, {}, {} at once",
            args.games,
            describe(&time),
            config.concurrency
        );
    }
    let bar = (std::io::stderr().is_terminal() && !args.json).then(|| {
        let bar = ProgressBar::new(u64::from(args.games));
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
                bar.set_message(format!(
                    "engine 1: +{} ={} -{}",
                    p.score[0], p.score[1], p.score[2]
                ));
            }
        }))
        .map_err(|e| match e {
            runner::MatchError::Input(m) => Failure::Input(m),
            runner::MatchError::Run(m) => Failure::Run(m),
        })?;
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
