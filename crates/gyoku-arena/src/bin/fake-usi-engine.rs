//! A scripted USI engine that misbehaves on purpose, for the match runner's tests:
//! `fake-usi-engine [QUIRK] [--from N] [--seed N] [--random]` where QUIRK is one of
//! `illegal`, `declare`, `slow:MS`, `crash`, `hang-ready`, `hang-go`, `garbage`,
//! `flood:LINES`, `script:MOVE,MOVE,...` (none: it plays like `gyoku engine`).

use std::io;
use std::time::Duration;

use gyoku_arena::builtin::{Config, Quirk, Style, run};

fn quirk(arg: &str) -> Result<Quirk, String> {
    let (name, value) = arg.split_once(':').unwrap_or((arg, ""));
    let number = || {
        value
            .parse::<u64>()
            .map_err(|_| format!("{arg}: expected a number"))
    };
    Ok(match name {
        "illegal" => Quirk::IllegalMove,
        "declare" => Quirk::AlwaysDeclare,
        "slow" => Quirk::Slow(Duration::from_millis(number()?)),
        "crash" => Quirk::Crash,
        "hang-ready" => Quirk::HangOnReady,
        "hang-go" => Quirk::HangOnGo,
        "garbage" => Quirk::Garbage,
        "flood" => Quirk::Flood(number()? as usize),
        "script" => Quirk::Script(
            value
                .split(',')
                .map(|m| m.parse().map_err(|e| format!("{m}: {e}")))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err(format!("unknown quirk '{arg}'")),
    })
}

fn main() {
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let parsed = match arg.as_str() {
            "--from" => args
                .next()
                .and_then(|n| n.parse().ok())
                .map(|n| config.quirk_from = n)
                .ok_or_else(|| "--from needs a number".to_string()),
            "--seed" => args
                .next()
                .and_then(|n| n.parse().ok())
                .map(|n| config.seed = n)
                .ok_or_else(|| "--seed needs a number".to_string()),
            "--random" => {
                config.style = Style::Random;
                Ok(())
            }
            q => quirk(q).map(|q| config.quirk = Some(q)),
        };
        if let Err(e) = parsed {
            eprintln!("fake-usi-engine: {e}");
            std::process::exit(2);
        }
    }
    let stdin = io::stdin();
    if let Err(e) = run(stdin.lock(), io::stdout().lock(), config) {
        eprintln!("fake-usi-engine: {e}");
    }
}
