//! The league: `GET /api/ratings` (the rating list, as last computed from the stored games),
//! `GET /api/rounds` (the scheduled games: next round, who waits) and `GET
//! /api/players/{name}` (a player's rating over time, results and games).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use gyoku_league::ratings::floodgate::{UNRATED_GROUP, format_time};
use gyoku_league::ratings::glicko2::Score;

use super::error::ApiError;
use super::state::{Stored, with_db};
use super::view::ListedView;
use crate::league::League;
use crate::ratings::PersonRating;

/// A web account's Glicko-2 rating as the API gives it (rounded as people read it).
fn glicko_json(p: &PersonRating) -> Value {
    json!({
        "name": p.name,
        "rating": round(p.rating.rating, 2),
        "deviation": round(p.rating.deviation, 2),
        "volatility": round(p.rating.volatility, 6),
        "games": p.win + p.draw + p.loss,
        "win": p.win,
        "draw": p.draw,
        "loss": p.loss,
        "last_game": p.history.last().map(|g| g.at.clone()),
    })
}

fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

/// `GET /api/ratings`: `{"computed_at", "players": [{"id", "name", "rate", "group",
/// "rated", "win", "loss", "last_game"}], "people": [{"name", "rating", "deviation",
/// "volatility", "games", "win", "draw", "loss", "last_game"}]}`: Floodgate's list of the
/// CSA port's players, each group highest first, then those not rated (`computed_at` null
/// and no players until the first list is made); and the web page's accounts rated with
/// Glicko-2, highest first.
pub(super) async fn ratings(State(league): State<Arc<League>>) -> Json<Value> {
    let people: Vec<Value> = league.people().iter().map(glicko_json).collect();
    let Some((at, players)) = league.ratings() else {
        return Json(json!({"computed_at": null, "players": [], "people": people}));
    };
    Json(json!({
        "people": people,
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

/// `GET /api/rounds`: `{"rounds": [{"game", "next", "rounds", "paired_at", "waiting",
/// "playing", "away"}]}`: each scheduled game's next round, the rounds played since the
/// start and when the latest was paired, who waits, who plays one of its games and who
/// lost the connection to one within the grace.
pub(super) async fn rounds(State(league): State<Arc<League>>) -> Json<Value> {
    let scheduled = league.scheduled();
    Json(json!({
        "rounds": scheduled.iter().map(|s| json!({
            "game": s.game,
            "next": s.next,
            "rounds": s.rounds,
            "paired_at": s.paired_at,
            "waiting": s.waiting,
            "playing": s.playing,
            "away": s.away,
        })).collect::<Vec<_>>(),
    }))
}

/// The most games a player's page lists.
pub const MAX_PLAYER_GAMES: u32 = 100;

/// The most points of a player's rating history.
pub const MAX_HISTORY: u32 = 10_000;

/// `GET /api/players/{name}`: `{"name", "rating", "history", "results", "by_reason",
/// "games", "glicko"}` — the player's line of the rating list (`id`, `rate`, `rated`,
/// `win`, `loss`; null when not listed), its rate each time the list changed (`[{"at",
/// "rate"}]`, oldest first), its finished games counted (`win`, `loss`, `draw`,
/// `no_contest`) and by outcome and reason (`[{"outcome", "reason", "games"}]`), its
/// latest games (as `GET /api/games` lists them, at most [`MAX_PLAYER_GAMES`]); and for a
/// web account with rated games, `glicko`: its Glicko-2 rating (as in `GET /api/ratings`)
/// with `history`, each rated game oldest first (`{"game", "at", "opponent", "result"
/// (`win`, `draw`, `loss`, from the account's side), "rating", "deviation"}`).
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
    let glicko = league.people().iter().find(|p| p.name == name).map(|p| {
        let mut v = glicko_json(p);
        v["history"] = p
            .history
            .iter()
            .map(|g| {
                json!({
                    "game": g.game,
                    "at": g.at,
                    "opponent": g.opponent,
                    "result": match g.score {
                        Score::Win => "win",
                        Score::Draw => "draw",
                        Score::Loss => "loss",
                    },
                    "rating": round(g.after.rating, 2),
                    "deviation": round(g.after.deviation, 2),
                })
            })
            .collect();
        v
    });
    Ok(Json(json!({
        "glicko": glicko,
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
