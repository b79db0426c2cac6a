//! Engine tests spread over workers (issue 45): the operator's `POST /api/tests` and `POST
//! /api/tests/{name}/stop` (the admin token), anyone's `GET /api/tests`, `GET
//! /api/tests/{name}` and a game's record, and the workers' `POST /api/workers` (the
//! worker token), `POST /api/workers/batch`, `/heartbeat` and `/games` (each worker's own
//! secret, `Authorization: Bearer <id>:<secret>`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::HttpOptions;
use super::body::{Request, read_body, typed_body};
use super::error::ApiError;
use super::events::{bearer, check_token};
use super::state::{Admin, AppState, Stored, with_db};
use crate::engine_tests::spec::{TestSpec, valid_name};
use crate::engine_tests::{Refused, Tests, judged_game, rejudge};

/// What the handlers use.
#[derive(Clone)]
pub(super) struct TestsApi {
    options: Arc<HttpOptions>,
    admin: Arc<Admin>,
    stored: Arc<Stored>,
    tests: Option<Arc<Tests>>,
}

impl axum::extract::FromRef<AppState> for TestsApi {
    fn from_ref(state: &AppState) -> Self {
        TestsApi {
            options: Arc::clone(&state.options),
            admin: Arc::clone(&state.admin),
            stored: Arc::clone(&state.stored),
            tests: state.tests.clone(),
        }
    }
}

impl TestsApi {
    fn tests(&self) -> Result<&Arc<Tests>, ApiError> {
        self.tests.as_ref().ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_here",
                "engine tests are kept by the referee instance",
            )
        })
    }

    fn admin(&self, peer: SocketAddr, headers: &HeaderMap) -> Result<(), ApiError> {
        check_token(
            self.options.admin_token.as_ref(),
            "the server was started without an admin token (gyoku serve --admin-token-file FILE)",
            &self.admin,
            peer,
            headers,
        )
    }

    /// The worker a request is from (`Bearer <id>:<secret>`).
    fn worker(&self, headers: &HeaderMap) -> Result<String, ApiError> {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer)
            .and_then(|b| b.split_once(':'))
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "unknown_worker",
                    "send Authorization: Bearer <worker id>:<secret> (POST /api/workers gives them)",
                )
            })?;
        self.tests()?
            .admit(given.0, given.1, Instant::now())
            .map_err(refused)?;
        Ok(given.0.to_string())
    }
}

fn refused(r: Refused) -> ApiError {
    let e = ApiError::new(
        StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST),
        r.code,
        r.message,
    );
    match r.retry_after_s {
        Some(s) => e.with("retry_after", json!(s)),
        None => e,
    }
}

/// A JSON body larger than the API's usual bound (`limit` bytes within `within`): it must
/// say it is JSON; one that does not read as `T` is 400 `code`.
async fn large_json<T: serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    body: Body,
    (limit, within): (usize, std::time::Duration),
    code: &'static str,
) -> Result<T, ApiError> {
    if !super::guard::declared_json(headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON, with Content-Type: application/json",
        ));
    }
    let bytes = read_body(body, limit, within).await?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::input(code, format!("the body: {e}")))
}

fn now_text() -> String {
    chrono::Local::now().format("%Y/%m/%d %H:%M:%S").to_string()
}

/// `GET /api/tests`: every test in short (name, status, engines, games, SPRT).
pub(super) async fn list(State(api): State<TestsApi>) -> Result<Json<Value>, ApiError> {
    Ok(Json(json!({"tests": api.tests()?.list(Instant::now())})))
}

/// `GET /api/tests/{name}`: a test in full: its summary, spec (without commands), the
/// workers that played it, and its latest games.
pub(super) async fn view(
    State(api): State<TestsApi>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(
        api.tests()?.view(&name, Instant::now()).map_err(refused)?,
    ))
}

/// `POST /api/tests` (admin token): makes a test from its spec; 201 with its summary.
pub(super) async fn create(
    State(api): State<TestsApi>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    api.admin(peer, &headers)?;
    let tests = Arc::clone(api.tests()?);
    // A test's openings may be many: its body is read within the record files' bound.
    let spec: TestSpec = large_json(
        &headers,
        body,
        (super::MAX_UPLOAD, api.options.upload_timeout),
        "invalid_test",
    )
    .await?;
    let checked = tests.check_new(&spec).map_err(refused)?;
    let name = checked.spec.name.clone();
    let text = serde_json::to_string(&checked.spec).map_err(ApiError::storage)?;
    let at = now_text();
    let at2 = at.clone();
    let n2 = name.clone();
    let made = with_db(&api.stored, move |db| {
        db.create_engine_test(&n2, &text, &at2)
    })
    .await?;
    if !made {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "test_exists",
            format!("a test named '{name}' is kept already: choose another name"),
        ));
    }
    tests.add(checked, at);
    let view = tests.view(&name, Instant::now()).map_err(refused)?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `POST /api/tests/{name}/stop` (admin token): stops a running test; its batches are let
/// go. Answers `{"ok": true, "status"}`.
pub(super) async fn stop(
    State(api): State<TestsApi>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    api.admin(peer, &headers)?;
    let at = now_text();
    let (status, decision) = api.tests()?.stop(&name, &at).map_err(refused)?;
    let decision = decision.map(|d| d.to_string());
    let n2 = name.clone();
    with_db(&api.stored, move |db| {
        db.set_engine_test_status(&n2, status.code(), Some(&at), decision.as_deref())
    })
    .await?;
    Ok(Json(
        json!({"ok": true, "test": name, "status": status.code()}),
    ))
}

/// `GET /api/tests/{name}/games/{number}/record`: a game's CSA record, as uploaded.
pub(super) async fn record(
    State(api): State<TestsApi>,
    Path((name, number)): Path<(String, u32)>,
) -> Result<Response, ApiError> {
    api.tests()?;
    let n2 = name.clone();
    let text = with_db(&api.stored, move |db| db.test_game_record(&n2, number))
        .await?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "no_game",
                format!("test '{name}' has no game {number}"),
            )
        })?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// `POST /api/workers`'s body.
#[derive(Debug, Deserialize)]
struct Registration {
    name: String,
    #[serde(default)]
    concurrency: Option<u32>,
}

impl Request for Registration {}

/// `POST /api/workers` (the worker token): registers a worker; answers its id and secret
/// (shown this once).
pub(super) async fn register(
    State(api): State<TestsApi>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    check_token(
        api.options.worker_token.as_ref(),
        "the server was started without a worker token (gyoku serve --worker-token-file FILE)",
        &api.admin,
        peer,
        &headers,
    )?;
    let r: Registration = typed_body(&api.options, &headers, body).await?;
    if !valid_name(&r.name, 32) {
        return Err(ApiError::input(
            "invalid_name",
            "name: 1 to 32 letters, digits, '-', '_' or '.'",
        ));
    }
    let concurrency = r.concurrency.unwrap_or(1).clamp(1, 1024);
    let (id, secret) = api
        .tests()?
        .register(&r.name, concurrency, Instant::now())
        .map_err(refused)?;
    tracing::info!(worker = %id, peer = %peer, "an engine-test worker registered");
    Ok(Json(json!({"worker": id, "secret": secret})))
}

/// `POST /api/workers/batch`'s body.
#[derive(Debug, Deserialize)]
struct BatchAsk {
    #[serde(default)]
    pairs: Option<u32>,
    /// The engine names the worker has commands of its own for.
    #[serde(default)]
    has: Vec<String>,
}

impl Request for BatchAsk {}

/// `POST /api/workers/batch` (the worker's secret): a batch of game pairs of a running
/// test the worker can play (each engine has a command, or the worker has one of its own
/// for its name), `{"batch": null, "retry_after_s"}` when there is none, 429 `throttled`
/// for a worker whose games keep failing.
pub(super) async fn batch(
    State(api): State<TestsApi>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let worker = api.worker(&headers)?;
    let ask: BatchAsk = typed_body(&api.options, &headers, body).await?;
    let has = ask.has;
    let can_play = |t: &crate::engine_tests::spec::Checked| {
        t.spec
            .engines
            .iter()
            .all(|e| e.command.is_some() || e.artefact.is_some() || has.contains(&e.name))
    };
    let batch = api
        .tests()?
        .lease(&worker, ask.pairs.unwrap_or(1), can_play, Instant::now())
        .map_err(refused)?;
    Ok(Json(match batch {
        Some(b) => json!({"batch": b.to_json()}),
        None => json!({"batch": null, "retry_after_s": 2}),
    }))
}

/// `POST /api/workers/heartbeat`'s body.
#[derive(Debug, Deserialize)]
struct Heartbeat {
    #[serde(default)]
    batches: Vec<u64>,
}

impl Request for Heartbeat {}

/// `POST /api/workers/heartbeat` (the worker's secret): renews the worker's leases;
/// answers `{"gone": [...]}`, the batches it named that are no longer its to play.
pub(super) async fn heartbeat(
    State(api): State<TestsApi>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let worker = api.worker(&headers)?;
    let beat: Heartbeat = typed_body(&api.options, &headers, body).await?;
    let named: Vec<u64> = beat.batches.into_iter().take(1024).collect();
    let gone = api.tests()?.heartbeat(&worker, &named, Instant::now());
    Ok(Json(json!({"gone": gone})))
}

/// `POST /api/workers/games`'s body: a finished game of a batch the worker holds.
#[derive(Debug, Deserialize)]
struct Upload {
    batch: u64,
    number: u32,
    /// The winning engine as the worker's runner judged: 1, 2, or null (a draw).
    winner: Option<u8>,
    reason: String,
    /// The CSA record.
    record: String,
}

/// The largest game upload, bytes (its record and the rest).
const MAX_UPLOAD_JSON: usize = rejudge::MAX_RECORD_BYTES + 16 * 1024;

/// `POST /api/workers/games` (the worker's secret): a game of the worker's batch, with
/// its CSA record. The server judges the record again under the test's rules and clock
/// and counts the referee's verdict; the worker's claim is compared and a disagreement
/// counted. Answers `{"counted", "agrees", "winner", "reason"}`; 409 `batch_gone`, 403
/// `not_your_batch`, 400 `not_in_batch`, 422 `wrong_record` (not that game, or it does not
/// end).
pub(super) async fn upload(
    State(api): State<TestsApi>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let worker = api.worker(&headers)?;
    let up: Upload = large_json(
        &headers,
        body,
        (MAX_UPLOAD_JSON, api.options.body_timeout),
        "invalid_json",
    )
    .await?;
    let claimed_winner = match up.winner {
        None => None,
        Some(w @ (1 | 2)) => Some(usize::from(w - 1)),
        Some(_) => return Err(ApiError::input("invalid_json", "winner: 1, 2 or null")),
    };
    if up.reason.len() > 64 {
        return Err(ApiError::input("invalid_json", "reason: at most 64 bytes"));
    }
    let tests = Arc::clone(api.tests()?);
    let test = tests
        .check_upload(&worker, up.batch, up.number, Instant::now())
        .map_err(refused)?;
    let record = up.record;
    let number = up.number;
    let judged = {
        let test = Arc::clone(&test);
        let record = record.clone();
        tokio::task::spawn_blocking(move || rejudge::judge(&test, number, &record))
            .await
            .map_err(|e| ApiError::storage(format!("judging failed: {e}")))?
    };
    let verdict = match judged {
        Ok(v) => v,
        Err(why) => {
            tests.note_refused(&worker);
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "wrong_record",
                why,
            ));
        }
    };
    let judged = judged_game(
        &test.spec.name,
        number,
        &worker,
        (claimed_winner, up.reason),
        verdict,
        now_text(),
    );
    let game = judged.game.clone();
    let kept = with_db(&api.stored, move |db| db.keep_test_game(&game, &record)).await?;
    let agrees = judged.game.agrees;
    let winner = judged.verdict.winner.map(|w| format!("engine{}", w + 1));
    let reason = judged.verdict.reason.clone();
    let at = now_text();
    let (counted, ended) = tests.count(up.batch, judged, kept, Instant::now(), &at);
    if let Some((status, decision)) = ended {
        let name = test.spec.name.clone();
        let decision = decision.map(|d| d.to_string());
        tracing::info!(test = %name, "an engine test finished");
        with_db(&api.stored, move |db| {
            db.set_engine_test_status(&name, status.code(), Some(&at), decision.as_deref())
        })
        .await?;
    }
    Ok(Json(json!({
        "counted": counted,
        "agrees": agrees,
        "winner": winner,
        "reason": reason,
    })))
}

/// `POST /api/artefacts` (admin token) with an engine build as the body (any type, at
/// most [`crate::engine_tests::artefacts::MAX_ARTEFACT_BYTES`], within the uploads' time): kept under its
/// SHA-256; answers `{"artefact": digest, "bytes"}`. A test names it by digest.
pub(super) async fn upload_artefact(
    State(api): State<TestsApi>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    use futures_util::StreamExt;
    api.admin(peer, &headers)?;
    let store = api.tests()?.artefacts().cloned().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_artefacts",
            "this server keeps no engine builds",
        )
    })?;
    let mut incoming = store.incoming().await.map_err(ApiError::storage)?;
    let mut stream = body.into_data_stream();
    let read = async {
        while let Some(chunk) = stream.next().await {
            let chunk =
                chunk.map_err(|e| ApiError::input("invalid_body", format!("the body: {e}")))?;
            incoming
                .write(&chunk)
                .await
                .map_err(|e| ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", e))?;
        }
        Ok::<(), ApiError>(())
    };
    tokio::time::timeout(api.options.upload_timeout, read)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                format!(
                    "the body did not arrive within {} s",
                    api.options.upload_timeout.as_secs()
                ),
            )
        })??;
    let (digest, bytes) = incoming.keep().await.map_err(ApiError::storage)?;
    tracing::info!(artefact = %digest, bytes, "an engine build was kept for tests");
    Ok(Json(json!({"artefact": digest, "bytes": bytes})))
}

/// `GET /api/artefacts/{digest}` (the worker's secret): the build, streamed; at most
/// [`crate::engine_tests::artefacts::SENT_AT_ONCE`] are sent at once, the others wait their turn.
pub(super) async fn artefact(
    State(api): State<TestsApi>,
    Path(digest): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    api.worker(&headers)?;
    let store = api.tests()?.artefacts().cloned();
    let path = store
        .as_ref()
        .and_then(|s| s.path(&digest))
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "no_artefact",
                format!("no artefact {digest} here"),
            )
        })?;
    let place = store
        .map(|s| Arc::clone(&s.sending))
        .ok_or_else(|| ApiError::storage("no artefacts"))?
        .acquire_owned()
        .await
        .map_err(ApiError::storage)?;
    let file = tokio::fs::File::open(&path)
        .await
        .map_err(|e| ApiError::storage(format!("the artefact: {e}")))?;
    let length = file
        .metadata()
        .await
        .map_err(|e| ApiError::storage(format!("the artefact: {e}")))?
        .len();
    // Read in chunks as the client takes them; the place is held until the last.
    let chunks = futures_util::stream::unfold((file, Some(place)), |(mut file, place)| async {
        use tokio::io::AsyncReadExt;
        let mut buf = vec![0u8; 64 * 1024];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((
                    Ok::<_, std::io::Error>(axum::body::Bytes::from(buf)),
                    (file, place),
                ))
            }
            Err(e) => Some((Err(e), (file, None))),
        }
    });
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (header::CONTENT_LENGTH, length.to_string()),
        ],
        Body::from_stream(chunks),
    )
        .into_response())
}
