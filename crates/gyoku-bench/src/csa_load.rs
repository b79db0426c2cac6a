//! A scripted CSA load: many games at once on one server, each two CSA-mode clients
//! playing a fixed legal game as fast as the server echoes it. Reports how long it took to
//! get every game started (all held at once), moves per second, and the move-echo latency
//! seen by the mover (from sending its move to reading its echo), p50/p99/max.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// What one load run measured.
#[derive(Clone, Debug)]
pub struct LoadReport {
    /// Games played at once.
    pub games: usize,
    /// Moves per game.
    pub plies: usize,
    /// Seconds until every game had started (all logged in, agreed, held open).
    pub setup_seconds: f64,
    /// Seconds of play (from the first move to the last echo).
    pub play_seconds: f64,
    /// Moves echoed.
    pub moves: u64,
    /// Echo latency percentiles, milliseconds: p50, p99, max.
    pub latency_ms: [f64; 3],
    /// Clients that failed (connection refused or dropped, unexpected line).
    pub failures: usize,
    /// Each player's mean thinking time before a move, milliseconds (0: as fast as the
    /// echoes come, a closed loop that measures throughput).
    pub think_ms: u64,
    /// Players whose connection was cut mid-game (`--drops`), and of them, those that came
    /// back with their token and finished the game.
    pub dropped: usize,
    /// Of the dropped, those that came back.
    pub resumed: usize,
    /// The largest difference between a resumed player's time left as the server said
    /// (`Reconnect_State`) and as its own echoes' charges and the time since the
    /// opponent's echo give it, milliseconds.
    pub clock_gap_ms: f64,
    /// Echo latency percentiles of the games whose players were not cut, ms.
    pub others_latency_ms: [f64; 3],
}

impl LoadReport {
    /// Moves per second.
    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.play_seconds.max(1e-9)
    }
}

/// A legal game of `plies` moves from the start position that no rule ends early, as CSA
/// move texts (a seeded random walk, retried until one goes the distance).
pub fn scripted_game(plies: usize) -> Vec<String> {
    let rules = gyoku::Preset::Plain.rules();
    for seed in 1u64.. {
        let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut game = gyoku::Game::new(gyoku::Position::startpos(), rules);
        let mut out = Vec::with_capacity(plies);
        while out.len() < plies {
            let pos = game.position().clone();
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mv = moves[(rng % moves.len() as u64) as usize];
            if game.play(mv).is_err() || game.outcome().is_some() {
                break;
            }
            // No check either: CSA servers end a perpetual check, and a checked king's
            // next random move might have no reply within the script.
            if game.position().is_check() {
                break;
            }
            out.push(gyoku_kifu::csa::move_text(&pos, mv, pos.turn()));
        }
        if out.len() == plies {
            return out;
        }
    }
    unreachable!("some seed plays out")
}

struct Side {
    latencies_us: Vec<u32>,
    moves: u64,
    /// Where it failed, or `None`.
    failed: Option<&'static str>,
    /// Cut mid-game: whether it came back, and its clock gap (ms).
    cut: Option<(bool, u64)>,
}

async fn read_until(
    r: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
    line: &mut String,
    mut want: impl FnMut(&str) -> bool,
) -> Option<()> {
    loop {
        line.clear();
        let n = tokio::time::timeout(Duration::from_secs(120), r.read_line(line))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        if want(line.trim_end()) {
            return Some(());
        }
    }
}

/// What the players of a run saw, by game: its Game_ID, and when each move's mover read
/// its echo (for the watchers' delivery latency, [`crate::watch_load`]).
#[derive(Debug)]
pub struct Observed {
    /// Each game's Game_ID, once its summary came.
    pub ids: Vec<std::sync::Mutex<Option<String>>>,
    /// Each game's echoes: (ply, when the mover read it).
    pub echoes: Vec<std::sync::Mutex<Vec<(usize, Instant)>>>,
}

impl Observed {
    fn new(games: usize) -> Observed {
        Observed {
            ids: (0..games).map(|_| std::sync::Mutex::new(None)).collect(),
            echoes: (0..games)
                .map(|_| std::sync::Mutex::new(Vec::new()))
                .collect(),
        }
    }
}

/// What every player of a run shares.
struct Shared {
    addr: SocketAddr,
    script: Vec<String>,
    /// Passed once every game has started.
    started: Barrier,
    /// Passed to start playing.
    go: Barrier,
    think_ms: u64,
    /// Connections being opened at once: clients arrive as a crowd does, not all in the
    /// same millisecond (20,000 SYNs at once overflow any accept queue and the kernel's
    /// retry backoff, not the server, then decides how long the start takes).
    connecting: tokio::sync::Semaphore,
    observed: Arc<Observed>,
    /// The first this many games' Black players are cut once mid-game and come back.
    drops: usize,
}

/// The main time of a load game, ms (`<tag><n>-600-0`).
const LOAD_MAIN_MS: u64 = 600_000;

/// A player cut mid-game comes back: logs in with its token and reads what the server
/// says of where the game stands. Its main time left as the server said, and the
/// connection, or `None`.
async fn come_back(
    addr: SocketAddr,
    name: &str,
    id: &str,
    token: &str,
) -> Option<(
    u64,
    BufReader<tokio::net::tcp::OwnedReadHalf>,
    tokio::net::tcp::OwnedWriteHalf,
)> {
    let stream = TcpStream::connect(addr).await.ok()?;
    stream.set_nodelay(true).ok()?;
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    w.write_all(format!("LOGIN {name} pw reconnect:{id}+{token}\n").as_bytes())
        .await
        .ok()?;
    let mut line = String::new();
    let mut left = None;
    read_until(&mut r, &mut line, |l| {
        if let Some(ms) = l.strip_prefix("Black_Time_Remaining_Ms:") {
            left = ms.parse().ok();
        }
        l == "END Reconnect_State" || l.starts_with("LOGIN:incorrect")
    })
    .await?;
    Some((left?, r, w))
}

async fn player(
    shared: Arc<Shared>,
    name: String,
    (game, index): (String, usize),
    black: bool,
    seed: u64,
) -> Side {
    let Shared {
        addr,
        ref script,
        ref started,
        ref go,
        think_ms,
        ref connecting,
        ref observed,
        drops,
    } = *shared;
    let mut rng = seed | 1;
    let mut side = Side {
        latencies_us: Vec::with_capacity(script.len() / 2 + 1),
        moves: 0,
        failed: Some("connect"),
        cut: None,
    };
    let result = async {
        // A slot from connecting to the login's answer: a crowd of at most 512 at the
        // door, and an accept queue that never overflows (a connection the kernel has
        // finished but the server not yet accepted counts).
        let slot = connecting.acquire().await.ok()?;
        let stream = TcpStream::connect(addr).await.ok()?;
        side.failed = Some("login");
        stream.set_nodelay(true).ok()?;
        let (r, mut w) = stream.into_split();
        let mut r = BufReader::new(r);
        let mut line = String::new();
        let turn = if black { "B" } else { "W" };
        w.write_all(format!("LOGIN {name} {game}-{turn}\n").as_bytes())
            .await
            .ok()?;
        read_until(&mut r, &mut line, |l| l.starts_with("LOGIN:")).await?;
        drop(slot);
        side.failed = Some("game summary");
        let mut id = None;
        let mut token = None;
        read_until(&mut r, &mut line, |l| {
            if let Some(g) = l.strip_prefix("Game_ID:") {
                id = Some(g.to_string());
            }
            if let Some(t) = l.strip_prefix("Reconnect_Token:") {
                token = Some(t.to_string());
            }
            l == "END Game_Summary"
        })
        .await?;
        if black && let Some(slot) = observed.ids.get(index) {
            slot.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone_from(&id);
        }
        side.failed = Some("start");
        w.write_all(b"AGREE\n").await.ok()?;
        read_until(&mut r, &mut line, |l| l.starts_with("START:")).await?;
        Some((r, w, line, id.zip(token)))
    }
    .await;
    // Every game is held open before any is played.
    started.wait().await;
    let Some((mut r, mut w, mut line, reconnect)) = result else {
        go.wait().await;
        return side;
    };
    go.wait().await;
    side.failed = Some("play");
    let mine = usize::from(!black);
    // A Black player of the first `drops` games is cut before its move at mid-game.
    let cut_at = (black && index < drops).then_some((script.len() / 2) & !1);
    let mut charged_ms = 0u64;
    let mut their_echo = Instant::now();
    for (i, mv) in script.iter().enumerate() {
        if Some(i) == cut_at {
            side.cut = Some((false, 0));
            let Some((id, token)) = reconnect.as_ref() else {
                return side;
            };
            drop((r, w));
            tokio::time::sleep(Duration::from_millis(500)).await;
            let Some((left, r2, w2)) = come_back(addr, &name, id, token).await else {
                return side;
            };
            let own = LOAD_MAIN_MS.saturating_sub(charged_ms);
            let expected = own.saturating_sub(their_echo.elapsed().as_millis() as u64);
            side.cut = Some((true, left.abs_diff(expected)));
            (r, w) = (r2, w2);
        }
        if i % 2 == mine {
            if think_ms > 0 {
                // Think between half and one and a half times the mean.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let ms = think_ms / 2 + rng % (think_ms + 1);
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            let t0 = Instant::now();
            if w.write_all(format!("{mv}\n").as_bytes()).await.is_err() {
                return side;
            }
            if read_until(&mut r, &mut line, |l| l.starts_with(mv.as_str()))
                .await
                .is_none()
            {
                return side;
            }
            let us = t0.elapsed().as_micros();
            // The server's charge for this move, whole seconds (`,T12`).
            charged_ms += line
                .trim_end()
                .rsplit_once(",T")
                .and_then(|(_, t)| t.parse::<u64>().ok())
                .unwrap_or(0)
                * 1000;
            if let Some(echoes) = observed.echoes.get(index) {
                echoes
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((i + 1, Instant::now()));
            }
            side.latencies_us
                .push(u32::try_from(us).unwrap_or(u32::MAX));
            side.moves += 1;
        } else if read_until(&mut r, &mut line, |l| l.starts_with(mv.as_str()))
            .await
            .is_none()
        {
            return side;
        } else {
            their_echo = Instant::now();
        }
    }
    if black {
        let _ = w.write_all(b"%TORYO\n").await;
    }
    let _ = read_until(&mut r, &mut line, |l| l == "#WIN" || l == "#LOSE").await;
    side.failed = None;
    side
}

/// Runs `games` games of `plies` moves at once against the CSA server at `addr`, each
/// player thinking `think_ms` on average before its moves; `tag` makes names unique
/// between runs.
pub async fn run_load(
    addr: SocketAddr,
    games: usize,
    plies: usize,
    think_ms: u64,
    tag: &str,
) -> LoadReport {
    run_load_observed(addr, (games, 0), plies, think_ms, tag, |_| async {})
        .await
        .0
}

/// [`run_load`], with the Black players of the first `drops` games cut once at mid-game
/// (before their move) and coming back with their reconnect token half a second later.
pub async fn run_load_with_drops(
    addr: SocketAddr,
    games: usize,
    drops: usize,
    plies: usize,
    think_ms: u64,
    tag: &str,
) -> LoadReport {
    run_load_observed(addr, (games, drops), plies, think_ms, tag, |_| async {})
        .await
        .0
}

/// [`run_load`], with what the players saw; `before_play` runs once every game has
/// started and before the first move (the watchers of [`crate::watch_load`] connect then).
pub async fn run_load_observed<F, Fut>(
    addr: SocketAddr,
    (games, drops): (usize, usize),
    plies: usize,
    think_ms: u64,
    tag: &str,
    before_play: F,
) -> (LoadReport, Arc<Observed>)
where
    F: FnOnce(Arc<Observed>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let observed = Arc::new(Observed::new(games));
    let shared = Arc::new(Shared {
        addr,
        script: scripted_game(plies),
        started: Barrier::new(2 * games + 1),
        go: Barrier::new(2 * games + 1),
        think_ms,
        connecting: tokio::sync::Semaphore::new(512),
        observed: Arc::clone(&observed),
        drops,
    });
    let t0 = Instant::now();
    let mut tasks = Vec::with_capacity(2 * games);
    for g in 0..games {
        for black in [true, false] {
            let name = format!("{tag}{g}{}", if black { "b" } else { "w" });
            tasks.push(tokio::spawn(player(
                Arc::clone(&shared),
                name,
                (format!("{tag}{g}-600-0"), g),
                black,
                (g as u64) << 1 | u64::from(black),
            )));
        }
    }
    shared.started.wait().await;
    let setup_seconds = t0.elapsed().as_secs_f64();
    before_play(Arc::clone(&observed)).await;
    let t1 = Instant::now();
    shared.go.wait().await;
    let mut latencies = Vec::with_capacity(games * plies);
    let mut others = Vec::with_capacity(games * plies);
    let mut moves = 0;
    let mut failures = 0;
    let mut failed_at = std::collections::BTreeMap::new();
    let (mut dropped, mut resumed, mut clock_gap_ms) = (0, 0, 0u64);
    for (k, t) in tasks.into_iter().enumerate() {
        match t.await {
            Ok(side) => {
                moves += side.moves;
                if let Some(stage) = side.failed {
                    failures += 1;
                    *failed_at.entry(stage).or_insert(0) += 1;
                }
                if let Some((back, gap)) = side.cut {
                    dropped += 1;
                    if back && side.failed.is_none() {
                        resumed += 1;
                        clock_gap_ms = clock_gap_ms.max(gap);
                    }
                }
                if k / 2 >= drops {
                    others.extend_from_slice(&side.latencies_us);
                }
                latencies.extend(side.latencies_us);
            }
            Err(_) => failures += 1,
        }
    }
    let play_seconds = t1.elapsed().as_secs_f64();
    if !failed_at.is_empty() {
        eprintln!("  failed clients by stage: {failed_at:?}");
    }
    latencies.sort_unstable();
    others.sort_unstable();
    let pct = |p: f64| percentile_ms(&latencies, p);
    let other = |p: f64| percentile_ms(&others, p);
    let report = LoadReport {
        games,
        plies,
        setup_seconds,
        play_seconds,
        moves,
        latency_ms: [pct(0.50), pct(0.99), pct(1.0)],
        failures,
        think_ms,
        dropped,
        resumed,
        clock_gap_ms: clock_gap_ms as f64,
        others_latency_ms: [other(0.50), other(0.99), other(1.0)],
    };
    (report, observed)
}

/// The `p` percentile (0–1) of `sorted` microseconds, in milliseconds (NaN for none).
pub fn percentile_ms(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[i]) / 1000.0
}

/// A CSA server under load: `gyoku serve` or shogi-server, started for the run.
#[derive(Debug)]
pub struct ServerUnderTest {
    /// `gyoku serve` or `shogi-server`.
    pub name: &'static str,
    child: std::process::Child,
    /// Its CSA port.
    pub addr: SocketAddr,
    /// Its HTTP port (`gyoku serve`'s).
    pub http: Option<SocketAddr>,
    dir: std::path::PathBuf,
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(4081)
}

pub(crate) fn wait_for_port(
    addr: SocketAddr,
    child: &mut std::process::Child,
) -> Result<(), String> {
    for _ in 0..600 {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("the server exited: {status}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("nothing listens on {addr} after 30 s"))
}

impl ServerUnderTest {
    /// Starts `gyoku serve` (the binary `gyoku`) on a free loopback port with its embedded
    /// defaults (SQLite, every move committed before its echo), no move limit, connection
    /// caps above the load and no HTTP port (its connections would come out of the
    /// open-file budget the CSA clients need: 512 of them cost 376 players at 9,900 games).
    ///
    /// # Errors
    /// When it does not start.
    pub fn gyoku(gyoku: &std::path::Path) -> Result<ServerUnderTest, String> {
        ServerUnderTest::start_gyoku(gyoku, false, false, &[])
    }

    /// [`ServerUnderTest::gyoku`] with its metrics served on `metrics` (`--metrics`).
    ///
    /// # Errors
    /// When it does not start.
    pub fn gyoku_with_metrics(
        gyoku: &std::path::Path,
        metrics: SocketAddr,
    ) -> Result<ServerUnderTest, String> {
        ServerUnderTest::start_gyoku(gyoku, false, false, &["--metrics", &metrics.to_string()])
    }

    /// [`ServerUnderTest::gyoku`] with its HTTP port open (512 connections), for an
    /// attacker's slow bodies (`--attack`).
    ///
    /// # Errors
    /// When it does not start.
    pub fn gyoku_with_http(gyoku: &std::path::Path) -> Result<ServerUnderTest, String> {
        ServerUnderTest::start_gyoku(gyoku, false, true, &[])
    }

    /// Starts `gyoku serve` as [`ServerUnderTest::gyoku`]; with `pace_new_names`, at its
    /// own pace of new names per address (`login-flood`), else binding any number (a load
    /// run logs in thousands from this machine).
    ///
    /// # Errors
    /// When it does not start.
    pub fn gyoku_pacing(
        gyoku: &std::path::Path,
        pace_new_names: bool,
    ) -> Result<ServerUnderTest, String> {
        ServerUnderTest::start_gyoku(gyoku, pace_new_names, false, &[])
    }

    fn start_gyoku(
        gyoku: &std::path::Path,
        pace_new_names: bool,
        with_http: bool,
        extra: &[&str],
    ) -> Result<ServerUnderTest, String> {
        let dir = std::env::temp_dir().join(format!("gyoku-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port())
            .parse()
            .map_err(|e| format!("{e}"))?;
        // The HTTP port too (for an attacker's slow bodies), given few connections: they
        // come out of the open-file budget, which this process's limit sets for its child.
        // An older build without the HTTP caps runs without it.
        let help = std::process::Command::new(gyoku)
            .args(["serve", "--help"])
            .output()
            .map_err(|e| format!("{}: {e}", gyoku.display()))?;
        let http = (with_http
            && String::from_utf8_lossy(&help.stdout).contains("--http-max-connections"))
        .then(|| format!("127.0.0.1:{}", free_port()).parse::<SocketAddr>())
        .transpose()
        .map_err(|e| format!("{e}"))?;
        let mut pacing = Vec::new();
        if !pace_new_names
            && String::from_utf8_lossy(&help.stdout).contains("--new-names-per-address")
        {
            pacing = vec!["--new-names-per-address", "1000000"];
        }
        let http_args = match http {
            Some(at) => vec![
                "--http".to_string(),
                at.to_string(),
                "--http-max-connections".into(),
                "512".into(),
                "--http-max-connections-per-address".into(),
                "512".into(),
            ],
            None => vec!["--http".to_string(), "off".into()],
        };
        let mut child = std::process::Command::new(gyoku)
            .args(["serve", "--csa", &addr.to_string(), "--max-moves", "0"])
            .args(&http_args)
            .args(["--max-connections", "1000000"])
            .args(["--max-connections-per-address", "1000000"])
            .args(&pacing)
            .args(extra)
            .arg("--data-dir")
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", gyoku.display()))?;
        wait_for_port(addr, &mut child)?;
        Ok(ServerUnderTest {
            name: "gyoku serve",
            child,
            addr,
            http,
            dir,
        })
    }

    /// Starts shogi-server (Ruby) from a copy of `checkout` with no move limit. It binds
    /// every interface (it has no option not to) for the length of the run.
    ///
    /// # Errors
    /// When ruby or the checkout is missing, or it does not start.
    pub fn shogi_server(checkout: &std::path::Path) -> Result<ServerUnderTest, String> {
        let dir = std::env::temp_dir().join(format!("gyoku-load-ss-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(checkout)
            .arg(&dir)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("cannot copy {}", checkout.display()));
        }
        let port = free_port();
        let addr: SocketAddr = format!("127.0.0.1:{port}")
            .parse()
            .map_err(|e| format!("{e}"))?;
        let mut child = std::process::Command::new("ruby")
            .args([
                "shogi-server",
                "--max-moves",
                "0",
                "load",
                &port.to_string(),
            ])
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("ruby: {e}"))?;
        wait_for_port(addr, &mut child)?;
        Ok(ServerUnderTest {
            name: "shogi-server",
            child,
            addr,
            http: None,
            dir,
        })
    }

    /// How the server ended, if it has (`None` while it runs).
    pub fn exited(&mut self) -> Option<String> {
        self.child
            .try_wait()
            .ok()
            .flatten()
            .map(|status| status.to_string())
    }

    /// The CPU time the server has used so far (user and system), seconds; 0 when it
    /// cannot be read.
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.child.id())
    }

    /// The server's peak resident memory so far (`VmHWM`), bytes.
    pub fn peak_rss(&self) -> u64 {
        proc_status_bytes(self.child.id(), "VmHWM:")
    }
}

/// The CPU time process `pid` has used (user and system, `/proc/PID/stat`), seconds; 0
/// when it cannot be read.
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // The fields after the command's closing parenthesis: utime and stime are the 12th
    // and 13th of them, in clock ticks (100 a second on Linux).
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (ticks(11) + ticks(12)) as f64 / 100.0
}

/// A size in `/proc/PID/status` (`VmHWM:`, `VmRSS:`), bytes; 0 when it cannot be read.
pub fn proc_status_bytes(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

impl Drop for ServerUnderTest {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Slow request bodies the attacker keeps open on the HTTP port at once.
pub const SLOW_BODIES: usize = 256;

/// One client attacking while the games play: it logs in (x1) and writes bursts of x1
/// commands (`%%WHO` and `%%LIST`, a line for every connection or game each; `%%VERSION`;
/// `%%CHAT`) as fast as the server takes them, reading and dropping what it is sent, and
/// on the HTTP port (if given) keeps [`SLOW_BODIES`] move requests open, each body sent a
/// byte a second, until `stop`. The lines it wrote (most wait in the sockets' buffers) and
/// the lines the server took, counted from its answers (one `%%VERSION` in four lines).
pub async fn attack(
    addr: SocketAddr,
    http: Option<SocketAddr>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> (u64, u64) {
    let slow: Vec<_> = http
        .into_iter()
        .flat_map(|http| (0..SLOW_BODIES).map(move |k| (http, k)))
        .map(|(http, k)| tokio::spawn(slow_body(http, k, stop.clone())))
        .collect();
    let Ok(stream) = TcpStream::connect(addr).await else {
        return (0, 0);
    };
    let (r, mut w) = stream.into_split();
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let drain = tokio::spawn(count_versions(r, answered.clone()));
    if w.write_all(b"LOGIN attacker pw x1\n").await.is_err() {
        return (0, 0);
    }
    let burst = "%%WHO\n%%LIST\n%%VERSION\n%%CHAT flood\n".repeat(250);
    let mut lines = 0;
    loop {
        tokio::select! {
            written = w.write_all(burst.as_bytes()) => {
                if written.is_err() {
                    break;
                }
                lines += 1000;
            }
            _ = stop.wait_for(|stop| *stop) => break,
        }
    }
    drain.abort();
    for s in slow {
        s.abort();
    }
    let taken = 4 * answered.load(std::sync::atomic::Ordering::Relaxed);
    (lines, taken)
}

/// Reads what the server sends until it closes the connection, counting its `%%VERSION`
/// answers in `answered`.
async fn count_versions(
    r: tokio::net::tcp::OwnedReadHalf,
    answered: std::sync::Arc<std::sync::atomic::AtomicU64>,
) {
    let mut r = BufReader::new(r);
    let mut line = Vec::new();
    while r.read_until(b'\n', &mut line).await.is_ok_and(|n| n > 0) {
        if line.starts_with(b"##[VERSION] +OK") {
            answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        line.clear();
    }
}

/// Reads and drops what the server sends until it closes the connection.
pub(crate) async fn drain(r: tokio::net::tcp::OwnedReadHalf) {
    let mut r = BufReader::new(r);
    let mut sink = Vec::new();
    while r.read_until(b'\n', &mut sink).await.is_ok_and(|n| n > 0) {
        sink.clear();
    }
}

/// A move request to a seat that does not exist whose body never ends: a byte a second,
/// reconnecting when the server cuts it, until `stop`.
async fn slow_body(http: SocketAddr, k: usize, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        let Ok(mut s) = TcpStream::connect(http).await else {
            return;
        };
        let head = format!(
            "POST /api/seats/{k:032x}/move HTTP/1.1\r\nHost: {http}\r\n\
             Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        );
        if s.write_all(head.as_bytes()).await.is_err() {
            continue;
        }
        loop {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(1)) => {
                    if s.write_all(b" ").await.is_err() {
                        break;
                    }
                }
                () = async { let _ = stop.wait_for(|stop| *stop).await; } => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_is_a_legal_game_of_the_asked_length() {
        let s = super::scripted_game(60);
        assert_eq!(s.len(), 60);
        assert!(s[0].starts_with('+') && s[1].starts_with('-'));
    }
}
