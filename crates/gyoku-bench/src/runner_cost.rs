//! `runner`: what a match runner itself costs, side by side in one run. Each runner plays
//! the same games: the built-in engine against itself (seeds 1 and 2), sudden death of
//! 10 ms plus a 0.1 ms increment (both runners count whole milliseconds, so the increment
//! is nothing), two games at once, the shipped opening suite in its order, games of at
//! most 256 plies. Reported: games per second, the runner process's own CPU per game (its
//! user and system time, read from `/proc` while it runs; the engines' time is not in
//! it), and how many games ended on time (a runner slow to hand the move over loses games
//! on time at this control).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A runner under test.
#[derive(Clone, Debug)]
pub enum Runner {
    /// `gyoku match`, by its binary (this build, or an older one).
    Gyoku(PathBuf),
    /// shogitest, by its binary.
    Shogitest(PathBuf),
}

/// One run of one runner.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Games finished.
    pub games: u32,
    /// Wall time.
    pub wall: Duration,
    /// The runner process's own CPU time (user + system), engines excluded.
    pub cpu: Duration,
    /// Games lost on time.
    pub time_losses: u32,
    /// Plies played in all (games lost on time are shorter: the runners are compared by
    /// ply as well as by game).
    pub plies: u64,
}

/// The runner's CPU time so far: `utime + stime` of `/proc/PID/stat`, in clock ticks of
/// 10 ms (Linux's `USER_HZ`).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields start after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the whole line are the 12th and 13th after the name.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// Waits for `child`, sampling its CPU time every 5 ms; returns its output and the last
/// sample.
fn wait_measuring(mut child: Child) -> (String, Duration) {
    let pid = child.id();
    let mut last = 0;
    let stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let mut stdout = stdout;
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    loop {
        if let Some(t) = cpu_ticks(pid) {
            last = t;
        }
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    (
        reader.join().unwrap_or_default(),
        Duration::from_millis(last * 10),
    )
}

/// Plays `games` games with `runner`; `engines` are the two engine programs (scripts
/// that start the built-in engine), `book` the opening suite.
///
/// # Errors
/// A message when the runner cannot be started or says nothing readable.
pub fn measure(
    runner: &Runner,
    engines: &[PathBuf; 2],
    book: &Path,
    games: u32,
) -> Result<Measured, String> {
    let pgn =
        std::env::temp_dir().join(format!("gyoku-bench-shogitest-{}.pgn", std::process::id()));
    let _ = std::fs::remove_file(&pgn);
    let start = Instant::now();
    let child = match runner {
        Runner::Gyoku(bin) => Command::new(bin)
            .args(["match", "--engine"])
            .arg(&engines[0])
            .arg("--engine")
            .arg(&engines[1])
            .args(["--games", &games.to_string(), "--time", "10ms+0.1ms"])
            .args(["--concurrency", "2", "--openings"])
            .arg(book)
            .arg("--json")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn(),
        Runner::Shogitest(bin) => Command::new(bin)
            .arg("-engine")
            .arg(format!("cmd={}", engines[0].display()))
            .arg("name=one")
            .arg("-engine")
            .arg(format!("cmd={}", engines[1].display()))
            .arg("name=two")
            // This shogitest counts `-games` in pairs of one opening (its `-rounds`, 2 by
            // default, is the games of a pair), whatever its README says.
            .args([
                "-each",
                "tc=0.01+0.0001",
                "-games",
                &(games / 2).to_string(),
            ])
            .args([
                "-concurrency",
                "2",
                "-maxmoves",
                "256",
                "-ratinginterval",
                "0",
            ])
            .arg("-openings")
            .arg(format!("file={}", book.display()))
            // Its plies are in its PGN only.
            .arg("-pgnout")
            .arg(format!("file={}", pgn.display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn(),
    }
    .map_err(|e| format!("{runner:?}: {e}"))?;
    let (out, cpu) = wait_measuring(child);
    let wall = start.elapsed();
    let (games, time_losses, plies) = match runner {
        Runner::Gyoku(_) => {
            let v: serde_json::Value = serde_json::from_str(&out)
                .map_err(|e| format!("gyoku match said no JSON ({e}): {out}"))?;
            let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0) as u32;
            let time = &v["by_reason"]["time_up"];
            let plies = v["results"].as_array().map_or(0, |r| {
                r.iter().map(|g| g["plies"].as_u64().unwrap_or(0)).sum()
            });
            (
                n(&v["games"]),
                n(&time["engine1"]) + n(&time["engine2"]) + n(&time["draws"]),
                plies,
            )
        }
        Runner::Shogitest(_) => {
            let finished: Vec<&str> = out
                .lines()
                .filter(|l| l.starts_with("Finished game"))
                .collect();
            let on_time = finished
                .iter()
                .filter(|l| l.to_ascii_lowercase().contains("time"))
                .count();
            let plies = std::fs::read_to_string(&pgn)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.strip_prefix("[PlyCount \""))
                .filter_map(|l| l.trim_end_matches("\"]").parse::<u64>().ok())
                .sum();
            let _ = std::fs::remove_file(&pgn);
            (finished.len() as u32, on_time as u32, plies)
        }
    };
    Ok(Measured {
        games,
        wall,
        cpu,
        time_losses,
        plies,
    })
}

/// Writes the two engine scripts (`exec GYOKU engine --seed N`) into `dir`.
///
/// # Errors
/// A message when they cannot be written.
pub fn engine_scripts(gyoku: &Path, dir: &Path) -> Result<[PathBuf; 2], String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut out = [PathBuf::new(), PathBuf::new()];
    for (k, path) in out.iter_mut().enumerate() {
        *path = dir.join(format!("engine{}.sh", k + 1));
        let script = format!(
            "#!/bin/sh\nexec '{}' engine --seed {}\n",
            gyoku.display(),
            k + 1
        );
        std::fs::write(&*path, script).map_err(|e| e.to_string())?;
        std::fs::set_permissions(&*path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Runs every runner `rounds` times in turn and prints a table of the best round of each
/// (by plies per second), with the ratios to the first runner.
pub fn run(runners: &[(String, Runner)], gyoku: &Path, book: &Path, games: u32, rounds: u32) {
    let dir = std::env::temp_dir().join(format!("gyoku-bench-runner-{}", std::process::id()));
    let engines = match engine_scripts(gyoku, &dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("gyoku-bench: {e}");
            std::process::exit(1);
        }
    };
    let mut best: Vec<Option<Measured>> = vec![None; runners.len()];
    for round in 1..=rounds {
        for (k, (label, runner)) in runners.iter().enumerate() {
            match measure(runner, &engines, book, games) {
                Ok(m) => {
                    eprintln!(
                        "round {round}: {label}: {} games in {:.2} s, runner CPU {:.2} s, {} on time",
                        m.games,
                        m.wall.as_secs_f64(),
                        m.cpu.as_secs_f64(),
                        m.time_losses
                    );
                    let rate = |m: &Measured| m.plies as f64 / m.wall.as_secs_f64();
                    let better = best[k].as_ref().is_none_or(|b| rate(&m) > rate(b));
                    if better {
                        best[k] = Some(m);
                    }
                }
                Err(e) => eprintln!("round {round}: {label}: {e}"),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "\n| runner | games | plies | lost on time | wall s | games/s | plies/s | runner CPU ms/game | runner CPU µs/ply |\n|---|---|---|---|---|---|---|---|---|"
    );
    let per_second = |m: &Measured| f64::from(m.games) / m.wall.as_secs_f64();
    let plies_per_second = |m: &Measured| m.plies as f64 / m.wall.as_secs_f64();
    let cpu_per_game = |m: &Measured| m.cpu.as_secs_f64() * 1000.0 / f64::from(m.games.max(1));
    let cpu_per_ply = |m: &Measured| m.cpu.as_secs_f64() * 1e6 / m.plies.max(1) as f64;
    for ((label, _), m) in runners.iter().zip(&best) {
        if let Some(m) = m {
            println!(
                "| {label} | {} | {} | {} | {:.2} | {:.1} | {:.0} | {:.2} | {:.1} |",
                m.games,
                m.plies,
                m.time_losses,
                m.wall.as_secs_f64(),
                per_second(m),
                plies_per_second(m),
                cpu_per_game(m),
                cpu_per_ply(m)
            );
        }
    }
    if let Some(first) = &best[0] {
        for ((label, _), m) in runners.iter().zip(&best).skip(1) {
            if let Some(m) = m {
                println!(
                    "\n{} against {label}: {:.2}× its games per second, {:.2}× its plies per second, \
                     {:.2}× its CPU per game, {:.2}× its CPU per ply",
                    runners[0].0,
                    per_second(first) / per_second(m),
                    plies_per_second(first) / plies_per_second(m),
                    cpu_per_game(first) / cpu_per_game(m).max(1e-9),
                    cpu_per_ply(first) / cpu_per_ply(m).max(1e-9)
                );
            }
        }
    }
}
