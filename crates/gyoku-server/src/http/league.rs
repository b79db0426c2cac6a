//! The league: `GET /api/ratings` (the rating list, as last computed from the stored games),
//! `GET /api/rounds` (the scheduled games: next round, who waits) and `GET
//! /api/players/{name}` (a player's rating over time, results and games).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use gyoku_league::ratings::floodgate::{UNRATED_GROUP, format_time};

use super::error::ApiError;
use super::state::{Stored, with_db};
use super::view::ListedView;
use crate::league::League;

/// `GET /api/ratings`: `{"computed_at", "players": [{"id", "name", "rate", "group",
/// "rated", "win", "loss", "last_game"}]}`, each group highest first, then those not rated;
/// `computed_at` null (and no players) until the first list is made.
pub(super) async fn ratings(State(league): State<Arc<League>>) -> Json<Value> {
    let Some((at, players)) = league.ratings() else {
        return Json(json!({"computed_at": null, "players": []}));
    };
    Json(json!({
        "computed_at": at,
        "players": players.iter().map(|p| json!({
            "id": p.id,
            "name": p.name,
            "rate": p.rate,
            "group": p.group,
            "rated": p.group != UNRATED_GROUP,
            "win": p.win,
            "loss": p.loss,
            "last_game": format_time(p.last_modified).replace('-', "/"),
        })).collect::<Vec<_>>(),
    }))
}

/// `GET /api/rounds`: `{"rounds": [{"game", "next", "rounds", "waiting"}]}`.
pub(super) async fn rounds(State(league): State<Arc<League>>) -> Json<Value> {
    let scheduled = league.scheduled();
    Json(json!({
        "rounds": scheduled.iter().map(|s| json!({
            "game": s.game,
            "next": s.next,
            "rounds": s.rounds,
            "waiting": s.waiting,
        })).collect::<Vec<_>>(),
    }))
}

/// The most games a player's page lists.
pub const MAX_PLAYER_GAMES: u32 = 100;

/// The most points of a player's rating history.
pub const MAX_HISTORY: u32 = 10_000;

/// `GET /api/players/{name}`: `{"name", "rating", "history", "results", "by_reason",
/// "games"}` — the player's line of the rating list (`id`, `rate`, `rated`, `win`, `loss`;
/// null when not listed), its rate each time the list changed (`[{"at", "rate"}]`, oldest
/// first), its finished games counted (`win`, `loss`, `draw`, `no_contest`) and by outcome
/// and reason (`[{"outcome", "reason", "games"}]`), and its latest games (as `GET
/// /api/games` lists them, at most [`MAX_PLAYER_GAMES`]).
pub(super) async fn player(
    State(league): State<Arc<League>>,
    State(api): State<Arc<Stored>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    if name.is_empty() || name.len() > 256 {
        return Err(ApiError::input(
            "bad_name",
            "a player's name has 1 to 256 bytes",
        ));
    }
    let listed = league
        .ratings()
        .and_then(|(_, players)| players.iter().find(|p| p.name == name).cloned());
    let id = listed.as_ref().map(|p| p.id.clone());
    let who = name.clone();
    let (games, results, history) = with_db(&api, move |db| {
        let games = db.player_games(&who, MAX_PLAYER_GAMES)?;
        let results = db.player_results(&who)?;
        let history = match &id {
            Some(id) => db.rating_history(id, MAX_HISTORY)?,
            None => Vec::new(),
        };
        Ok((games, results, history))
    })
    .await?;
    let mut counted = serde_json::Map::new();
    for key in ["win", "loss", "draw", "no_contest"] {
        let n: u64 = results.iter().filter(|r| r.0 == key).map(|r| r.2).sum();
        counted.insert(key.into(), json!(n));
    }
    Ok(Json(json!({
        "name": name,
        "rating": listed.map(|p| json!({
            "id": p.id,
            "rate": p.rate,
            "rated": p.group != UNRATED_GROUP,
            "win": p.win,
            "loss": p.loss,
        })),
        "history": history.iter().map(|(at, rate)| json!({"at": at, "rate": rate})).collect::<Vec<_>>(),
        "results": counted,
        "by_reason": results.iter().map(|(o, r, n)| json!({"outcome": o, "reason": r, "games": n})).collect::<Vec<_>>(),
        "games": games.iter().map(ListedView::of).collect::<Vec<_>>(),
    })))
}
