//! The Elo difference a score implies, with its 95 % error bar: from a player's wins,
//! draws and losses ([`estimate`]), or from a [`Tally`] of games or pairs with the
//! likelihood of superiority ([`Tally::elo`]) and in normalized Elo
//! ([`Tally::normalized_elo`]); the logistic curve between Elo and expected score.

use crate::tally::Tally;

/// An Elo difference estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The difference (first player minus second); infinite when one side scored 0 % or 100 %.
    pub diff: f64,
    /// Half the width of the 95 % interval (the normal approximation of the score's
    /// standard error over games, mapped through the logistic curve).
    pub error: f64,
    /// The first player's score, 0 to 1.
    pub score: f64,
}

/// The Elo difference from `wins`, `draws` and `losses` of the first player.
///
/// ```
/// use gyoku_league::elo::estimate;
/// let e = estimate(60, 20, 20).unwrap();
/// assert!((e.diff - 147.2).abs() < 0.1);
/// assert!(e.error > 0.0);
/// assert_eq!(estimate(0, 0, 0), None);
/// ```
pub fn estimate(wins: u32, draws: u32, losses: u32) -> Option<EloEstimate> {
    let n = f64::from(wins + draws + losses);
    if n == 0.0 {
        return None;
    }
    let score = (f64::from(wins) + 0.5 * f64::from(draws)) / n;
    let w = f64::from(wins) / n;
    let d = f64::from(draws) / n;
    let l = f64::from(losses) / n;
    let variance =
        w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * (0.0 - score).powi(2);
    let sigma = (variance / n).sqrt();
    let clamp = |s: f64| s.clamp(1e-9, 1.0 - 1e-9);
    let (low, high) = (
        logistic_elo(clamp(score - 1.959_964 * sigma)),
        logistic_elo(clamp(score + 1.959_964 * sigma)),
    );
    let diff = if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        logistic_elo(score)
    };
    Some(EloEstimate {
        diff,
        error: (high - low) / 2.0,
        score,
    })
}

/// Elo points per natural unit of the logistic model (`400 / ln 10`).
pub const ELO_PER_NATURAL: f64 = 400.0 / std::f64::consts::LN_10;

/// `800 / ln 10`: normalized Elo's unit.
pub(crate) const NORMALIZED_UNIT: f64 = 800.0 / std::f64::consts::LN_10;

/// The expected score of a side `elo` stronger.
pub fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score.
pub fn logistic_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

impl Tally {
    /// The first engine's Elo with the half-width of its 95 % interval and the likelihood of
    /// superiority (the chance it is the stronger), from the pairs when there are any, else
    /// from the games; `None` before any.
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        let (scores, counts): (&[f64], Vec<u64>) = if self.pairs.iter().sum::<u64>() > 0 {
            (&[0.0, 0.25, 0.5, 0.75, 1.0], self.pairs.to_vec())
        } else {
            (&[0.0, 0.5, 1.0], self.games.to_vec())
        };
        let n: u64 = counts.iter().sum();
        if n == 0 {
            return None;
        }
        let n = n as f64;
        let mean: f64 = scores
            .iter()
            .zip(&counts)
            .map(|(a, &c)| a * c as f64)
            .sum::<f64>()
            / n;
        let var: f64 = scores
            .iter()
            .zip(&counts)
            .map(|(a, &c)| c as f64 * (a - mean).powi(2))
            .sum::<f64>()
            / n;
        let se = (var / n).sqrt();
        let clamp = |s: f64| s.clamp(1e-9, 1.0 - 1e-9);
        let low = logistic_elo(clamp(mean - 1.959_964 * se));
        let high = logistic_elo(clamp(mean + 1.959_964 * se));
        let los = if se > 0.0 {
            0.5 * (1.0 + erf((mean - 0.5) / (se * std::f64::consts::SQRT_2)))
        } else if mean > 0.5 {
            1.0
        } else if mean < 0.5 {
            0.0
        } else {
            0.5
        };
        Some((logistic_elo(clamp(mean)), (high - low) / 2.0, los))
    }
}

impl Tally {
    /// The first engine's normalized Elo (its mean score's distance from ½ in units of a
    /// game's standard deviation, times `800 / ln 10`) with the half-width of its 95 %
    /// interval, from the pairs when there are any (a game's deviation being √2 times a
    /// pair's), else from the games; `None` before any, or when every result is the same.
    ///
    /// ```
    /// use gyoku_league::tally::Tally;
    /// let tally = Tally { games: [30, 40, 50], pairs: [2, 10, 30, 15, 3] };
    /// let (nelo, error) = tally.normalized_elo().unwrap();
    /// assert!(nelo > 0.0 && error > 0.0);
    /// ```
    pub fn normalized_elo(&self) -> Option<(f64, f64)> {
        let (scores, counts, scale): (&[f64], Vec<u64>, f64) = if self.pairs.iter().sum::<u64>() > 0
        {
            (
                &[0.0, 0.25, 0.5, 0.75, 1.0],
                self.pairs.to_vec(),
                std::f64::consts::SQRT_2,
            )
        } else {
            (&[0.0, 0.5, 1.0], self.games.to_vec(), 1.0)
        };
        let n = counts.iter().sum::<u64>() as f64;
        if n == 0.0 {
            return None;
        }
        let mean = scores
            .iter()
            .zip(&counts)
            .map(|(a, &c)| a * c as f64)
            .sum::<f64>()
            / n;
        let var = scores
            .iter()
            .zip(&counts)
            .map(|(a, &c)| c as f64 * (a - mean).powi(2))
            .sum::<f64>()
            / n;
        if var <= 0.0 {
            return None;
        }
        let sigma = scale * var.sqrt();
        Some((
            (mean - 0.5) / sigma * NORMALIZED_UNIT,
            1.959_964 / (scale * n.sqrt()) * NORMALIZED_UNIT,
        ))
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, to 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    if x >= 0.0 { y } else { -y }
}
