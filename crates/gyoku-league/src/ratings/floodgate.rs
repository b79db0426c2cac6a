//! Floodgate's ratings, as shogi-server's `mk_rate` computes them from `mk_game_results`'
//! lines: each game weighted by its age (a half-life of 60 days after the first 7; older
//! than 730 days not counted), a draw half a win for each side, only logins `name+trip` that
//! are not `@NORATE` rated, players with fewer than 1 (weighted) win, 1 loss or 15 games
//! left out (again until none is), the rest rated by maximum likelihood within each group
//! that played each other, a group's mean at 1000, rates cut to whole points toward zero,
//! and optionally one player fixed at a rate. Players left out are listed in group 999 with
//! rate 0 when they have a weighted win or loss.
//!
//! The facts are read from `mk_rate` (shogi-server, GPL-2.0-or-later); this is Gyoku's own
//! code. Where `mk_rate` reads a record file (the plies of an `abnormal` game), this reads
//! the plies column that `mk_game_results` wrote from the same file.

use std::collections::{BTreeMap, HashSet};

use super::mle;

/// The group number of players who are listed but not rated.
pub const UNRATED_GROUP: usize = 999;

/// Players rated need at least this many weighted games.
pub const GAMES_LIMIT: f64 = 15.0;

/// A time as seconds from 1970-01-01 00:00 on the clock the records were written with (no
/// time zone: `mk_rate` reads both the records' times and `--base-date` as local time).
pub type Stamp = i64;

/// `mk_rate`'s options.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The time the ratings are for; later games are not counted.
    pub base: Stamp,
    /// Days for a game's weight to halve (60).
    pub half_life: f64,
    /// Days before the weight starts to fall (7).
    pub half_life_ignore: f64,
    /// Games older than this many days are not counted (730).
    pub ignore: f64,
    /// An `abnormal` game counts only past this many plies; 0: never (30).
    pub abnormal_threshold: u32,
    /// Draws not counted at all.
    pub skip_draws: bool,
    /// A player (its id, or else the last id containing it) fixed at a rate, the others
    /// moved with it.
    pub fixed: Option<(String, i64)>,
}

impl Options {
    /// `mk_rate`'s defaults, rating at `base`.
    pub fn at(base: Stamp) -> Options {
        Options {
            base,
            half_life: 60.0,
            half_life_ignore: 7.0,
            ignore: 730.0,
            abnormal_threshold: 30,
            skip_draws: false,
            fixed: None,
        }
    }
}

/// One line of `mk_game_results`: `time state black_mark black_id white_id white_mark file
/// plies`, tab-separated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameLine {
    /// When the game ended.
    pub time: Stamp,
    /// How it ended (`toryo`, `abnormal`, `sennichite`, …).
    pub state: String,
    /// `win`, `lose` or `draw`.
    pub black_mark: String,
    /// Black's rating id (`name+trip`).
    pub black_id: String,
    /// White's rating id.
    pub white_id: String,
    /// `win`, `lose` or `draw`.
    pub white_mark: String,
    /// The record file.
    pub file: String,
    /// Its plies (absent in old lines).
    pub plies: Option<u32>,
}

impl GameLine {
    /// Whether `line` has the shape of an `mk_game_results` line (seven or eight fields
    /// separated by tabs, the third and sixth `win`, `lose` or `draw`), whether or not its
    /// fields then read: a file whose first line has this shape is a results file, and a
    /// bad date in it is an error at its line, not a file of no games.
    ///
    /// ```
    /// use gyoku_league::ratings::floodgate::GameLine;
    /// assert!(GameLine::looks_like("2026/13/45 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\tx.csa"));
    /// assert!(!GameLine::looks_like("N+black"));
    /// ```
    pub fn looks_like(line: &str) -> bool {
        let f: Vec<&str> = line.split('\t').collect();
        let mark = |m: &str| matches!(m, "win" | "lose" | "draw");
        (7..=8).contains(&f.len()) && mark(f[2]) && mark(f[5])
    }

    /// Reads one `mk_game_results` line.
    ///
    /// ```
    /// use gyoku_league::ratings::floodgate::GameLine;
    /// let g = GameLine::parse("2026/11/20 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\tx.csa\t80").unwrap();
    /// assert_eq!((g.black_id.as_str(), g.plies), ("a+1", Some(80)));
    /// assert!(GameLine::parse("2026/11/20 10:00:00\ttoryo").is_err());
    /// ```
    ///
    /// # Errors
    /// What is missing or malformed.
    pub fn parse(line: &str) -> Result<GameLine, String> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 7 || f[..7].iter().any(|s| s.is_empty()) {
            return Err(format!(
                "{} of the 7 tab-separated fields (time, state, black mark, black id, white id, \
                 white mark, file)",
                f.iter().take(7).filter(|s| !s.is_empty()).count()
            ));
        }
        let time = parse_time(f[0]).ok_or_else(|| format!("not a time: {:?}", f[0]))?;
        let plies = match f.get(7) {
            Some(p) if !p.trim().is_empty() => Some(
                p.trim()
                    .parse()
                    .map_err(|_| format!("not a number of plies: {p:?}"))?,
            ),
            _ => None,
        };
        Ok(GameLine {
            time,
            state: f[1].to_string(),
            black_mark: f[2].to_string(),
            black_id: f[3].to_string(),
            white_id: f[4].to_string(),
            white_mark: f[5].to_string(),
            file: f[6].to_string(),
            plies,
        })
    }
}

/// Reads `YYYY/MM/DD`, `YYYY-MM-DD`, either followed by `HH:MM[:SS]`.
///
/// ```
/// use gyoku_league::ratings::floodgate::parse_time;
/// assert_eq!(parse_time("1970/01/02 00:00:01"), Some(86_401));
/// assert_eq!(parse_time("2026-11-21"), parse_time("2026/11/21 00:00:00"));
/// assert_eq!(parse_time("2026-13-01"), None);
/// ```
pub fn parse_time(text: &str) -> Option<Stamp> {
    let text = text.trim();
    let (date, clock) = text.split_once([' ', 'T']).unwrap_or((text, ""));
    let d: Vec<i64> = date
        .split(['/', '-'])
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let &[y, m, day] = d.as_slice() else {
        return None;
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let c: Vec<i64> = if clock.is_empty() {
        Vec::new()
    } else {
        clock
            .split(':')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?
    };
    let (h, min, s) = match c.as_slice() {
        [] => (0, 0, 0),
        [h, m] => (*h, *m, 0),
        [h, m, s] => (*h, *m, *s),
        _ => return None,
    };
    if !(0..24).contains(&h) || !(0..60).contains(&min) || !(0..=60).contains(&s) {
        return None;
    }
    Some(days_from_civil(y, m, day) * 86_400 + h * 3600 + min * 60 + s)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD HH:MM:SS` of a [`Stamp`].
pub fn format_time(t: Stamp) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The rated id of a login, `None` for `@NORATE` ones: `name@anything+trip` is `name+trip`.
///
/// ```
/// use gyoku_league::ratings::floodgate::rated_id;
/// assert_eq!(rated_id("gps@600+abc").as_deref(), Some("gps+abc"));
/// assert_eq!(rated_id("gps@NORATE+abc"), None);
/// ```
pub fn rated_id(id: &str) -> Option<String> {
    if id.contains("@NORATE+") {
        return None;
    }
    let mut out = String::with_capacity(id.len());
    let mut rest = id;
    while let Some(at) = rest.find('@') {
        match rest[at..].find('+') {
            Some(plus) => {
                out.push_str(&rest[..at]);
                out.push('+');
                rest = &rest[at + plus + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    Some(out)
}

/// One player in the list.
#[derive(Clone, Debug, PartialEq)]
pub struct Player {
    /// The rated id (`name+trip`).
    pub id: String,
    /// The name (before the first `+`).
    pub name: String,
    /// Its group (0 the largest), or [`UNRATED_GROUP`].
    pub group: usize,
    /// The rate (0 when not rated).
    pub rate: i64,
    /// Its latest counted game.
    pub last_modified: Stamp,
    /// Weighted wins (a draw half) counted in the rate (all of them when not rated).
    pub win: f64,
    /// Weighted losses.
    pub loss: f64,
}

/// Why there is no list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FloodgateError {
    /// A line's marks are not `win`/`lose`, `lose`/`win` or `draw`/`draw`.
    Marks(String),
    /// A group's ratings do not exist or go past ±10000 (`mk_rate` refuses these too).
    Invalid(String),
}

impl std::fmt::Display for FloodgateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FloodgateError::Marks(m) | FloodgateError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for FloodgateError {}

/// The weight of a game `days` old.
fn half_life(days: f64, o: &Options) -> f64 {
    if days < o.half_life_ignore {
        1.0
    } else {
        // mk_rate's own constant (not ln 2 to more places).
        (-0.693 / o.half_life * (days - o.half_life_ignore)).exp()
    }
}

/// The list for `lines` (repeated lines counted once, in the order given): rated players by
/// group, then those not rated.
///
/// # Errors
/// [`FloodgateError`].
pub fn rate<'a>(
    lines: impl IntoIterator<Item = &'a GameLine>,
    o: &Options,
) -> Result<Vec<Player>, FloodgateError> {
    // i's weighted points against j, keyed by ids in byte order as mk_rate sorts them.
    let mut points: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut last: BTreeMap<String, Stamp> = BTreeMap::new();
    let mut seen = HashSet::new();
    for g in lines {
        if !seen.insert(g) {
            continue;
        }
        if g.state == "abnormal"
            && (o.abnormal_threshold == 0 || g.plies.unwrap_or(0) <= o.abnormal_threshold)
        {
            continue;
        }
        if g.time > o.base {
            continue;
        }
        let days = (o.base - g.time) as f64 / 86_400.0;
        if days > o.ignore {
            continue;
        }
        let (Some(b), Some(w)) = (rated_id(&g.black_id), rated_id(&g.white_id)) else {
            continue;
        };
        if b == w {
            continue;
        }
        let weight = half_life(days, o);
        let (pb, pw) = match (g.black_mark.as_str(), g.white_mark.as_str()) {
            ("win", "lose") => (1.0, 0.0),
            ("lose", "win") => (0.0, 1.0),
            ("draw", "draw") if o.skip_draws => continue,
            ("draw", "draw") => (0.5, 0.5),
            (bm, wm) => {
                return Err(FloodgateError::Marks(format!(
                    "{}: marks {bm:?} and {wm:?} (win/lose, lose/win or draw/draw)",
                    g.file
                )));
            }
        };
        *points
            .entry(b.clone())
            .or_default()
            .entry(w.clone())
            .or_default() += pb * weight;
        *points
            .entry(w.clone())
            .or_default()
            .entry(b.clone())
            .or_default() += pw * weight;
        for id in [b, w] {
            let t = last.entry(id).or_insert(g.time);
            *t = (*t).max(g.time);
        }
    }
    let ids: Vec<&String> = points.keys().collect();
    let index: BTreeMap<&String, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let n = ids.len();
    let mut w = vec![0.0; n * n];
    for (a, row) in &points {
        for (b, v) in row {
            w[index[a] * n + index[b]] = *v;
        }
    }
    // Left out until none is: fewer than 1 win, 1 loss or 15 games among those kept.
    let mut kept: Vec<usize> = (0..n).collect();
    loop {
        let next: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|&i| {
                let win: f64 = kept.iter().map(|&j| w[i * n + j]).sum();
                let loss: f64 = kept.iter().map(|&j| w[j * n + i]).sum();
                !(win < 1.0 || loss < 1.0 || win + loss < GAMES_LIMIT)
            })
            .collect();
        if next.len() == kept.len() {
            break;
        }
        kept = next;
    }
    // Groups: players joined by a game one of them scored in.
    let mut results = mle::Results::default();
    for &i in &kept {
        results.player(ids[i]);
    }
    for &i in &kept {
        for &j in &kept {
            if i != j && w[i * n + j] > 0.0 {
                results.add(ids[i], ids[j], mle::Score::Win, 0.0);
            }
        }
    }
    let mut list = Vec::new();
    let mut rated = HashSet::new();
    for (g, members) in results.groups().iter().enumerate() {
        let at: Vec<usize> = members
            .iter()
            .map(|&m| index[&results.players()[m]])
            .collect();
        let k = at.len();
        let mut sub = vec![0.0; k * k];
        for (a, &i) in at.iter().enumerate() {
            for (b, &j) in at.iter().enumerate() {
                sub[a * k + b] = if a == b { 0.0 } else { w[i * n + j] };
            }
        }
        let solved = mle::solve(&sub, k, 0.0).map_err(|stuck| {
            FloodgateError::Invalid(format!(
                "group {g}: no ratings exist ({} never lost to the rest of the group, or never \
                 won against it)",
                stuck
                    .iter()
                    .map(|&a| ids[at[a]].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        // mk_rate: the mean moved to 1000, then each rate cut toward zero.
        let mut rates: Vec<i64> = solved
            .rating
            .iter()
            .map(|r| (r * crate::elo::ELO_PER_NATURAL + 1000.0).trunc() as i64)
            .collect();
        if let Some((who, fixed)) = &o.fixed {
            let found = at
                .iter()
                .position(|&i| ids[i] == who)
                .or_else(|| at.iter().rposition(|&i| ids[i].contains(who.as_str())));
            if let Some(p) = found {
                let shift = fixed - rates[p];
                rates.iter_mut().for_each(|r| *r += shift);
            }
        }
        if let Some(r) = rates.iter().find(|r| r.abs() > 10_000) {
            return Err(FloodgateError::Invalid(format!(
                "group {g}: a rate of {r} is past ±10000 (mk_rate refuses such a list)"
            )));
        }
        for (a, &i) in at.iter().enumerate() {
            rated.insert(i);
            list.push(Player {
                id: ids[i].clone(),
                name: name_of(ids[i]),
                group: g,
                rate: rates[a],
                last_modified: last[ids[i]],
                win: at.iter().map(|&j| sub_points(&w, n, i, j)).sum(),
                loss: at.iter().map(|&j| sub_points(&w, n, j, i)).sum(),
            });
        }
    }
    for i in (0..n).filter(|i| !rated.contains(i)) {
        let win: f64 = (0..n).map(|j| w[i * n + j]).sum();
        let loss: f64 = (0..n).map(|j| w[j * n + i]).sum();
        if win < 1.0 && loss < 1.0 {
            continue;
        }
        list.push(Player {
            id: ids[i].clone(),
            name: name_of(ids[i]),
            group: UNRATED_GROUP,
            rate: 0,
            last_modified: last[ids[i]],
            win,
            loss,
        });
    }
    Ok(list)
}

fn sub_points(w: &[f64], n: usize, i: usize, j: usize) -> f64 {
    if i == j { 0.0 } else { w[i * n + j] }
}

fn name_of(id: &str) -> String {
    id.split('+').next().unwrap_or(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(day: u32, black: &str, white: &str, black_wins: Option<bool>) -> GameLine {
        let (bm, wm) = match black_wins {
            Some(true) => ("win", "lose"),
            Some(false) => ("lose", "win"),
            None => ("draw", "draw"),
        };
        GameLine::parse(&format!(
            "2026/11/{day:02} 12:00:00\ttoryo\t{bm}\t{black}\t{white}\t{wm}\tg{day}{black}{white}.csa\t90"
        ))
        .unwrap()
    }

    #[test]
    fn times_read_and_written_back() {
        for t in [
            "2026-11-21 00:00:00",
            "2000-02-29 23:59:59",
            "1969-12-31 12:00:00",
        ] {
            assert_eq!(format_time(parse_time(t).unwrap()), t);
        }
    }

    #[test]
    fn a_player_below_fifteen_games_is_listed_unrated() {
        // a and b play 20 games (a wins 15); c plays b twice.
        let mut lines = Vec::new();
        for k in 0..20 {
            lines.push(line(1 + k % 19, "a+1", "b+2", Some(k % 4 != 0)));
            // Distinct lines: the time moves by the game.
            lines.last_mut().unwrap().time += i64::from(k);
        }
        lines.push(line(20, "c+3", "b+2", Some(true)));
        lines.push(line(20, "b+2", "c+3", Some(true)));
        let o = Options::at(parse_time("2026-11-21").unwrap());
        let list = rate(&lines, &o).unwrap();
        let by: BTreeMap<&str, &Player> = list.iter().map(|p| (p.id.as_str(), p)).collect();
        assert_eq!((by["a+1"].group, by["b+2"].group), (0, 0));
        // 15 to 5: 400·log10(3) = 190.8 apart, around 1000, cut toward zero.
        assert_eq!((by["a+1"].rate, by["b+2"].rate), (1095, 904));
        assert_eq!((by["c+3"].group, by["c+3"].rate), (UNRATED_GROUP, 0));
        assert_eq!((by["c+3"].win, by["c+3"].loss), (1.0, 1.0));
    }

    #[test]
    fn repeated_lines_norate_and_self_play_do_not_count() {
        let mut lines = vec![line(1, "a+1", "b+2", Some(true)); 3];
        lines.push(line(2, "a@NORATE+1", "b+2", Some(true)));
        lines.push(line(3, "a+1", "a@x+1", Some(true)));
        // Within 7 days: each counted whole.
        let o = Options::at(parse_time("2026-11-05").unwrap());
        let list = rate(&lines, &o).unwrap();
        let a = list.iter().find(|p| p.id == "a+1").unwrap();
        assert_eq!((a.win, a.loss), (1.0, 0.0));
    }
}
