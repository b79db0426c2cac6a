//! `gyoku-bench ratings`: Floodgate's ratings for many games among many players, by
//! `gyoku ratings --floodgate` (built beside this one) and by shogi-server's `mk_rate`
//! (Ruby and GSL) on the same file, side by side; and the library's own work in-process
//! (reading the lines, Floodgate's method, the maximum-likelihood list).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use gyoku_league::ratings::{floodgate, mle};

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 2026-11-21 00:00 as seconds since 1970.
const BASE: i64 = 1_795_219_200;

/// `games` lines of `mk_game_results` among `players` players of spread strengths, over the
/// 60 days before 2026-11-21 (every game weighs much), 8 % draws.
pub fn history(games: usize, players: usize) -> String {
    let mut rng = Rng(2026);
    let strengths: Vec<f64> = (0..players).map(|_| (rng.unit() - 0.5) * 1600.0).collect();
    let mut out = String::with_capacity(games * 80);
    for k in 0..games {
        let a = (rng.next() % players as u64) as usize;
        let b = (a + 1 + (rng.next() % (players as u64 - 1)) as usize) % players;
        let p = 1.0 / (1.0 + 10f64.powf((strengths[b] - strengths[a]) / 400.0));
        let (bm, wm) = if rng.unit() < 0.08 {
            ("draw", "draw")
        } else if rng.unit() < p {
            ("win", "lose")
        } else {
            ("lose", "win")
        };
        let t = BASE - (rng.next() % (60 * 86_400)) as i64;
        out.push_str(&format!(
            "{}\ttoryo\t{bm}\tp{a}+t{a:x}\tp{b}+t{b:x}\t{wm}\tg{k}.csa\t100\n",
            floodgate::format_time(t).replace('-', "/")
        ));
    }
    out
}

/// Runs the comparison and prints a markdown table.
pub fn run(games: usize, players: usize, gyoku: &Path, peers: &Path, mk_rate_limit: Duration) {
    let dir = std::env::temp_dir().join(format!("gyoku-bench-ratings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("results.txt");
    let text = history(games, players);
    std::fs::write(&file, &text).expect("the results file");
    eprintln!(
        "ratings: {games} games among {players} players in {}",
        file.display()
    );

    // In-process: reading, Floodgate's method, the maximum-likelihood list.
    let t = Instant::now();
    let lines: Vec<floodgate::GameLine> = text
        .lines()
        .map(|l| floodgate::GameLine::parse(l).expect("a line"))
        .collect();
    let read = t.elapsed();
    let options = floodgate::Options::at(BASE);
    let t = Instant::now();
    let list = floodgate::rate(&lines, &options).expect("a list");
    let fg = t.elapsed();
    let mut results = mle::Results::default();
    for g in &lines {
        let score = match g.black_mark.as_str() {
            "win" => mle::Score::Win,
            "lose" => mle::Score::Loss,
            _ => mle::Score::Draw,
        };
        results.add(&g.black_id, &g.white_id, score, 1.0);
    }
    let t = Instant::now();
    let rated = mle::rate(&results, &mle::Options { prior_draws: 0.0 }).expect("a list");
    let ml = t.elapsed();
    drop(rated);

    let time_of = |mut cmd: Command, limit: Duration| -> Option<(f64, String)> {
        let t = Instant::now();
        let out_path = dir.join("out.yaml");
        let mut child = cmd
            .stdout(std::fs::File::create(&out_path).ok()?)
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        loop {
            if let Some(status) = child.try_wait().ok()? {
                let secs = t.elapsed().as_secs_f64();
                return status
                    .success()
                    .then(|| (secs, std::fs::read_to_string(&out_path).unwrap_or_default()));
            }
            if t.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut ours = Command::new(gyoku);
    ours.args([
        "ratings",
        "--floodgate",
        "--yaml",
        "--base-date",
        "2026-11-21",
    ])
    .arg(&file);
    let ours = time_of(ours, Duration::from_secs(3600));
    let theirs = if Command::new("ruby")
        .args(["-e", "require 'gsl'"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let mut cmd = Command::new("ruby");
        cmd.env("RUBYLIB", peers.join("rgl-shim"))
            .arg(peers.join("shogi-server/mk_rate"))
            .args(["--base-date", "2026-11-21"])
            .arg(&file);
        Some(time_of(cmd, mk_rate_limit))
    } else {
        eprintln!("ratings: no ruby with ruby-gsl here: mk_rate not run");
        None
    };
    let rate_of = |yaml: &str, id: &str| -> Option<f64> {
        let at = yaml.find(&format!("    {id}:\n"))?;
        let rest = &yaml[at..];
        let r = rest.find("rate: ")?;
        rest[r + 6..].lines().next()?.trim().parse().ok()
    };
    println!("| {games} games, {players} players | seconds | × gyoku |\n|---|---|---|");
    let ours_s = ours.as_ref().map(|(s, _)| *s);
    match &ours {
        Some((s, _)) => println!(
            "| gyoku ratings --floodgate (whole run: read, rate, write) | {s:.2} | 1.00× |"
        ),
        None => println!("| gyoku ratings --floodgate | failed | |"),
    }
    match &theirs {
        Some(Some((s, yaml))) => {
            let worst = list
                .iter()
                .filter(|p| p.group != floodgate::UNRATED_GROUP)
                .filter_map(|p| Some((rate_of(yaml, &p.id)? - p.rate as f64).abs()))
                .fold(0.0f64, f64::max);
            println!(
                "| shogi-server mk_rate (Ruby, GSL) | {s:.2} | {:.1}× |",
                ours_s.map_or(f64::NAN, |o| s / o)
            );
            println!("\nlargest rate difference between the two lists: {worst} points");
        }
        Some(None) => println!(
            "| shogi-server mk_rate (Ruby, GSL) | over {} s, stopped | over {:.0}× |",
            mk_rate_limit.as_secs(),
            ours_s.map_or(f64::NAN, |o| mk_rate_limit.as_secs_f64() / o)
        ),
        None => {}
    }
    println!(
        "\nin-process: {:.3} s reading the lines, {:.3} s Floodgate's method ({} players listed), {:.3} s the maximum-likelihood list",
        read.as_secs_f64(),
        fg.as_secs_f64(),
        list.len(),
        ml.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tournament runner's own work per game, without engines: after each game, the next
/// games' schedule and the standings (with their maximum-likelihood Elo), as the runner
/// computes them; for a round-robin of `engines` engines repeated `rounds` times and a
/// Swiss of the same field. Returns (format, games, microseconds per game).
pub fn tournament_overhead(engines: usize, rounds: u32) -> Vec<(String, usize, f64)> {
    use gyoku_league::schedule::{Format, Plan, Played};
    use gyoku_league::standings::{Standings, TournamentGame};
    let mut rng = Rng(7);
    let mut out = Vec::new();
    for (format, rounds) in [
        (Format::RoundRobin, rounds),
        (Format::Swiss, (engines as u32).ilog2() + 2),
    ] {
        let plan = Plan {
            format,
            engines,
            rounds,
            games_per_encounter: 2,
        };
        let mut games: Vec<TournamentGame> = Vec::new();
        let mut played: Vec<Played> = Vec::new();
        let t = Instant::now();
        loop {
            let jobs = plan.next(&played);
            if jobs.is_empty() {
                break;
            }
            for j in jobs {
                let result = match rng.next() % 3 {
                    0 => "black",
                    1 => "white",
                    _ => "draw",
                };
                let g = TournamentGame {
                    number: j.number,
                    round: j.round,
                    players: [j.black, j.white],
                    result: result.into(),
                    reason: "checkmate".into(),
                    plies: 100,
                };
                played.push(Played {
                    number: j.number,
                    black: j.black,
                    white: j.white,
                    black_half_points: g.black_half_points(),
                });
                games.push(g);
                // What the runner does after every game.
                std::hint::black_box(Standings::new(&plan, &games));
            }
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / games.len() as f64;
        out.push((format.name().to_string(), games.len(), us));
    }
    out
}
