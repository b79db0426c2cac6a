//! A stored game played again, to show it: an ended one from its record, judged as `gyoku
//! judge` would; one being played from its moves, and played on as moves are stored
//! ([`Replayed::append`], for the games kept replayed, [`super::kept`]). Each move as the
//! API shows it ([`MoveView`]).

use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use gyoku::{Game, Move, Position};
use gyoku_kifu::Format;
use gyoku_kifu::report::{judge_json, judge_record, record_json};

use crate::lobby::GameSpec;
use crate::store::GameDetail;

use super::error::ApiError;

/// A move as the API shows it: USI, CSA, KI2 (`▲７六歩`, `△同　銀`) and Western
/// notation (`P-7f`, `Bx2b+`), its time, its comment and the evaluation an engine's
/// comment gives.
#[derive(Clone, Debug, Serialize)]
pub(super) struct MoveView {
    ply: usize,
    usi: String,
    csa: String,
    ki2: String,
    western: String,
    /// Seconds it took (none where the record says nothing).
    pub(super) seconds: Option<u64>,
    comment: Option<String>,
    /// Centipawns from Black's side, from an engine's Floodgate comment.
    eval: Option<i64>,
}

impl MoveView {
    /// `m` played from `pos` at `ply`, `before` the move before it (for KI2's 同).
    pub(super) fn of(
        ply: usize,
        pos: &Position,
        m: Move,
        before: Option<Move>,
        seconds: Option<u64>,
        comment: Option<&str>,
    ) -> MoveView {
        MoveView {
            ply,
            usi: m.to_string(),
            csa: gyoku_kifu::csa::move_text(pos, m, pos.turn()),
            ki2: gyoku_kifu::ki2::move_notation(pos, m, before.map(Move::to)),
            western: gyoku_kifu::western::move_notation(pos, m),
            seconds,
            comment: comment.map(str::to_string),
            eval: comment.and_then(evaluation),
        }
    }
}

/// The evaluation in an engine's Floodgate comment (`* <eval> <pv>`: centipawns, from
/// Black's side), if the comment is one.
///
/// ```text
/// "* 120 +2726FU -8384FU" -> 120;  "* -35" -> -35;  "good move" -> none
/// ```
fn evaluation(comment: &str) -> Option<i64> {
    comment
        .strip_prefix("* ")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Moves in KI2 notation from `start` (`▲７六歩`, `△同　歩`).
pub(super) fn ki2_moves(start: &Position, moves: impl Iterator<Item = Move>) -> Vec<String> {
    notations(start, moves, |pos, m, before| {
        gyoku_kifu::ki2::move_notation(pos, m, before.map(Move::to))
    })
}

/// Moves in Western notation from `start` (`P-7f`, `Bx2b+`).
pub(super) fn western_moves(start: &Position, moves: impl Iterator<Item = Move>) -> Vec<String> {
    notations(start, moves, |pos, m, _| {
        gyoku_kifu::western::move_notation(pos, m)
    })
}

/// Each move written by `write` (the position before it, the move, the move before it),
/// played from `start`.
fn notations(
    start: &Position,
    moves: impl Iterator<Item = Move>,
    write: impl Fn(&Position, Move, Option<Move>) -> String,
) -> Vec<String> {
    let mut pos = start.clone();
    let mut before: Option<Move> = None;
    moves
        .map(|m| {
            let text = write(&pos, m, before);
            pos.play_unchecked(m);
            before = Some(m);
            text
        })
        .collect()
}

/// A stored game played again: how it was set up, where it stands, its moves (as
/// [`MoveView`]s, and as moves), and its outcome's JSON.
#[derive(Clone)]
pub(super) struct Replayed {
    pub(super) spec: GameSpec,
    pub(super) game: Game,
    pub(super) moves: Vec<MoveView>,
    pub(super) played: Vec<Move>,
    pub(super) outcome: Value,
}

/// Plays a stored game again: an ended one from its record, judged as `gyoku judge` would;
/// one being played from its moves.
pub(super) fn replay_stored(d: &GameDetail) -> Result<Replayed, ApiError> {
    let corrupt = || unreadable(&d.game.id);
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
                let comment = m.comments.iter().find(|c| c.starts_with("* "));
                moves.push(MoveView::of(
                    i + 1,
                    &pos,
                    m.mv,
                    before,
                    m.time_ms.map(|t| t / 1000),
                    comment.map(String::as_str),
                ));
                pos.play_unchecked(m.mv);
                before = Some(m.mv);
                played.push(m.mv);
            }
            let j = judge_record(&record, rules, true);
            // A claimed foul was played (under fouls that stand only when claimed): it is
            // a move of the game, listed as the others (the record holds it as its foul).
            if let (Some(foul), Some(gyoku::EndReason::ClaimedFoul { .. })) =
                (&record.foul, j.game.outcome().map(|o| &o.reason))
            {
                let seconds = spec.moves.get(moves.len()).map(|(_, t)| *t);
                moves.push(MoveView::of(
                    moves.len() + 1,
                    &pos,
                    foul.mv,
                    before,
                    seconds,
                    None,
                ));
                played.push(foul.mv);
            }
            let outcome = record_json(&record, &j);
            (j.game, outcome)
        }
        None => {
            let mut replayed = Replayed {
                game: Game::new(spec.start.clone(), rules),
                spec,
                moves,
                played,
                outcome: Value::Null,
            };
            replayed.append(d)?;
            return Ok(replayed);
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

impl Replayed {
    /// Plays on the moves `d` stores past those played (the initial moves first, for a
    /// game not yet begun), and judges where it stands. An error when a stored move is
    /// not a move of the game.
    pub(super) fn append(&mut self, d: &GameDetail) -> Result<(), ApiError> {
        let initial = self.spec.initial_moves.len();
        let stored = self
            .spec
            .initial_moves
            .iter()
            .map(|(m, t)| (m.as_str(), u64::from(*t)))
            .chain(d.moves.iter().map(|(m, t)| (m.as_str(), *t)))
            .collect::<Vec<_>>();
        for (i, &(text, seconds)) in stored.iter().enumerate().skip(self.moves.len()) {
            let pos = self.game.position().clone();
            let Ok((_, mv)) = gyoku_kifu::csa::parse_move(text, &pos) else {
                return Err(unreadable(&d.game.id));
            };
            let before = self.game.plies().last().map(|p| p.mv);
            let comment = i
                .checked_sub(initial)
                .and_then(|k| d.comments.get(k))
                .and_then(Option::as_deref);
            let shown = MoveView::of(i + 1, &pos, mv, before, Some(seconds), comment);
            if self.game.play(mv).is_err() {
                return Err(unreadable(&d.game.id));
            }
            self.moves.push(shown);
            self.played.push(mv);
        }
        self.spec.moves.clone_from(&d.moves);
        self.outcome = judge_json(&self.game);
        Ok(())
    }
}

/// 500 `stored_game_unreadable`: what is stored of game `id` cannot be read back.
fn unreadable(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "stored_game_unreadable",
        format!("game {id}: what is stored cannot be read back"),
    )
}

/// A server record with its foul as a move: the lobby writes the illegal move that ended a
/// game as a comment, `'ILLEGAL_MOVE(+0055FU)` (as shogi-server does); read as the move
/// it was, the judge names its kind.
pub(super) fn foul_as_move(text: &str) -> std::borrow::Cow<'_, str> {
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

#[cfg(test)]
pub(super) mod tests {
    use super::evaluation;
    use crate::identity::PlayerKind;
    use crate::lobby::ClockExtras;
    use crate::store::{GameDetail, ListedGame, StartedGame};

    /// A stored game: `moves` after the start, `record` once it has ended.
    pub(in crate::http) fn stored(
        id: &str,
        rules: &str,
        status: &str,
        moves: &[(&str, u64, Option<&str>)],
        record: Option<&str>,
    ) -> GameDetail {
        let ended = record.is_some();
        GameDetail {
            game: StartedGame {
                id: id.into(),
                name: "views-600-10".into(),
                black: "alice".into(),
                white: "bob".into(),
                rules: rules.into(),
                fouls: None,
                max_moves: 256,
                least_time_per_move: 0,
                total_time: 600,
                byoyomi: 10,
                increment: 0,
                start_sfen: gyoku::STARTPOS_SFEN.into(),
                initial_moves: String::new(),
                started_at: "2026/11/27 10:00:00".into(),
                replay_of: None,
                rating_ids: [None, None],
                rules_digest: Some("d".repeat(64)),
                kinds: [PlayerKind::Csa, PlayerKind::Web],
                main_times: None,
                clock: ClockExtras::default(),
                started_ms: Some(1_795_000_000_000),
            },
            listed: ListedGame {
                id: id.into(),
                name: "views-600-10".into(),
                black: "alice".into(),
                white: "bob".into(),
                rules: rules.into(),
                status: status.into(),
                result: ended.then(|| "white".into()),
                reason: ended.then(|| "resignation".into()),
                started_at: "2026/11/27 10:00:00".into(),
                ended_at: ended.then(|| "2026/11/27 10:05:00".into()),
                moves: u32::try_from(moves.len()).unwrap(),
                total_time: 600,
                byoyomi: 10,
                increment: 0,
            },
            moves: moves
                .iter()
                .map(|(m, t, _)| ((*m).to_string(), *t))
                .collect(),
            comments: moves
                .iter()
                .map(|(_, _, c)| c.map(str::to_string))
                .collect(),
            record: record.map(str::to_string),
            turn_started_ms: Some(1_795_000_003_000),
        }
    }

    #[test]
    fn an_engines_comment_gives_its_evaluation() {
        for (comment, eval) in [
            ("* 120 +2726FU -8384FU", Some(120)),
            ("* -35", Some(-35)),
            ("* 0 +7776FU", Some(0)),
            ("*  12", Some(12)),
            ("* mate", None),
            ("good move", None),
            ("", None),
        ] {
            assert_eq!(evaluation(comment), eval, "{comment:?}");
        }
    }
}
