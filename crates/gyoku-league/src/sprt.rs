//! The sequential probability ratio test of engine testing: play game pairs (one opening,
//! colours swapped) until the log-likelihood ratio of "the new engine is `elo1` stronger"
//! against "it is `elo0` stronger" crosses `ln((1−β)/α)` (accept H1) or `ln(β/(1−α))`
//! (accept H0).
//!
//! The ratio is the generalized one (GSPRT) that fishtest and fastchess compute: under each
//! hypothesis, the distribution of pair results (pentanomial: 0, ¼, ½, ¾ or 1 point a game
//! over the pair) or game results (trinomial) nearest the observed one that has the
//! hypothesis's expected score (the logistic model, Elo) or normalized Elo; the ratio of
//! their likelihoods of what was observed. The formulas are Michel Van den Bergh's:
//! "Comparing the approximations for the generalized log likelihood ratio of a multinomial
//! distribution" (Proposition 1.1: the nearest distribution with mean `s` is
//! `p̂ᵢ / (1 + θ(aᵢ − s))`, θ the root of `Σ p̂ᵢ (aᵢ − s) / (1 + θ(aᵢ − s)) = 0`) and
//! "Comments on normalized Elo" (§4.1, the same with `φᵢ = aᵢ − ½ − ½ t σ (1 + ((aᵢ − μ)/σ)²)`,
//! iterated). As fastchess does, an empty cell counts as 0.001 and a pair with one win and
//! one loss as a pair of draws.

use crate::elo::{NORMALIZED_UNIT, logistic_score};
use crate::tally::Tally;

/// How Elo is read in the hypotheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Logistic Elo: a score of `1 / (1 + 10^(−elo/400))`.
    Logistic,
    /// Normalized Elo (fishtest's): Elo per unit of the results' spread.
    Normalized,
}

/// Which results the ratio is computed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// Game pairs: 0, ½, 1, 1½ or 2 points over the pair.
    Pentanomial,
    /// Single games: loss, draw, win.
    Trinomial,
}

/// A test's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// H0: the first engine is `elo0` stronger.
    pub elo0: f64,
    /// H1: the first engine is `elo1` stronger.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// How the Elo bounds are read.
    pub model: Model,
    /// Pairs or games.
    pub counting: Counting,
}

/// What the test has decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// H0 accepted: not `elo1` stronger.
    H0,
    /// H1 accepted: not only `elo0` stronger.
    H1,
}

impl Sprt {
    /// Reads `elo0=0,elo1=5[,alpha=0.05][,beta=0.05][,model=logistic|normalized]
    /// [,counting=pentanomial|trinomial]`.
    ///
    /// ```
    /// use gyoku_league::sprt::{Model, Sprt};
    /// let s = Sprt::parse("elo0=0,elo1=5").unwrap();
    /// assert_eq!((s.alpha, s.beta, s.model), (0.05, 0.05, Model::Logistic));
    /// assert!(Sprt::parse("elo0=5,elo1=0").is_err());
    /// ```
    ///
    /// # Errors
    /// What is missing, unknown or out of range.
    pub fn parse(spec: &str) -> Result<Sprt, String> {
        let mut s = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
            model: Model::Logistic,
            counting: Counting::Pentanomial,
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}': KEY=VALUE expected"))?;
            let number = || -> Result<f64, String> {
                value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("{key}={value}: not a number"))
            };
            match key.trim() {
                "elo0" => s.elo0 = number()?,
                "elo1" => s.elo1 = number()?,
                "alpha" => s.alpha = number()?,
                "beta" => s.beta = number()?,
                "model" => {
                    s.model = match value.trim() {
                        "logistic" => Model::Logistic,
                        "normalized" => Model::Normalized,
                        other => return Err(format!("model={other}: logistic or normalized")),
                    }
                }
                "counting" => {
                    s.counting = match value.trim() {
                        "pentanomial" => Counting::Pentanomial,
                        "trinomial" => Counting::Trinomial,
                        other => {
                            return Err(format!("counting={other}: pentanomial or trinomial"));
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "unknown '{other}' (elo0, elo1, alpha, beta, model, counting)"
                    ));
                }
            }
        }
        if s.elo0.is_nan() || s.elo1.is_nan() {
            return Err("elo0 and elo1 are needed: elo0=0,elo1=5".into());
        }
        if s.elo0 >= s.elo1 {
            return Err(format!("elo0 ({}) must be below elo1 ({})", s.elo0, s.elo1));
        }
        if !(0.0 < s.alpha && s.alpha < 1.0 && 0.0 < s.beta && s.beta < 1.0)
            || s.alpha + s.beta >= 1.0
        {
            return Err("alpha and beta are between 0 and 1, their sum below 1".into());
        }
        Ok(s)
    }

    /// The lower (accept H0) and upper (accept H1) bounds of the ratio.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision a ratio makes, if any.
    pub fn decide(&self, llr: f64) -> Option<Decision> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Decision::H1)
        } else if llr <= lower {
            Some(Decision::H0)
        } else {
            None
        }
    }

    /// The log-likelihood ratio of `tally`, counted as [`Sprt::counting`] says.
    ///
    /// ```
    /// use gyoku_league::{sprt::Sprt, tally::Tally};
    /// let s = Sprt::parse("elo0=0,elo1=2,counting=trinomial").unwrap();
    /// let t = Tally { games: [57030, 106593, 57433], pairs: [0; 5] };
    /// assert!((s.llr(&t) - -2.59).abs() < 0.01);
    /// ```
    pub fn llr(&self, tally: &Tally) -> f64 {
        match self.counting {
            Counting::Pentanomial => {
                let [ll, ld, half, wd, ww] = tally.pairs;
                self.llr_of(
                    &[0.0, 0.25, 0.5, 0.75, 1.0],
                    &[ll, ld, half, wd, ww],
                    std::f64::consts::SQRT_2,
                )
            }
            Counting::Trinomial => {
                let [l, d, w] = tally.games;
                self.llr_of(&[0.0, 0.5, 1.0], &[l, d, w], 1.0)
            }
        }
    }

    fn llr_of(&self, scores: &[f64], counts: &[u64], spread: f64) -> f64 {
        let regular: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let total: f64 = regular.iter().sum();
        let observed: Vec<f64> = regular.iter().map(|c| c / total).collect();
        let (p0, p1) = match self.model {
            Model::Logistic => (
                nearest_with_mean(scores, &observed, logistic_score(self.elo0)),
                nearest_with_mean(scores, &observed, logistic_score(self.elo1)),
            ),
            Model::Normalized => {
                let t = |elo: f64| spread * elo / NORMALIZED_UNIT;
                (
                    nearest_with_t(scores, &observed, t(self.elo0)),
                    nearest_with_t(scores, &observed, t(self.elo1)),
                )
            }
        };
        total
            * observed
                .iter()
                .zip(p0.iter().zip(&p1))
                .map(|(o, (a, b))| o * (b.ln() - a.ln()))
                .sum::<f64>()
    }
}

/// The root of `Σ oᵢ φᵢ / (1 + θ φᵢ) = 0` (decreasing in θ) between the poles, by bisection
/// to the last bit; then the distribution `oᵢ / (1 + θ φᵢ)`.
fn tilt(observed: &[f64], phi: &[f64]) -> Vec<f64> {
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let f = |theta: f64| -> f64 {
        observed
            .iter()
            .zip(phi)
            .map(|(o, p)| o * p / (1.0 + theta * p))
            .sum()
    };
    // 1 + θφ > 0 for every φ: θ in (−1/max, −1/min) (each side open when its φ has that
    // sign; a φ of one sign only leaves that side unbounded, which cannot happen when the
    // target is inside the scores' range).
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    observed
        .iter()
        .zip(phi)
        .map(|(o, p)| o / (1.0 + theta * p))
        .collect()
}

/// The distribution on `scores` nearest `observed` (in likelihood) whose mean is `s`.
fn nearest_with_mean(scores: &[f64], observed: &[f64], s: f64) -> Vec<f64> {
    let phi: Vec<f64> = scores.iter().map(|a| a - s).collect();
    tilt(observed, &phi)
}

/// The distribution on `scores` nearest `observed` whose `(μ − ½) / σ` is `t`.
fn nearest_with_t(scores: &[f64], observed: &[f64], t: f64) -> Vec<f64> {
    let n = scores.len();
    let mut p = vec![1.0 / n as f64; n];
    for _ in 0..100 {
        let mu: f64 = scores.iter().zip(&p).map(|(a, q)| a * q).sum();
        let var: f64 = scores
            .iter()
            .zip(&p)
            .map(|(a, q)| q * (a - mu).powi(2))
            .sum();
        let sigma = var.sqrt();
        let phi: Vec<f64> = scores
            .iter()
            .map(|a| a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma).powi(2)))
            .collect();
        let next = tilt(observed, &phi);
        let moved = next
            .iter()
            .zip(&p)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        p = next;
        if moved < 1e-13 {
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt(spec: &str) -> Sprt {
        Sprt::parse(spec).unwrap()
    }

    /// fastchess's own test table (its `sprt_test.cpp`, to its two decimals): pentanomial
    /// counts (LL, LD, WL, DD, WD, WW) and trinomial (W, L, D) with their ratios.
    #[test]
    fn ratios_agree_with_fastchess_published_cases() {
        let penta = |ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64| Tally {
            games: [0; 3],
            pairs: [ll, ld, wl + dd, wd, ww],
        };
        let tri = |w: u64, l: u64, d: u64| Tally {
            games: [l, d, w],
            pairs: [0; 5],
        };
        let cases = [
            (
                "elo0=0,elo1=2,model=normalized",
                penta(365, 16618, 36029, 200, 16974, 390),
                2.25,
            ),
            (
                "elo0=-1.75,elo1=0.25,model=normalized",
                penta(127, 4883, 10311, 401, 5150, 104),
                3.01,
            ),
            (
                "elo0=0,elo1=5,model=normalized",
                penta(0, 0, 0, 0, 0, 5550),
                111.82,
            ),
            (
                "elo0=0.5,elo1=2.5",
                penta(223, 9863, 20279, 1000, 10037, 246),
                -3.07,
            ),
            (
                "elo0=0,elo1=2",
                penta(871, 26175, 55003, 980, 26678, 821),
                -4.98,
            ),
            (
                "elo0=0,elo1=2,model=normalized,counting=trinomial",
                tri(36433, 36027, 68692),
                0.92,
            ),
            (
                "elo0=-1.75,elo1=0.25,model=normalized,counting=trinomial",
                tri(10871, 10650, 20431),
                2.30,
            ),
            (
                "elo0=0,elo1=10,model=normalized,counting=trinomial",
                tri(4250, 0, 0),
                120.56,
            ),
            (
                "elo0=0.5,elo1=2.5,counting=trinomial",
                tri(21404, 21184, 40708),
                -1.57,
            ),
            (
                "elo0=0,elo1=2,counting=trinomial",
                tri(57433, 57030, 106593),
                -2.59,
            ),
        ];
        for (spec, tally, want) in cases {
            let got = sprt(spec).llr(&tally);
            // Their check: within 1 % of the value.
            assert!(
                (got - want).abs() <= 0.01 * want.abs() + 0.005,
                "{spec}: {got} vs {want}"
            );
        }
    }

    /// The published formulas computed another way: θ by Newton's method from 0 (not
    /// bisection), the normalized distribution by its fixed point from the observed one
    /// (not the uniform one).
    fn independent_llr(spec: &Sprt, scores: &[f64], counts: &[u64]) -> f64 {
        let reg: Vec<f64> = counts
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let n: f64 = reg.iter().sum();
        let o: Vec<f64> = reg.iter().map(|c| c / n).collect();
        let newton = |phi: &[f64]| -> Vec<f64> {
            let mut theta = 0.0f64;
            for _ in 0..200 {
                let f: f64 = o
                    .iter()
                    .zip(phi)
                    .map(|(o, p)| o * p / (1.0 + theta * p))
                    .sum();
                let df: f64 = o
                    .iter()
                    .zip(phi)
                    .map(|(o, p)| -o * p * p / (1.0 + theta * p).powi(2))
                    .sum();
                let mut step = f / df;
                // Stay where every 1 + θφ is positive.
                while phi.iter().any(|p| 1.0 + (theta - step) * p <= 0.0) {
                    step /= 2.0;
                }
                theta -= step;
                if step.abs() < 1e-16 {
                    break;
                }
            }
            o.iter()
                .zip(phi)
                .map(|(o, p)| o / (1.0 + theta * p))
                .collect()
        };
        let spread = if scores.len() == 5 {
            std::f64::consts::SQRT_2
        } else {
            1.0
        };
        let dist = |elo: f64| -> Vec<f64> {
            match spec.model {
                Model::Logistic => {
                    let s = 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
                    newton(&scores.iter().map(|a| a - s).collect::<Vec<_>>())
                }
                Model::Normalized => {
                    let t = spread * elo * std::f64::consts::LN_10 / 800.0;
                    let mut p = o.clone();
                    for _ in 0..500 {
                        let mu: f64 = scores.iter().zip(&p).map(|(a, q)| a * q).sum();
                        let sd = scores
                            .iter()
                            .zip(&p)
                            .map(|(a, q)| q * (a - mu) * (a - mu))
                            .sum::<f64>()
                            .sqrt();
                        let phi: Vec<f64> = scores
                            .iter()
                            .map(|a| {
                                a - 0.5 - 0.5 * t * sd * (1.0 + ((a - mu) / sd) * ((a - mu) / sd))
                            })
                            .collect();
                        p = newton(&phi);
                    }
                    p
                }
            }
        };
        let (p0, p1) = (dist(spec.elo0), dist(spec.elo1));
        n * (0..o.len())
            .map(|i| o[i] * (p1[i] / p0[i]).ln())
            .sum::<f64>()
    }

    #[test]
    fn ratios_equal_an_independent_computation_of_the_formulas() {
        let mut seed = 17u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 33
        };
        let mut checked = 0;
        for model in ["logistic", "normalized"] {
            for bounds in ["elo0=0,elo1=5", "elo0=-3,elo1=1", "elo0=10,elo1=40"] {
                for _ in 0..20 {
                    let spec = sprt(&format!("{bounds},model={model}"));
                    let pairs: [u64; 5] = std::array::from_fn(|_| next() % 3000);
                    let games: [u64; 3] = std::array::from_fn(|_| next() % 5000);
                    let t = Tally { games, pairs };
                    let want = independent_llr(&spec, &[0.0, 0.25, 0.5, 0.75, 1.0], &pairs);
                    assert!(
                        (spec.llr(&t) - want).abs() < 1e-6,
                        "{bounds} {model} {pairs:?}: {} vs {want}",
                        spec.llr(&t)
                    );
                    let tri = Sprt {
                        counting: Counting::Trinomial,
                        ..spec
                    };
                    let want = independent_llr(&tri, &[0.0, 0.5, 1.0], &games);
                    assert!(
                        (tri.llr(&t) - want).abs() < 1e-6,
                        "{bounds} {model} {games:?}: {} vs {want}",
                        tri.llr(&t)
                    );
                    checked += 2;
                }
            }
        }
        assert_eq!(checked, 240);
    }

    /// A simulated engine `elo` stronger: each game a win, draw or loss with 40 % draws at
    /// equal strength, the expected score the logistic one.
    fn simulate(spec: &Sprt, elo: f64, rng: &mut u64) -> (Decision, u64) {
        let mut unit = || {
            *rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (*rng >> 11) as f64 / (1u64 << 53) as f64
        };
        let s = logistic_score(elo);
        let draw = 0.4 * 2.0 * s.min(1.0 - s);
        let win = s - draw / 2.0;
        let mut game = || {
            let u = unit();
            if u < win {
                2
            } else if u < win + draw {
                1
            } else {
                0
            }
        };
        let mut t = Tally::default();
        loop {
            t.add_pair(game(), game());
            if let Some(d) = spec.decide(spec.llr(&t)) {
                return (d, t.game_count());
            }
        }
    }

    #[test]
    fn simulated_tests_err_about_as_often_as_alpha_and_beta_say() {
        let spec = sprt("elo0=0,elo1=40,alpha=0.1,beta=0.1");
        let runs = 400;
        let mut rng = 29u64;
        let wrong_h1 = (0..runs)
            .filter(|_| simulate(&spec, 0.0, &mut rng).0 == Decision::H1)
            .count();
        let wrong_h0 = (0..runs)
            .filter(|_| simulate(&spec, 40.0, &mut rng).0 == Decision::H0)
            .count();
        let right_far = (0..100)
            .filter(|_| simulate(&spec, 80.0, &mut rng).0 == Decision::H1)
            .count();
        // The test's errors are at most alpha and beta (by a little less: the ratio
        // overshoots its bounds); 3 standard deviations of 400 runs is 4.5 %.
        let (a, b) = (wrong_h1 as f64 / runs as f64, wrong_h0 as f64 / runs as f64);
        println!("accepted H1 at elo0: {a:.3}; H0 at elo1: {b:.3}; H1 at 2·elo1: {right_far}/100");
        assert!(
            (0.02..=0.145).contains(&a),
            "H1 accepted at elo0 in {a} of runs (alpha 0.1)"
        );
        assert!(
            (0.02..=0.145).contains(&b),
            "H0 accepted at elo1 in {b} of runs (beta 0.1)"
        );
        assert!(right_far >= 97, "{right_far}");
    }
}
