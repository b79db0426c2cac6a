//! Time controls as the command line writes them: `60+1s` (60 s main time, 1 s increment),
//! `--byoyomi 1s`, durations such as `500ms`, `1.5s`, `2m`, `90` (seconds).

use gyoku::{Millis, TimeControl};

/// Parses thinking-time units, `COUNTxDURATION` (1 to 1,000 units of some time): `10x60s`,
/// the NHK Cup's ten 1-minute units.
///
/// ```
/// use gyoku_arena::timecontrol::parse_thinking_units;
/// let u = parse_thinking_units("10x60s").unwrap();
/// assert_eq!((u.count, u.unit), (10, 60_000));
/// assert!(parse_thinking_units("0x60s").is_err());
/// assert!(parse_thinking_units("ten").is_err());
/// ```
///
/// # Errors
/// A message naming the text.
pub fn parse_thinking_units(text: &str) -> Result<gyoku::ThinkingUnits, String> {
    let bad = || format!("'{text}': COUNTxDURATION, such as 10x60s (1 to 1,000 units)");
    let (count, unit) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let count: u32 = count.trim().parse().map_err(|_| bad())?;
    let unit = parse_duration(unit.trim()).map_err(|_| bad())?;
    if !(1..=1000).contains(&count) || unit == 0 {
        return Err(bad());
    }
    Ok(gyoku::ThinkingUnits { count, unit })
}

/// Parses a duration: a number with `ms`, `s`, `m` or `h`, or a bare number of seconds.
///
/// ```
/// use gyoku_arena::timecontrol::parse_duration;
/// assert_eq!(parse_duration("1.5s"), Ok(1500));
/// assert_eq!(parse_duration("250ms"), Ok(250));
/// assert_eq!(parse_duration("2m"), Ok(120_000));
/// assert_eq!(parse_duration("60"), Ok(60_000));
/// assert!(parse_duration("fast").is_err());
/// ```
///
/// # Errors
/// A message naming the text.
pub fn parse_duration(text: &str) -> Result<Millis, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let scale = match unit {
        "ms" => 1.0,
        "s" => 1000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return Err(format!("'{text}': unknown unit '{unit}' (ms, s, m, h)")),
    };
    let n: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration (e.g. 500ms, 1s, 2m)"))?;
    if !n.is_finite() || n < 0.0 || n * scale > 1e12 {
        return Err(format!("'{text}' is out of range"));
    }
    Ok((n * scale).round() as Millis)
}

/// The time control of `--time MAIN[+INCREMENT]` and `--byoyomi PERIOD` (either or both;
/// neither is 1 s byoyomi). An increment and a byoyomi together are refused: USI cannot
/// say both in one `go`.
///
/// ```
/// use gyoku_arena::timecontrol::parse_time_control;
/// let tc = parse_time_control(Some("60+1s"), None).unwrap();
/// assert_eq!((tc.main, tc.increment, tc.byoyomi), (60_000, 1000, 0));
/// let tc = parse_time_control(Some("10s"), Some("1s")).unwrap();
/// assert_eq!((tc.main, tc.increment, tc.byoyomi), (10_000, 0, 1000));
/// assert!(parse_time_control(Some("10+1"), Some("1s")).is_err());
/// ```
///
/// # Errors
/// A message naming the bad part.
pub fn parse_time_control(
    time: Option<&str>,
    byoyomi: Option<&str>,
) -> Result<TimeControl, String> {
    let (main, increment) = match time {
        None => (0, 0),
        Some(t) => match t.split_once('+') {
            Some((m, i)) => (parse_duration(m)?, parse_duration(i)?),
            None => (parse_duration(t)?, 0),
        },
    };
    let byoyomi = match (time, byoyomi) {
        (_, Some(b)) => parse_duration(b)?,
        (None, None) => 1000,
        (Some(_), None) => 0,
    };
    if increment > 0 && byoyomi > 0 {
        return Err("--time with an increment and --byoyomi cannot be combined (USI sends one or the other)".into());
    }
    if main == 0 && increment == 0 && byoyomi == 0 {
        return Err("the time control gives no time at all".into());
    }
    Ok(TimeControl {
        main,
        byoyomi,
        increment,
        ..TimeControl::sudden_death(main)
    })
}

/// The time control written back (`60s+1s`, `10s, byoyomi 1s`; `, 3 periods`,
/// `, 10x60s units`, `, floored minutes` where given), for summaries and records.
///
/// ```
/// use gyoku::{Rounding, TimeControl};
/// use gyoku_arena::timecontrol::describe;
/// assert_eq!(describe(&TimeControl::fischer(60_000, 1_000)), "60s+1s");
/// let nhk = TimeControl::byoyomi(600_000, 30_000).with_thinking_units(10, 60_000);
/// assert_eq!(describe(&nhk), "600s, byoyomi 30s, 10x60s units");
/// let jsa = TimeControl::byoyomi(3_600_000, 60_000).with_rounding(Rounding::FlooredMinutes);
/// assert_eq!(describe(&jsa), "3600s, byoyomi 60s, floored minutes");
/// ```
pub fn describe(tc: &TimeControl) -> String {
    let d = |ms: Millis| {
        if ms.is_multiple_of(1000) {
            format!("{}s", ms / 1000)
        } else {
            format!("{ms}ms")
        }
    };
    let mut text = match (tc.increment, tc.byoyomi) {
        (0, 0) => d(tc.main),
        (inc, 0) => format!("{}+{}", d(tc.main), d(inc)),
        (_, b) => format!("{}, byoyomi {}", d(tc.main), d(b)),
    };
    if tc.period_count() > 1 {
        text.push_str(&format!(", {} periods", tc.period_count()));
    }
    if tc.thinking_units.count > 0 {
        let u = tc.thinking_units;
        text.push_str(&format!(", {}x{} units", u.count, d(u.unit)));
    }
    match tc.rounding {
        gyoku::Rounding::FlooredMinutes => text.push_str(", floored minutes"),
        gyoku::Rounding::FlooredSeconds => text.push_str(", floored seconds"),
        gyoku::Rounding::WholeSeconds => text.push_str(", whole seconds"),
        gyoku::Rounding::Exact => {}
    }
    text
}
