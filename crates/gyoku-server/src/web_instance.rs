//! A web instance (`gyoku serve --role web`): the web page, the HTTP API and the event
//! streams served from the PostgreSQL database a referee instance writes, beside it and as
//! many others as the watchers need. It holds no lobby and no CSA port: its views are read
//! from the database, rebuilt when the referee's commits are heard (`LISTEN`), and what
//! only the referee holds (the web page's seats, the league, the events) is relayed to it
//! ([`crate::http::Relay`]).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::broadcast;

use crate::error::ServeError;
use crate::http::{HttpOptions, RELAY_SECRET_NAME, Relay, RelaySecret};
use crate::store::DbUrl;
use crate::store::notices::follow_changes;
use crate::supervisor::{Ending, Supervisor};

/// How a web instance runs.
#[derive(Clone, Debug)]
pub struct WebOptions {
    /// The database the referee writes: PostgreSQL.
    pub db: DbUrl,
    /// The address the web page and API listen on.
    pub http: SocketAddr,
    /// The HTTP side's bounds, time-outs and host names.
    pub http_options: HttpOptions,
    /// The referee instance's HTTP address.
    pub referee: SocketAddr,
    /// Where `GET /metrics` listens (its connections, event streams and relayed
    /// requests), if anywhere.
    pub metrics: Option<SocketAddr>,
}

/// Runs a web instance until `shutdown` completes. `on_start` is told the address it
/// listens on, and that of its metrics.
///
/// # Errors
/// [`ServeError`] when the database is not PostgreSQL, cannot be opened, or the address
/// cannot be listened on.
pub async fn run_web(
    options: WebOptions,
    on_start: impl FnOnce(SocketAddr, Option<SocketAddr>),
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), ServeError> {
    let DbUrl::Postgres(url) = options.db.clone() else {
        return Err(ServeError::Config(
            "--role web serves from the PostgreSQL database its referee writes: give --db \
             postgres://..."
                .into(),
        ));
    };
    let db = options.db.clone();
    let (store, secret) = tokio::task::spawn_blocking(move || {
        let mut store = crate::store::open(&db)?;
        let secret = store.secret(RELAY_SECRET_NAME, &crate::tickets::new_secret())?;
        let readers = crate::http::open_readers(&db, store, crate::http::READERS)?;
        Ok::<_, crate::store::StoreError>((readers, secret))
    })
    .await
    .map_err(|e| ServeError::Task(e.to_string()))??;
    let listener = tokio::net::TcpListener::bind(options.http)
        .await
        .map_err(|e| ServeError::Listen {
            addr: options.http.to_string(),
            why: e.to_string(),
        })?;
    let at = listener.local_addr().map_err(|e| ServeError::Listen {
        addr: options.http.to_string(),
        why: e.to_string(),
    })?;
    let (changes, _) = broadcast::channel::<crate::store::notices::Changed>(4096);
    let mut tasks = Supervisor::default();
    let metrics = match options.metrics {
        Some(addr) => Some(crate::app::listen_for_metrics(addr, &mut tasks).await?),
        None => None,
    };
    let follower = {
        let changes = changes.clone();
        let stop = tasks.stop_signal();
        move || follow_changes(&url, &changes, &stop)
    };
    tasks.spawn_blocking("the change follower", Ending::PlayedOut, follower);
    let mut http_options = options.http_options.clone();
    http_options.relay_to = Some(Relay::new(options.referee, RelaySecret::new(secret)));
    let stopped = tasks.stop_signal().cancelled_owned();
    let served = crate::http::serve(
        listener,
        store,
        changes,
        None,
        Arc::new(crate::league::League::default()),
        http_options,
        stopped,
    );
    let served = async move {
        if let Err(e) = served.await {
            tracing::error!("the HTTP API stopped: {e}");
        }
    };
    tasks.spawn(
        "the HTTP API",
        Ending::Grace(crate::app::HTTP_GRACE),
        served,
    );
    on_start(at, metrics);
    shutdown.await;
    tasks.stop().await;
    Ok(())
}
