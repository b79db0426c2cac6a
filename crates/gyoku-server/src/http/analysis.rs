//! Engine analysis of a finished game: `POST /api/games/{id}/analysis` asks for it,
//! `GET /api/games/{id}/analysis` shows it. The server's analysis engine (`gyoku serve
//! --analysis-engine NAME`, one of its `--engine`s) evaluates each position of the game at
//! a fixed time (`--analysis-ms`), one game at a time on one engine process kept between
//! games; the evaluation, best move and principal variation of each position are stored
//! as they come, so an analysis survives a restart (the jobs not done are taken up again,
//! the positions done kept) and every watcher sees it. The queue is bounded, and one
//! address has one game queued or being analysed at a time.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use gyoku::{Color, Position};
use gyoku_arena::engine::{Engine, Thought};
use gyoku_proto::{BestMove, Command, Go, PositionStart};

use super::analysis_queue::{AnalysisOptions, Analyst};
use super::body::upload_body;
use super::error::ApiError;
use super::replay::replay_stored;
use super::state::{AppState, Stored, upload_work, with_db};
use super::tools::read_upload;
use super::view::detail_of;
use crate::store::{AnalysedLine, AnalysedPly};

/// Games waiting for analysis at once, beyond the one being analysed.
pub const MAX_QUEUED: usize = 32;

/// The most plies an analysis covers.
pub const MAX_PLIES: usize = 2_000;

/// The most moves of a principal variation kept for each position.
pub const PV_MOVES: usize = 8;

/// Starts the analysis queue and its worker.
impl Analyst {
    /// The queue, and its worker started on `stored`'s connections (the jobs a previous
    /// run left queued or running taken up first).
    pub(super) fn start(options: AnalysisOptions, stored: Arc<Stored>) -> Arc<Analyst> {
        let (jobs, queue) = mpsc::channel(MAX_QUEUED);
        let busy = Arc::new(Mutex::new(HashSet::new()));
        let analyst = Arc::new(Analyst {
            options: options.clone(),
            jobs: jobs.clone(),
            busy: Arc::clone(&busy),
        });
        tokio::spawn(worker(options, stored, queue, jobs, busy));
        analyst
    }
}

/// `POST /api/games/{id}/analysis`: asks for a finished game's analysis; 202 with the
/// job (`{"status", "analysis"}`, as `GET` shows it; 200 once done). 404 `no_analysis`
/// on a server without an analysis engine, 409 `not_finished`, 429 `analysis_busy` when
/// this address has a game queued or being analysed, 503 `analysis_queue_full`.
pub(super) async fn request(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let analyst = state.analyst.clone().ok_or_else(no_analysis)?;
    let detail = detail_of(&state.stored, &id).await?;
    if detail.listed.status != "finished" {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "not_finished",
            "a game is analysed once it has ended",
        ));
    }
    let (start, moves) = super::state::work(&state.stored, move || {
        let replayed = replay_stored(&detail)?;
        Ok((
            replayed.game.initial().to_sfen(),
            usi_line(&replayed.played),
        ))
    })
    .await?;
    enqueue(&state, &analyst, (&id, &start, &moves), peer.ip()).await
}

/// `POST /api/judge/analysis?rules=P&index=N` with a record file (as `POST /api/judge`
/// takes it): asks for the analysis of its game `index` (the first by default), kept under
/// `record-` and a digest of its moves; as `POST /api/games/{id}/analysis` answers, with
/// `key` (`GET /api/analyses/{key}` follows it). The same record asked again is the same
/// analysis.
pub(super) async fn request_record(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Query(q): Query<HashMap<String, String>>,
    body: Body,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let analyst = state.analyst.clone().ok_or_else(no_analysis)?;
    let index: usize = match q.get("index") {
        None => 0,
        Some(t) => t.parse().map_err(|_| {
            ApiError::input("invalid_index", format!("index: '{t}' is not a number"))
        })?,
    };
    let bytes = upload_body(&state.options, body).await?;
    let (start, moves) = upload_work(&state.uploads, move || {
        let records = read_upload(&bytes, &q)?;
        let r = records.get(index).ok_or_else(|| {
            ApiError::input(
                "invalid_index",
                format!("index: the file has {} records", records.len()),
            )
        })?;
        let played: Vec<gyoku::Move> = r.moves.iter().map(|m| m.mv).collect();
        Ok((r.start.to_sfen(), usi_line(&played)))
    })
    .await?;
    let key = record_key(&start, &moves);
    let (status, Json(mut v)) =
        enqueue(&state, &analyst, (&key, &start, &moves), peer.ip()).await?;
    v["key"] = json!(key);
    Ok((status, Json(v)))
}

/// A judged record's analysis key: `record-` and 32 hex digits of its start's and moves'
/// digest.
fn record_key(start: &str, moves: &str) -> String {
    let d = crate::tickets::digest(&format!("{start}\n{moves}"));
    format!("record-{}", &crate::tickets::hex(&d)[..32])
}

/// Moves as USI, space-separated.
fn usi_line(moves: &[gyoku::Move]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Queues the analysis of `key` (its start and moves) for `address`, unless it is queued,
/// running or done already; the answer as `GET` shows it.
async fn enqueue(
    state: &AppState,
    analyst: &Arc<Analyst>,
    (key, start, moves): (&str, &str, &str),
    address: IpAddr,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let permit = {
        let mut busy = analyst.busy.lock().unwrap_or_else(PoisonError::into_inner);
        if busy.contains(&address) {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "analysis_busy",
                "a game you asked for is being analysed; ask again when it is done",
            ));
        }
        let permit = analyst.jobs.clone().try_reserve_owned().map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "analysis_queue_full",
                format!("{MAX_QUEUED} games wait for analysis; try again later"),
            )
        })?;
        busy.insert(address);
        permit
    };
    let (name, ms) = (analyst.options.name.clone(), analyst.options.movetime_ms);
    let (k, start, moves) = (key.to_string(), start.to_string(), moves.to_string());
    let asked = with_db(&state.stored, move |db| {
        let line = AnalysedLine {
            start_sfen: &start,
            moves: &moves,
        };
        db.request_analysis(&k, (&name, ms), line, &now_text())
    })
    .await;
    let (job, queued) = match asked {
        Ok(asked) => asked,
        Err(e) => {
            release(&analyst.busy, Some(address));
            return Err(e);
        }
    };
    // Sent once: a job another request queued is on its way already.
    if queued {
        permit.send((key.to_string(), Some(address)));
    } else {
        release(&analyst.busy, Some(address));
    }
    let (status, v) = shown(&state.stored, key).await?;
    Ok((
        if job.status == "done" {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        },
        Json(json!({ "status": status, "analysis": v })),
    ))
}

/// `GET /api/games/{id}/analysis` and `GET /api/analyses/{key}` (a judged record's, or a
/// game's by its id): `{"status", "analysis"}`, `status` `none` (never asked
/// for), `queued`, `running`, `done` or `failed`; `analysis` `{"engine", "movetime_ms",
/// "requested_at", "error", "positions": [{"ply", "score", "best", "pv"}]}` (null for
/// `none`): each position after `ply` plies (0: the start), its evaluation from Black's
/// side in centipawns (a mate ±30000), the engine's best move there and its line.
pub(super) async fn show(
    State(stored): State<Arc<Stored>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let (status, v) = shown(&stored, &id).await?;
    Ok(Json(json!({ "status": status, "analysis": v })))
}

async fn shown(stored: &Stored, id: &str) -> Result<(String, Value), ApiError> {
    let key = id.to_string();
    let Some((job, plies)) = with_db(stored, move |db| db.analysis(&key)).await? else {
        return Ok(("none".into(), Value::Null));
    };
    Ok((
        job.status.clone(),
        json!({
            "engine": job.engine,
            "movetime_ms": job.movetime_ms,
            "requested_at": job.requested_at,
            "error": job.error,
            "positions": plies.iter().map(|p| json!({
                "ply": p.ply,
                "score": p.score,
                "best": p.best,
                "pv": p.pv,
            })).collect::<Vec<_>>(),
        }),
    ))
}

/// Now, as stored (`YYYY/MM/DD HH:MM:SS`, local time).
fn now_text() -> String {
    chrono::Local::now().format("%Y/%m/%d %H:%M:%S").to_string()
}

fn no_analysis() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no_analysis",
        "this server has no analysis engine (gyoku serve --analysis-engine)",
    )
}

fn release(busy: &Mutex<HashSet<IpAddr>>, address: Option<IpAddr>) {
    if let Some(a) = address {
        busy.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&a);
    }
}

/// The worker: the jobs a previous run left first, then each game sent, one at a time,
/// on one engine process kept from game to game (started again after a failure).
async fn worker(
    options: AnalysisOptions,
    stored: Arc<Stored>,
    mut queue: mpsc::Receiver<(String, Option<IpAddr>)>,
    jobs: mpsc::Sender<(String, Option<IpAddr>)>,
    busy: Arc<Mutex<HashSet<IpAddr>>>,
) {
    if let Ok(left) = with_db(&stored, |db| db.pending_analyses(MAX_QUEUED as u32)).await {
        for id in left {
            if jobs.try_send((id, None)).is_err() {
                break;
            }
        }
    }
    drop(jobs);
    let mut engine: Option<Engine> = None;
    while let Some((id, address)) = queue.recv().await {
        let done = analyse(&options, &stored, &mut engine, &id).await;
        let (status, error) = match &done {
            Ok(()) => ("done", None),
            Err(e) => {
                tracing::warn!("the analysis of {id} failed: {e}");
                ("failed", Some(e.clone()))
            }
        };
        if done.is_err()
            && let Some(e) = engine.take()
        {
            e.kill().await;
        }
        let key = id.clone();
        let kept = with_db(&stored, move |db| {
            db.set_analysis_status(&key, status, error.as_deref())
        })
        .await;
        if let Err(e) = kept {
            tracing::warn!("the analysis of {id} was not marked {status}: {e:?}");
        }
        release(&busy, address);
    }
    if let Some(e) = engine.take() {
        e.quit().await;
    }
}

/// Analyses one game: each position not yet stored, kept as it comes.
async fn analyse(
    options: &AnalysisOptions,
    stored: &Arc<Stored>,
    engine: &mut Option<Engine>,
    id: &str,
) -> Result<(), String> {
    let key = id.to_string();
    with_db(stored, move |db| {
        db.set_analysis_status(&key, "running", None)
    })
    .await
    .map_err(|e| format!("{e:?}"))?;
    let key = id.to_string();
    let (job, plies) = with_db(stored, move |db| db.analysis(&key))
        .await
        .map_err(|e| format!("{e:?}"))?
        .ok_or("the job is not stored")?;
    let done: HashSet<u32> = plies.iter().map(|p| p.ply).collect();
    let start = Position::from_sfen(&job.start_sfen).map_err(|e| format!("the start: {e}"))?;
    let moves = job
        .moves
        .split_whitespace()
        .take(MAX_PLIES)
        .map(gyoku::Move::from_usi)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("a move: {e}"))?;
    if engine.is_none() {
        *engine = Some(
            Engine::start(&options.engine, &[])
                .await
                .map_err(|e| format!("the analysis engine did not start: {e}"))?,
        );
    }
    let e = engine.as_mut().ok_or("no engine")?;
    e.new_game().await.map_err(|e| e.to_string())?;
    let go = Go {
        movetime: Some(options.movetime_ms),
        ..Go::default()
    };
    let mut pos = start.clone();
    for ply in 0..=moves.len() {
        let n = u32::try_from(ply).unwrap_or(u32::MAX);
        if !done.contains(&n) {
            let position = Command::Position {
                start: PositionStart::Sfen(start.to_sfen()),
                moves: moves[..ply].to_vec(),
            };
            let deadline = tokio::time::Instant::now()
                + Duration::from_millis(options.movetime_ms)
                + Duration::from_secs(10);
            let thought = e
                .think(&position, &go, deadline)
                .await
                .map_err(|e| e.to_string())?;
            let Thought::Answer { best, .. } = thought else {
                return Err(format!("no answer at ply {ply}"));
            };
            let reading = e.reading();
            let from_black = |s: i64| if pos.turn() == Color::White { -s } else { s };
            let analysed = AnalysedPly {
                ply: n,
                score: reading.score.map(from_black),
                best: match best {
                    BestMove::Move(m) => Some(m.to_string()),
                    _ => None,
                },
                pv: reading
                    .pv
                    .iter()
                    .take(PV_MOVES)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            let key = id.to_string();
            with_db(stored, move |db| db.keep_analysed_ply(&key, &analysed))
                .await
                .map_err(|e| format!("{e:?}"))?;
        }
        if let Some(m) = moves.get(ply) {
            pos.play_unchecked(*m);
        }
    }
    Ok(())
}
