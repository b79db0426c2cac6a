//! The HTTP API beside the CSA port (`gyoku serve --http 127.0.0.1:8080`): the games on
//! the server, a game's moves and state, the impasse calculator, judging and converting a
//! record. JSON in and out; an error is `{"error": {"code", "message", …}}` with a status
//! that says whose fault it was, and nothing a client sends makes a 500.
//!
//! It reads the same storage as the CSA side, through a connection of its own: every move
//! a CSA client has seen echoed is already there.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, broadcast};

use gyoku::{Game, ImpasseReport, Move, Position, Preset};
use gyoku_kifu::judge::judge;
use gyoku_kifu::report::{impasse_json, judge_json, record_json, rules_for};
use gyoku_kifu::{Format, Record};

use crate::lobby::GameSpec;
use crate::play::Play;
use crate::store::{Archive, GameDetail, ListedGame, StoreError};

mod guard;
mod listener;
mod seats;

pub use guard::HttpOptions;

/// The largest body accepted (a record file to judge or convert), bytes.
pub const MAX_UPLOAD: usize = 16 * 1024 * 1024;

/// The most records of one upload judged (an archive in one CSA file); the rest are left
/// and the answer says so.
pub const MAX_RECORDS: usize = 10_000;

/// The most games one listing returns.
pub const MAX_LISTED: u32 = 1_000;

/// The largest JSON body accepted (a request to play, a move, a position), bytes.
pub const MAX_JSON: usize = 64 * 1024;

/// An error answer: its status, a stable code, and a message that says what and where.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    extra: serde_json::Map<String, Value>,
}

impl ApiError {
    /// A client's mistake (400).
    fn input(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            extra: serde_json::Map::new(),
        }
    }

    fn with(mut self, key: &str, value: Value) -> ApiError {
        self.extra.insert(key.to_string(), value);
        self
    }

    fn storage(e: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "storage_unavailable",
            e.to_string(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut error = serde_json::Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        error.extend(self.extra);
        (self.status, Json(json!({ "error": error }))).into_response()
    }
}

struct Api {
    db: Mutex<Box<dyn Archive>>,
    /// Replaying stored games for their views runs on blocking threads, this many at once.
    work: Semaphore,
    /// What an upload asks (judging, converting, the calculator) runs apart, this many at
    /// once, so that no upload keeps a game's view waiting.
    uploads: Semaphore,
    /// The Game_ID of each change the server commits.
    changes: broadcast::Sender<String>,
    /// Event streams open at once.
    watchers: Arc<Semaphore>,
    /// The web page's games (`None`: no one plays here, the API only reads).
    play: Arc<Play>,
    /// When each game last changed (its clock started, for the countdown).
    changed_at: Arc<Mutex<HashMap<String, std::time::Instant>>>,
    /// Event streams open at once from one address.
    watchers_per_address: guard::PerAddress,
    /// Storage reads made, and stored games replayed (`GET /api/health`).
    reads: std::sync::atomic::AtomicU64,
    replays: std::sync::atomic::AtomicU64,
    /// The bounds and time-outs.
    options: HttpOptions,
}

/// Games whose last change time is remembered; beyond it the oldest memory is dropped
/// (their clocks are shown without the running side's time spent).
const MAX_REMEMBERED: usize = 65_536;

type Shared = Arc<Api>;

/// Event streams (`GET /api/games/{id}/events`) open at once; more are refused (503).
pub const MAX_WATCHERS: usize = 4096;

/// The API's routes over `db` (a connection of its own); `changes` carries the Game_ID of
/// each change the server commits; `play` makes the web page's games; `bound` is the
/// address it listens on (a request must name it, or one of `options.hosts`, as its
/// `Host`). Call it inside a tokio runtime (a task follows the changes).
pub fn router(
    db: Box<dyn Archive>,
    changes: broadcast::Sender<String>,
    play: Arc<Play>,
    bound: SocketAddr,
    options: &HttpOptions,
) -> Router {
    let changed_at = Arc::new(Mutex::new(HashMap::new()));
    let mut heard = changes.subscribe();
    let memory = Arc::clone(&changed_at);
    tokio::spawn(async move {
        loop {
            match heard.recv().await {
                Ok(id) => {
                    let mut m = memory
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if m.len() >= MAX_REMEMBERED && !m.contains_key(&id) {
                        m.clear();
                    }
                    m.insert(id, std::time::Instant::now());
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    let api = Arc::new(Api {
        db: Mutex::new(db),
        work: Semaphore::new(2),
        uploads: Semaphore::new(1),
        changes,
        watchers: Arc::new(Semaphore::new(MAX_WATCHERS)),
        play,
        changed_at,
        watchers_per_address: guard::PerAddress::new(options.max_watchers_per_address.max(1)),
        reads: std::sync::atomic::AtomicU64::new(0),
        replays: std::sync::atomic::AtomicU64::new(0),
        options: options.clone(),
    });
    let guard = Arc::new(guard::Guard::new(bound, options));
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", INDEX_HTML)))
        .route(
            "/assets/app.js",
            get(|| asset("text/javascript; charset=utf-8", APP_JS)),
        )
        .route(
            "/assets/style.css",
            get(|| asset("text/css; charset=utf-8", STYLE_CSS)),
        )
        .route("/api/health", get(health))
        .route("/api/games", get(list_games))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/events", get(game_events))
        .route("/api/games/{id}/chart.svg", get(game_chart))
        .route("/api/games/{id}/record", get(game_record))
        .route("/api/impasse", post(impasse))
        .route("/api/judge", post(judge_record))
        .route("/api/convert", post(convert))
        .route("/api/play", get(seats::options).post(seats::start))
        .route("/api/seats/{token}", get(seats::seat))
        .route("/api/seats/{token}/join", post(seats::join))
        .route("/api/seats/{token}/move", post(seats::play_move))
        .route("/api/seats/{token}/resign", post(seats::resign))
        .route("/api/seats/{token}/declare", post(seats::declare))
        .route("/api/seats/{token}/impasse", post(seats::impasse))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::from_fn(refuse_declared_oversize))
        .with_state(api)
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
    if declared.is_some_and(|n| n > MAX_UPLOAD as u64) {
        let mut response = too_large().into_response();
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
    db: Box<dyn Archive>,
    changes: broadcast::Sender<String>,
    play: Arc<Play>,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bound = listener.local_addr()?;
    let router = router(db, changes, play, bound, &options);
    listener::serve_connections(listener, router, &options, shutdown).await;
    Ok(())
}

/// The web page, built into the binary (no build step: `crates/gyoku-server/web/`).
const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const STYLE_CSS: &str = include_str!("../web/style.css");

async fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such resource")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this resource does not take that method",
    )
}

/// `GET /api/health`: the server answers, and how much work its answers took so far:
/// `storage_reads` (each a query of the database) and `replays` (each a stored game
/// replayed to show it). A move from the page costs one of each.
async fn health(State(api): State<Shared>) -> Json<Value> {
    use std::sync::atomic::Ordering::Relaxed;
    Json(json!({
        "ok": true,
        "storage_reads": api.reads.load(Relaxed),
        "replays": api.replays.load(Relaxed),
    }))
}

/// Runs `f` on the database on a blocking thread.
async fn with_db<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce(&mut dyn Archive) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    api.reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let api = api.clone();
    tokio::task::spawn_blocking(move || {
        let mut db = api
            .db
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut **db)
    })
    .await
    .map_err(ApiError::storage)?
    .map_err(ApiError::storage)
}

/// Runs a game view's CPU work on a blocking thread, a bounded number at once.
async fn work<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&api.work, f).await
}

/// Runs an upload's CPU work (judge, convert, the calculator) on a blocking thread, apart
/// from the game views'.
async fn upload_work<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&api.uploads, f).await
}

async fn work_on<T: Send + 'static>(
    slots: &Semaphore,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = slots.acquire().await.map_err(ApiError::storage)?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
}

fn listed_json(g: &ListedGame) -> Value {
    json!({
        "id": g.id,
        "name": g.name,
        "black": g.black,
        "white": g.white,
        "rules": g.rules,
        "status": g.status,
        "result": g.result,
        "reason": g.reason,
        "started_at": g.started_at,
        "ended_at": g.ended_at,
        "moves": g.moves,
    })
}

/// `GET /api/games[?limit=N]`: the games being played, then the latest, at most `limit`
/// (100 by default, 1,000 at most).
async fn list_games(
    State(api): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let limit = match q.get("limit") {
        None => 100,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_LISTED).contains(n))
            .ok_or_else(|| {
                ApiError::input(
                    "invalid_limit",
                    format!("limit: '{text}' is not a number from 1 to {MAX_LISTED}"),
                )
            })?,
    };
    let games = with_db(&api, move |db| db.recent_games(limit)).await?;
    Ok(Json(json!({
        "games": games.iter().map(listed_json).collect::<Vec<_>>(),
    })))
}

/// A move as the API shows it: USI, CSA and KI2 (`▲７六歩`, `△同　銀`), and its time.
fn move_json(
    ply: usize,
    pos: &Position,
    m: Move,
    before: Option<Move>,
    seconds: Option<u64>,
) -> Value {
    json!({
        "ply": ply,
        "usi": m.to_string(),
        "csa": gyoku_kifu::csa::move_text(pos, m, pos.turn()),
        "ki2": gyoku_kifu::ki2::move_notation(pos, m, before.map(Move::to)),
        "seconds": seconds,
    })
}

/// Moves in KI2 notation from `start` (`▲７六歩`, `△同　歩`).
fn ki2_moves(start: &Position, moves: impl Iterator<Item = Move>) -> Vec<String> {
    let mut pos = start.clone();
    let mut before: Option<Move> = None;
    moves
        .map(|m| {
            let text = gyoku_kifu::ki2::move_notation(&pos, m, before.map(Move::to));
            pos.play_unchecked(m);
            before = Some(m);
            text
        })
        .collect()
}

/// A stored game played again: how it was set up, where it stands, its moves (as
/// [`move_json`] shows them, and as moves), and its outcome's JSON.
struct Replayed {
    spec: GameSpec,
    game: Game,
    moves: Vec<Value>,
    played: Vec<Move>,
    outcome: Value,
}

/// Plays a stored game again: an ended one from its record, judged as `gyoku judge` would;
/// one being played from its moves.
fn replay_stored(d: &GameDetail) -> Result<Replayed, ApiError> {
    let corrupt = || {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "stored_game_unreadable",
            format!("game {}: what is stored cannot be read back", d.game.id),
        )
    };
    let spec = GameSpec::from_stored(&d.game, d.moves.clone()).ok_or_else(corrupt)?;
    let rules = spec.rules(false);
    let mut moves = Vec::new();
    let mut played = Vec::new();
    let (game, outcome) = match &d.record {
        // Ended: the record as written, judged as `gyoku judge` would.
        Some(text) => {
            let text = foul_as_move(text);
            let record = gyoku_kifu::read_str(&text, Format::Csa)
                .ok()
                .and_then(|r| r.into_iter().next())
                .ok_or_else(corrupt)?;
            let mut pos = record.start.clone();
            let mut before = None;
            for (i, m) in record.moves.iter().enumerate() {
                moves.push(move_json(
                    i + 1,
                    &pos,
                    m.mv,
                    before,
                    m.time_ms.map(|t| t / 1000),
                ));
                pos.play_unchecked(m.mv);
                before = Some(m.mv);
                played.push(m.mv);
            }
            let j = judge(&record, rules_for(&record, rules, true));
            let outcome = record_json(&record, &j);
            (j.game, outcome)
        }
        None => {
            let mut game = Game::new(spec.start.clone(), rules);
            let stored = spec
                .initial_moves
                .iter()
                .map(|(m, t)| (m, u64::from(*t)))
                .chain(spec.moves.iter().map(|(m, t)| (m, *t)));
            for (i, (text, seconds)) in stored.enumerate() {
                let pos = game.position().clone();
                let Ok((_, mv)) = gyoku_kifu::csa::parse_move(text, &pos) else {
                    return Err(corrupt());
                };
                let before = game.plies().last().map(|p| p.mv);
                moves.push(move_json(i + 1, &pos, mv, before, Some(seconds)));
                if game.play(mv).is_err() {
                    return Err(corrupt());
                }
                played.push(mv);
            }
            let outcome = judge_json(&game);
            (game, outcome)
        }
    };
    Ok(Replayed {
        spec,
        game,
        moves,
        played,
        outcome,
    })
}

/// A server record with its foul as a move: the lobby writes the illegal move that ended a
/// game as a comment, `'ILLEGAL_MOVE(+0055FU)` (as shogi-server does); read as the move
/// it was, the judge names its kind.
fn foul_as_move(text: &str) -> std::borrow::Cow<'_, str> {
    let foul = |line: &str| {
        line.strip_prefix("'ILLEGAL_MOVE(")
            .and_then(|rest| rest.strip_suffix(')'))
            .filter(|m| gyoku_proto::csa::move_shaped(m))
            .map(str::to_string)
    };
    if !text.lines().any(|l| foul(l).is_some()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&foul(line).unwrap_or_else(|| line.to_string()));
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

/// A stored game's view: its listing, start, moves, where it stands, the clocks, what the
/// rules allow, and the calculator. `since` is how long ago the game last changed, if known.
fn game_view(d: &GameDetail, since: Option<std::time::Duration>) -> Result<Value, ApiError> {
    let Replayed {
        spec,
        game,
        moves,
        outcome,
        ..
    } = replay_stored(d)?;
    let rules = game.rules();
    let report = ImpasseReport::new(game.position(), Some(&spec.start.to_setup()));
    let mut v = listed_json(&d.listed);
    v["start_sfen"] = json!(spec.start.to_sfen());
    v["time"] = json!({
        "total": spec.total,
        "byoyomi": spec.byoyomi,
        "increment": spec.increment,
    });
    v["max_moves"] = json!(spec.max_moves);
    v["moves"] = json!(moves);
    v["sfen"] = json!(game.position().to_sfen());
    v["turn"] = json!(game.turn().name());
    v["in_check"] = json!(game.position().is_check());
    v["outcome"] = outcome;
    v["impasse"] = impasse_json(&report);
    v["fouls"] = json!(match rules.fouls {
        gyoku::rules::Fouls::Lose => "lose",
        gyoku::rules::Fouls::Refuse => "refuse",
    });
    v["allows"] = json!({
        "declaration": rules.declaration.is_some(),
        "impasse_count": rules.agreement.is_some(),
    });
    let playing = d.listed.status == "playing";
    v["clock"] = clock_json(&spec, &moves, playing, game.turn(), since);
    // The side to move's legal moves (the page marks where a piece may go).
    v["legal"] = if playing && game.outcome().is_none() {
        json!(
            game.position()
                .legal_moves()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        )
    } else {
        json!([])
    };
    // The fouls a player could make with real pieces (nifu, uchifuzume, a piece left with
    // no move, the king left in check), with their kind: the page sends these (they lose or
    // are refused, as the rules say) and nothing else that is not legal.
    v["physical_fouls"] = if playing && game.outcome().is_none() {
        game.position()
            .physical_fouls()
            .iter()
            .map(|(m, k)| (m.to_string(), json!(k.code())))
            .collect::<serde_json::Map<_, _>>()
            .into()
    } else {
        json!({})
    };
    Ok(v)
}

/// Each side's time left after the stored moves (`remaining_ms`, main time only), the
/// byoyomi, and for a game being played the side whose clock runs and how long ago it
/// started (`elapsed_ms`, `null` when the server does not know).
fn clock_json(
    spec: &GameSpec,
    moves: &[Value],
    playing: bool,
    turn: gyoku::Color,
    since: Option<std::time::Duration>,
) -> Value {
    let increment = u64::from(spec.increment) * 1000;
    let mut left = [u64::from(spec.total) * 1000; 2];
    let mut mover = spec.start.turn();
    for (i, m) in moves.iter().enumerate() {
        if i >= spec.initial_moves.len() {
            let spent = m["seconds"].as_u64().unwrap_or(0) * 1000;
            let r = &mut left[mover.index()];
            *r = (*r + increment).saturating_sub(spent);
        }
        mover = !mover;
    }
    json!({
        "black_ms": left[0],
        "white_ms": left[1],
        "byoyomi_ms": u64::from(spec.byoyomi) * 1000,
        "increment_ms": increment,
        "running": playing.then(|| turn.name()),
        "elapsed_ms": since.filter(|_| playing).map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
    })
}

/// A stored game, read now; `no_such_game` (404) when there is none.
async fn detail_of(api: &Shared, id: &str) -> Result<GameDetail, ApiError> {
    let key = id.to_string();
    with_db(api, move |db| db.game(&key)).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_such_game",
            format!("no game '{id}'"),
        )
    })
}

/// A stored game's view, read now.
async fn view_of(api: &Shared, id: &str) -> Result<Value, ApiError> {
    let detail = detail_of(api, id).await?;
    let since = api
        .changed_at
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .map(std::time::Instant::elapsed);
    api.replays
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    work(api, move || game_view(&detail, since)).await
}

/// `GET /api/games/{id}`.
async fn game(State(api): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    view_of(&api, &id).await.map(Json)
}

/// `GET /api/games/{id}/record?format=F`: the game's record as a download, in `kif`
/// (Shift_JIS, as `.kif` files are everywhere in Gyoku), `kifu` (KIF in UTF-8), `ki2`,
/// `csa` (a finished game's record exactly as the server stored it), `jkf` or `usi`. A game
/// being played is written as far as it has gone.
async fn game_record(
    State(api): State<Shared>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let name = q
        .get("format")
        .map_or("kif", String::as_str)
        .to_ascii_lowercase();
    let format = format_named(&name, "format")?;
    let detail = detail_of(&api, &id).await?;
    api.replays
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let shift_jis = name == "kif";
    let bytes = work(&api, move || {
        if let (Some(stored), Format::Csa) = (&detail.record, format) {
            return Ok(stored.clone().into_bytes());
        }
        let record = match &detail.record {
            Some(stored) => gyoku_kifu::read_str(stored, Format::Csa)
                .ok()
                .and_then(|r| r.into_iter().next()),
            None => None,
        };
        let record = match record {
            Some(r) => r,
            None => {
                let r = replay_stored(&detail)?;
                let mut record = gyoku_kifu::Record::from_game(&r.game);
                record.header = vec![
                    ("先手".into(), detail.listed.black.clone()),
                    ("後手".into(), detail.listed.white.clone()),
                    ("開始日時".into(), detail.listed.started_at.clone()),
                ];
                record
            }
        };
        let text = gyoku_kifu::write(&record, format);
        Ok(if shift_jis {
            gyoku_kifu::encoding::Encoding::ShiftJis.encode(&text)
        } else {
            text.into_bytes()
        })
    })
    .await?;
    // `.kif` is Shift_JIS, `.kifu` the same in UTF-8; the other formats by their own name.
    let (ext, charset) = match name.as_str() {
        "kif" => ("kif", "Shift_JIS"),
        "kifu" => ("kifu", "utf-8"),
        _ => (format.name(), "utf-8"),
    };
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&format!("text/plain; charset={charset}")) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    let file = gyoku_arena::csa_bridge::safe_file_name(&id);
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}.{ext}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

/// `GET /api/games/{id}/chart.svg`: the impasse chart of the game so far, as
/// `gyoku impasse --chart` draws it.
async fn game_chart(
    State(api): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let detail = detail_of(&api, &id).await?;
    api.replays
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let svg = work(&api, move || {
        let Replayed { spec, played, .. } = replay_stored(&detail)?;
        let (start, moves) = (spec.start, played);
        let credit = gyoku::impasse::handicap_credit(&start.to_setup());
        let data = gyoku_kifu::chart::series(&start, &moves, credit);
        let title = format!(
            "{} — impasse points over {} moves",
            detail.game.id,
            moves.len()
        );
        Ok(gyoku_kifu::chart::svg(&title, &data))
    })
    .await?;
    let mut response = svg.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("image/svg+xml"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// What an event stream carries between events.
struct Watch {
    api: Shared,
    id: String,
    changes: broadcast::Receiver<String>,
    /// The view to send next, when it is already read.
    next: Option<Value>,
    /// The last view sent was of a finished game: the stream ends.
    done: bool,
    /// A place among all streams and among this address's.
    _permit: (tokio::sync::OwnedSemaphorePermit, guard::AddressSlot),
}

impl Watch {
    /// Waits for a stored change of this game (or for having missed some), then reads it.
    async fn next_view(&mut self) -> Option<Value> {
        if let Some(v) = self.next.take() {
            return Some(v);
        }
        loop {
            match self.changes.recv().await {
                Ok(changed) if changed == self.id => break,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => break,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
        // Changes that came meanwhile are in the view about to be read.
        while self.changes.try_recv().is_ok() {}
        view_of(&self.api, &self.id).await.ok()
    }
}

/// `GET /api/games/{id}/events`: Server-Sent Events, a `game` event with the whole view
/// (as `GET /api/games/{id}`) at once and after each change the server stores, until the
/// game is finished.
async fn game_events(
    State(api): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let slot = api.watchers_per_address.take(peer.ip()).ok_or_else(|| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_watchers",
            format!(
                "{} event streams are open from your address; close one first",
                api.watchers_per_address.max()
            ),
        )
    })?;
    let permit = api.watchers.clone().try_acquire_owned().map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_watchers",
            format!("{MAX_WATCHERS} event streams are open; try again later"),
        )
    })?;
    // Subscribed before the first read: no change falls between the two.
    let changes = api.changes.subscribe();
    let first = view_of(&api, &id).await?;
    let watch = Watch {
        api,
        id,
        changes,
        next: Some(first),
        done: false,
        _permit: (permit, slot),
    };
    let stream = futures_util::stream::unfold(watch, |mut w| async move {
        if w.done {
            return None;
        }
        let view = w.next_view().await?;
        w.done = view["status"] == "finished";
        let event = SseEvent::default().event("game").data(view.to_string());
        Some((Ok::<_, std::convert::Infallible>(event), w))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// A position from a request: an SFEN, `startpos`, or a handicap name.
fn read_position(text: &str, lenient: bool, what: &str) -> Result<Position, ApiError> {
    if let Ok(handicap) = text.parse::<gyoku::Handicap>() {
        return Ok(handicap.position());
    }
    let setup = gyoku::Setup::from_sfen(text)
        .map_err(|e| ApiError::input("invalid_sfen", format!("{what}: {e}")))?;
    match Position::from_setup(setup) {
        Ok(pos) => Ok(pos),
        Err(e) if lenient => e
            .ignore_all_safe()
            .map_err(|e| ApiError::input("invalid_sfen", format!("{what}: {e}"))),
        Err(e) => Err(ApiError::input(
            "invalid_sfen",
            format!(
                "{what}: {e} (\"lenient\": true accepts a missing king, dead pieces, nifu and extra pieces)"
            ),
        )),
    }
}

/// Plays `moves` (USI, space-separated or a list) from `pos`: a move that does not read is
/// `invalid_move`, one the rules refuse `illegal_move` with its kind (422).
fn play_moves(pos: &mut Position, moves: Option<&Value>) -> Result<(), ApiError> {
    let texts: Vec<String> = match moves {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|m| m.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| ApiError::input("invalid_move", "moves: a list of USI moves"))?,
        Some(_) => {
            return Err(ApiError::input(
                "invalid_move",
                "moves: USI moves, as one string or a list",
            ));
        }
    };
    for (i, text) in texts.iter().enumerate() {
        let ply = i + 1;
        let m: Move = text.parse().map_err(|e| {
            ApiError::input("invalid_move", format!("moves: move {ply} '{text}': {e}"))
                .with("ply", json!(ply))
        })?;
        pos.play(m).map_err(|kind| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "illegal_move",
                format!(
                    "moves: move {ply} '{text}' is illegal: {} ({kind})",
                    kind.code()
                ),
            )
            .with("kind", json!(kind.code()))
            .with("ply", json!(ply))
            .with("move", json!(text))
        })?;
    }
    Ok(())
}

/// A body read whole: at most `limit` bytes, all of it within `within` (a client that
/// sends slowly is cut off, not waited for).
async fn read_body(
    body: Body,
    limit: usize,
    within: std::time::Duration,
) -> Result<Bytes, ApiError> {
    match tokio::time::timeout(within, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body_timeout",
            format!("the body did not arrive within {} s", within.as_secs()),
        )),
        Ok(Err(e)) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            if too_large {
                Err(too_large_for(limit))
            } else {
                Err(ApiError::input(
                    "invalid_body",
                    format!("the body could not be read: {e}"),
                ))
            }
        }
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// A record file sent as the body (judge, convert): any type, at most [`MAX_UPLOAD`].
async fn upload_body(api: &Shared, body: Body) -> Result<Bytes, ApiError> {
    read_body(body, MAX_UPLOAD, api.options.upload_timeout).await
}

/// A JSON object body. It must say it is JSON (`Content-Type: application/json`): a page of
/// another site cannot send that without asking first (a CORS preflight, which this
/// server never grants). An empty body (`Content-Length: 0`) needs no type.
async fn json_body(api: &Shared, headers: &HeaderMap, body: Body) -> Result<Value, ApiError> {
    let empty = headers
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.as_bytes() == b"0");
    if !empty && !guard::declared_json(headers) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the body as JSON, with Content-Type: application/json",
        ));
    }
    let bytes = read_body(body, MAX_JSON, api.options.body_timeout).await?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(ApiError::input(
            "invalid_json",
            "the body must be a JSON object",
        )),
        Err(e) => Err(ApiError::input("invalid_json", format!("the body: {e}"))),
    }
}

/// 413 `too_large` for an upload.
fn too_large() -> ApiError {
    too_large_for(MAX_UPLOAD)
}

/// 413 `too_large`, with the limit in bytes.
fn too_large_for(limit: usize) -> ApiError {
    let size = if limit >= 1 << 20 {
        format!("{} MiB", limit >> 20)
    } else {
        format!("{} KiB", limit >> 10)
    };
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "too_large",
        format!("the body is larger than {size}"),
    )
    .with("limit", json!(limit))
}

fn str_field<'a>(v: &'a Value, key: &str) -> Result<Option<&'a str>, ApiError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::input(
            "invalid_json",
            format!("{key}: a string was expected"),
        )),
    }
}

/// `POST /api/impasse` with `{"sfen": …, "moves": …, "initial": …, "lenient": …}`: the
/// calculator's report, as `gyoku impasse --json` prints it.
async fn impasse(
    State(api): State<Shared>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body = json_body(&api, &headers, body).await?;
    upload_work(&api, move || {
        let lenient = body
            .get("lenient")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let sfen = str_field(&body, "sfen")?.unwrap_or("startpos");
        let mut pos = read_position(sfen, lenient, "sfen")?;
        play_moves(&mut pos, body.get("moves"))?;
        let initial = str_field(&body, "initial")?
            .map(|text| read_position(text, true, "initial").map(|p| p.to_setup()))
            .transpose()?;
        let report = ImpasseReport::new(&pos, initial.as_ref());
        let mut v = impasse_json(&report);
        v["sfen"] = json!(pos.to_sfen());
        Ok(Json(v))
    })
    .await
}

/// A record format named in a query (`kif`, `ki2`, `csa`, `usi`, `jkf`).
fn format_named(name: &str, what: &str) -> Result<Format, ApiError> {
    Format::named(name).ok_or_else(|| {
        ApiError::input(
            "invalid_format",
            format!(
                "{what}: unknown format '{}' (kif, ki2, csa, usi, jkf)",
                name.to_ascii_lowercase()
            ),
        )
    })
}

/// The records of an uploaded file: any format (sniffed, or `format=`), any encoding.
fn read_upload(bytes: &Bytes, q: &HashMap<String, String>) -> Result<Vec<Record>, ApiError> {
    if bytes.is_empty() {
        return Err(ApiError::input(
            "invalid_record",
            "the body is empty: send a record file",
        ));
    }
    let format = q
        .get("format")
        .map(|f| format_named(f, "format"))
        .transpose()?;
    let records = gyoku_kifu::read_bytes(bytes, format)
        .map_err(|e| ApiError::input("invalid_record", format!("record: {e}")))?;
    if records.is_empty() {
        return Err(ApiError::input("invalid_record", "record: no game in it"));
    }
    Ok(records)
}

/// `POST /api/judge[?rules=csa][&max_moves=N][&format=kif]` with a record file as the
/// body: each game replayed and judged, as `gyoku judge --json` does, with its moves.
async fn judge_record(
    State(api): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let name = q.get("rules").map_or("csa", String::as_str);
    let preset: Preset = name.parse().map_err(|e: gyoku::ParsePresetError| {
        ApiError::input("invalid_rules", format!("rules: {e}"))
    })?;
    let mut rules = preset.rules();
    let user_max = match q.get("max_moves") {
        None => false,
        Some(text) => {
            let n: u32 = text.parse().map_err(|_| {
                ApiError::input(
                    "invalid_max_moves",
                    format!("max_moves: '{text}' is not a number"),
                )
            })?;
            rules.set_max_moves(n);
            true
        }
    };
    let bytes = upload_body(&api, body).await?;
    upload_work(&api, move || {
        let records = read_upload(&bytes, &q)?;
        let total = records.len();
        let judged: Vec<Value> = records
            .iter()
            .take(MAX_RECORDS)
            .map(|r| {
                let j = judge(r, rules_for(r, rules, user_max));
                let mut v = record_json(r, &j);
                v["start_sfen"] = json!(r.start.to_sfen());
                v["moves"] = json!(r.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>());
                v["moves_ki2"] = json!(ki2_moves(&r.start, r.moves.iter().map(|m| m.mv)));
                v["foul"] = r.foul.as_ref().map_or(
                    Value::Null,
                    |f| json!({ "ply": f.ply, "move": f.mv.to_string(), "kind": f.kind.code() }),
                );
                v
            })
            .collect();
        Ok(Json(json!({
            "rules": preset.name(),
            "records": judged,
            "total": total,
            "truncated": total > MAX_RECORDS,
        })))
    })
    .await
}

/// The most a conversion writes, bytes.
pub const MAX_OUTPUT: usize = 32 * 1024 * 1024;

/// About how many bytes `records` make in `format`, from their moves and comments (the
/// bytes a move takes in each format, at the most: JKF's objects are the largest).
fn estimated_output(records: &[Record], format: Format) -> usize {
    let per_move = match format {
        Format::Jkf => 160,
        Format::Kif => 64,
        Format::Ki2 => 32,
        Format::Csa => 24,
        Format::Usi => 8,
    };
    records
        .iter()
        .map(|r| {
            let comments: usize = r
                .moves
                .iter()
                .flat_map(|m| &m.comments)
                .map(|c| c.len() * 2 + 8)
                .sum();
            512 + r.moves.len() * per_move + comments
        })
        .sum()
}

/// `POST /api/convert?to=kif[&format=csa]` with a record file as the body: the game in
/// another format (UTF-8 text; CSA and USI may hold several games).
async fn convert(
    State(api): State<Shared>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<Response, ApiError> {
    let to = q.get("to").ok_or_else(|| {
        ApiError::input(
            "invalid_format",
            "to: which format (kif, ki2, csa, usi, jkf)",
        )
    })?;
    let format = format_named(to, "to")?;
    let bytes = upload_body(&api, body).await?;
    upload_work(&api, move || {
        let records = read_upload(&bytes, &q)?;
        // The work is bounded by what it would write: a conversion whose output would pass
        // MAX_OUTPUT is refused before it is written (a 16 MiB KIF as JKF peaked at 2 GiB).
        let estimate = estimated_output(&records, format);
        if estimate > MAX_OUTPUT {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "output_too_large",
                format!(
                    "the {} would be about {} MiB, over the {} MiB this server writes",
                    format.name(),
                    estimate >> 20,
                    MAX_OUTPUT >> 20
                ),
            )
            .with("limit", json!(MAX_OUTPUT)));
        }
        let text = gyoku_kifu::write_all(&records, format)
            .map_err(|e| ApiError::input("too_many_games", e))?;
        let ext = format.name();
        let mut response = text.into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"game.{ext}\"")) {
            headers.insert(header::CONTENT_DISPOSITION, v);
        }
        Ok(response)
    })
    .await
}
