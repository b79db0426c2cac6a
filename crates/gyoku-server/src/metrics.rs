//! The server's metrics in Prometheus's text format (`gyoku serve --metrics ADDR`,
//! `GET /metrics` on a listener of its own), names prefixed `gyoku_`.
//!
//! One set a process (a process runs one server): counted where things happen (the
//! driver's commits, moves and games, the CSA port's connections and refusals) and, for
//! what is a level rather than a count (connections open), read when scraped.

use std::sync::{LazyLock, Mutex};

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder, exponential_buckets,
};

/// Reads a level when scraped (connections open, say).
type Level = Box<dyn Fn() -> i64 + Send + Sync>;

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
    /// Clients refused, by why (`too_many_connections`, `too_many_from_address`).
    pub refused: IntCounterVec,
    /// Connections open now, by kind, read when scraped.
    open: IntGaugeVec,
    levels: Mutex<Vec<(String, Level)>>,
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

    /// Reads `level` as the connections of `kind` open, at each scrape.
    pub fn connections_open(&self, kind: &str, level: impl Fn() -> i64 + Send + Sync + 'static) {
        if let Ok(mut levels) = self.levels.lock() {
            levels.retain(|(k, _)| k != kind);
            levels.push((kind.to_string(), Box::new(level)));
        }
    }

    /// The metrics in Prometheus's text format (0.0.4).
    pub fn text(&self) -> String {
        if let Ok(levels) = self.levels.lock() {
            for (kind, level) in levels.iter() {
                self.open.with_label_values(&[kind.as_str()]).set(level());
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
