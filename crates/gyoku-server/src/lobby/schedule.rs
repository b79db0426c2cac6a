//! Scheduled rounds, as Floodgate runs them (pure): when a scheduled game name's next
//! round is, and how the players waiting for it are paired — by rating, the least total
//! difference, a penalty for meeting the last opponent again and for likely kin (ids
//! sharing their first letters), colours alternated, an odd player out waiting for the
//! next round. The costs are those of shogi-server's `LeastDiff` (`pairing.rb`); the
//! search is Gyoku's own (exhaustive up to 8 players, else the rating order improved by
//! exchanges until none helps), where shogi-server samples 300 random pairings.

use chrono::{Datelike, Duration, NaiveDateTime, NaiveTime, Timelike, Weekday};

/// One time a round starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Every hour at this minute (`:30`).
    Hourly(u32),
    /// Every day at this time (`13:00`).
    Daily(NaiveTime),
    /// Every week on this day at this time (`Sat 13:00`, Floodgate's schedule files).
    Weekly(Weekday, NaiveTime),
}

/// When a scheduled game's rounds start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    times: Vec<At>,
}

fn weekday(s: &str) -> Option<Weekday> {
    Some(match s.to_ascii_lowercase().get(..3)? {
        "mon" => Weekday::Mon,
        "tue" => Weekday::Tue,
        "wed" => Weekday::Wed,
        "thu" => Weekday::Thu,
        "fri" => Weekday::Fri,
        "sat" => Weekday::Sat,
        "sun" => Weekday::Sun,
        _ => return None,
    })
}

impl Schedule {
    /// Reads times separated by commas or lines: `:00,:30` (every hour), `13:00` (every
    /// day), `Sat 13:00` (every week, as Floodgate's `floodgate-*.conf`); `#` starts a
    /// comment; `set …` lines of Floodgate's files are passed over.
    ///
    /// ```
    /// use gyoku_server::lobby::Schedule;
    /// assert!(Schedule::parse(":00,:30").is_ok());
    /// assert!(Schedule::parse("## a comment\nSat 13:00\nSun 13:00\n").is_ok());
    /// assert!(Schedule::parse(":61").is_err());
    /// assert!(Schedule::parse("").is_err());
    /// ```
    ///
    /// # Errors
    /// The first time that cannot be read.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let mut times = Vec::new();
        for item in text.lines().flat_map(|l| l.split(',')) {
            let item = item.split('#').next().unwrap_or("").trim();
            if item.is_empty() || item.starts_with("set ") {
                continue;
            }
            let time = |t: &str| NaiveTime::parse_from_str(t.trim(), "%H:%M").ok();
            let at = if let Some(m) = item.strip_prefix(':') {
                m.parse::<u32>().ok().filter(|&m| m < 60).map(At::Hourly)
            } else if let Some((day, t)) = item.split_once(char::is_whitespace) {
                weekday(day).zip(time(t)).map(|(d, t)| At::Weekly(d, t))
            } else {
                time(item).map(At::Daily)
            };
            times.push(at.ok_or_else(|| {
                format!(
                    "'{item}': a round time is :MM (every hour), HH:MM (every day) or DAY HH:MM"
                )
            })?);
            if times.len() > 10_000 {
                return Err("more than 10000 round times".into());
            }
        }
        if times.is_empty() {
            return Err("no round time".into());
        }
        Ok(Schedule { times })
    }

    /// The first round time after `now`.
    pub fn next_after(&self, now: NaiveDateTime) -> NaiveDateTime {
        let base = now
            .with_second(0)
            .and_then(|t| t.with_nanosecond(0))
            .unwrap_or(now);
        self.times
            .iter()
            .map(|at| {
                let mut t = match *at {
                    At::Hourly(m) => base.with_minute(m).unwrap_or(base),
                    At::Daily(time) => base.date().and_time(time),
                    At::Weekly(day, time) => {
                        let ahead = (7 + day.num_days_from_monday() as i64
                            - base.weekday().num_days_from_monday() as i64)
                            % 7;
                        (base.date() + Duration::days(ahead)).and_time(time)
                    }
                };
                let step = match at {
                    At::Hourly(_) => Duration::hours(1),
                    At::Daily(_) => Duration::days(1),
                    At::Weekly(..) => Duration::weeks(1),
                };
                while t <= now {
                    t += step;
                }
                t
            })
            .min()
            .expect("a schedule has a time")
    }
}

/// A player waiting for a round, as the pairing sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// Its id (rating id, else name): the kin penalty compares these.
    pub id: String,
    /// Its rating, or an estimate for an unrated player.
    pub rating: i64,
    /// Whether the rating is an estimate (meeting the last opponent again costs more).
    pub estimated: bool,
    /// Its last scheduled game's opponent (id) and whether it had Black.
    pub last: Option<(String, bool)>,
    /// Rounds since it last sat out (`u32::MAX`: never).
    pub since_sat_out: u32,
    /// Its scheduled games with Black less those with White.
    pub balance: i32,
}

impl Waiting {
    /// The colour it should have next: the one it had less often, else not the last one.
    fn wants_black(&self) -> Option<bool> {
        match self.balance {
            b if b < 0 => Some(true),
            b if b > 0 => Some(false),
            _ => self.last.as_ref().map(|(_, black)| !black),
        }
    }
}

/// What meeting costs: the rating difference, 400 for the last opponent again (4,400 when
/// either rating is an estimate), 800 when the first seven letters of the ids agree or 400
/// the first four (likely the same author's engines) — shogi-server's `LeastDiff` costs —
/// and Gyoku's own [`SAME_COLOUR`] when both had the same colour last (one of them would
/// have it twice running).
pub fn cost(a: &Waiting, b: &Waiting) -> i64 {
    let mut c = floodgate_cost(a, b);
    if a.wants_black().is_some() && a.wants_black() == b.wants_black() {
        c += SAME_COLOUR;
        if a.balance != 0 && a.balance.signum() == b.balance.signum() {
            // One of them would be two games off balance.
            c += 4 * SAME_COLOUR;
        }
    }
    c
}

/// What two players who want the same colour add to the cost (five times that when one
/// of them would then be two games off balance).
pub const SAME_COLOUR: i64 = 100;

/// shogi-server's `LeastDiff` cost of a meeting (see [`cost`]).
pub fn floodgate_cost(a: &Waiting, b: &Waiting) -> i64 {
    let mut c = (a.rating - b.rating).abs();
    let again = a.last.as_ref().is_some_and(|(o, _)| *o == b.id)
        || b.last.as_ref().is_some_and(|(o, _)| *o == a.id);
    if again {
        c += 400;
        if a.estimated || b.estimated {
            c += 4000;
        }
    }
    let prefix = |n: usize| a.id.chars().take(n).eq(b.id.chars().take(n));
    if prefix(7) {
        c += 800;
    } else if prefix(4) {
        c += 400;
    }
    c
}

/// A round's pairs, `(black, white)` as indices into the waiting players, and who waits
/// (an odd field's player who sat out longest ago, the last in the list among equals).
pub fn pair_round(players: &[Waiting]) -> (Vec<(usize, usize)>, Option<usize>) {
    let mut left: Vec<usize> = (0..players.len()).collect();
    let out = (left.len() % 2 == 1).then(|| {
        // Who sat out longest ago; among equals the latest in the list (the last to come).
        let at = (0..left.len())
            .max_by_key(|&i| (players[i].since_sat_out, i))
            .expect("an odd field is not empty");
        left.remove(at)
    });
    let pairs = least_cost(players, &left);
    let coloured = pairs
        .into_iter()
        .map(|(a, b)| colours(players, a, b))
        .collect();
    (coloured, out)
}

/// The total cost of pairs.
#[cfg(test)]
pub fn total(players: &[Waiting], pairs: &[(usize, usize)]) -> i64 {
    pairs
        .iter()
        .map(|&(a, b)| cost(&players[a], &players[b]))
        .sum()
}

/// The least-cost pairing of `left` (even): every pairing up to 8 players; beyond, the
/// rating order improved by exchanging partners between two pairs while that lowers the
/// total.
fn least_cost(players: &[Waiting], left: &[usize]) -> Vec<(usize, usize)> {
    if left.len() <= 8 {
        return exhaustive(players, left).1;
    }
    let mut order = left.to_vec();
    order.sort_by_key(|&i| (std::cmp::Reverse(players[i].rating), i));
    let mut pairs: Vec<(usize, usize)> = order.chunks(2).map(|c| (c[0], c[1])).collect();
    let c = |a: usize, b: usize| cost(&players[a], &players[b]);
    // Exchanges until none lowers the total; each accepted one lowers it, so this ends
    // (bounded all the same).
    for _ in 0..10_000 {
        let mut improved = false;
        for i in 0..pairs.len() {
            for j in i + 1..pairs.len() {
                let ((a, b), (x, y)) = (pairs[i], pairs[j]);
                let now = c(a, b) + c(x, y);
                let swap1 = c(a, x) + c(b, y);
                let swap2 = c(a, y) + c(b, x);
                if swap1 < now && swap1 <= swap2 {
                    pairs[i] = (a, x);
                    pairs[j] = (b, y);
                    improved = true;
                } else if swap2 < now {
                    pairs[i] = (a, y);
                    pairs[j] = (b, x);
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    pairs
}

fn exhaustive(players: &[Waiting], left: &[usize]) -> (i64, Vec<(usize, usize)>) {
    let Some((&first, rest)) = left.split_first() else {
        return (0, Vec::new());
    };
    let mut best = (i64::MAX, Vec::new());
    for (k, &other) in rest.iter().enumerate() {
        let mut remaining = rest.to_vec();
        remaining.remove(k);
        let (c, mut pairs) = exhaustive(players, &remaining);
        let c = c + cost(&players[first], &players[other]);
        if c < best.0 {
            pairs.insert(0, (first, other));
            best = (c, pairs);
        }
    }
    best
}

/// Black for the one that wants it (fewer Blacks than Whites, or White last); both or
/// neither: the one with fewer Blacks, then the lower-rated.
fn colours(players: &[Waiting], a: usize, b: usize) -> (usize, usize) {
    let (pa, pb) = (&players[a], &players[b]);
    let a_black = match (pa.wants_black(), pb.wants_black()) {
        (Some(true), Some(false) | None) | (None, Some(false)) => true,
        (Some(false), Some(true) | None) | (None, Some(true)) => false,
        _ => (pa.balance, pa.rating, b) < (pb.balance, pb.rating, a),
    };
    if a_black { (a, b) } else { (b, a) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn the_next_round_time() {
        let s = Schedule::parse(":00,:30").unwrap();
        assert_eq!(
            s.next_after(at("2026-11-26 10:12:40")),
            at("2026-11-26 10:30:00")
        );
        assert_eq!(
            s.next_after(at("2026-11-26 10:30:00")),
            at("2026-11-26 11:00:00")
        );
        assert_eq!(
            s.next_after(at("2026-11-26 23:45:00")),
            at("2026-11-27 00:00:00")
        );
        // Floodgate's sample file: Saturdays and Sundays at 13:00. 2026-11-26 is a Thursday.
        let w = Schedule::parse("## comment\nSat 13:00\n## c\nSun 13:00\n").unwrap();
        assert_eq!(
            w.next_after(at("2026-11-26 10:00:00")),
            at("2026-11-28 13:00:00")
        );
        assert_eq!(
            w.next_after(at("2026-11-28 13:00:00")),
            at("2026-11-29 13:00:00")
        );
        assert_eq!(
            w.next_after(at("2026-11-29 14:00:00")),
            at("2026-12-05 13:00:00")
        );
        let d = Schedule::parse("09:00").unwrap();
        assert_eq!(
            d.next_after(at("2026-11-26 10:00:00")),
            at("2026-11-27 09:00:00")
        );
    }

    fn player(id: &str, rating: i64) -> Waiting {
        Waiting {
            id: id.into(),
            rating,
            estimated: false,
            last: None,
            since_sat_out: u32::MAX,
            balance: 0,
        }
    }

    #[test]
    fn pairs_by_rating_avoid_the_last_opponent_and_alternate_colours() {
        let mut field: Vec<Waiting> = [("a", 2000), ("b", 1990), ("c", 1500), ("d", 1490)]
            .iter()
            .map(|&(n, r)| player(&format!("{n}-engine-{r}"), r))
            .collect();
        let (pairs, out) = pair_round(&field);
        assert_eq!(out, None);
        let mut met: Vec<(usize, usize)> =
            pairs.iter().map(|&(x, y)| (x.min(y), x.max(y))).collect();
        met.sort_unstable();
        assert_eq!(met, [(0, 1), (2, 3)]);
        // a and b met last round (a Black): now a plays c's level only if cheaper; it is
        // not (400 < 490), so they meet again, colours swapped.
        field[0].last = Some((field[1].id.clone(), true));
        field[0].balance = 1;
        field[1].last = Some((field[0].id.clone(), false));
        field[1].balance = -1;
        let (pairs, _) = pair_round(&field);
        assert!(pairs.contains(&(1, 0)), "{pairs:?}");
        // Unrated (estimated) players who met last pay 4,400: they are split.
        field[0].estimated = true;
        let (pairs, _) = pair_round(&field);
        assert!(
            !pairs.iter().any(|&(x, y)| (x.min(y), x.max(y)) == (0, 1)),
            "{pairs:?}"
        );
    }

    #[test]
    fn an_odd_field_leaves_out_who_sat_out_longest_ago() {
        let mut field: Vec<Waiting> = (0..5)
            .map(|k| player(&format!("p{k}"), 1000 + 10 * k))
            .collect();
        for (k, p) in field.iter_mut().enumerate() {
            p.since_sat_out = if k == 2 { u32::MAX } else { 1 };
        }
        let (pairs, out) = pair_round(&field);
        assert_eq!((pairs.len(), out), (2, Some(2)));
    }
}
