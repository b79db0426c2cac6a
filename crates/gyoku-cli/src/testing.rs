//! What `gyoku match` and `gyoku tournament` share: engines by name (`--engine
//! NAME=COMMAND`), engine options for one or all (`--option`), the engine-testing options
//! (`--timemargin`, `--nodes`, `--depth`, `--movetime`, `--engine-option`), the openings'
//! order and the output form.

use gyoku_arena::executor::Entrant;
use gyoku_arena::openings::{self, Opening};
use gyoku_arena::referee::SearchLimits;
use gyoku_arena::timecontrol::{parse_duration, parse_time_control};

use crate::Failure;
use crate::args::TestingArgs;

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// A table.
    Text,
    /// JSON.
    Json,
    /// fastchess's and shogitest's lines.
    Fastchess,
}

/// `--output FORM`, with `--json` as `--output json`.
pub fn output(form: &str, json: bool) -> Result<Output, Failure> {
    let output = match form {
        "text" => Output::Text,
        "json" => Output::Json,
        "fastchess" => Output::Fastchess,
        other => {
            return Err(Failure::Input(format!(
                "--output {other}: text, json or fastchess"
            )));
        }
    };
    match (output, json) {
        (_, false) | (Output::Json, true) => Ok(output),
        (Output::Text, true) => Ok(Output::Json),
        (Output::Fastchess, true) => Err(Failure::Input(
            "--json and --output fastchess: choose one".into(),
        )),
    }
}

/// `--engine NAME=COMMAND`, or a bare command (no name). A name is what stands before the
/// first `=` when it has no whitespace and no `/` (so `--engine "/opt/e --x=1"` is a
/// command).
pub fn engine_spec(spec: &str) -> (Option<String>, String) {
    match spec.split_once('=') {
        Some((name, command))
            if !name.is_empty()
                && !name.contains(|c: char| c.is_whitespace() || c == '/')
                && !command.trim().is_empty() =>
        {
            (Some(name.to_string()), command.to_string())
        }
        _ => (None, spec.to_string()),
    }
}

/// Refuses two engines given one name.
pub fn check_unique(names: &[Option<String>]) -> Result<(), Failure> {
    for (k, name) in names.iter().enumerate() {
        if let Some(n) = name
            && names[..k].iter().any(|m| m.as_deref() == Some(n))
        {
            return Err(Failure::Input(format!(
                "--engine: two engines named '{n}' (give each its own NAME=COMMAND)"
            )));
        }
    }
    Ok(())
}

/// Which engines `who` names: its number from 1, or its given name.
fn engine_index(who: &str, names: &[Option<String>]) -> Option<usize> {
    if let Ok(n) = who.parse::<usize>() {
        return (1..=names.len()).contains(&n).then(|| n - 1);
    }
    names.iter().position(|m| m.as_deref() == Some(who))
}

/// `--option NAME=VALUE` (every engine) and `ENGINE:NAME=VALUE` (one: its number from 1,
/// or its name), into each entrant's USI options.
pub fn assign_options(
    options: &[String],
    names: &[Option<String>],
    entrants: &mut [Entrant],
) -> Result<(), Failure> {
    for o in options {
        let (who, rest) = match o.split_once(':') {
            Some((who, rest)) if !who.contains('=') => match engine_index(who, names) {
                Some(k) => (Some(k), rest),
                None if who.bytes().all(|b| b.is_ascii_digit()) => {
                    let range = match names.len() {
                        2 => "1 or 2".to_string(),
                        n => format!("1 to {n}"),
                    };
                    return Err(Failure::Input(format!(
                        "--option '{o}': there is no engine {who} ({range})"
                    )));
                }
                None => (None, o.as_str()),
            },
            _ => (None, o.as_str()),
        };
        let (name, value) = rest
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains(' '))
            .ok_or_else(|| {
                Failure::Input(format!("--option '{o}': NAME=VALUE or ENGINE:NAME=VALUE"))
            })?;
        for (k, e) in entrants.iter_mut().enumerate() {
            if who.is_none_or(|w| w == k) {
                e.engine.options.push((name.to_string(), value.to_string()));
            }
        }
    }
    Ok(())
}

/// Sets one limit from `KEY=VALUE`; `tc` and `byoyomi` are gathered apart.
fn set_limit(
    limits: &mut SearchLimits,
    clock: &mut (Option<String>, Option<String>),
    key: &str,
    value: &str,
    what: &str,
) -> Result<(), Failure> {
    let bad = |e: String| Failure::Input(format!("{what}: {e}"));
    let number = |v: &str| {
        v.parse::<u64>()
            .map_err(|_| bad(format!("'{v}' is not a whole number")))
    };
    match key {
        "tc" => clock.0 = Some(value.to_string()),
        "byoyomi" => clock.1 = Some(value.to_string()),
        "nodes" => limits.nodes = Some(number(value)?),
        "depth" => {
            limits.depth =
                Some(u32::try_from(number(value)?).map_err(|_| bad(format!("depth {value}")))?);
        }
        "movetime" | "st" => limits.movetime = Some(parse_duration(value).map_err(bad)?),
        "timemargin" => {
            // fastchess gives it in milliseconds: a bare number is milliseconds here too.
            limits.timemargin = match value.parse::<u64>() {
                Ok(ms) => ms,
                Err(_) => parse_duration(value).map_err(bad)?,
            };
        }
        other => {
            return Err(bad(format!(
                "unknown key '{other}' (tc, byoyomi, nodes, depth, movetime, timemargin)"
            )));
        }
    }
    Ok(())
}

/// The engine-testing options, into each entrant's limits and own time control.
pub fn apply(
    args: &TestingArgs,
    names: &[Option<String>],
    entrants: &mut [Entrant],
) -> Result<(), Failure> {
    let mut every = SearchLimits::default();
    let mut no_clock = (None, None);
    if let Some(t) = &args.timemargin {
        set_limit(&mut every, &mut no_clock, "timemargin", t, "--timemargin")?;
    }
    if let Some(n) = args.nodes {
        every.nodes = Some(n);
    }
    if let Some(d) = args.depth {
        every.depth = Some(d);
    }
    if let Some(m) = &args.movetime {
        set_limit(&mut every, &mut no_clock, "movetime", m, "--movetime")?;
    }
    let mut clocks: Vec<(Option<String>, Option<String>)> = vec![(None, None); entrants.len()];
    for e in entrants.iter_mut() {
        e.limits = every;
    }
    for spec in &args.engine_options {
        let what = format!("--engine-option '{spec}'");
        let (who, setting) = spec.split_once(':').ok_or_else(|| {
            Failure::Input(format!("{what}: ENGINE:KEY=VALUE (ENGINE a name or 1, 2)"))
        })?;
        let k = engine_index(who, names)
            .ok_or_else(|| Failure::Input(format!("{what}: no engine '{who}'")))?;
        let (key, value) = setting
            .split_once('=')
            .ok_or_else(|| Failure::Input(format!("{what}: KEY=VALUE after the engine")))?;
        set_limit(
            &mut entrants[k].limits,
            &mut clocks[k],
            key.trim(),
            value.trim(),
            &what,
        )?;
    }
    for (e, (tc, byoyomi)) in entrants.iter_mut().zip(clocks) {
        if tc.is_some() || byoyomi.is_some() {
            e.time = Some(
                parse_time_control(tc.as_deref(), byoyomi.as_deref())
                    .map_err(|m| Failure::Input(format!("--engine-option: {m}")))?,
            );
        }
    }
    Ok(())
}

/// `--openings-order`: the file's order, or shuffled by `--seed`.
pub fn order_openings(args: &TestingArgs, openings: &mut [Opening]) -> Result<(), Failure> {
    match args.openings_order.as_str() {
        "sequential" => Ok(()),
        "random" => {
            openings::shuffle(openings, args.seed);
            Ok(())
        }
        other => Err(Failure::Input(format!(
            "--openings-order {other}: sequential or random"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_name_only_what_looks_like_a_name() {
        for (spec, name, command) in [
            ("new=target/release/eng", Some("new"), "target/release/eng"),
            (
                "old=gyoku engine --seed 2",
                Some("old"),
                "gyoku engine --seed 2",
            ),
            ("gyoku engine --seed 2", None, "gyoku engine --seed 2"),
            ("/opt/e --hash=16", None, "/opt/e --hash=16"),
            ("env A=1 e", None, "env A=1 e"),
            ("=cmd", None, "=cmd"),
            ("x=", None, "x="),
        ] {
            let (n, c) = engine_spec(spec);
            assert_eq!((n.as_deref(), c.as_str()), (name, command), "{spec}");
        }
    }
}
