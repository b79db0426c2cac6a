//! `gyoku-bench metrics-cost` (issue 50): what serving metrics costs a loaded server. The
//! same CSA load (`csa_load::run_load`: GAMES games at once, each player thinking THINK ms
//! on average) on `gyoku serve --metrics`, twice: once with nothing scraping, once with a
//! scraper fetching `GET /metrics` every second, as Prometheus would; the order is turned
//! about between rounds. Per run: the move echo's p50/p99, and the server's CPU time over
//! the load (from `/proc`), a second and a move; for the scraped runs, the scrapes, their
//! size and their time.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::csa_load::{LoadReport, ServerUnderTest, free_port, run_load};

/// One run's figures.
#[derive(Clone, Debug)]
pub struct CostRun {
    /// Whether a scraper ran.
    pub scraped: bool,
    /// The load's report.
    pub load: LoadReport,
    /// The server's CPU time over the load, seconds.
    pub cpu_seconds: f64,
    /// Scrapes answered.
    pub scrapes: usize,
    /// Median scrape time, ms.
    pub scrape_p50_ms: f64,
    /// Largest scrape time, ms.
    pub scrape_max_ms: f64,
    /// The last scrape's size, bytes.
    pub scrape_bytes: usize,
}

/// How long a scrape may take before it counts as failed (Prometheus's default timeout).
const SCRAPE_TIMEOUT: Duration = Duration::from_secs(10);

/// One `GET /metrics` at `at`, within [`SCRAPE_TIMEOUT`]: its time and the answer's size
/// (`None` if it failed or timed out).
async fn scrape(at: SocketAddr) -> Option<(Duration, usize)> {
    tokio::time::timeout(SCRAPE_TIMEOUT, scrape_once(at))
        .await
        .ok()
        .flatten()
}

async fn scrape_once(at: SocketAddr) -> Option<(Duration, usize)> {
    let started = Instant::now();
    let mut s = tokio::net::TcpStream::connect(at).await.ok()?;
    s.write_all(
        format!("GET /metrics HTTP/1.1\r\nHost: {at}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .ok()?;
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).await.ok()?;
    answer
        .starts_with(b"HTTP/1.1 200")
        .then(|| (started.elapsed(), answer.len()))
}

/// Scrapes `at` every second until `stop`: the times and the last size.
async fn scraper(
    at: SocketAddr,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> (Vec<Duration>, usize) {
    let mut times = Vec::new();
    let mut bytes = 0;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            _ = tick.tick() => {
                if let Some((t, n)) = scrape(at).await {
                    times.push(t);
                    bytes = n;
                }
            }
        }
    }
    (times, bytes)
}

/// Runs the load on a fresh `gyoku serve --metrics` (the binary `gyoku`), with a scraper
/// when `scraped`.
///
/// # Errors
/// When the server does not start.
pub async fn run(
    gyoku: &std::path::Path,
    games: usize,
    plies: usize,
    think: u64,
    scraped: bool,
    tag: &str,
) -> Result<CostRun, String> {
    let metrics: SocketAddr = format!("127.0.0.1:{}", free_port())
        .parse()
        .map_err(|e| format!("{e}"))?;
    let server = ServerUnderTest::gyoku_with_metrics(gyoku, metrics)?;
    let cpu_before = server.cpu_seconds();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let scraping = scraped.then(|| tokio::spawn(scraper(metrics, stopped)));
    let load = run_load(server.addr, games, plies, think, tag).await;
    let _ = stop.send(true);
    let cpu_seconds = server.cpu_seconds() - cpu_before;
    let (mut times, scrape_bytes) = match scraping {
        Some(task) => task.await.unwrap_or_default(),
        None => (Vec::new(), 0),
    };
    times.sort();
    let ms = |d: Option<&Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
    Ok(CostRun {
        scraped,
        scrapes: times.len(),
        scrape_p50_ms: ms(times.get(times.len() / 2)),
        scrape_max_ms: ms(times.last()),
        scrape_bytes,
        load,
        cpu_seconds,
    })
}

/// Prints `runs` as a Markdown table, and the scraped runs' medians against the others'.
pub fn report(runs: &[CostRun]) {
    println!(
        "| scraper | games at once | thinking | moves | echo p50 | echo p99 | server CPU | CPU a move | scrapes | scrape p50 | scrape max | scrape size | failed clients |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in runs {
        let l = &r.load;
        println!(
            "| {} | {} | {} ms | {} | {:.2} ms | {:.2} ms | {:.1} s ({:.0}% of a core) | {:.1} µs | {} | {:.2} ms | {:.2} ms | {} B | {} |",
            if r.scraped { "every second" } else { "none" },
            l.games,
            l.think_ms,
            l.moves,
            l.latency_ms[0],
            l.latency_ms[1],
            r.cpu_seconds,
            100.0 * r.cpu_seconds / (l.setup_seconds + l.play_seconds).max(1e-9),
            r.cpu_seconds * 1e6 / (l.moves.max(1) as f64),
            r.scrapes,
            r.scrape_p50_ms,
            r.scrape_max_ms,
            r.scrape_bytes,
            l.failures,
        );
    }
    let median = |scraped: bool, f: &dyn Fn(&CostRun) -> f64| {
        let mut v: Vec<f64> = runs
            .iter()
            .filter(|r| r.scraped == scraped)
            .map(f)
            .collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let p99 = |r: &CostRun| r.load.latency_ms[1];
    let cpu = |r: &CostRun| r.cpu_seconds * 1e6 / (r.load.moves.max(1) as f64);
    if let (Some(a), Some(b), Some(c), Some(d)) = (
        median(false, &p99),
        median(true, &p99),
        median(false, &cpu),
        median(true, &cpu),
    ) {
        println!(
            "\nscraped / not scraped (medians over the rounds): echo p99 {:.2}×, CPU a move {:.2}×",
            b / a.max(1e-9),
            d / c.max(1e-9)
        );
    }
}
