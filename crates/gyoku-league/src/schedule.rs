//! Which games a tournament plays next, from the games it has finished (pure): every
//! format's schedule is a function of the results so far, so a resumed tournament plays
//! exactly the games that are missing.

use std::collections::BTreeMap;

use crate::swiss::{self, Entrant};

/// A tournament's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
    /// Rounds paired by score (see [`swiss`]).
    Swiss,
    /// Single elimination, seeded in the order the engines are given.
    Knockout,
}

impl Format {
    /// `round-robin`, `gauntlet`, `swiss` or `knockout`.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
            Format::Swiss => "swiss",
            Format::Knockout => "knockout",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Ok(match s {
            "round-robin" | "roundrobin" | "rr" => Format::RoundRobin,
            "gauntlet" => Format::Gauntlet,
            "swiss" => Format::Swiss,
            "knockout" | "ko" => Format::Knockout,
            other => {
                return Err(format!(
                    "unknown format '{other}' (round-robin, gauntlet, swiss, knockout)"
                ));
            }
        })
    }
}

/// How a finished game counts: engine indices and the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game's number.
    pub number: u32,
    /// Black's engine.
    pub black: usize,
    /// White's engine.
    pub white: usize,
    /// Black's half-points: 2 a win, 1 a draw (or no contest), 0 a loss.
    pub black_half_points: u8,
}

/// A game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its number (records `game-NNNN`, results).
    pub number: u32,
    /// Its round, from 1.
    pub round: u32,
    /// Black's engine.
    pub black: usize,
    /// White's engine.
    pub white: usize,
    /// Which opening (an index, taken modulo the openings given).
    pub opening: usize,
}

/// A tournament's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The format.
    pub format: Format,
    /// Engines.
    pub engines: usize,
    /// Round-robin and gauntlet: how many times the schedule is played (colours starting
    /// the other way each time); Swiss: its rounds; knockout: unused.
    pub rounds: u32,
    /// Games each encounter plays, colours alternating, each opening twice (1 or more).
    pub games_per_encounter: u32,
}

/// Tie-break pairs a knockout encounter may add to a tie before the higher seed goes on.
pub const KNOCKOUT_TIEBREAK_PAIRS: u32 = 3;

/// An encounter: two engines and the games they play.
fn encounter_jobs(
    first: usize,
    second: usize,
    round: u32,
    number: u32,
    games: u32,
    opening_base: usize,
    swap: bool,
) -> Vec<Job> {
    (0..games)
        .map(|g| {
            let first_black = (g % 2 == 0) != swap;
            let (black, white) = if first_black {
                (first, second)
            } else {
                (second, first)
            };
            Job {
                number: number + g,
                round,
                black,
                white,
                opening: opening_base + (g / 2) as usize,
            }
        })
        .collect()
}

impl Plan {
    /// The games of round-robin and gauntlet schedules, all of them.
    fn fixed_schedule(&self) -> Vec<Job> {
        let n = self.engines;
        let pairs: Vec<(usize, usize)> = match self.format {
            Format::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
            Format::Gauntlet => (1..n).map(|j| (0, j)).collect(),
            Format::Swiss | Format::Knockout => Vec::new(),
        };
        let gpe = self.games_per_encounter;
        let mut jobs = Vec::new();
        let mut number = 1;
        let mut encounter = 0usize;
        for rep in 0..self.rounds.max(1) {
            for &(i, j) in &pairs {
                let opening_base = encounter * gpe.div_ceil(2) as usize;
                jobs.extend(encounter_jobs(
                    i,
                    j,
                    rep + 1,
                    number,
                    gpe,
                    opening_base,
                    rep % 2 == 1,
                ));
                number += gpe;
                encounter += 1;
            }
        }
        jobs
    }

    /// How many games the tournament plays (a knockout: without tie-breaks).
    pub fn total(&self) -> u32 {
        let n = self.engines as u32;
        match self.format {
            Format::RoundRobin | Format::Gauntlet => self.fixed_schedule().len() as u32,
            Format::Swiss => self.rounds * (n / 2) * self.games_per_encounter,
            Format::Knockout => n.saturating_sub(1) * self.games_per_encounter,
        }
    }

    /// The games to play now, given those finished (`done`, any order): all that are
    /// missing of a fixed schedule; the first unfinished Swiss round (paired from the
    /// rounds before it) or knockout stage. Empty when the tournament is over.
    pub fn next(&self, done: &[Played]) -> Vec<Job> {
        let finished: BTreeMap<u32, Played> = done.iter().map(|p| (p.number, *p)).collect();
        let missing = |jobs: Vec<Job>| -> Vec<Job> {
            jobs.into_iter()
                .filter(|j| !finished.contains_key(&j.number))
                .collect()
        };
        match self.format {
            Format::RoundRobin | Format::Gauntlet => missing(self.fixed_schedule()),
            Format::Swiss => self
                .swiss_rounds(&finished)
                .pop()
                .map_or_else(Vec::new, |(jobs, _)| missing(jobs)),
            Format::Knockout => missing(self.knockout(&finished).1),
        }
    }

    /// The Swiss rounds, each paired from the results of those before it, as far as the
    /// results go: every round up to the first with a game not finished (or all of them).
    pub fn swiss_rounds(&self, finished: &BTreeMap<u32, Played>) -> Vec<(Vec<Job>, Option<usize>)> {
        let n = self.engines;
        let gpe = self.games_per_encounter;
        let per_round = (n as u32 / 2) * gpe;
        let mut field = vec![Entrant::default(); n];
        let mut rounds = Vec::new();
        for round in 1..=self.rounds {
            let pairing = swiss::pair(&field);
            let base = (round - 1) * per_round + 1;
            let mut jobs = Vec::new();
            for (k, &(black, white)) in pairing.pairs.iter().enumerate() {
                let number = base + k as u32 * gpe;
                let opening_base = ((round - 1) as usize * (n / 2) + k) * gpe.div_ceil(2) as usize;
                jobs.extend(encounter_jobs(
                    black,
                    white,
                    round,
                    number,
                    gpe,
                    opening_base,
                    false,
                ));
            }
            let complete = jobs.iter().all(|j| finished.contains_key(&j.number));
            // The field after this round.
            for job in &jobs {
                if let Some(p) = finished.get(&job.number) {
                    let hp = f64::from(p.black_half_points) / 2.0;
                    field[p.black].score += hp;
                    field[p.white].score += 1.0 - hp;
                }
            }
            for &(black, white) in &pairing.pairs {
                field[black].met.push(white);
                field[white].met.push(black);
                if gpe % 2 == 1 {
                    field[black].colour_balance += 1;
                    field[white].colour_balance -= 1;
                }
                field[black].last_black = Some(true);
                field[white].last_black = Some(false);
            }
            if let Some(b) = pairing.bye {
                field[b].score += f64::from(gpe);
                field[b].had_bye = true;
            }
            rounds.push((jobs, pairing.bye));
            if !complete {
                break;
            }
        }
        rounds
    }

    /// The knockout bracket as far as the results go: each round's encounters (with who
    /// went on), and the games to play now.
    pub fn knockout(
        &self,
        finished: &BTreeMap<u32, Played>,
    ) -> (Vec<Vec<KnockoutEncounter>>, Vec<Job>) {
        let n = self.engines;
        let size = n.next_power_of_two().max(2);
        let gpe = self.games_per_encounter;
        let slot = gpe + 2 * KNOCKOUT_TIEBREAK_PAIRS;
        // Round 1 by seeds: 1 v size, 2 v size−1, … (a seed past the field is a bye), in
        // bracket order so that seeds 1 and 2 can meet only in the final.
        let mut line: Vec<Option<usize>> = bracket_order(size)
            .into_iter()
            .map(|s| (s < n).then_some(s))
            .collect();
        let mut rounds = Vec::new();
        let mut number = 1;
        let mut round = 1;
        let mut now = Vec::new();
        while line.len() > 1 {
            let mut next = Vec::new();
            let mut encounters = Vec::new();
            for (k, pair) in line.chunks(2).enumerate() {
                let e = match (pair[0], pair[1]) {
                    (Some(a), None) | (None, Some(a)) => KnockoutEncounter {
                        players: [a, a],
                        points: [0, 0],
                        games: 0,
                        winner: Some(a),
                    },
                    (None, None) => KnockoutEncounter {
                        players: [usize::MAX; 2],
                        points: [0, 0],
                        games: 0,
                        winner: None,
                    },
                    (Some(a), Some(b)) => {
                        let base = number + k as u32 * slot;
                        // Openings in the order of the games' numbers, two games an opening.
                        let opening_base = ((base - 1) / 2) as usize;
                        let mut jobs = encounter_jobs(a, b, round, base, gpe, opening_base, false);
                        let mut e = KnockoutEncounter {
                            players: [a, b],
                            points: [0, 0],
                            games: 0,
                            winner: None,
                        };
                        let mut extra = 0;
                        loop {
                            let all_done = jobs.iter().all(|j| finished.contains_key(&j.number));
                            if !all_done {
                                now.extend(
                                    jobs.iter()
                                        .copied()
                                        .filter(|j| !finished.contains_key(&j.number)),
                                );
                                break;
                            }
                            let (pa, pb) = tally(&jobs, finished, a);
                            e.points = [pa, pb];
                            e.games = jobs.len() as u32;
                            if pa != pb {
                                e.winner = Some(if pa > pb { a } else { b });
                                break;
                            }
                            if extra == KNOCKOUT_TIEBREAK_PAIRS {
                                // Still tied: the higher seed (given first) goes on.
                                e.winner = Some(a.min(b));
                                break;
                            }
                            let start = base + gpe + 2 * extra;
                            jobs.extend(encounter_jobs(
                                a,
                                b,
                                round,
                                start,
                                2,
                                opening_base + (gpe.div_ceil(2) + extra) as usize,
                                false,
                            ));
                            extra += 1;
                        }
                        e
                    }
                };
                next.push(e.winner);
                encounters.push(e);
            }
            rounds.push(encounters);
            if !now.is_empty() {
                // This round is still being played: later rounds wait.
                break;
            }
            number += (line.len() / 2) as u32 * slot;
            line = next;
            round += 1;
        }
        (rounds, now)
    }
}

/// One knockout encounter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnockoutEncounter {
    /// The two engines (the same one twice for a bye).
    pub players: [usize; 2],
    /// Their half-points over the games finished.
    pub points: [u32; 2],
    /// Games counted.
    pub games: u32,
    /// Who goes on, once decided.
    pub winner: Option<usize>,
}

/// `a`'s and the other's half-points over `jobs`.
fn tally(jobs: &[Job], finished: &BTreeMap<u32, Played>, a: usize) -> (u32, u32) {
    let mut pa = 0;
    let mut pb = 0;
    for j in jobs {
        if let Some(p) = finished.get(&j.number) {
            let (hb, hw) = (
                u32::from(p.black_half_points),
                2 - u32::from(p.black_half_points),
            );
            if p.black == a {
                pa += hb;
                pb += hw;
            } else {
                pa += hw;
                pb += hb;
            }
        }
    }
    (pa, pb)
}

/// Seeds (from 0) in bracket order: for 8, `0 7 3 4 1 6 2 5`.
fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![0usize];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n - 1 - s]).collect();
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(plan: &Plan, result: impl Fn(&Job) -> u8) -> Vec<Played> {
        let mut done = Vec::new();
        for _ in 0..1000 {
            let jobs = plan.next(&done);
            if jobs.is_empty() {
                return done;
            }
            for j in jobs {
                done.push(Played {
                    number: j.number,
                    black: j.black,
                    white: j.white,
                    black_half_points: result(&j),
                });
            }
        }
        panic!("the tournament never ended");
    }

    #[test]
    fn a_round_robin_plays_every_pair_with_both_colours() {
        let plan = Plan {
            format: Format::RoundRobin,
            engines: 4,
            rounds: 1,
            games_per_encounter: 2,
        };
        let done = play_all(&plan, |_| 1);
        assert_eq!(done.len(), 12);
        assert_eq!(plan.total(), 12);
        for i in 0..4 {
            for j in 0..4 {
                if i != j {
                    assert_eq!(
                        done.iter().filter(|p| p.black == i && p.white == j).count(),
                        1
                    );
                }
            }
        }
        // Both games of an encounter share an opening.
        let jobs = plan.next(&[]);
        assert_eq!(jobs[0].opening, jobs[1].opening);
        assert_ne!(jobs[1].opening, jobs[2].opening);
    }

    #[test]
    fn a_gauntlet_plays_the_first_engine_against_each() {
        let plan = Plan {
            format: Format::Gauntlet,
            engines: 4,
            rounds: 2,
            games_per_encounter: 2,
        };
        let done = play_all(&plan, |_| 2);
        assert_eq!(done.len(), 12);
        assert!(done.iter().all(|p| p.black == 0 || p.white == 0));
    }

    #[test]
    fn a_swiss_round_waits_for_the_one_before_and_resumes_where_it_stopped() {
        let plan = Plan {
            format: Format::Swiss,
            engines: 5,
            rounds: 3,
            games_per_encounter: 2,
        };
        let first = plan.next(&[]);
        assert_eq!(first.len(), 4);
        assert!(first.iter().all(|j| j.round == 1));
        // Half the first round done: the rest of it, not round 2.
        let half: Vec<Played> = first[..2]
            .iter()
            .map(|j| Played {
                number: j.number,
                black: j.black,
                white: j.white,
                black_half_points: 2,
            })
            .collect();
        assert_eq!(plan.next(&half), first[2..].to_vec());
        let done = play_all(&plan, |j| if j.black < j.white { 2 } else { 0 });
        assert_eq!(done.len() as u32, plan.total());
    }

    #[test]
    fn a_knockout_plays_to_one_winner_with_tie_breaks() {
        let plan = Plan {
            format: Format::Knockout,
            engines: 5,
            rounds: 0,
            games_per_encounter: 2,
        };
        // Every game drawn: every encounter goes to its tie-breaks, then to the higher seed.
        let done = play_all(&plan, |_| 1);
        let finished: BTreeMap<u32, Played> = done.iter().map(|p| (p.number, *p)).collect();
        let (rounds, now) = plan.knockout(&finished);
        assert!(now.is_empty());
        assert_eq!(rounds.len(), 3);
        assert_eq!(rounds[2][0].winner, Some(0));
        // 4 encounters played (one round-1 match; seeds 1-3 had byes), each 2 + 6 games.
        assert_eq!(done.len(), 4 * 8);
        // Decisive: the lower index wins every game, no tie-breaks.
        let done = play_all(&plan, |j| if j.black < j.white { 2 } else { 0 });
        assert_eq!(done.len(), 8);
        assert_eq!(bracket_order(8), [0, 7, 3, 4, 1, 6, 2, 5]);
    }
}
