//! The server's rating list: its finished games rated as Floodgate rates its own
//! ([`gyoku_league::ratings::floodgate`], `mk_rate`'s rules), by rating id.

use gyoku_league::ratings::floodgate::{self, GameLine, UNRATED_GROUP};

use crate::lobby::Ratings;
use crate::store::{DbUrl, FinishedGame};

/// The most finished games read for the list.
const MAX_GAMES: u32 = 5_000_000;

/// Floodgate's lines for the games both of whose players have a rating id (logged in
/// with a password), as `mk_game_results` would write them from the records.
pub fn game_lines(games: &[FinishedGame]) -> Vec<GameLine> {
    games
        .iter()
        .filter_map(|g| {
            let [Some(black), Some(white)] = &g.rating_ids else {
                return None;
            };
            let (bm, wm) = match g.result.as_deref()? {
                "black" => ("win", "lose"),
                "white" => ("lose", "win"),
                "draw" => ("draw", "draw"),
                _ => return None,
            };
            Some(GameLine {
                time: floodgate::parse_time(g.ended_at.as_deref()?)?,
                state: if g.reason == "abnormal" {
                    "abnormal".into()
                } else {
                    g.reason.clone()
                },
                black_mark: bm.into(),
                black_id: black.clone(),
                white_id: white.clone(),
                white_mark: wm.into(),
                file: g.id.clone(),
                plies: Some(g.moves),
            })
        })
        .collect()
}

/// The rated players' rates (by rating id), and the whole list (rated or not), from the
/// games stored at `db`, now.
///
/// # Errors
/// Storage's, or the method's (a group with no ratings).
pub fn from_store(db: &DbUrl) -> Result<(Ratings, Vec<floodgate::Player>), String> {
    let mut store = crate::store::open(db).map_err(|e| e.to_string())?;
    let games = store.finished_games(MAX_GAMES).map_err(|e| e.to_string())?;
    drop(store);
    let lines = game_lines(&games);
    let now = chrono::Local::now().naive_local();
    let base = floodgate::parse_time(&now.format("%Y-%m-%d %H:%M:%S").to_string()).unwrap_or(0);
    let mut list =
        floodgate::rate(&lines, &floodgate::Options::at(base)).map_err(|e| e.to_string())?;
    list.sort_by(|a, b| {
        a.group
            .cmp(&b.group)
            .then(b.rate.cmp(&a.rate))
            .then(a.id.cmp(&b.id))
    });
    let rated = list
        .iter()
        .filter(|p| p.group != UNRATED_GROUP)
        .map(|p| (p.id.clone(), p.rate))
        .collect();
    Ok((rated, list))
}

/// Keeps the rated players' rates as computed at `at` (`YYYY/MM/DD HH:MM:SS`): a player's
/// rating over time (`GET /api/players/{name}`).
///
/// # Errors
/// Storage's.
pub fn keep(db: &DbUrl, at: &str, rated: &Ratings) -> Result<(), String> {
    let mut rates: Vec<(String, i64)> = rated.iter().map(|(id, r)| (id.clone(), *r)).collect();
    rates.sort();
    let mut store = crate::store::open(db).map_err(|e| e.to_string())?;
    store.keep_ratings(at, &rates).map_err(|e| e.to_string())
}
