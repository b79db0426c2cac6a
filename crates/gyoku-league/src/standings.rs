//! A tournament's standings (points, games, wins, draws and losses, Elo with its 95 %
//! interval, Buchholz and Sonneborn–Berger), its crosstable and its endings by reason,
//! from the games finished (pure).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::ratings::mle::{self, Results, Score};
use crate::schedule::{Format, Plan, Played};

/// One finished game, as `results.jsonl` keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentGame {
    /// Its number.
    pub number: u32,
    /// Its round.
    pub round: u32,
    /// Black's and White's engines (indices).
    pub players: [usize; 2],
    /// `black`, `white`, `draw` or `no_contest`.
    pub result: String,
    /// The end reason's code.
    pub reason: String,
    /// Plies.
    pub plies: u32,
}

impl TournamentGame {
    /// Black's half-points (a no contest counts as a draw).
    pub fn black_half_points(&self) -> u8 {
        match self.result.as_str() {
            "black" => 2,
            "white" => 0,
            _ => 1,
        }
    }

    /// The game as the schedule counts it.
    pub fn played(&self) -> Played {
        Played {
            number: self.number,
            black: self.players[0],
            white: self.players[1],
            black_half_points: self.black_half_points(),
        }
    }

    /// The game as `results.jsonl` keeps it, the players by their `names`.
    pub fn to_json(&self, names: &[String]) -> Value {
        json!({
            "game": self.number,
            "round": self.round,
            "players": [names[self.players[0]], names[self.players[1]]],
            "result": self.result,
            "reason": self.reason,
            "plies": self.plies,
        })
    }

    /// A game read back from `results.jsonl`, the players found among `names`; `None`
    /// when a field is missing or names no player.
    pub fn from_json(v: &Value, names: &[String]) -> Option<TournamentGame> {
        let index = |s: &Value| names.iter().position(|n| Some(n.as_str()) == s.as_str());
        let players = v["players"].as_array()?;
        Some(TournamentGame {
            number: u32::try_from(v["game"].as_u64()?).ok()?,
            round: u32::try_from(v["round"].as_u64()?).ok()?,
            players: [index(players.first()?)?, index(players.get(1)?)?],
            result: v["result"].as_str()?.to_string(),
            reason: v["reason"].as_str()?.to_string(),
            plies: u32::try_from(v["plies"].as_u64()?).ok()?,
        })
    }
}

/// Games by number, for the standings.
pub fn by_number(games: &[TournamentGame]) -> BTreeMap<u32, Played> {
    games.iter().map(|g| (g.number, g.played())).collect()
}

/// One engine's line.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The engine (index).
    pub engine: usize,
    /// Points: a win 1, a draw (or no contest) ½, a bye a win of each game of its encounter.
    pub points: f64,
    /// Points from byes.
    pub bye_points: f64,
    /// Games played.
    pub games: u32,
    /// Wins, draws, losses.
    pub wdl: [u32; 3],
    /// Elo (the field's mean at 0), by maximum likelihood with one prior draw each.
    pub elo: f64,
    /// Half the width of its 95 % interval.
    pub error: f64,
    /// The sum of the points of the engines it met (each game once).
    pub buchholz: f64,
    /// Sonneborn–Berger: the points of those it beat, and half those of those it drew.
    pub sonneborn_berger: f64,
    /// Knockout: the round it reached (the winner one more than the last).
    pub reached: u32,
}

/// The standings, crosstable and endings of a tournament so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// Best first.
    pub lines: Vec<Line>,
    /// `[i][j]`: `i`'s half-points against `j` and their games.
    pub crosstable: Vec<Vec<(u32, u32)>>,
    /// Per end reason: decisive games and draws.
    pub by_reason: BTreeMap<String, [u32; 2]>,
    /// Knockout: the winner, once there is one.
    pub winner: Option<usize>,
    format: Format,
}

impl Standings {
    /// The standings of `games` under `plan`.
    pub fn new(plan: &Plan, games: &[TournamentGame]) -> Standings {
        let mut byes = Vec::new();
        if plan.format == Format::Swiss {
            let finished = by_number(games);
            byes = plan
                .swiss_rounds(&finished)
                .into_iter()
                .filter_map(|(_, bye)| bye)
                .collect();
        }
        Standings::with_byes(plan, games, &byes)
    }

    /// The standings of `games` under `plan`, with the byes given (each a win of every
    /// game of its encounter) rather than paired again from the results: an event on a
    /// server keeps its pairings as they were made, whatever a later adjustment changed.
    ///
    /// ```
    /// use gyoku_league::schedule::{Format, Plan};
    /// use gyoku_league::standings::{Standings, TournamentGame};
    /// let plan = Plan { format: Format::Swiss, engines: 3, rounds: 1, games_per_encounter: 1 };
    /// let won = TournamentGame {
    ///     number: 1, round: 1, players: [0, 1], result: "black".into(),
    ///     reason: "resign".into(), plies: 40,
    /// };
    /// let s = Standings::with_byes(&plan, &[won], &[2]);
    /// assert_eq!(s.lines.iter().map(|l| l.points).collect::<Vec<_>>(), [1.0, 1.0, 0.0]);
    /// ```
    pub fn with_byes(plan: &Plan, games: &[TournamentGame], byes: &[usize]) -> Standings {
        let n = plan.engines;
        let mut cross = vec![vec![(0u32, 0u32); n]; n];
        let mut wdl = vec![[0u32; 3]; n];
        let mut by_reason: BTreeMap<String, [u32; 2]> = BTreeMap::new();
        let mut results = Results::default();
        for k in 0..n {
            results.player(&k.to_string());
        }
        for g in games {
            let [b, w] = g.players;
            let hp = u32::from(g.black_half_points());
            cross[b][w].0 += hp;
            cross[w][b].0 += 2 - hp;
            cross[b][w].1 += 1;
            cross[w][b].1 += 1;
            let (kb, kw) = match hp {
                2 => (0, 2),
                0 => (2, 0),
                _ => (1, 1),
            };
            wdl[b][kb] += 1;
            wdl[w][kw] += 1;
            by_reason.entry(g.reason.clone()).or_default()[usize::from(hp == 1)] += 1;
            let score = match hp {
                2 => Score::Win,
                0 => Score::Loss,
                _ => Score::Draw,
            };
            results.add(&b.to_string(), &w.to_string(), score, 1.0);
        }
        let finished = by_number(games);
        let mut bye_points = vec![0.0; n];
        for &b in byes.iter().filter(|&&b| b < n) {
            bye_points[b] += f64::from(plan.games_per_encounter);
        }
        let mut reached = vec![0u32; n];
        let mut winner = None;
        if plan.format == Format::Knockout {
            let (rounds, _) = plan.knockout(&finished);
            for (r, encounters) in rounds.iter().enumerate() {
                for e in encounters {
                    for &p in &e.players {
                        if p < n {
                            reached[p] = reached[p].max(r as u32 + 1);
                        }
                    }
                    if let Some(w) = e.winner
                        && r + 1 == rounds.len()
                        && encounters.len() == 1
                    {
                        winner = Some(w);
                        reached[w] = r as u32 + 2;
                    }
                }
            }
        }
        let points: Vec<f64> = (0..n)
            .map(|i| f64::from(cross[i].iter().map(|c| c.0).sum::<u32>()) / 2.0 + bye_points[i])
            .collect();
        let rated = mle::rate(&results, &mle::Options { prior_draws: 1.0 }).unwrap_or_default();
        let mut lines: Vec<Line> = (0..n)
            .map(|i| {
                let r = rated.iter().find(|r| r.player == i);
                let (mut buchholz, mut sb) = (0.0, 0.0);
                for j in 0..n {
                    let (hp, games) = cross[i][j];
                    buchholz += f64::from(games) * points[j];
                    sb += f64::from(hp) / 2.0 * points[j];
                }
                Line {
                    engine: i,
                    points: points[i],
                    bye_points: bye_points[i],
                    games: wdl[i].iter().sum(),
                    wdl: wdl[i],
                    elo: r.map_or(0.0, |r| r.elo),
                    error: r.map_or(f64::INFINITY, |r| r.error),
                    buchholz,
                    sonneborn_berger: sb,
                    reached: reached[i],
                }
            })
            .collect();
        lines.sort_by(|a, b| {
            b.reached
                .cmp(&a.reached)
                .then(b.points.total_cmp(&a.points))
                .then(if plan.format == Format::Swiss {
                    b.buchholz.total_cmp(&a.buchholz)
                } else {
                    std::cmp::Ordering::Equal
                })
                .then(b.sonneborn_berger.total_cmp(&a.sonneborn_berger))
                .then(a.engine.cmp(&b.engine))
        });
        Standings {
            lines,
            crosstable: cross,
            by_reason,
            winner,
            format: plan.format,
        }
    }

    /// The standings, crosstable and endings as text (markdown tables).
    pub fn text(&self, names: &[String]) -> String {
        let swiss = self.format == Format::Swiss;
        let knockout = self.format == Format::Knockout;
        let mut out = String::from("| rank | engine | points | games | W/D/L | Elo | ± |");
        out.push_str(if swiss {
            " Buchholz | SB | byes |\n|---|---|---|---|---|---|---|---|---|---|\n"
        } else if knockout {
            " reached |\n|---|---|---|---|---|---|---|---|\n"
        } else {
            " SB |\n|---|---|---|---|---|---|---|---|\n"
        });
        for (rank, l) in self.lines.iter().enumerate() {
            let [w, d, lo] = l.wdl;
            out.push_str(&format!(
                "| {} | {} | {} | {} | {w}/{d}/{lo} | {:+.0} | {} |",
                rank + 1,
                names[l.engine],
                half(l.points),
                l.games,
                l.elo,
                if l.error.is_finite() {
                    format!("{:.0}", l.error)
                } else {
                    "-".into()
                },
            ));
            if swiss {
                out.push_str(&format!(
                    " {} | {} | {} |\n",
                    half(l.buchholz),
                    half(l.sonneborn_berger),
                    half(l.bye_points)
                ));
            } else if knockout {
                let reached = if Some(l.engine) == self.winner {
                    "winner".to_string()
                } else {
                    format!("round {}", l.reached)
                };
                out.push_str(&format!(" {reached} |\n"));
            } else {
                out.push_str(&format!(" {} |\n", half(l.sonneborn_berger)));
            }
        }
        let n = names.len();
        out.push_str("\ncrosstable (points against each, of the games played)\n\n|   | engine |");
        for k in 1..=n {
            out.push_str(&format!(" {k} |"));
        }
        out.push_str(" total |\n|---|---|");
        out.push_str(&"---|".repeat(n + 1));
        out.push('\n');
        for (i, name) in names.iter().enumerate() {
            out.push_str(&format!("| {} | {name} |", i + 1));
            for j in 0..n {
                let (hp, games) = self.crosstable[i][j];
                if i == j || games == 0 {
                    out.push_str(" · |");
                } else {
                    out.push_str(&format!(" {}/{games} |", half(f64::from(hp) / 2.0)));
                }
            }
            let total: u32 = self.crosstable[i].iter().map(|c| c.0).sum();
            out.push_str(&format!(" {} |\n", half(f64::from(total) / 2.0)));
        }
        out.push_str("\nendings: ");
        let endings: Vec<String> = self
            .by_reason
            .iter()
            .map(|(r, [decisive, draws])| match (decisive, draws) {
                (d, 0) => format!("{r} {d}"),
                (0, d) => format!("{r} {d} (drawn)"),
                (a, b) => format!("{r} {} ({b} drawn)", a + b),
            })
            .collect();
        out.push_str(&endings.join(", "));
        out.push('\n');
        out
    }

    /// As JSON: `standings`, `crosstable` (half-points and games), `by_reason`, `winner`.
    pub fn to_json(&self, names: &[String]) -> Value {
        json!({
            "standings": self.lines.iter().map(|l| json!({
                "engine": names[l.engine],
                "points": l.points,
                "bye_points": l.bye_points,
                "games": l.games,
                "wins": l.wdl[0], "draws": l.wdl[1], "losses": l.wdl[2],
                "elo": l.elo,
                "elo_error": if l.error.is_finite() { json!(l.error) } else { json!(null) },
                "buchholz": l.buchholz,
                "sonneborn_berger": l.sonneborn_berger,
                "reached": l.reached,
            })).collect::<Vec<_>>(),
            "crosstable": self.crosstable.iter().map(|row| row.iter().map(|&(hp, g)| json!({"points": f64::from(hp) / 2.0, "games": g})).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "by_reason": self.by_reason.iter().map(|(r, [d, dr])| (r.clone(), json!({"decisive": d, "draws": dr}))).collect::<serde_json::Map<_, _>>(),
            "winner": self.winner.map(|w| names[w].clone()),
        })
    }

    /// A line per engine, best first, for a progress display: `name points (games)`.
    pub fn brief(&self, names: &[String]) -> String {
        self.lines
            .iter()
            .map(|l| format!("{} {} ({})", names[l.engine], half(l.points), l.games))
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// `3`, `3.5`, `3.75`.
fn half(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else if (2.0 * x - (2.0 * x).round()).abs() < 1e-9 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crosstable_totals_equal_the_standings_and_tie_breaks_add_up() {
        let plan = Plan {
            format: Format::Swiss,
            engines: 3,
            rounds: 2,
            games_per_encounter: 1,
        };
        // Round 1: 0 v 1 (0 wins), 2 has the bye. Round 2 as the pairing says.
        let mut games = Vec::new();
        let mut done = Vec::new();
        for _ in 0..2 {
            for j in plan.next(&done) {
                let g = TournamentGame {
                    number: j.number,
                    round: j.round,
                    players: [j.black, j.white],
                    result: "black".into(),
                    reason: "checkmate".into(),
                    plies: 50,
                };
                done.push(g.played());
                games.push(g);
            }
        }
        let s = Standings::new(&plan, &games);
        for l in &s.lines {
            let row: u32 = s.crosstable[l.engine].iter().map(|c| c.0).sum();
            assert_eq!(f64::from(row) / 2.0 + l.bye_points, l.points, "{l:?}");
            assert_eq!(l.games, l.wdl.iter().sum::<u32>());
        }
        let total: f64 = s.lines.iter().map(|l| l.points - l.bye_points).sum();
        assert_eq!(total, games.len() as f64);
        assert_eq!(
            s.lines.iter().map(|l| l.bye_points).sum::<f64>(),
            2.0,
            "a bye each round"
        );
    }
}
