//! Ratings by maximum likelihood: the Bradley–Terry model (the chance that `i` beats `j` is
//! `1 / (1 + 10^((Rj − Ri) / 400))`), a draw counted as half a win for each side, as Ordo
//! and BayesElo do; each player's 95 % interval from the likelihood's curvature.
//!
//! The maximum is found by Newton's method on the log-likelihood (concave), each step
//! solved by a Cholesky factorisation; a group of `n` players costs `O(n³)` per step and
//! the list needs a handful of steps.

use std::collections::{BTreeMap, HashMap};

use super::linalg::Cholesky;
use crate::elo::ELO_PER_NATURAL;
use crate::tally::Tally;

/// The most players one group may have: the solver keeps an `n × n` matrix.
pub const MAX_GROUP: usize = 5_000;

/// A game's result for the first of its two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// The first player won.
    Win,
    /// A draw (also a game without a winner that counts: sennichite, an impasse by points
    /// equal, the move limit).
    Draw,
    /// The first player lost.
    Loss,
}

/// Games between named players, each with a weight (1 for a game counted whole).
///
/// ```
/// use gyoku_league::ratings::mle::{Results, Score};
/// let mut r = Results::default();
/// r.add("gps", "fairy", Score::Win, 1.0);
/// r.add("fairy", "gps", Score::Draw, 1.0);
/// assert_eq!(r.players(), ["gps", "fairy"]);
/// assert_eq!(r.tally(0).wins(), 1);
/// assert_eq!(r.points(0, 1), 1.5);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Results {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// `(i, j)`: the weighted points `i` scored against `j` (present when they met).
    points: BTreeMap<(usize, usize), f64>,
    tallies: Vec<Tally>,
}

impl Results {
    /// The player's index, added if new.
    pub fn player(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len();
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        self.tallies.push(Tally::default());
        i
    }

    /// A game between `first` and `second`, `score` being the first's, counted `weight`
    /// times (a weight of 0 records the meeting and counts nothing).
    pub fn add(&mut self, first: &str, second: &str, score: Score, weight: f64) {
        let (a, b) = (self.player(first), self.player(second));
        let (pa, pb) = match score {
            Score::Win => (1.0, 0.0),
            Score::Draw => (0.5, 0.5),
            Score::Loss => (0.0, 1.0),
        };
        *self.points.entry((a, b)).or_default() += pa * weight;
        *self.points.entry((b, a)).or_default() += pb * weight;
        let first_half_points = match score {
            Score::Win => 2,
            Score::Draw => 1,
            Score::Loss => 0,
        };
        self.tallies[a].add_game(first_half_points);
        self.tallies[b].add_game(2 - first_half_points);
    }

    /// The players' names, in the order they were first seen.
    pub fn players(&self) -> &[String] {
        &self.names
    }

    /// Player `i`'s games.
    pub fn tally(&self, i: usize) -> Tally {
        self.tallies[i]
    }

    /// The weighted points `i` scored against `j`.
    pub fn points(&self, i: usize, j: usize) -> f64 {
        self.points.get(&(i, j)).copied().unwrap_or(0.0)
    }

    /// The players in groups that met each other (directly or through others), the largest
    /// group first (equal sizes: the one with the first-seen player first); each group's
    /// players in the order they were first seen.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        let n = self.names.len();
        let mut neighbours = vec![Vec::new(); n];
        for &(i, j) in self.points.keys() {
            neighbours[i].push(j);
        }
        let mut group_of = vec![usize::MAX; n];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for start in 0..n {
            if group_of[start] != usize::MAX {
                continue;
            }
            let g = groups.len();
            let mut members = vec![start];
            group_of[start] = g;
            let mut at = 0;
            while at < members.len() {
                for &j in &neighbours[members[at]] {
                    if group_of[j] == usize::MAX {
                        group_of[j] = g;
                        members.push(j);
                    }
                }
                at += 1;
            }
            members.sort_unstable();
            groups.push(members);
        }
        groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        groups
    }
}

/// How to rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Virtual draws each player is given against a player at its group's zero (BayesElo's
    /// prior, smaller): keeps a player who won or lost every game finite. 0: the plain
    /// maximum, which exists only when every group's players each beat someone who beat them
    /// back, through the others.
    pub prior_draws: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options { prior_draws: 1.0 }
    }
}

/// One player's rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The player's index in [`Results::players`].
    pub player: usize,
    /// Its group (0 is the largest); ratings compare only within a group.
    pub group: usize,
    /// Elo, the group's mean at 0.
    pub elo: f64,
    /// Half the width of the 95 % interval, in Elo.
    pub error: f64,
}

/// Why there is no rating list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RatingError {
    /// Without a prior, the likelihood has no maximum: these players (of one group) scored
    /// everything against the rest of it, or nothing.
    NoMaximum(Vec<String>),
    /// A group is larger than [`MAX_GROUP`].
    TooLarge(usize),
}

impl std::fmt::Display for RatingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RatingError::NoMaximum(names) => write!(
                f,
                "no maximum-likelihood ratings: {} never lost to the rest of their group, or \
                 never scored against it (a prior draw or two per player keeps them finite)",
                names.join(", ")
            ),
            RatingError::TooLarge(n) => {
                write!(
                    f,
                    "a group of {n} players is more than {MAX_GROUP} can be rated at once"
                )
            }
        }
    }
}

impl std::error::Error for RatingError {}

/// Every player's rating, by groups (the largest first), each group's players strongest
/// first.
///
/// ```
/// use gyoku_league::ratings::mle::{Options, Results, Score, rate};
/// let mut r = Results::default();
/// for _ in 0..3 { r.add("a", "b", Score::Win, 1.0); }
/// r.add("a", "b", Score::Loss, 1.0);
/// let list = rate(&r, &Options { prior_draws: 0.0 }).unwrap();
/// // 3 to 1 is log10(3) * 400 = 190.8 Elo apart, ±95.4 around the mean.
/// assert_eq!(list[0].player, 0);
/// assert!((list[0].elo - 95.4).abs() < 0.1 && (list[1].elo + 95.4).abs() < 0.1);
/// ```
///
/// # Errors
/// [`RatingError`].
pub fn rate(results: &Results, options: &Options) -> Result<Vec<Rating>, RatingError> {
    let mut list = Vec::new();
    for (g, members) in results.groups().iter().enumerate() {
        let n = members.len();
        if n > MAX_GROUP {
            return Err(RatingError::TooLarge(n));
        }
        let mut w = vec![0.0; n * n];
        for (a, &i) in members.iter().enumerate() {
            for (b, &j) in members.iter().enumerate() {
                if a != b {
                    w[a * n + b] = results.points(i, j);
                }
            }
        }
        let solved = solve(&w, n, options.prior_draws).map_err(|stuck| {
            RatingError::NoMaximum(
                stuck
                    .iter()
                    .map(|&a| results.players()[members[a]].clone())
                    .collect(),
            )
        })?;
        let mut group: Vec<Rating> = members
            .iter()
            .enumerate()
            .map(|(a, &i)| Rating {
                player: i,
                group: g,
                elo: solved.rating[a] * ELO_PER_NATURAL,
                error: 1.959_964 * solved.variance[a].sqrt() * ELO_PER_NATURAL,
            })
            .collect();
        group.sort_by(|x, y| y.elo.total_cmp(&x.elo).then(x.player.cmp(&y.player)));
        list.extend(group);
    }
    Ok(list)
}

/// A group's ratings in natural units (mean 0) and their variances.
pub(crate) struct Solved {
    pub(crate) rating: Vec<f64>,
    pub(crate) variance: Vec<f64>,
}

/// `log σ(x) = −ln(1 + e^(−x))`, without overflow.
fn log_sigmoid(x: f64) -> f64 {
    if x > 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The maximum of the log-likelihood of `w` (row-major `n × n`, `w[i][j]` the points `i`
/// scored against `j`) with `prior` draws each against a player at 0; `Err` with players
/// who make the maximum not exist (when `prior` is 0).
pub(crate) fn solve(w: &[f64], n: usize, prior: f64) -> Result<Solved, Vec<usize>> {
    if n == 1 {
        return Ok(Solved {
            rating: vec![0.0],
            variance: vec![f64::INFINITY],
        });
    }
    if prior <= 0.0
        && let Some(stuck) = unbeaten_part(w, n)
    {
        return Err(stuck);
    }
    let likelihood = |r: &[f64]| -> f64 {
        let mut sum = 0.0;
        for i in 0..n {
            for j in 0..n {
                let wij = w[i * n + j];
                if wij > 0.0 {
                    sum += wij * log_sigmoid(r[i] - r[j]);
                }
            }
            if prior > 0.0 {
                sum += 0.5 * prior * (log_sigmoid(r[i]) + log_sigmoid(-r[i]));
            }
        }
        sum
    };
    // The curvature −H (plus the mean's direction when nothing pins the ratings) and the
    // gradient.
    let curvature = |r: &[f64]| -> (Vec<f64>, Vec<f64>) {
        let mut m = vec![0.0; n * n];
        let mut g = vec![0.0; n];
        for i in 0..n {
            for j in i + 1..n {
                let games = w[i * n + j] + w[j * n + i];
                if games == 0.0 {
                    continue;
                }
                let p = sigmoid(r[i] - r[j]);
                let grad = w[i * n + j] - games * p;
                g[i] += grad;
                g[j] -= grad;
                let h = games * p * (1.0 - p);
                m[i * n + i] += h;
                m[j * n + j] += h;
                m[i * n + j] -= h;
                m[j * n + i] -= h;
            }
            if prior > 0.0 {
                let p = sigmoid(r[i]);
                g[i] += prior * (0.5 - p);
                m[i * n + i] += prior * p * (1.0 - p);
            }
        }
        if prior <= 0.0 {
            let pin = 1.0 / n as f64;
            m.iter_mut().for_each(|v| *v += pin);
        }
        (m, g)
    };
    let mut r = vec![0.0; n];
    let mut value = likelihood(&r);
    for _ in 0..200 {
        let (m, g) = curvature(&r);
        let Some(factor) = Cholesky::new(m, n) else {
            break;
        };
        let step = factor.solve(&g);
        let mut t = 1.0;
        let mut moved = false;
        while t > 1e-12 {
            let next: Vec<f64> = r.iter().zip(&step).map(|(a, s)| a + t * s).collect();
            let v = likelihood(&next);
            if v >= value - 1e-12 * value.abs() {
                r = next;
                value = v;
                moved = true;
                break;
            }
            t *= 0.5;
        }
        let size = step.iter().fold(0.0f64, |m, s| m.max((t * s).abs()));
        if !moved || size < 1e-11 {
            break;
        }
    }
    let mean = r.iter().sum::<f64>() / n as f64;
    r.iter_mut().for_each(|v| *v -= mean);
    // The ratings are reported about their mean: the covariance C = M⁻¹ seen through the
    // centring P = I − J/n, whose diagonal is Cᵢᵢ − 2(C1)ᵢ/n + 1ᵀC1/n². (Without a prior, M
    // is −H + J/n, for which C1 = 1 and this is −H's pseudo-inverse.)
    let (m, _) = curvature(&r);
    let variance = match Cholesky::new(m, n) {
        Some(f) => {
            let c1 = f.solve(&vec![1.0; n]);
            let total: f64 = c1.iter().sum();
            let nf = n as f64;
            f.inverse_diagonal()
                .iter()
                .zip(&c1)
                .map(|(d, c)| (d - 2.0 * c / nf + total / (nf * nf)).max(0.0))
                .collect()
        }
        None => vec![f64::INFINITY; n],
    };
    Ok(Solved {
        rating: r,
        variance,
    })
}

/// Players who scored against none of the rest, or whom none of the rest scored against:
/// the first strongly connected component of the "scored against" graph that has no edge
/// in or none out; `None` when the graph is strongly connected.
fn unbeaten_part(w: &[f64], n: usize) -> Option<Vec<usize>> {
    let reach = |forward: bool| -> Vec<bool> {
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                let edge = if forward { w[i * n + j] } else { w[j * n + i] };
                if edge > 0.0 && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen
    };
    let (ahead, behind) = (reach(true), reach(false));
    // Player 0 reaches everyone and everyone reaches player 0: strongly connected.
    if ahead.iter().all(|&s| s) && behind.iter().all(|&s| s) {
        return None;
    }
    // Name the part that never lost to the rest: when player 0 reaches everyone, those who
    // reach player 0 (no one else scored against them); else those player 0 cannot reach
    // (no one player 0 reaches scored against them).
    let part: Vec<usize> = if ahead.iter().all(|&s| s) {
        (0..n).filter(|&i| behind[i]).collect()
    } else {
        (0..n).filter(|&i| !ahead[i]).collect()
    };
    Some(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator (SplitMix64) for simulated games.
    pub(crate) struct Rng(u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn a_simulated_field_is_recovered_in_order_and_within_its_intervals() {
        // Twelve players 60 Elo apart, 300 games a pair.
        let strengths: Vec<f64> = (0..12).map(|i| f64::from(i) * 60.0).collect();
        let mut rng = Rng(29);
        let mut r = Results::default();
        for (i, si) in strengths.iter().enumerate() {
            for (j, sj) in strengths.iter().enumerate().skip(i + 1) {
                let p = 1.0 / (1.0 + 10f64.powf((sj - si) / 400.0));
                // Draws as often as 40 % of the weaker side's chance, wins as often as keeps
                // the expected score at p (the model counts a draw as half a win).
                let draw = 0.4 * p.min(1.0 - p);
                let win = (p - draw / 2.0) / (1.0 - draw);
                for _ in 0..300 {
                    let score = if rng.next() < draw {
                        Score::Draw
                    } else if rng.next() < win {
                        Score::Win
                    } else {
                        Score::Loss
                    };
                    r.add(&format!("p{i}"), &format!("p{j}"), score, 1.0);
                }
            }
        }
        let list = rate(&r, &Options { prior_draws: 0.0 }).unwrap();
        let order: Vec<usize> = list.iter().map(|x| x.player).collect();
        assert_eq!(order, (0..12).rev().collect::<Vec<_>>());
        let mean = strengths.iter().sum::<f64>() / 12.0;
        for x in &list {
            let truth = strengths[x.player] - mean;
            assert!((x.elo - truth).abs() < x.error, "{x:?} vs {truth}");
            assert!(x.error > 5.0 && x.error < 40.0, "{x:?}");
        }
    }

    #[test]
    fn a_player_who_never_lost_has_no_maximum_without_a_prior() {
        let mut r = Results::default();
        r.add("a", "b", Score::Win, 1.0);
        r.add("b", "c", Score::Win, 1.0);
        r.add("c", "b", Score::Win, 1.0);
        assert_eq!(
            rate(&r, &Options { prior_draws: 0.0 }),
            Err(RatingError::NoMaximum(vec!["a".into()]))
        );
        let list = rate(&r, &Options::default()).unwrap();
        assert_eq!(list[0].player, 0);
        assert!(list[0].elo.is_finite() && list[0].elo > 100.0);
    }

    #[test]
    fn intervals_are_about_the_mean_with_or_without_a_prior() {
        // 100 games, 50 each: the difference's standard error is 2/√100 natural units; each
        // rating about the mean has half of it: ±1.96 · 0.1 · 173.7 = ±34.0 Elo. A prior
        // draw each narrows it a little.
        let mut r = Results::default();
        for k in 0..100 {
            r.add(
                "a",
                "b",
                if k % 2 == 0 { Score::Win } else { Score::Loss },
                1.0,
            );
        }
        let plain = rate(&r, &Options { prior_draws: 0.0 }).unwrap();
        assert!((plain[0].error - 34.05).abs() < 0.01, "{plain:?}");
        let prior = rate(&r, &Options { prior_draws: 1.0 }).unwrap();
        assert!(
            prior[0].error < plain[0].error && prior[0].error > 33.0,
            "{prior:?}"
        );
    }

    #[test]
    fn groups_that_never_met_are_rated_apart() {
        let mut r = Results::default();
        r.add("a", "b", Score::Win, 1.0);
        r.add("a", "b", Score::Loss, 1.0);
        r.add("c", "d", Score::Draw, 1.0);
        r.add("e", "c", Score::Draw, 1.0);
        let list = rate(&r, &Options { prior_draws: 0.0 }).unwrap();
        let groups: Vec<(usize, usize)> = list.iter().map(|x| (x.player, x.group)).collect();
        assert_eq!(groups.iter().filter(|(_, g)| *g == 0).count(), 3);
        assert!(list.iter().all(|x| x.elo.abs() < 1e-9));
    }
}
