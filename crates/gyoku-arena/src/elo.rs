//! The Elo difference a score implies, with its 95 % error bar.

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

fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The Elo difference from `wins`, `draws` and `losses` of the first player.
///
/// ```
/// use gyoku_arena::elo::estimate;
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
        elo_of(clamp(score - 1.959_964 * sigma)),
        elo_of(clamp(score + 1.959_964 * sigma)),
    );
    let diff = if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        elo_of(score)
    };
    Some(EloEstimate {
        diff,
        error: (high - low) / 2.0,
        score,
    })
}
