//! The server's metrics in Prometheus's text format (`gyoku serve --metrics ADDR`,
//! `GET /metrics` on a listener of its own), names prefixed `gyoku_`.
//!
//! One set a process (a process runs one server): counted where things happen (the
//! driver's commits, moves and games, the ports' connections and refusals, the slowed
//! logins, a web instance's relayed requests) and, for what is a level rather than a count
//! (connections open, event streams, engine processes), read when scraped.

use std::sync::{Arc, LazyLock, Mutex};

use tokio::sync::Semaphore;

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder, exponential_buckets,
};

/// Reads a level when scraped (connections open, say).
type Level = Box<dyn Fn() -> i64 + Send + Sync>;

/// A level for [`Metrics::connections_open`] and the like: the permits taken of `most`
/// from the semaphore `semaphore` finds in `holder`, which is held weakly (the level
/// reads 0 once the holder is gone, so the metrics keep no server alive).
pub(crate) fn permits_taken<T: Send + Sync + 'static>(
    holder: &Arc<T>,
    most: usize,
    semaphore: fn(&T) -> &Semaphore,
) -> impl Fn() -> i64 + Send + Sync + 'static {
    let holder = Arc::downgrade(holder);
    move || {
        holder.upgrade().map_or(0, |h| {
            i64::try_from(most.saturating_sub(semaphore(&h).available_permits())).unwrap_or(0)
        })
    }
}

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    /// Games being played: started or taken up, not ended.
    pub games_live: IntGauge,
    /// Games ended, by how (`kind`: the reason stored, `resign`, `time_up`, …).
    pub games_finished: IntCounterVec,
    /// Moves stored.
    pub moves: IntCounter,
    /// From a move's arrival to its echo's release (after its commit), in seconds.
    pub echo_seconds: Histogram,
    /// Commits of the games' changes.
    pub commits: IntCounter,
    /// How long each commit took, in seconds.
    pub commit_seconds: Histogram,
    /// Commits that failed (what they held is kept and stored again).
    pub storage_errors: IntCounter,
    /// CSA connections accepted.
    pub connections_accepted: IntCounter,
    /// Clients refused, by why (`too_many_connections`, `too_many_from_address` on the
    /// CSA port; `too_many_http_connections`, `too_many_http_from_address`,
    /// `too_many_watchers`, `too_many_watchers_from_address` on the HTTP port).
    pub refused: IntCounterVec,
    /// Tries slowed after wrong passwords, by where (`csa_login`, `web_login`, `admin`).
    pub throttled: IntCounterVec,
    /// A web instance's requests relayed to the referee: from sending to the answer, in
    /// seconds (failed ones included).
    pub relay_seconds: Histogram,
    /// Connections open now, by kind, read when scraped.
    open: IntGaugeVec,
    /// Event streams watching games now, read when scraped.
    watchers: IntGauge,
    /// Engine processes running now (the page's opponents, analysis), read when scraped.
    engine_processes: IntGauge,
    /// The levels read when scraped, each with its gauge, by a key of its own.
    levels: Mutex<Vec<(String, IntGauge, Level)>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// The process's metrics.
pub fn get() -> &'static Metrics {
    &METRICS
}

/// Registers `metric` in `registry` and gives it back. The names and labels are this
/// file's own constants: a failure is a mistake here, found by any test.
fn registered<M: prometheus::core::Collector + Clone + 'static>(
    registry: &Registry,
    metric: M,
) -> M {
    registry
        .register(Box::new(metric.clone()))
        .expect("a metric's name is new and valid");
    metric
}

impl Metrics {
    fn new() -> Metrics {
        let registry = Registry::new();
        let r = &registry;
        // Latency buckets, 0.1 ms to about 1.6 s, doubling.
        let latency = |name: &str, help: &str| {
            let buckets = exponential_buckets(0.000_1, 2.0, 15).expect("valid buckets");
            registered(
                r,
                Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
                    .expect("a valid histogram"),
            )
        };
        let counter = |name: &str, help: &str| {
            registered(r, IntCounter::new(name, help).expect("a valid counter"))
        };
        let by_kind = |name: &str, help: &str| {
            registered(
                r,
                IntCounterVec::new(Opts::new(name, help), &["kind"]).expect("a valid counter"),
            )
        };
        Metrics {
            games_live: registered(
                r,
                IntGauge::new("gyoku_games_live", "Games being played").expect("a valid gauge"),
            ),
            games_finished: by_kind("gyoku_games_finished_total", "Games ended, by reason"),
            moves: counter("gyoku_moves_total", "Moves stored"),
            echo_seconds: latency(
                "gyoku_echo_seconds",
                "From a move's arrival to its echo's release, after its commit",
            ),
            commits: counter("gyoku_commits_total", "Commits of the games' changes"),
            commit_seconds: latency("gyoku_commit_seconds", "How long a commit took"),
            storage_errors: counter("gyoku_storage_errors_total", "Commits that failed"),
            connections_accepted: counter(
                "gyoku_connections_accepted_total",
                "CSA connections accepted",
            ),
            refused: by_kind("gyoku_refused_total", "Clients refused, by why"),
            throttled: by_kind(
                "gyoku_throttled_total",
                "Tries slowed after wrong passwords, by where",
            ),
            relay_seconds: latency(
                "gyoku_relay_seconds",
                "A web instance's request relayed to the referee, until its answer",
            ),
            watchers: registered(
                r,
                IntGauge::new("gyoku_watchers", "Event streams watching games now")
                    .expect("a valid gauge"),
            ),
            engine_processes: registered(
                r,
                IntGauge::new("gyoku_engine_processes", "Engine processes running now")
                    .expect("a valid gauge"),
            ),
            open: registered(
                r,
                IntGaugeVec::new(
                    Opts::new("gyoku_connections_open", "Connections open now, by kind"),
                    &["kind"],
                )
                .expect("a valid gauge"),
            ),
            levels: Mutex::new(Vec::new()),
            registry,
        }
    }

    /// Counts a game ended for `reason`.
    pub fn finished(&self, reason: &str) {
        self.games_finished.with_label_values(&[reason]).inc();
        self.games_live.dec();
    }

    /// Counts a client refused for `why`.
    pub fn refuse(&self, why: &str) {
        self.refused.with_label_values(&[why]).inc();
    }

    /// Counts a try slowed after wrong passwords, at `place`.
    pub fn throttle(&self, place: &str) {
        self.throttled.with_label_values(&[place]).inc();
    }

    /// Reads `level` as the connections of `kind` open, at each scrape (in place of
    /// an earlier one of the same kind).
    pub fn connections_open(&self, kind: &str, level: impl Fn() -> i64 + Send + Sync + 'static) {
        let gauge = self.open.with_label_values(&[kind]);
        self.read_when_scraped(format!("open:{kind}"), gauge, Box::new(level));
    }

    /// Reads `level` as the event streams watching games, at each scrape.
    pub fn watchers(&self, level: impl Fn() -> i64 + Send + Sync + 'static) {
        let gauge = self.watchers.clone();
        self.read_when_scraped("watchers".into(), gauge, Box::new(level));
    }

    /// Reads `level` as the engine processes running, at each scrape.
    pub fn engine_processes(&self, level: impl Fn() -> i64 + Send + Sync + 'static) {
        let gauge = self.engine_processes.clone();
        self.read_when_scraped("engines".into(), gauge, Box::new(level));
    }

    fn read_when_scraped(&self, key: String, gauge: IntGauge, level: Level) {
        if let Ok(mut levels) = self.levels.lock() {
            levels.retain(|(k, ..)| *k != key);
            levels.push((key, gauge, level));
        }
    }

    /// The metrics in Prometheus's text format (0.0.4).
    pub fn text(&self) -> String {
        if let Ok(levels) = self.levels.lock() {
            for (_, gauge, level) in levels.iter() {
                gauge.set(level());
            }
        }
        let mut out = Vec::new();
        // Encoding into memory fails only on a metric this file made wrong.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Serves `GET /metrics` on `listener` until `stop` is cancelled.
pub async fn serve(
    listener: tokio::net::TcpListener,
    stop: tokio_util::sync::CancellationToken,
) -> std::io::Result<()> {
    let router = axum::Router::new().route(
        "/metrics",
        axum::routing::get(|| async {
            (
                [(
                    axum::http::header::CONTENT_TYPE,
                    "text/plain; version=0.0.4; charset=utf-8",
                )],
                get().text(),
            )
        }),
    );
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { stop.cancelled().await })
        .await
}
