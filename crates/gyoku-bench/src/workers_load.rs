//! Engine-test workers against one server (issue 45): WORKERS simulated workers (1,000)
//! register with `gyoku serve` (built beside this bench), each from one of 64 loopback
//! addresses (127.0.1.1, …), and for the run's length ask for batches, send heartbeats,
//! and upload real game records (played first by `gyoku match`, the built-in engine
//! against itself at random), each judged again by the server before it counts. Two
//! phases: *steady* (each game "played" for THINK on average, as a short time control
//! gives) and *flat out* (each upload sent as soon as the last is answered). Reports each
//! request kind's answer times (p50, p99, max), the uploads judged and counted a second,
//! the refusals, and the server's memory.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Loopback addresses the workers come from (the server allows 32 requests at once from
/// one address: a real deployment's workers come from machines of their own).
const ADDRESSES: u8 = 64;

/// The answer times of one request kind, µs.
#[derive(Debug, Default)]
struct Kind {
    times: Vec<u32>,
    failed: u64,
}

/// What the workers saw in a phase.
#[derive(Debug, Default)]
struct Seen {
    batch: Kind,
    heartbeat: Kind,
    upload: Kind,
    /// Refusals by code.
    refusals: std::collections::BTreeMap<String, u64>,
}

/// A worker's `POST` from `from` with its bearer token: the status and JSON body.
async fn request(
    from: IpAddr,
    at: SocketAddr,
    path: &str,
    bearer: &str,
    body: &Value,
) -> Option<(u16, Value)> {
    let auth = format!("Bearer {bearer}");
    crate::slow_uploads::request_with(from, at, ("POST", path), &[("Authorization", &auth)], body)
        .await
}

/// Real records to upload: game `number`'s record must have the engines on the colours
/// its number gives (odd: `greedy` Black), so records come in two kinds. Each with the
/// winner as engine 1 or 2 (None: a draw) and the reason.
struct Records {
    /// `[greedy Black, random Black]`: (CSA text, claimed winner, reason).
    by_black: [Vec<(String, Option<u8>, String)>; 2],
}

/// Plays `games` games of the built-in engine (`greedy`) against itself at random
/// (`random`) with `gyoku match`, and reads their CSA records and results.
fn play_records(gyoku: &Path, dir: &Path, games: u32) -> Result<Records, String> {
    let me = gyoku.display().to_string();
    let out = dir.join("records");
    let status = std::process::Command::new(gyoku)
        .args(["match", "--engine", &format!("greedy={me} engine --seed 1")])
        .args([
            "--engine",
            &format!("random={me} engine --style random --seed 2"),
        ])
        .args([
            "--games",
            &games.to_string(),
            "--byoyomi",
            "1s",
            "--concurrency",
            "2",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("gyoku match: {e}"))?;
    if !status.success() {
        return Err(format!("gyoku match: {status}"));
    }
    let results = std::fs::read_to_string(out.join("results.jsonl"))
        .map_err(|e| format!("results.jsonl: {e}"))?;
    let mut by_black: [Vec<_>; 2] = [Vec::new(), Vec::new()];
    for line in results.lines() {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let n = v["game"].as_u64().ok_or("a result without a game")?;
        let record = std::fs::read_to_string(out.join(format!("game-{n:04}.csa")))
            .map_err(|e| format!("game {n}: {e}"))?;
        let winner = match v["winner"].as_str() {
            Some("engine1") => Some(1),
            Some("engine2") => Some(2),
            _ => None,
        };
        let reason = v["reason"].as_str().unwrap_or_default().to_string();
        by_black[usize::from(n % 2 == 0)].push((record, winner, reason));
    }
    if by_black.iter().any(Vec::is_empty) {
        return Err("the match left no records".into());
    }
    Ok(Records { by_black })
}

/// One simulated worker until `stop`: a batch, each game "played" for about `think` and
/// uploaded, a heartbeat every `beat`; `seen` hears every answer.
#[allow(clippy::too_many_arguments)]
async fn worker(
    k: usize,
    http: SocketAddr,
    bearer: String,
    records: Arc<Records>,
    think: Duration,
    beat: Duration,
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
) {
    let from = IpAddr::V4(Ipv4Addr::new(
        127,
        0,
        1,
        1 + (k % usize::from(ADDRESSES)) as u8,
    ));
    let mut rng = (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut unit = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    // The workers start over the first beat, not all at once.
    tokio::time::sleep(beat.mul_f64(unit())).await;
    let mut last_beat = Instant::now();
    let timed =
        |kind: fn(&mut Seen) -> &mut Kind, took: Duration, answer: &Option<(u16, Value)>| {
            let mut s = seen.lock().expect("seen");
            let ok = matches!(answer, Some((200, _)));
            let k = kind(&mut s);
            k.times
                .push(took.as_micros().min(u128::from(u32::MAX)) as u32);
            if !ok {
                k.failed += 1;
                let code = answer
                    .as_ref()
                    .map_or("no answer".to_string(), |(status, v)| {
                        v["error"]["code"]
                            .as_str()
                            .map_or(status.to_string(), str::to_string)
                    });
                *s.refusals.entry(code).or_default() += 1;
            }
        };
    while !stop.load(Ordering::Relaxed) {
        let asked = Instant::now();
        let answer = request(
            from,
            http,
            "/api/workers/batch",
            &bearer,
            &json!({"pairs": 1, "has": ["greedy", "random"]}),
        )
        .await;
        timed(|s| &mut s.batch, asked.elapsed(), &answer);
        let Some((200, v)) = answer else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let batch = &v["batch"];
        let Some(games) = batch["games"].as_array() else {
            tokio::time::sleep(Duration::from_secs(2)).await;
            continue;
        };
        for g in games {
            // The game is "played": its time, with heartbeats meanwhile.
            let mut left = think.mul_f64(0.5 + unit());
            while !left.is_zero() && !stop.load(Ordering::Relaxed) {
                let until_beat = beat.saturating_sub(last_beat.elapsed());
                let step = left.min(until_beat);
                tokio::time::sleep(step).await;
                left = left.saturating_sub(step);
                if last_beat.elapsed() >= beat {
                    let asked = Instant::now();
                    let answer = request(
                        from,
                        http,
                        "/api/workers/heartbeat",
                        &bearer,
                        &json!({"batches": [batch["id"]]}),
                    )
                    .await;
                    timed(|s| &mut s.heartbeat, asked.elapsed(), &answer);
                    last_beat = Instant::now();
                }
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let n = g["number"].as_u64().unwrap_or(1);
            let kind = &records.by_black[usize::from(n % 2 == 0)];
            let (record, winner, reason) =
                &kind[(unit() * kind.len() as f64) as usize % kind.len()];
            let asked = Instant::now();
            let answer = request(from, http, "/api/workers/games", &bearer, &json!({
                "batch": batch["id"], "number": n, "winner": winner, "reason": reason, "record": record,
            }))
            .await;
            timed(|s| &mut s.upload, asked.elapsed(), &answer);
        }
    }
}

/// The server's games counted so far in the test `bench`.
async fn counted(http: SocketAddr) -> u64 {
    let home = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let answer = crate::slow_uploads::request_with(
        home,
        http,
        ("GET", "/api/tests/bench"),
        &[],
        &Value::Null,
    )
    .await;
    answer.map_or(0, |(_, v)| v["games"].as_u64().unwrap_or(0))
}

fn percentile_ms(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p / 100.0).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[i]) / 1000.0
}

/// Runs the bench: `workers` simulated workers, a steady phase of `seconds` with games of
/// `think` on average, then a flat-out phase of `seconds / 2`. Prints the tables.
///
/// # Errors
/// When the server or the records cannot be made.
pub fn run(gyoku: &Path, workers: usize, seconds: u64, think: Duration) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("gyoku-bench-workers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    eprintln!("workers: playing the records to upload (gyoku match, 40 games)…");
    let records = Arc::new(play_records(gyoku, &dir, 40)?);
    let http: SocketAddr = format!("127.0.0.1:{}", crate::csa_load::free_port())
        .parse()
        .map_err(|e| format!("{e}"))?;
    let csa = format!("127.0.0.1:{}", crate::csa_load::free_port());
    let mut server = std::process::Command::new(gyoku)
        .args(["serve", "--csa", &csa, "--http", &http.to_string()])
        .args([
            "--http-max-connections",
            "4096",
            "--http-max-connections-per-address",
            "512",
        ])
        .args(["--worker-lease", "60s"])
        .arg("--admin-token-file")
        .arg(dir.join("admin-token"))
        .arg("--worker-token-file")
        .arg(dir.join("worker-token"))
        .arg("--data-dir")
        .arg(&dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", gyoku.display()))?;
    let pid = server.id();
    let result = (|| {
        let csa_addr: SocketAddr = csa.parse().map_err(|e| format!("{e}"))?;
        crate::csa_load::wait_for_port(csa_addr, &mut server)?;
        crate::csa_load::wait_for_port(http, &mut server)?;
        let read = |f: &str| {
            std::fs::read_to_string(dir.join(f))
                .map(|t| t.trim().to_string())
                .map_err(|e| format!("{f}: {e}"))
        };
        let (admin, token) = (read("admin-token")?, read("worker-token")?);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(phases(
            http, &admin, &token, records, workers, seconds, think, pid,
        ))
    })();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[allow(clippy::too_many_arguments)]
async fn phases(
    http: SocketAddr,
    admin: &str,
    token: &str,
    records: Arc<Records>,
    workers: usize,
    seconds: u64,
    think: Duration,
    pid: u32,
) -> Result<(), String> {
    let home = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let test = json!({
        "name": "bench", "engines": [{"name": "greedy"}, {"name": "random"}],
        "preset": "csa", "byoyomi": "1s", "pairs": 1_000_000, "batch_pairs": 1,
    });
    match request(home, http, "/api/tests", admin, &test).await {
        Some((201, _)) => {}
        other => return Err(format!("POST /api/tests: {other:?}")),
    }
    eprintln!("workers: registering {workers} workers…");
    let mut bearers = Vec::with_capacity(workers);
    for k in 0..workers {
        let from = IpAddr::V4(Ipv4Addr::new(
            127,
            0,
            1,
            1 + (k % usize::from(ADDRESSES)) as u8,
        ));
        match request(
            from,
            http,
            "/api/workers",
            token,
            &json!({"name": format!("sim{k}"), "concurrency": 2}),
        )
        .await
        {
            Some((200, v)) => bearers.push(format!(
                "{}:{}",
                v["worker"].as_str().unwrap_or_default(),
                v["secret"].as_str().unwrap_or_default()
            )),
            other => return Err(format!("POST /api/workers: {other:?}")),
        }
    }
    println!(
        "| phase | workers | seconds | requests | batch p50 / p99 / max | heartbeat p50 / p99 / max | upload p50 / p99 / max | uploads counted a second | not answered 200 | server RSS now / peak |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (phase, think, length) in [
        ("steady", think, seconds),
        ("flat out", Duration::ZERO, seconds.div_ceil(2)),
    ] {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let before = counted(http).await;
        let started = Instant::now();
        let handles: Vec<_> = bearers
            .iter()
            .enumerate()
            .map(|(k, bearer)| {
                tokio::spawn(worker(
                    k,
                    http,
                    bearer.clone(),
                    Arc::clone(&records),
                    think,
                    Duration::from_secs(20),
                    Arc::clone(&seen),
                    Arc::clone(&stop),
                ))
            })
            .collect();
        eprintln!("workers: {phase} for {length} s…");
        tokio::time::sleep(Duration::from_secs(length)).await;
        stop.store(true, Ordering::Relaxed);
        let after = counted(http).await;
        let took = started.elapsed().as_secs_f64();
        for h in handles {
            let _ = tokio::time::timeout(Duration::from_secs(40), h).await;
        }
        let mut s = std::mem::take(&mut *seen.lock().expect("seen"));
        let line = |k: &mut Kind| {
            if k.times.is_empty() {
                return "—".to_string();
            }
            k.times.sort_unstable();
            format!(
                "{:.1} / {:.1} / {:.0} ms",
                percentile_ms(&k.times, 50.0),
                percentile_ms(&k.times, 99.0),
                f64::from(k.times.last().copied().unwrap_or(0)) / 1000.0
            )
        };
        let requests = s.batch.times.len() + s.heartbeat.times.len() + s.upload.times.len();
        let failed = s.batch.failed + s.heartbeat.failed + s.upload.failed;
        let refusals: Vec<String> = s.refusals.iter().map(|(c, n)| format!("{c} {n}")).collect();
        println!(
            "| {phase} | {workers} | {took:.0} | {requests} | {} | {} | {} | {:.1} | {failed}{} | {:.0} / {:.0} MiB |",
            line(&mut s.batch),
            line(&mut s.heartbeat),
            line(&mut s.upload),
            after.saturating_sub(before) as f64 / took,
            if refusals.is_empty() {
                String::new()
            } else {
                format!(" ({})", refusals.join(", "))
            },
            crate::csa_load::proc_status_bytes(pid, "VmRSS:") as f64 / f64::from(1 << 20),
            crate::csa_load::proc_status_bytes(pid, "VmHWM:") as f64 / f64::from(1 << 20),
        );
    }
    Ok(())
}
