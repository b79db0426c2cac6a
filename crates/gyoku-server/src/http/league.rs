//! The league: `GET /api/ratings` (the rating list, as last computed from the stored games)
//! and `GET /api/rounds` (the scheduled games: next round, who waits).

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use gyoku_arena::ratings::floodgate::{UNRATED_GROUP, format_time};

use super::state::Shared;

/// `GET /api/ratings`: `{"computed_at", "players": [{"id", "name", "rate", "group",
/// "rated", "win", "loss", "last_game"}]}`, each group highest first, then those not rated;
/// `computed_at` null (and no players) until the first list is made.
pub(super) async fn ratings(State(api): State<Shared>) -> Json<Value> {
    let Some((at, players)) = api.league.ratings() else {
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
pub(super) async fn rounds(State(api): State<Shared>) -> Json<Value> {
    let scheduled = api.league.scheduled();
    Json(json!({
        "rounds": scheduled.iter().map(|s| json!({
            "game": s.game,
            "next": s.next,
            "rounds": s.rounds,
            "waiting": s.waiting,
        })).collect::<Vec<_>>(),
    }))
}
