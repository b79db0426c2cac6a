//! The server's rating lists: its clients' and engines' finished games rated as Floodgate
//! rates its own ([`gyoku_league::ratings::floodgate`], `mk_rate`'s rules), by rating id;
//! and the games between the web page's accounts rated with Glicko-2, game by game
//! ([`people`]).

use std::collections::BTreeMap;

use gyoku_league::ratings::floodgate::{self, GameLine, UNRATED_GROUP};
use gyoku_league::ratings::glicko2::{Glicko2, Score};

use crate::identity::PlayerKind;
use crate::lobby::Ratings;
use crate::store::{DbUrl, FinishedGame};

/// The most rated games a person's history keeps (the latest).
pub const MAX_PERSON_HISTORY: usize = 1_000;

/// One rated game in a person's history, from their side.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// The Game_ID.
    pub game: String,
    /// When it ended (`YYYY/MM/DD HH:MM:SS`).
    pub at: String,
    /// The other account.
    pub opponent: String,
    /// The result from this person's side.
    pub score: Score,
    /// The rating after it.
    pub after: Glicko2,
}

/// A web account's Glicko-2 rating and its history.
#[derive(Clone, Debug, PartialEq)]
pub struct PersonRating {
    /// The account.
    pub name: String,
    /// The rating now.
    pub rating: Glicko2,
    /// Rated games won, drawn and lost.
    pub win: u32,
    /// See `win`.
    pub draw: u32,
    /// See `win`.
    pub loss: u32,
    /// Its rated games, oldest first (the latest [`MAX_PERSON_HISTORY`]).
    pub history: Vec<RatedGame>,
}

/// The web accounts' ratings from the finished games (in the order they ended): each game
/// between two accounts (both sides people on the page, logged in) with a result rates
/// both, from their ratings before it ([`Glicko2::after`], one game a period). A game
/// against oneself, an engine's or a guest's is not rated. Highest rating first.
pub fn people(games: &[FinishedGame]) -> Vec<PersonRating> {
    let mut by_name: BTreeMap<String, PersonRating> = BTreeMap::new();
    for g in games {
        let ([PlayerKind::Web, PlayerKind::Web], [Some(black), Some(white)]) =
            (g.kinds, &g.rating_ids)
        else {
            continue;
        };
        let score = match g.result.as_deref() {
            Some("black") => Score::Win,
            Some("white") => Score::Loss,
            Some("draw") => Score::Draw,
            _ => continue,
        };
        if black == white {
            continue;
        }
        let before = |name: &String, map: &BTreeMap<String, PersonRating>| {
            map.get(name).map_or(Glicko2::NEW, |p| p.rating)
        };
        let (b, w) = (before(black, &by_name), before(white, &by_name));
        let at = g.ended_at.clone().unwrap_or_default();
        for (me, other, mine, theirs, s) in [
            (black, white, b, w, score),
            (white, black, w, b, score.other_side()),
        ] {
            let after = mine.after(&[(theirs, s)]);
            let p = by_name.entry(me.clone()).or_insert_with(|| PersonRating {
                name: me.clone(),
                rating: Glicko2::NEW,
                win: 0,
                draw: 0,
                loss: 0,
                history: Vec::new(),
            });
            p.rating = after;
            match s {
                Score::Win => p.win += 1,
                Score::Draw => p.draw += 1,
                Score::Loss => p.loss += 1,
            }
            if p.history.len() >= 2 * MAX_PERSON_HISTORY {
                p.history.drain(..MAX_PERSON_HISTORY);
            }
            p.history.push(RatedGame {
                game: g.id.clone(),
                at: at.clone(),
                opponent: other.clone(),
                score: s,
                after,
            });
        }
    }
    let mut list: Vec<PersonRating> = by_name.into_values().collect();
    for p in &mut list {
        let extra = p.history.len().saturating_sub(MAX_PERSON_HISTORY);
        p.history.drain(..extra);
    }
    list.sort_by(|a, b| {
        b.rating
            .rating
            .total_cmp(&a.rating.rating)
            .then_with(|| a.name.cmp(&b.name))
    });
    list
}

/// The most finished games read for the list.
const MAX_GAMES: u32 = 5_000_000;

/// Floodgate's lines for the games both of whose players have a rating id (logged in
/// with a password), as `mk_game_results` would write them from the records.
pub fn game_lines(games: &[FinishedGame]) -> Vec<GameLine> {
    games
        .iter()
        // The page's accounts are rated apart ([`people`]).
        .filter(|g| !g.kinds.contains(&PlayerKind::Web))
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

/// The lists made from the stored games: Floodgate's rated players' rates (by rating id)
/// with its whole list (rated or not), or why its method failed; and the web accounts'
/// Glicko-2 ratings, made either way.
#[derive(Debug)]
pub struct Lists {
    /// Floodgate's rates by rating id (for the lobby's pairing) and its list.
    pub floodgate: Result<(Ratings, Vec<floodgate::Player>), String>,
    /// The web accounts' ratings ([`people`]).
    pub people: Vec<PersonRating>,
}

/// The lists, from the games stored at `db`, now.
///
/// # Errors
/// Storage's.
pub fn from_store(db: &DbUrl) -> Result<Lists, String> {
    let mut store = crate::store::open(db).map_err(|e| e.to_string())?;
    let games = store.finished_games(MAX_GAMES).map_err(|e| e.to_string())?;
    drop(store);
    Ok(Lists {
        people: people(&games),
        floodgate: floodgate_list(&games),
    })
}

/// Floodgate's list of `games`, by its method, now.
fn floodgate_list(games: &[FinishedGame]) -> Result<(Ratings, Vec<floodgate::Player>), String> {
    let lines = game_lines(games);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn game(
        id: &str,
        kinds: [PlayerKind; 2],
        ids: [Option<&str>; 2],
        result: &str,
    ) -> FinishedGame {
        FinishedGame {
            id: id.into(),
            black: ids[0].unwrap_or("guest").into(),
            white: ids[1].unwrap_or("guest").into(),
            rating_ids: ids.map(|i| i.map(String::from)),
            result: Some(result.into()).filter(|r: &String| !r.is_empty()),
            reason: "resignation".into(),
            ended_at: Some(format!("2026/11/28 12:00:0{}", id.len() % 10)),
            moves: 10,
            kinds,
        }
    }

    /// Only games between two accounts with a result are rated, each from both players'
    /// ratings before it; engines, guests, CSA clients, a game against oneself and a no
    /// contest are not. The second game starts from the first's ratings.
    #[test]
    fn only_games_between_accounts_are_rated_in_order() {
        use PlayerKind::{Csa, Engine, Web};
        let games = [
            game("g1", [Web, Web], [Some("ann"), Some("ben")], "black"),
            game("g2", [Web, Engine], [Some("ann"), Some("fsf")], "white"),
            game("g3", [Web, Web], [Some("ann"), None], "white"),
            game("g4", [Web, Web], [Some("ann"), Some("ann")], "black"),
            game("g5", [Web, Web], [Some("ben"), Some("ann")], ""),
            game("g6", [Csa, Csa], [Some("ann+1"), Some("ben+2")], "black"),
            game("g7", [Web, Web], [Some("ben"), Some("ann")], "draw"),
        ];
        let list = people(&games);
        assert_eq!(
            list.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["ann", "ben"]
        );
        let (ann, ben) = (&list[0], &list[1]);
        assert_eq!((ann.win, ann.draw, ann.loss), (1, 1, 0));
        assert_eq!((ben.win, ben.draw, ben.loss), (0, 1, 1));
        let a1 = Glicko2::NEW.after(&[(Glicko2::NEW, Score::Win)]);
        let b1 = Glicko2::NEW.after(&[(Glicko2::NEW, Score::Loss)]);
        assert_eq!(ann.history[0].after, a1);
        assert_eq!(ann.rating, a1.after(&[(b1, Score::Draw)]));
        assert_eq!(ben.rating, b1.after(&[(a1, Score::Draw)]));
        assert_eq!(
            ben.history
                .iter()
                .map(|g| g.game.as_str())
                .collect::<Vec<_>>(),
            ["g1", "g7"]
        );
        assert_eq!(ben.history[1].opponent, "ann");
        // Floodgate's lines leave the page's players out.
        assert_eq!(game_lines(&games).len(), 1);
    }
}
