//! Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): a rating, its
//! deviation (how sure the rating is) and its volatility (how much the player's strength
//! moves), updated after each rating period from the games played in it.
//!
//! The web page's accounts are rated so, one game a period (as lishogi and lichess rate
//! each game at once): [`Glicko2::after`] with one game, for both players from their
//! ratings before it.
//!
//! ```
//! use gyoku_league::ratings::glicko2::{Glicko2, Score};
//! let (a, b) = (Glicko2::NEW, Glicko2::NEW);
//! let a2 = a.after(&[(b, Score::Win)]);
//! let b2 = b.after(&[(a, Score::Loss)]);
//! assert!((a2.rating - 1662.31).abs() < 0.01 && (b2.rating - 1337.69).abs() < 0.01);
//! assert!(a2.deviation < 350.0);
//! ```

/// The scale between Glicko's ratings and Glicko-2's internal ones (400 / ln 10).
const SCALE: f64 = 173.7178;

/// The system constant τ: how far volatility may move in a period. Glickman suggests 0.3
/// to 1.2; 0.5 is his example's and the usual implementations' default.
pub const TAU: f64 = 0.5;

/// How close the volatility's root is sought (Glickman's ε).
const EPSILON: f64 = 0.000_001;

/// The most iterations the volatility's search takes (it converges in a handful; a bound
/// all the same).
const MAX_STEPS: u32 = 100;

/// A result from the rated player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// The player won.
    Win,
    /// A draw (sennichite, an impasse that splits the points).
    Draw,
    /// The player lost.
    Loss,
}

impl Score {
    /// 1, ½ or 0.
    pub const fn points(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Draw => 0.5,
            Score::Loss => 0.0,
        }
    }

    /// The same game from the other side.
    pub const fn other_side(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }
}

/// A Glicko-2 rating, on Glicko's scale (1500 and 350 for a new player).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2 {
    /// The rating.
    pub rating: f64,
    /// The rating deviation (RD).
    pub deviation: f64,
    /// The volatility σ.
    pub volatility: f64,
}

impl Glicko2 {
    /// An unrated player's: 1500, RD 350, volatility 0.06 (Glickman's defaults).
    pub const NEW: Glicko2 = Glicko2 {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
    };

    /// The rating after a period with `games` (each an opponent's rating before the
    /// period and the score against it), with the system constant [`TAU`]. A period with
    /// no games only widens the deviation (Glickman's step 6).
    #[must_use]
    pub fn after(self, games: &[(Glicko2, Score)]) -> Glicko2 {
        self.after_with_tau(games, TAU)
    }

    /// [`Glicko2::after`] with the system constant `tau`.
    #[must_use]
    pub fn after_with_tau(self, games: &[(Glicko2, Score)], tau: f64) -> Glicko2 {
        // Step 2: to Glicko-2's scale.
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        if games.is_empty() {
            let widened = phi.hypot(self.volatility);
            return Glicko2 {
                deviation: widened * SCALE,
                ..self
            };
        }
        // Steps 3 and 4: the estimated variance v and improvement Δ.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (other, score) in games {
            let mu_j = (other.rating - 1500.0) / SCALE;
            let g = g(other.deviation / SCALE);
            let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
            inverse_v += g * g * e * (1.0 - e);
            sum += g * (score.points() - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        // Step 5: the new volatility.
        let sigma = new_volatility(phi, self.volatility, v, delta, tau);
        // Steps 6 and 7: the new deviation and rating.
        let phi_star = phi.hypot(sigma);
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        // Step 8: back to Glicko's scale.
        Glicko2 {
            rating: SCALE * mu_new + 1500.0,
            deviation: SCALE * phi_new,
            volatility: sigma,
        }
    }
}

/// Glicko-2's g(φ).
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Step 5: the volatility σ' that solves Glickman's f(x) = 0 (x = ln σ'²), by the Illinois
/// algorithm from his 2013 paper.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 && k < f64::from(MAX_STEPS) {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    for _ in 0..MAX_STEPS {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: Glicko2, want: (f64, f64, f64), eps: (f64, f64, f64)) {
        assert!(
            (got.rating - want.0).abs() < eps.0
                && (got.deviation - want.1).abs() < eps.1
                && (got.volatility - want.2).abs() < eps.2,
            "{got:?} is not {want:?}"
        );
    }

    /// Glickman's worked example (glicko2.pdf, 2013): a 1500/200 player beats a 1400/30,
    /// loses to a 1550/100 and to a 1700/300; τ = 0.5. His figures, from intermediates
    /// rounded to four places: 1464.06, 151.52, 0.05999 (A = -5.62696, so σ' = 0.059996).
    /// Unrounded: 1464.0507, 151.5165, 0.0599960 (the reference below has the same).
    #[test]
    fn glickmans_example() {
        let player = Glicko2 {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2 {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after(&[
            (opponent(1400.0, 30.0), Score::Win),
            (opponent(1550.0, 100.0), Score::Loss),
            (opponent(1700.0, 300.0), Score::Loss),
        ]);
        close(
            after,
            (1464.06, 151.52, 0.059_996),
            (0.015, 0.005, 0.000_001),
        );
        close(
            after,
            (1_464.050_671, 151.516_524, 0.059_995_98),
            (0.000_001, 0.000_001, 0.000_000_01),
        );
    }

    /// Single games, against a reference implementation on PyPI: `pyglicko2` 0.0.1a2 (MIT),
    /// `with system(0.5): p = Player(r, rd, vol); p.update([Player(r', rd', 0.06)], [s])`,
    /// printed to six decimals (seven for σ). (The better-known `glicko2` 2.1.0 writes μ²
    /// where Glickman's f(x) has φ², and its volatility differs from his in the sixth
    /// decimal: 0.0599934 for his example, where he and this module have 0.0599960.)
    #[test]
    fn single_games_agree_with_the_reference() {
        type Row = ((f64, f64, f64), (f64, f64), Score, (f64, f64, f64));
        let rows: [Row; 7] = [
            (
                (1500.0, 350.0, 0.06),
                (1500.0, 350.0),
                Score::Win,
                (1_662.310_894, 290.318_964, 0.059_999_7),
            ),
            (
                (1500.0, 350.0, 0.06),
                (1500.0, 350.0),
                Score::Loss,
                (1_337.689_106, 290.318_964, 0.059_999_7),
            ),
            (
                (1500.0, 350.0, 0.06),
                (1500.0, 350.0),
                Score::Draw,
                (1500.0, 290.318_962, 0.059_999_0),
            ),
            (
                (1500.0, 80.0, 0.06),
                (1800.0, 60.0),
                Score::Win,
                (1_530.278_233, 79.599_074, 0.060_007_2),
            ),
            (
                (1500.0, 200.0, 0.09),
                (1300.0, 250.0),
                Score::Loss,
                (1_389.478_024, 185.619_497, 0.090_005_5),
            ),
            (
                (1720.0, 120.0, 0.05),
                (1650.0, 90.0),
                Score::Draw,
                (1_713.074_363, 114.361_223, 0.049_998_5),
            ),
            (
                (1380.0, 300.0, 0.07),
                (1900.0, 40.0),
                Score::Win,
                (1_810.848_389, 281.636_684, 0.070_013_9),
            ),
        ];
        for ((r, rd, vol), (r2, rd2), score, want) in rows {
            let player = Glicko2 {
                rating: r,
                deviation: rd,
                volatility: vol,
            };
            let other = Glicko2 {
                rating: r2,
                deviation: rd2,
                volatility: 0.06,
            };
            close(
                player.after(&[(other, score)]),
                want,
                (0.000_002, 0.000_002, 0.000_000_2),
            );
        }
    }

    #[test]
    fn a_period_without_games_widens_the_deviation_only() {
        let p = Glicko2 {
            rating: 1600.0,
            deviation: 100.0,
            volatility: 0.06,
        };
        let after = p.after(&[]);
        assert!((after.rating - 1600.0).abs() < 1e-9);
        assert!(
            (after.deviation - (100.0f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt()).abs() < 1e-6
        );
    }

    #[test]
    fn a_surprise_moves_the_volatility_up() {
        // A strong, settled player loses to a much weaker one many times: σ rises
        // (Glickman's Δ² > φ² + v branch).
        let strong = Glicko2 {
            rating: 2200.0,
            deviation: 50.0,
            volatility: 0.06,
        };
        let weak = Glicko2 {
            rating: 1200.0,
            deviation: 50.0,
            volatility: 0.06,
        };
        let after = strong.after(&[(weak, Score::Loss); 10]);
        assert!(after.volatility > 0.06, "{after:?}");
        assert!(after.rating < 2200.0);
    }
}
