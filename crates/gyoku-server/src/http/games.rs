//! The games on the server: the list, one game's view, record and chart, and a stream of
//! its changes.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use gyoku_kifu::Format;

use super::HttpOptions;
use super::error::ApiError;
use super::guard;
use super::replay::{Replayed, replay_stored};
use super::state::{Stored, Watchers, with_db, work};
use super::tools::format_named;
use super::view::{GameView, ListedView, detail_of, view_of};
use super::watched::Shown;
use crate::store::GameFilter;

/// The most games one listing returns.
pub const MAX_LISTED: u32 = 1_000;

/// The longest text a listing filters by.
const MAX_FILTER_CHARS: usize = 100;

/// The furthest a listing pages.
const MAX_OFFSET: u32 = 1_000_000;

/// `GET /api/games[?limit=N][&offset=N][&q=TEXT][&status=S]`: the games being played, then
/// the latest, at most `limit` (100 by default, 1,000 at most) after skipping `offset`;
/// only those with `q` in a player's name, the game's name or its Game_ID (any case), and
/// of `status` (`playing`, `suspended` or `finished`), when given. `total` says how many
/// the filter keeps.
pub(super) async fn list_games(
    State(api): State<Arc<Stored>>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let offset = match q.get("offset") {
        None => 0,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= MAX_OFFSET)
            .ok_or_else(|| {
                ApiError::input(
                    "invalid_offset",
                    format!("offset: '{text}' is not a number from 0 to {MAX_OFFSET}"),
                )
            })?,
    };
    let text = q.get("q").cloned().unwrap_or_default();
    if text.chars().count() > MAX_FILTER_CHARS {
        return Err(ApiError::input(
            "invalid_filter",
            format!("q: longer than {MAX_FILTER_CHARS} characters"),
        ));
    }
    let status = match q.get("status").map(String::as_str) {
        None | Some("") => None,
        Some(s @ ("playing" | "suspended" | "finished")) => Some(s.to_string()),
        Some(other) => {
            return Err(ApiError::input(
                "invalid_status",
                format!("status: '{other}' is not playing, suspended or finished"),
            ));
        }
    };
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
    let filter = GameFilter { text, status };
    let (games, total) = with_db(&api, move |db| db.listed_games(&filter, limit, offset)).await?;
    Ok(Json(json!({
        "games": games.iter().map(ListedView::of).collect::<Vec<_>>(),
        "total": total,
        "offset": offset,
        "limit": limit,
    })))
}

/// `GET /api/games/{id}`.
pub(super) async fn game(
    State(api): State<Arc<Stored>>,
    Path(id): Path<String>,
) -> Result<Json<GameView>, ApiError> {
    view_of(&api, &id).await.map(Json)
}

/// `GET /api/games/{id}/record?format=F`: the game's record as a download, in `kif`
/// (Shift_JIS, as `.kif` files are everywhere in Gyoku), `kifu` (KIF in UTF-8), `ki2`,
/// `csa` (a finished game's record exactly as the server stored it), `jkf` or `usi`. A game
/// being played is written as far as it has gone.
pub(super) async fn game_record(
    State(api): State<Arc<Stored>>,
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
pub(super) async fn game_chart(
    State(api): State<Arc<Stored>>,
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
        // The players, as the page titles the game (its Game_ID is for machines).
        let title = format!(
            "{} vs {} — impasse points over {} moves",
            detail.listed.black,
            detail.listed.white,
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

/// One event stream: the views of its game as they come.
pub(super) struct Watch {
    views: broadcast::Receiver<Arc<Shown>>,
    /// The view to send next, when it is already read.
    next: Option<Arc<Shown>>,
    /// The last view sent was of a finished game: the stream ends.
    done: bool,
    /// The id of the last view this watcher was sent (or said it saw, `Last-Event-ID`): a
    /// view of the same stored state is not sent again.
    seen: Option<String>,
    /// A place among all streams and among this address's.
    _permit: (tokio::sync::OwnedSemaphorePermit, guard::AddressSlot),
}

impl Watch {
    /// The next view: the first, then each change's (the latest, if this stream fell
    /// behind); `None` when the server stops.
    async fn next_view(&mut self) -> Option<Arc<Shown>> {
        if let Some(v) = self.next.take() {
            return Some(v);
        }
        loop {
            match self.views.recv().await {
                Ok(shown) => return Some(shown),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// `GET /api/games/{id}/events`: Server-Sent Events, a `game` event with the whole view
/// (as `GET /api/games/{id}`) at once and after each change the server stores, until the
/// game is finished. Each event's `id` names the stored state it shows: a watcher that
/// connects again with `Last-Event-ID` (as a browser's `EventSource` does) is sent the
/// view at once only when the game changed meanwhile, and a finished game it saw end
/// sends nothing more.
pub(super) async fn game_events(
    State(api): State<Arc<Stored>>,
    State(watchers): State<Arc<Watchers>>,
    State(options): State<Arc<HttpOptions>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
) -> Result<Response, ApiError> {
    let seen = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.chars().take(64).collect::<String>());
    let slot = watchers.per_address.take(peer.ip()).ok_or_else(|| {
        crate::metrics::get().refuse("too_many_watchers_from_address");
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_watchers",
            format!(
                "{} event streams are open from your address; close one first",
                watchers.per_address.max()
            ),
        )
    })?;
    let permit = watchers.open.clone().try_acquire_owned().map_err(|_| {
        crate::metrics::get().refuse("too_many_watchers");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_watchers",
            format!(
                "{} event streams are open; try again later",
                options.max_watchers.max(1)
            ),
        )
    })?;
    // Subscribed before the first read: no change falls between the two. The first view
    // is this stream's own (its clock read now); each change's is built once for all.
    let views = api.watching.subscribe(&id);
    let first = view_of(&api, &id).await?.shown();
    let watch = Watch {
        views,
        // A watcher back after seeing the game end is sent nothing.
        done: first.finished && seen.as_deref() == Some(first.id.as_str()),
        next: Some(Arc::new(first)),
        seen,
        _permit: (permit, slot),
    };
    let stream = futures_util::stream::unfold(watch, |mut w| async move {
        if w.done {
            return None;
        }
        let shown = loop {
            let shown = w.next_view().await?;
            if w.seen.as_deref() != Some(shown.id.as_str()) {
                break shown;
            }
        };
        w.done = shown.finished;
        w.seen = Some(shown.id.clone());
        let event = SseEvent::default()
            .event("game")
            .id(shown.id.as_str())
            .data(shown.json.as_str());
        Some((Ok::<_, std::convert::Infallible>(event), w))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}
