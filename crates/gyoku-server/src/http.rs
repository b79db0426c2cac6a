//! The HTTP API beside the CSA port (`gyoku serve --http 127.0.0.1:8080`): the games on
//! the server, a game's moves and state, the impasse calculator, judging and converting a
//! record. JSON in and out; an error is `{"error": {"code", "message", …}}` with a status
//! that says whose fault it was, and nothing a client sends makes a 500.
//!
//! It reads the same storage as the CSA side, through a connection of its own: every move
//! a CSA client has seen echoed is already there.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::play::Play;
use crate::store::Archive;

mod accounts;
mod analysis;
mod analysis_queue;
mod assets;
mod body;
mod engine_tests;
mod error;
mod events;
mod follow;
mod games;
mod guard;
mod kept;
mod league;
mod listener;
mod reads;
mod relay;
mod relay_secret;
mod replay;
mod seats;
mod session;
mod state;
mod tls;
mod tools;
mod view;
mod watched;

pub use analysis_queue::AnalysisOptions;
pub use body::{MAX_JSON, MAX_UPLOAD};
pub use error::ApiError;
pub use events::{AdminToken, MAX_REASON};
pub use games::MAX_LISTED;
pub use guard::HttpOptions;
pub use reads::READERS;
pub(crate) use reads::open_readers;
pub use relay::{RELAY_TIMEOUT, Relay};
pub use relay_secret::{RELAY_SECRET_NAME, RelaySecret};
pub use state::MAX_WATCHERS;
pub use tls::Tls;
pub use tools::{MAX_OUTPUT, MAX_RECORDS};

use error::{method_not_allowed, not_found};
use games::{game, game_chart, game_events, game_record, list_games};
use state::AppState;
use tools::{convert, impasse, judge_record, mate};

/// The API's routes over `dbs` (connections of its own, read from by whichever is free:
/// [`READERS`] of them as `gyoku serve` opens them); `changes` carries the Game_ID of
/// each change the server commits; `play` makes the web page's games (`None` on a web
/// instance, whose `options.relay_to` names the referee that holds them); `bound` is the
/// address it listens on (a request must name it, or one of `options.hosts`, as its
/// `Host`). Call it inside a tokio runtime (a task follows the changes).
pub fn router(
    dbs: Vec<Box<dyn Archive>>,
    changes: broadcast::Sender<crate::store::notices::Changed>,
    play: Option<Arc<Play>>,
    league: Arc<crate::league::League>,
    bound: SocketAddr,
    options: &HttpOptions,
) -> Router {
    let heard = changes.subscribe();
    let mut state = AppState::new(dbs, play, league, options);
    if options.relay_to.is_none() {
        state.tests = Some(engine_tests(&state.stored, options));
    }
    tokio::spawn(follow::follow(Arc::downgrade(&state.stored), heard));
    if let (Some(analysis), None) = (&options.analysis, &options.relay_to) {
        state.analyst = Some(analysis_queue::Analyst::start(
            analysis.clone(),
            Arc::clone(&state.stored),
        ));
    }
    let guard = Arc::new(guard::Guard::new(bound, options));
    let everywhere = Router::new()
        .route("/", get(assets::index))
        .route("/assets/{*path}", get(assets::asset))
        .route("/api/health", get(health))
        .route("/api/games", get(list_games))
        .route("/api/players/{name}", get(league::player))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/events", get(game_events))
        .route("/api/games/{id}/chart.svg", get(game_chart))
        .route("/api/games/{id}/record", get(game_record))
        .route("/api/impasse", post(impasse))
        .route("/api/mate", post(mate))
        .route(JUDGE_ROUTE, post(judge_record))
        .route(CONVERT_ROUTE, post(convert));
    // What only the referee answers: its handlers there, relayed from a web instance.
    let relaying = options.relay_to.is_some();
    let referees = referees_routes()
        .into_iter()
        .fold(Router::new(), |r, (path, handler)| {
            r.route(
                path,
                if relaying {
                    any(relay::forward)
                } else {
                    handler
                },
            )
        });
    everywhere
        .merge(referees)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::from_fn(refuse_declared_oversize))
        .with_state(state)
}

/// The engine tests and their workers, empty at first: the tests kept are read on a
/// blocking thread (the database's client may not block the runtime) and taken up when
/// read; a test or its games that cannot be read are left out, with a warning.
fn engine_tests(
    stored: &Arc<state::Stored>,
    options: &HttpOptions,
) -> Arc<crate::engine_tests::Tests> {
    let artefacts = options.artefacts_dir.as_deref().and_then(|dir| {
        crate::engine_tests::artefacts::Artefacts::new(dir.to_path_buf())
            .map_err(|e| tracing::warn!("engine artefacts cannot be kept: {e}"))
            .ok()
    });
    let tests = Arc::new(crate::engine_tests::Tests::new(
        options.worker_lease,
        artefacts,
    ));
    let (load, into) = (Arc::clone(stored), Arc::clone(&tests));
    tokio::spawn(async move {
        let read = load
            .db
            .run(|db| {
                let mut kept = Vec::new();
                for t in db.engine_tests()? {
                    match db.test_games(&t.name) {
                        Ok(games) => kept.push((t, games)),
                        Err(e) => tracing::warn!(test = %t.name, "its games cannot be read: {e}"),
                    }
                }
                Ok(kept)
            })
            .await;
        match read {
            Ok(kept) => into.restore(kept, std::time::Instant::now()),
            Err(e) => tracing::warn!("the engine tests cannot be read: {e:?}"),
        }
    });
    tests
}

/// The routes that take a record file (judge, convert): the guard gives them a lane of
/// their own.
pub(crate) const JUDGE_ROUTE: &str = "/api/judge";
/// See [`JUDGE_ROUTE`].
pub(crate) const CONVERT_ROUTE: &str = "/api/convert";
/// Engine builds uploaded for tests: a body bound of their own
/// ([`crate::engine_tests::artefacts::MAX_ARTEFACT_BYTES`]).
pub(crate) const ARTEFACTS_ROUTE: &str = "/api/artefacts";
/// See [`JUDGE_ROUTE`]: a judged record's analysis.
pub(crate) const JUDGE_ANALYSIS_ROUTE: &str = "/api/judge/analysis";

/// What only the referee instance answers (it holds the lobby, the seats and the league),
/// each route with its handlers there: declared once, so that a web instance relays
/// every one of them ([`relay`]) and nothing else.
fn referees_routes() -> Vec<(&'static str, axum::routing::MethodRouter<AppState>)> {
    vec![
        ("/api/accounts", post(accounts::register)),
        (
            "/api/session",
            get(accounts::session)
                .post(accounts::log_in)
                .delete(accounts::log_out),
        ),
        ("/api/account/password", post(accounts::change_password)),
        ("/api/ratings", get(league::ratings)),
        (
            "/api/games/{id}/analysis",
            get(analysis::show).post(analysis::request),
        ),
        (JUDGE_ANALYSIS_ROUTE, post(analysis::request_record)),
        ("/api/analyses/{key}", get(analysis::show)),
        ("/api/rounds", get(league::rounds)),
        (
            "/api/tests",
            get(engine_tests::list).post(engine_tests::create),
        ),
        ("/api/tests/{name}", get(engine_tests::view)),
        ("/api/tests/{name}/stop", post(engine_tests::stop)),
        (
            "/api/tests/{name}/games/{number}/record",
            get(engine_tests::record),
        ),
        (ARTEFACTS_ROUTE, post(engine_tests::upload_artefact)),
        ("/api/artefacts/{digest}", get(engine_tests::artefact)),
        ("/api/workers", post(engine_tests::register)),
        ("/api/workers/batch", post(engine_tests::batch)),
        ("/api/workers/heartbeat", post(engine_tests::heartbeat)),
        ("/api/workers/games", post(engine_tests::upload)),
        ("/api/events", get(events::list_events)),
        ("/api/events/{name}", get(events::event)),
        ("/api/events/{name}/admin", post(events::admin)),
        ("/api/play", get(seats::options).post(seats::start)),
        ("/api/seats/{token}", get(seats::seat)),
        ("/api/seats/{token}/join", post(seats::join)),
        ("/api/seats/{token}/move", post(seats::play_move)),
        ("/api/seats/{token}/resign", post(seats::resign)),
        ("/api/seats/{token}/declare", post(seats::declare)),
        ("/api/seats/{token}/impasse", post(seats::impasse)),
        ("/api/seats/{token}/sennichite", post(seats::sennichite)),
        ("/api/seats/{token}/claim", post(seats::claim)),
        ("/api/seats/{token}/presence", get(seats::presence)),
        ("/api/seats/{token}/leave", post(seats::leave)),
        (
            "/api/seats/{token}/claim-absence",
            post(seats::claim_absence),
        ),
    ]
}

/// Whether `path` is one of the referee's routes (a `{…}` segment matches any one
/// segment): on a web instance, a request that will be relayed.
pub(crate) fn is_referees(path: &str) -> bool {
    static PATHS: std::sync::LazyLock<Vec<&'static str>> =
        std::sync::LazyLock::new(|| referees_routes().into_iter().map(|(p, _)| p).collect());
    PATHS.iter().any(|route| {
        let mut given = path.split('/');
        let mut wanted = route.split('/');
        loop {
            match (given.next(), wanted.next()) {
                (None, None) => return true,
                (Some(g), Some(w)) if w.starts_with('{') && !g.is_empty() => {}
                (Some(g), Some(w)) if g == w => {}
                _ => return false,
            }
        }
    })
}

/// A request whose `Content-Length` says more than [`MAX_UPLOAD`] is answered 413 at once,
/// before anything is read or any slot taken (a client that declares 10^12 bytes and
/// sends them slowly held a request open).
async fn refuse_declared_oversize(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let limit = if request.uri().path() == ARTEFACTS_ROUTE {
        crate::engine_tests::artefacts::MAX_ARTEFACT_BYTES
    } else {
        MAX_UPLOAD as u64
    };
    if declared.is_some_and(|n| n > limit) {
        let mut response =
            body::too_large_for(usize::try_from(limit).unwrap_or(usize::MAX)).into_response();
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    next.run(request).await
}

/// Serves the API on `listener` until `shutdown` completes, then lets each connection
/// finish the request it is answering (see [`HttpOptions`] for the caps and
/// time-outs).
///
/// # Errors
/// When the listener's address cannot be read.
pub async fn serve(
    listener: tokio::net::TcpListener,
    dbs: Vec<Box<dyn Archive>>,
    changes: broadcast::Sender<crate::store::notices::Changed>,
    play: Option<Arc<Play>>,
    league: Arc<crate::league::League>,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bound = listener.local_addr()?;
    let router = router(dbs, changes, play, league, bound, &options);
    listener::serve_connections(listener, router, &options, shutdown).await;
    Ok(())
}

/// `GET /api/health`: the server answers, and how much work its answers took so far:
/// `storage_reads` (each a query of the database), `replays` (each a stored game replayed
/// from its start to show it) and `appended` (each a view of a game kept replayed, the
/// moves since its last view played on). A move from the page costs one storage read and
/// one appended view.
async fn health(State(state): State<AppState>) -> Json<Value> {
    use std::sync::atomic::Ordering::Relaxed;
    let api = &state.stored;
    Json(json!({
        "ok": true,
        "storage_reads": api.reads.load(Relaxed),
        "replays": api.replays.load(Relaxed),
        "appended": api.appended.load(Relaxed),
        // Engine processes waiting for a next game (none on a web instance).
        "idle_engines": state.seats.play().map_or(0, |p| p.idle_engines()),
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_referees_routes_are_known_by_path() {
        for (path, relayed) in [
            ("/api/seats/abc/move", true),
            ("/api/seats/abc/claim", true),
            ("/api/seats/abc/sennichite", true),
            ("/api/seats/abc", true),
            ("/api/events/cup/admin", true),
            ("/api/events", true),
            ("/api/play", true),
            ("/api/seats//move", false),
            ("/api/seats/abc/move/x", false),
            ("/api/games", false),
            ("/api/judge", false),
            ("/", false),
        ] {
            assert_eq!(super::is_referees(path), relayed, "{path}");
        }
    }
}
