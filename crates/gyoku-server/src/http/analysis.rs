//! Engine analysis of a finished game: `POST /api/games/{id}/analysis` asks for it,
//! `GET /api/games/{id}/analysis` shows it. The server's analysis engine (`gyoku serve
//! --analysis-engine NAME`, one of its `--engine`s) evaluates each position of the game at
//! a fixed time (`--analysis-ms`), one game at a time on one engine process kept between
//! games; the evaluation, best move and principal variation of each position are stored
//! as they come, so an analysis survives a restart (the jobs not done are taken up again,
//! the positions done kept) and every watcher sees it. The queue is bounded, and one
//! address has one game queued or being analysed at a time.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Json;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use gyoku::Color;
use gyoku_arena::engine::{Engine, Thought};
use gyoku_proto::{BestMove, Command, Go, PositionStart};

use super::analysis_queue::{AnalysisOptions, Analyst};
use super::error::ApiError;
use super::replay::replay_stored;
use super::state::{AppState, Stored, with_db};
use super::view::detail_of;
use crate::store::AnalysedPly;

/// Games waiting for analysis at once, beyond the one being analysed.
pub const MAX_QUEUED: usize = 32;

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
        tokio::spawn(work(options, stored, queue, jobs, busy));
        analyst
    }
}

/// `POST /api/games/{id}/analysis`: asks for a finished game's analysis; 202 with the
/// job (`{"status", "engine", "movetime_ms", …}`, as `GET` shows it). 404 `no_analysis`
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
    let address = peer.ip();
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
    let key = id.clone();
    let asked = with_db(&state.stored, move |db| {
        db.request_analysis(&key, (&name, ms), &now_text())
    })
    .await;
    let job = match asked {
        Ok(job) => job,
        Err(e) => {
            release(&analyst.busy, Some(address));
            return Err(e);
        }
    };
    if job.status == "queued" {
        permit.send((id.clone(), Some(address)));
    } else {
        release(&analyst.busy, Some(address));
    }
    let (status, v) = shown(&state.stored, &id).await?;
    Ok((
        if job.status == "done" {
            StatusCode::OK
        } else {
            StatusCode::ACCEPTED
        },
        Json(json!({ "status": status, "analysis": v })),
    ))
}

/// `GET /api/games/{id}/analysis`: `{"status", "analysis"}`, `status` `none` (never asked
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
async fn work(
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
    let detail = detail_of(stored, id).await.map_err(|e| format!("{e:?}"))?;
    let replayed = replay_stored(&detail).map_err(|e| format!("{e:?}"))?;
    let start = replayed.game.initial().clone();
    let moves = replayed.played.clone();
    let key = id.to_string();
    let done: HashSet<u32> = with_db(stored, move |db| db.analysis(&key))
        .await
        .map_err(|e| format!("{e:?}"))?
        .map(|(_, plies)| plies.iter().map(|p| p.ply).collect())
        .unwrap_or_default();
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
