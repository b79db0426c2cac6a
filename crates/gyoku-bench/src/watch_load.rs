//! Watchers under load (issue 33): games played by CSA clients on a referee on PostgreSQL
//! while event-stream watchers (`GET /api/games/{id}/events`) follow them, spread over the
//! HTTP addresses given (the referee itself, or web instances). Reports the movers' echo
//! latency and the watchers' delivery latency: from the mover reading its move's echo to a
//! watcher reading the event that shows that move.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::csa_load::{LoadReport, Observed, percentile_ms, run_load_observed};

/// What one run measured.
#[derive(Clone, Debug)]
pub struct WatchReport {
    /// The players' side (games, moves, echo latency).
    pub load: LoadReport,
    /// Watchers asked for.
    pub watchers: usize,
    /// Watchers whose stream opened and followed its game to the end.
    pub followed: usize,
    /// Events that showed a move (each watcher, each move it was shown).
    pub delivered: u64,
    /// Delivery latency, milliseconds: p50, p99, max.
    pub delivery_ms: [f64; 3],
}

/// How long a watcher waits for the next line before it gives up.
const QUIET: Duration = Duration::from_secs(120);

/// One watcher: what it read, as (moves shown, when), until the game ended or it gave up.
async fn watcher(
    at: SocketAddr,
    id: String,
    opened: Arc<tokio::sync::Semaphore>,
    mut door: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Option<Vec<(usize, Instant)>> {
    let stream = TcpStream::connect(at).await.ok()?;
    stream.set_nodelay(true).ok()?;
    let (r, mut w) = stream.into_split();
    let path = format!("/api/games/{}/events", id.replace('+', "%2B"));
    w.write_all(format!("GET {path} HTTP/1.1\r\nHost: {at}\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut r = BufReader::new(r);
    let mut line = String::new();
    let mut seen = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        let n = tokio::time::timeout(QUIET, r.read_line(&mut line))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            // Closed before the game ended: not followed to the end.
            if std::env::var_os("GYOKU_BENCH_DEBUG").is_some() {
                eprintln!("closed after {} moves shown", seen.len());
            }
            return None;
        }
        if std::env::var_os("GYOKU_BENCH_DEBUG").is_some()
            && line.starts_with("HTTP/1.1")
            && !line.contains("200")
        {
            eprintln!("answered {}", line.trim_end());
        }
        // `id: 12-playing`: the moves stored, and the status.
        let Some(state) = line.trim_end().strip_prefix("id: ") else {
            continue;
        };
        let at_read = Instant::now();
        let (moves, status) = state.split_once('-')?;
        if first {
            // The view it was shown on connecting: it watches now, and the next may come in.
            first = false;
            door.take();
            opened.add_permits(1);
        } else if status == "playing" {
            // A move shown (the game's end, a resignation after the last move, is not).
            seen.push((moves.parse().ok()?, at_read));
        }
        if status == "finished" {
            return Some(seen);
        }
    }
}

/// A copy of what each of `held` holds.
fn copies<T: Clone>(held: &[std::sync::Mutex<T>]) -> Vec<T> {
    held.iter()
        .map(|m| {
            m.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        })
        .collect()
}

/// Plays `games` games of `plies` moves on the CSA port `csa` (each player thinking
/// `think_ms` on average) while `watchers` event streams, spread over the games and over
/// `http`, follow them.
pub async fn run(
    csa: SocketAddr,
    http: Vec<SocketAddr>,
    games: usize,
    watchers: usize,
    plies: usize,
    think_ms: u64,
    tag: &str,
) -> WatchReport {
    let opened = Arc::new(tokio::sync::Semaphore::new(0));
    let tasks = Arc::new(std::sync::Mutex::new(Vec::new()));
    let spawned = Arc::clone(&tasks);
    let waiting = Arc::clone(&opened);
    let (load, observed) = run_load_observed(
        csa,
        (games, 0),
        plies,
        think_ms,
        tag,
        move |observed: Arc<Observed>| async move {
            let ids = copies(&observed.ids);
            // A few at the door at once: a stream counts among its address's requests in
            // flight until it has started (32 from one address, and every watcher here
            // comes from loopback).
            let door = Arc::new(tokio::sync::Semaphore::new(16));
            for k in 0..watchers {
                let game = k % games.max(1);
                let Some(id) = ids.get(game).cloned().flatten() else {
                    continue;
                };
                let at = http[k % http.len().max(1)];
                let door = Arc::clone(&door);
                let opened = Arc::clone(&waiting);
                spawned
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((
                        game,
                        tokio::spawn(async move {
                            let door = door.acquire_owned().await.ok();
                            watcher(at, id, opened, door).await
                        }),
                    ));
            }
            // Play starts once every watcher watches (or 60 s have passed).
            let n = u32::try_from(watchers).unwrap_or(u32::MAX);
            let _ = tokio::time::timeout(Duration::from_secs(60), waiting.acquire_many(n)).await;
        },
    )
    .await;
    let tasks = std::mem::take(
        &mut *tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let echoes = copies(&observed.echoes);
    let mut delays_us = Vec::new();
    let mut opened_streams = 0;
    for (game, task) in tasks {
        let Ok(Some(seen)) = task.await else {
            continue;
        };
        opened_streams += 1;
        for (moves, at) in seen {
            if let Some((_, echoed)) = echoes[game].iter().find(|(ply, _)| *ply == moves) {
                let us = at.saturating_duration_since(*echoed).as_micros();
                delays_us.push(u32::try_from(us).unwrap_or(u32::MAX));
            }
        }
    }
    delays_us.sort_unstable();
    WatchReport {
        load,
        watchers,
        followed: opened_streams,
        delivered: delays_us.len() as u64,
        delivery_ms: [
            percentile_ms(&delays_us, 0.50),
            percentile_ms(&delays_us, 0.99),
            percentile_ms(&delays_us, 1.0),
        ],
    }
}

/// A referee on a PostgreSQL database of its own, with `web` web instances beside it (or
/// none: the referee serves the watchers itself), stopped and its database dropped when
/// dropped.
#[derive(Debug)]
pub struct Deployment {
    /// What it is, for the table.
    pub name: &'static str,
    /// The referee's CSA port.
    pub csa: SocketAddr,
    /// Where the watchers go: the referee's HTTP address, or the web instances'.
    pub watched: Vec<SocketAddr>,
    children: Vec<std::process::Child>,
    admin: String,
    database: String,
    dir: std::path::PathBuf,
}

impl Deployment {
    /// Starts it with the binary `gyoku`, on a database made on the PostgreSQL `admin`
    /// names (a user that may create databases), each HTTP side taking `http_cap`
    /// connections and event streams (all from loopback); `run` makes names unique.
    ///
    /// # Errors
    /// When the database cannot be made or a server does not start.
    pub fn start(
        gyoku: &std::path::Path,
        admin: &str,
        web: usize,
        http_cap: usize,
        run: usize,
    ) -> Result<Deployment, String> {
        use crate::csa_load::{free_port, wait_for_port};
        let database = format!("gyoku_watch_{}_{run}", std::process::id());
        let mut c = postgres::Client::connect(admin, postgres::NoTls).map_err(|e| e.to_string())?;
        for statement in [
            format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
            format!("CREATE DATABASE {database}"),
        ] {
            c.batch_execute(&statement).map_err(|e| e.to_string())?;
        }
        let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
        let url = format!("{base}/{database}");
        let dir = std::env::temp_dir().join(&database);
        let _ = std::fs::remove_dir_all(&dir);
        let mut deployment = Deployment {
            name: if web == 0 {
                "one instance (referee serves the watchers)"
            } else {
                "referee + 2 web instances (watchers on the web instances)"
            },
            csa: format!("127.0.0.1:{}", free_port())
                .parse()
                .map_err(|e| format!("{e}"))?,
            watched: Vec::new(),
            children: Vec::new(),
            admin: admin.to_string(),
            database,
            dir,
        };
        let cap = http_cap.to_string();
        let http_caps = [
            "--http-max-connections",
            &cap,
            "--http-max-connections-per-address",
            &cap,
            "--http-max-watchers",
            &cap,
            "--http-max-watchers-per-address",
            &cap,
        ];
        let referee_http: SocketAddr = format!("127.0.0.1:{}", free_port())
            .parse()
            .map_err(|e| format!("{e}"))?;
        let csa = deployment.csa.to_string();
        let mut referee = std::process::Command::new(gyoku)
            .args(["serve", "--db", &url, "--csa", &csa, "--max-moves", "0"])
            .args(["--http", &referee_http.to_string()])
            .args(http_caps)
            .args(["--max-connections", "1000000"])
            .args(["--max-connections-per-address", "1000000"])
            .arg("--data-dir")
            .arg(deployment.dir.join("referee"))
            .stderr(said())
            .spawn()
            .map_err(|e| format!("{}: {e}", gyoku.display()))?;
        let started = wait_for_port(deployment.csa, &mut referee)
            .and_then(|()| wait_for_port(referee_http, &mut referee));
        deployment.children.push(referee);
        started?;
        if web == 0 {
            deployment.watched.push(referee_http);
        }
        for k in 0..web {
            let at: SocketAddr = format!("127.0.0.1:{}", free_port())
                .parse()
                .map_err(|e| format!("{e}"))?;
            let mut instance = std::process::Command::new(gyoku)
                .args(["serve", "--role", "web", "--db", &url])
                .args(["--referee", &referee_http.to_string()])
                .args(["--http", &at.to_string()])
                .args(http_caps)
                .arg("--data-dir")
                .arg(deployment.dir.join(format!("web{k}")))
                .stderr(said())
                .spawn()
                .map_err(|e| format!("{}: {e}", gyoku.display()))?;
            let started = wait_for_port(at, &mut instance);
            deployment.children.push(instance);
            started?;
            deployment.watched.push(at);
        }
        Ok(deployment)
    }
}

/// Where a server's standard error goes: this one's with `GYOKU_BENCH_DEBUG` set (to see
/// why a run failed), else nowhere.
fn said() -> std::process::Stdio {
    if std::env::var_os("GYOKU_BENCH_DEBUG").is_some() {
        std::process::Stdio::inherit()
    } else {
        std::process::Stdio::null()
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.database
            ));
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
