//! Adjudication for engine testing, opt-in: a game both engines agree is lost (each
//! engine's score past a bound for a number of its moves) or drawn (both within a bound
//! after a given ply) is ended there. The rules never decided it, so nothing pretends they
//! did: the record ends as suspended (`%CHUDAN`, 中断) with the adjudication in a comment,
//! and the result is the adjudication's (`adjudicated_resign`, `adjudicated_draw`).

use gyoku::{Color, GameResult};

/// Resign adjudication: `score` centipawns (or more) for `moves` moves of each engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// The score both engines must see, in centipawns, for the side ahead.
    pub score: i64,
    /// For this many moves of each engine in a row.
    pub moves: u32,
}

/// Draw adjudication: from ply `from`, both engines within ±`score` for `moves` moves each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// The ply from which it may apply.
    pub from: u32,
    /// The bound, in centipawns.
    pub score: i64,
    /// For this many moves of each engine in a row.
    pub moves: u32,
}

/// Both rules, each optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// `--adjudicate-resign`.
    pub resign: Option<ResignRule>,
    /// `--adjudicate-draw`.
    pub draw: Option<DrawRule>,
}

fn numbers(
    spec: &str,
    what: &str,
    count: std::ops::RangeInclusive<usize>,
) -> Result<Vec<i64>, String> {
    let parts: Result<Vec<i64>, _> = spec.split(':').map(|p| p.trim().parse::<i64>()).collect();
    match parts {
        Ok(p) if count.contains(&p.len()) && p.iter().all(|&v| v >= 0) => Ok(p),
        _ => Err(format!("'{spec}': {what}")),
    }
}

impl ResignRule {
    /// Reads `SCORE:MOVES` (`1000:4`).
    ///
    /// ```
    /// use gyoku_arena::adjudication::ResignRule;
    /// assert_eq!(ResignRule::parse("1000:4").unwrap().moves, 4);
    /// assert!(ResignRule::parse("1000").is_err());
    /// ```
    ///
    /// # Errors
    /// What it expects.
    pub fn parse(spec: &str) -> Result<ResignRule, String> {
        let p = numbers(spec, "SCORE:MOVES, both above 0 (1000:4)", 2..=2)?;
        if p[0] == 0 || p[1] == 0 {
            return Err(format!("'{spec}': SCORE:MOVES, both above 0 (1000:4)"));
        }
        Ok(ResignRule {
            score: p[0],
            moves: u32::try_from(p[1]).map_err(|_| format!("'{spec}': too many moves"))?,
        })
    }
}

impl DrawRule {
    /// Reads `PLY:SCORE[:MOVES]` (`160:10`, moves 5 unless given).
    ///
    /// ```
    /// use gyoku_arena::adjudication::DrawRule;
    /// let d = DrawRule::parse("160:10").unwrap();
    /// assert_eq!((d.from, d.score, d.moves), (160, 10, 5));
    /// ```
    ///
    /// # Errors
    /// What it expects.
    pub fn parse(spec: &str) -> Result<DrawRule, String> {
        let p = numbers(
            spec,
            "PLY:SCORE[:MOVES], none below 0, MOVES above 0 (160:10)",
            2..=3,
        )?;
        if p.get(2) == Some(&0) {
            return Err(format!("'{spec}': MOVES above 0"));
        }
        let small = |v: i64| u32::try_from(v).map_err(|_| format!("'{spec}': too large"));
        Ok(DrawRule {
            from: small(p[0])?,
            score: p[1],
            moves: small(p.get(2).copied().unwrap_or(5))?,
        })
    }
}

/// An adjudicated end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjudicated {
    /// The result given.
    pub result: GameResult,
    /// `adjudicated_resign` or `adjudicated_draw`.
    pub reason: &'static str,
    /// In words, for the record: what both engines said.
    pub detail: String,
}

impl Adjudication {
    /// Whether the game is adjudicated, given each move's score from its mover's view
    /// (`scores[k]` for ply `k + 1` of the engines' moves, `None` when the engine gave
    /// none) and who moved first among them.
    pub fn judge(&self, scores: &[Option<i64>], first: Color, plies: u32) -> Option<Adjudicated> {
        // Each score from Black's view.
        let black_view = |k: usize, s: i64| {
            let mover = if k.is_multiple_of(2) {
                first
            } else {
                first.opposite()
            };
            if mover == Color::Black { s } else { -s }
        };
        if let Some(rule) = self.resign {
            let n = 2 * rule.moves as usize;
            if scores.len() >= n {
                let last = &scores[scores.len() - n..];
                let start = scores.len() - n;
                let views: Option<Vec<i64>> = last
                    .iter()
                    .enumerate()
                    .map(|(i, s)| s.map(|s| black_view(start + i, s)))
                    .collect();
                if let Some(v) = views {
                    let loser = if v.iter().all(|&s| s <= -rule.score) {
                        Some(Color::Black)
                    } else if v.iter().all(|&s| s >= rule.score) {
                        Some(Color::White)
                    } else {
                        None
                    };
                    if let Some(loser) = loser {
                        return Some(Adjudicated {
                            result: GameResult::Win(loser.opposite()),
                            reason: "adjudicated_resign",
                            detail: format!(
                                "adjudicated: {} loses (both engines' scores {} or more for {} for {} moves each)",
                                color_name(loser),
                                rule.score,
                                color_name(loser.opposite()),
                                rule.moves
                            ),
                        });
                    }
                }
            }
        }
        if let Some(rule) = self.draw {
            let n = 2 * rule.moves as usize;
            if plies >= rule.from && scores.len() >= n {
                let last = &scores[scores.len() - n..];
                if last
                    .iter()
                    .all(|s| s.is_some_and(|s| s.abs() <= rule.score))
                {
                    return Some(Adjudicated {
                        result: GameResult::Draw,
                        reason: "adjudicated_draw",
                        detail: format!(
                            "adjudicated: draw (both engines' scores within ±{} for {} moves each, from ply {})",
                            rule.score, rule.moves, rule.from
                        ),
                    });
                }
            }
        }
        None
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_engines_must_agree_for_the_moves_asked() {
        let a = Adjudication {
            resign: Some(ResignRule {
                score: 500,
                moves: 2,
            }),
            draw: Some(DrawRule {
                from: 10,
                score: 20,
                moves: 2,
            }),
        };
        // Black moves first; each score from its mover's view. White is losing: Black's
        // engine says +600, White's says -700 (its view), twice each.
        let losing = [Some(600), Some(-700), Some(650), Some(-800)];
        let j = a.judge(&losing, Color::Black, 30).unwrap();
        assert_eq!(
            (j.result, j.reason),
            (GameResult::Win(Color::Black), "adjudicated_resign")
        );
        // One engine disagrees: nothing.
        assert_eq!(
            a.judge(
                &[Some(600), Some(100), Some(650), Some(-800)],
                Color::Black,
                30
            ),
            None
        );
        // A missing score: nothing.
        assert_eq!(
            a.judge(&[Some(600), None, Some(650), Some(-800)], Color::Black, 30),
            None
        );
        // Quiet scores after ply 10: a draw; before it, nothing.
        let quiet = [Some(5), Some(-10), Some(0), Some(15)];
        assert_eq!(
            a.judge(&quiet, Color::Black, 12).unwrap().reason,
            "adjudicated_draw"
        );
        assert_eq!(a.judge(&quiet, Color::Black, 8), None);
        // White moved first (a handicap game): the same scores mean the other side.
        let j = a.judge(&losing, Color::White, 30).unwrap();
        assert_eq!(j.result, GameResult::Win(Color::White));
    }
}
