//! An event as the web page and the API show it: its rounds and boards, the standings with
//! their tie-breaks and the crosstable (the tournaments module's, from the counted
//! results), and every adjustment with its reason.

use serde_json::{Value, json};

use gyoku_league::schedule::Format;
use gyoku_league::schedule::Plan;
use gyoku_league::standings::{Standings, TournamentGame};

use super::file::EventFormat;
use super::state::{BoardResult, Event};

/// The standings from the counted results (adjustments included; a board neither player
/// came to is no game; a bye in a Swiss event is a point).
pub fn standings(event: &Event) -> Standings {
    let plan = Plan {
        format: match event.file.format {
            EventFormat::Swiss => Format::Swiss,
            EventFormat::RoundRobin => Format::RoundRobin,
        },
        engines: event.file.participants.len(),
        rounds: event.file.rounds,
        games_per_encounter: 1,
    };
    let mut games = Vec::new();
    for (r, round) in event.rounds.iter().enumerate() {
        for b in &round.boards {
            let result = match b.counted() {
                None | Some(BoardResult::BothAbsent) => continue,
                Some(x) => x,
            };
            let reason = if b.adjustments.is_empty() {
                b.reason.clone()
            } else {
                "adjusted".to_string()
            };
            games.push(TournamentGame {
                number: games.len() as u32 + 1,
                round: r as u32 + 1,
                players: [b.black, b.white],
                result: result.name().to_string(),
                reason,
                plies: 0,
            });
        }
    }
    let byes: Vec<usize> = match event.file.format {
        EventFormat::Swiss => event.rounds.iter().filter_map(|r| r.bye).collect(),
        EventFormat::RoundRobin => Vec::new(),
    };
    Standings::with_byes(&plan, &games, &byes)
}

/// `waiting` (no round yet), `playing`, `paused` or `finished`.
pub fn status(event: &Event) -> &'static str {
    if event.finished() {
        "finished"
    } else if event.paused {
        "paused"
    } else if event.rounds.is_empty() {
        "waiting"
    } else {
        "playing"
    }
}

/// The event as JSON: `name`, `game`, `format`, `rounds` (planned), `round` (under way),
/// `status`, `ended` (the operator's reason), `participants`, `pairings` (each round's
/// `boards` — `board`, `black`, `white`, `result`, `reason`, `game_id`, `playing`,
/// `adjustments` — and `bye`), `standings` (`rank`, `name`, `points`, `games`, `wins`,
/// `draws`, `losses`, `buchholz`, `sonneborn_berger`, `bye_points`) and `crosstable`
/// (`[i][j]`: `points`, `games`). `playing` gives the Game_ID of each board under way in
/// the current round.
pub fn to_json(event: &Event, playing: &[(u32, String)]) -> Value {
    let names = &event.file.participants;
    let s = standings(event);
    let last = event.rounds.len();
    let pairings: Vec<Value> = event
        .rounds
        .iter()
        .enumerate()
        .map(|(r, round)| {
            let boards: Vec<Value> = round
                .boards
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    let board = k as u32 + 1;
                    let live = (r + 1 == last)
                        .then(|| playing.iter().find(|(n, _)| *n == board))
                        .flatten()
                        .map(|(_, id)| id.clone());
                    json!({
                        "board": board,
                        "black": names[b.black],
                        "white": names[b.white],
                        "result": b.counted().map(BoardResult::name),
                        "reason": if b.result.is_some() { json!(b.reason) } else { json!(null) },
                        "game_id": b.game_id.clone().or(live.clone()),
                        "playing": live.is_some(),
                        "adjustments": b.adjustments.iter().map(|(res, why)| json!({
                            "result": res.name(),
                            "reason": why,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "round": r + 1,
                "boards": boards,
                "bye": round.bye.map(|s| names[s].clone()),
                "paired_at": round.paired_at,
            })
        })
        .collect();
    json!({
        "name": event.file.name,
        "game": event.file.game,
        "format": event.file.format.name(),
        "rounds": event.file.rounds,
        "round": event.round(),
        "status": status(event),
        "ended": event.ended,
        "forfeit_after": event.file.forfeit_after,
        "participants": names,
        "pairings": pairings,
        "standings": s.lines.iter().enumerate().map(|(rank, l)| json!({
            "rank": rank + 1,
            "name": names[l.engine],
            "points": l.points,
            "games": l.games,
            "wins": l.wdl[0],
            "draws": l.wdl[1],
            "losses": l.wdl[2],
            "buchholz": l.buchholz,
            "sonneborn_berger": l.sonneborn_berger,
            "bye_points": l.bye_points,
        })).collect::<Vec<_>>(),
        "crosstable": s.crosstable.iter().map(|row| row.iter().map(|&(hp, g)| json!({
            "points": f64::from(hp) / 2.0,
            "games": g,
        })).collect::<Vec<_>>()).collect::<Vec<_>>(),
    })
}
