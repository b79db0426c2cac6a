//! Swiss pairings (pure): players by score, each paired with the nearest in score it has not
//! met, no pair twice while that can be avoided, colours kept balanced, a bye (when the
//! field is odd) to the lowest-scored player who has not had one.

/// One player as the pairing sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entrant {
    /// Points so far (a bye counted).
    pub score: f64,
    /// Games as Black less games as White (in encounters of an odd number of games: the
    /// first game's colour counts).
    pub colour_balance: i32,
    /// The colour of its last game: `Some(true)` for Black.
    pub last_black: Option<bool>,
    /// The players it has met (indices).
    pub met: Vec<usize>,
    /// Whether it has had a bye.
    pub had_bye: bool,
}

/// A round's pairings: each pair (Black first, for the first game of the encounter) and
/// the player with a bye.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// `(black, white)` for the first game of each encounter.
    pub pairs: Vec<(usize, usize)>,
    /// The player who sits out, with a bye.
    pub bye: Option<usize>,
}

/// The most steps the search for pairings without a repeat may take before it allows
/// repeats (a field where that is needed is far smaller than this makes slow).
const SEARCH_STEPS: usize = 2_000_000;

/// Pairs a round. Players are ranked by score (ties: the lower index, the seed, first);
/// each, from the top, takes the player below it nearest in score that it has not met —
/// among equal scores one whose colours suit first (both wanting the same colour is tried
/// last), then the highest-ranked — backtracking when the rest cannot be paired; when no
/// pairing avoids every repeat, repeats are allowed.
///
/// ```
/// use gyoku_league::swiss::{Entrant, pair};
/// let field = vec![Entrant::default(); 4];
/// let round = pair(&field);
/// assert_eq!(round.pairs, [(0, 1), (2, 3)]);
/// assert_eq!(round.bye, None);
/// ```
pub fn pair(field: &[Entrant]) -> Round {
    let mut order: Vec<usize> = (0..field.len()).collect();
    order.sort_by(|&a, &b| field[b].score.total_cmp(&field[a].score).then(a.cmp(&b)));
    let bye = (order.len() % 2 == 1).then(|| {
        // The lowest-ranked player without a bye (everyone has had one: the lowest).
        *order
            .iter()
            .rev()
            .find(|&&p| !field[p].had_bye)
            .unwrap_or(order.last().expect("an odd field is not empty"))
    });
    order.retain(|&p| Some(p) != bye);
    let mut steps = 0;
    let pairs = search(field, &order, false, &mut steps)
        .or_else(|| {
            let mut steps = 0;
            search(field, &order, true, &mut steps)
        })
        .expect("with repeats allowed every even field pairs");
    Round {
        pairs: pairs
            .into_iter()
            .map(|(a, b)| colours(field, a, b))
            .collect(),
        bye,
    }
}

/// Pairs `left` (ranked) without repeats unless `repeats`; `None` when it cannot.
fn search(
    field: &[Entrant],
    left: &[usize],
    repeats: bool,
    steps: &mut usize,
) -> Option<Vec<(usize, usize)>> {
    let Some((&top, rest)) = left.split_first() else {
        return Some(Vec::new());
    };
    *steps += 1;
    if *steps > SEARCH_STEPS && !repeats {
        return None;
    }
    // Opponents nearest in score first (score before colour: two winners meet even when
    // both had White); among equal scores, those whose colours suit first; then by rank.
    // With repeats allowed, the fewest meetings come before all of that.
    let clash = |o: usize| {
        let (a, b) = (field[top].colour_balance, field[o].colour_balance);
        a != 0 && a.signum() == b.signum()
    };
    let meetings = |o: usize| field[top].met.iter().filter(|&&m| m == o).count();
    let mut candidates: Vec<(usize, usize)> = rest
        .iter()
        .enumerate()
        .filter(|&(_, &o)| repeats || !field[top].met.contains(&o))
        .map(|(i, &o)| (i, o))
        .collect();
    candidates.sort_by(|&(i, o), &(j, p)| {
        let gap = |x: usize| (field[top].score - field[x].score).abs();
        (if repeats { meetings(o) } else { 0 })
            .cmp(&(if repeats { meetings(p) } else { 0 }))
            .then(gap(o).total_cmp(&gap(p)))
            .then(clash(o).cmp(&clash(p)))
            .then(i.cmp(&j))
    });
    for (i, o) in candidates {
        let mut remaining = rest.to_vec();
        remaining.remove(i);
        if let Some(mut found) = search(field, &remaining, repeats, steps) {
            found.insert(0, (top, o));
            return Some(found);
        }
        if *steps > SEARCH_STEPS && !repeats {
            return None;
        }
    }
    None
}

/// Who takes Black in the first game: the one with fewer Blacks than Whites so far; equal,
/// the one who had White last; equal again, the higher-ranked (`a`).
fn colours(field: &[Entrant], a: usize, b: usize) -> (usize, usize) {
    let (ea, eb) = (&field[a], &field[b]);
    let a_black = match ea.colour_balance.cmp(&eb.colour_balance) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (ea.last_black, eb.last_black) {
            (Some(true), Some(false) | None) => false,
            (Some(false) | None, Some(true)) => true,
            (None, Some(false)) => false,
            _ => true,
        },
    };
    if a_black { (a, b) } else { (b, a) }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }
    }

    /// Whether the players can be paired with no repeat (by brute force).
    fn repeat_free_exists(field: &[Entrant], left: &[usize]) -> bool {
        let Some((&top, rest)) = left.split_first() else {
            return true;
        };
        rest.iter().enumerate().any(|(i, &o)| {
            !field[top].met.contains(&o) && {
                let mut r = rest.to_vec();
                r.remove(i);
                repeat_free_exists(field, &r)
            }
        })
    }

    /// Score before colour: after a round where both winners had White, the winners meet
    /// (one of them takes Black) rather than each playing a loser.
    #[test]
    fn winners_meet_though_both_had_white() {
        let mut field = vec![Entrant::default(); 4];
        for (black, white) in [(0, 1), (2, 3)] {
            field[white].score = 1.0;
            field[black].colour_balance = 1;
            field[white].colour_balance = -1;
            field[black].last_black = Some(true);
            field[white].last_black = Some(false);
            field[black].met.push(white);
            field[white].met.push(black);
        }
        let round = pair(&field);
        let winners = round
            .pairs
            .iter()
            .find(|&&(a, b)| field[a].score == 1.0 && field[b].score == 1.0);
        assert!(winners.is_some(), "{round:?}");
    }

    /// Plays whole Swiss tournaments of random results over many random fields and checks
    /// every round's pairings.
    #[test]
    fn pairings_hold_their_properties_over_many_random_fields() {
        let mut rng = Rng(30);
        let mut rounds_checked = 0;
        let mut repeats_forced = 0;
        for _ in 0..400 {
            let n = 2 + rng.below(11) as usize; // 2 to 12 players
            let rounds = 1 + rng.below(n as u64 + 2) as usize;
            let mut field = vec![Entrant::default(); n];
            for _ in 0..rounds {
                let before = field.clone();
                let round = pair(&field);
                // Everyone once: paired or the bye.
                let mut seen: Vec<usize> = round.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
                seen.extend(round.bye);
                seen.sort_unstable();
                assert_eq!(seen, (0..n).collect::<Vec<_>>());
                // The bye: the lowest score among those without one (ties: lowest ranked).
                if let Some(b) = round.bye {
                    let without: Vec<usize> = (0..n).filter(|&p| !before[p].had_bye).collect();
                    if !without.is_empty() {
                        assert!(!before[b].had_bye, "{b} had a bye already");
                        let lowest = without
                            .iter()
                            .map(|&p| before[p].score)
                            .fold(f64::INFINITY, f64::min);
                        assert_eq!(
                            before[b].score, lowest,
                            "bye to {b} at {} not the lowest {lowest}",
                            before[b].score
                        );
                    }
                }
                // No repeat while one is avoidable.
                let repeated = round.pairs.iter().any(|&(a, b)| before[a].met.contains(&b));
                if repeated {
                    let paired: Vec<usize> = (0..n).filter(|&p| Some(p) != round.bye).collect();
                    assert!(
                        !repeat_free_exists(&before, &paired),
                        "a repeat was avoidable: {round:?}"
                    );
                    repeats_forced += 1;
                }
                // Colours: nobody moves further past ±1 unless both of a pair leaned the
                // same way (equal scores met although both wanted one colour).
                for &(black, white) in &round.pairs {
                    let (bb, wb) = (
                        before[black].colour_balance + 1,
                        before[white].colour_balance - 1,
                    );
                    let same_lean = before[black].colour_balance != 0
                        && before[black].colour_balance.signum()
                            == before[white].colour_balance.signum();
                    if !same_lean {
                        let was = |p: usize| before[p].colour_balance.abs().max(1);
                        assert!(
                            bb.abs() <= was(black) && wb.abs() <= was(white),
                            "{before:?} {round:?}"
                        );
                    }
                }
                // Random results; the field moves on.
                for &(black, white) in &round.pairs {
                    let r = rng.below(3);
                    field[black].score += r as f64 / 2.0;
                    field[white].score += 1.0 - r as f64 / 2.0;
                    field[black].colour_balance += 1;
                    field[white].colour_balance -= 1;
                    field[black].last_black = Some(true);
                    field[white].last_black = Some(false);
                    field[black].met.push(white);
                    field[white].met.push(black);
                }
                if let Some(b) = round.bye {
                    field[b].score += 1.0;
                    field[b].had_bye = true;
                }
                rounds_checked += 1;
            }
        }
        println!(
            "{rounds_checked} rounds checked, {repeats_forced} with a repeat that could not be avoided"
        );
        assert!(rounds_checked > 1000 && repeats_forced > 0);
    }
}
