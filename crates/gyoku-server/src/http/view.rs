//! A stored game as the page sees it: its listing, moves, position, clocks and what the
//! rules allow, from one storage read and one replay (for a game kept replayed, only the
//! moves since its last view played on: [`super::kept`]). Each part is a typed view
//! ([`GameView`], [`ListedView`], [`MoveView`], [`TimeView`], [`ClockView`]) that serde
//! writes; only the judge's and the calculator's reports, shared with `gyoku judge
//! --json` and `gyoku impasse --json`, are JSON values already.

use std::collections::BTreeMap;

use axum::http::StatusCode;
use serde::Serialize;
use serde_json::{Value, json};

use gyoku::{Game, ImpasseReport};
use gyoku_kifu::report::impasse_json;

use crate::lobby::{ClockExtras, GameSpec};
use crate::store::{GameDetail, ListedGame};

use super::error::ApiError;
use super::kept::Brought;
#[cfg(test)]
use super::replay::replay_stored;
use super::replay::{MoveView, Replayed};
use super::state::{Stored, with_db, work};
use super::watched::Shown;

/// A game as the listing shows it (`GET /api/games`), and the first fields of its view.
#[derive(Clone, Debug, Serialize)]
pub(super) struct ListedView {
    id: String,
    name: String,
    black: String,
    white: String,
    rules: String,
    /// `playing`, `suspended` or `finished`.
    status: String,
    result: Option<String>,
    reason: Option<String>,
    started_at: String,
    ended_at: Option<String>,
    /// Moves stored.
    moves: u32,
    /// The main time, byoyomi and increment (periods and thinking units are on the game's
    /// own view).
    time: TimeView,
}

impl ListedView {
    /// A stored game's listing, as shown.
    pub(super) fn of(g: &ListedGame) -> ListedView {
        ListedView {
            id: g.id.clone(),
            name: g.name.clone(),
            black: g.black.clone(),
            white: g.white.clone(),
            rules: g.rules.clone(),
            status: g.status.clone(),
            result: g.result.clone(),
            reason: g.reason.clone(),
            started_at: g.started_at.clone(),
            ended_at: g.ended_at.clone(),
            moves: g.moves,
            time: TimeView::of(
                [g.total_time, g.byoyomi, g.increment],
                ClockExtras::default(),
            ),
        }
    }
}

/// A game's time as the API says it: `total`, `byoyomi` and `increment` in seconds, with
/// `periods` and `thinking_units` (`count`, `seconds`) where the byoyomi has them.
#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct TimeView {
    total: u32,
    byoyomi: u32,
    increment: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    periods: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_units: Option<UnitsView>,
}

/// Thinking-time units beside the byoyomi: how many, and how long each is.
#[derive(Clone, Copy, Debug, Serialize)]
struct UnitsView {
    count: u32,
    seconds: u64,
}

impl TimeView {
    /// Main time, byoyomi and increment in seconds, and the byoyomi's extras.
    pub(super) fn of([total, byoyomi, increment]: [u32; 3], clock: ClockExtras) -> TimeView {
        TimeView {
            total,
            byoyomi,
            increment,
            periods: (clock.periods > 1).then_some(clock.periods),
            thinking_units: (clock.units.count > 0).then_some(UnitsView {
                count: clock.units.count,
                seconds: clock.units.unit / 1000,
            }),
        }
    }
}

/// What the rules allow the page to offer.
#[derive(Clone, Copy, Debug, Serialize)]
struct AllowsView {
    /// A declaration (entering king).
    declaration: bool,
    /// An impasse settled by counting points.
    impasse_count: bool,
    /// A sennichite by agreement, under these rules.
    sennichite_agreement: bool,
    /// One now: the rules allow it and the position has repeated.
    sennichite: bool,
}

/// Under fouls that stand only when claimed: the foul its opponent may claim now.
#[derive(Clone, Debug, Serialize)]
struct PendingFoulView {
    by: &'static str,
    kind: &'static str,
    #[serde(rename = "move")]
    mv: String,
    ply: u32,
}

/// A stored game as `GET /api/games/{id}` answers and its event stream sends.
#[derive(Clone, Debug, Serialize)]
pub(super) struct GameView {
    #[serde(flatten)]
    listed: ListedView,
    start_sfen: String,
    time: TimeView,
    /// A replay's own start times (a replay clock that keeps what each had left), in
    /// seconds, Black's and White's; none for fresh clocks.
    start_times: Option<[u32; 2]>,
    max_moves: u32,
    moves: Vec<MoveView>,
    sfen: String,
    turn: &'static str,
    in_check: bool,
    /// As `gyoku judge --json`: `result` null while it is played.
    outcome: Value,
    /// The calculator on the position now, as `gyoku impasse --json`.
    impasse: Value,
    fouls: &'static str,
    pending_foul: Option<PendingFoulView>,
    /// The digest of the rules it is played under (`gyoku rules --json`), none for games
    /// stored before it was kept.
    rules_digest: Option<String>,
    /// Who played each side: `csa` (a CSA client), `web` (a person on the page), `engine`
    /// (the engine a page chose). Names say nothing of it.
    black_kind: &'static str,
    white_kind: &'static str,
    allows: AllowsView,
    clock: ClockView,
    /// The side to move's legal moves, USI (the page marks where a piece may go).
    legal: Vec<String>,
    /// The fouls a player could make with real pieces, USI, with their kind.
    physical_fouls: BTreeMap<String, &'static str>,
}

impl GameView {
    /// The view as its watchers receive it.
    pub(super) fn shown(&self) -> Shown {
        // A view is strings, numbers and string-keyed maps: it always serializes.
        let json = serde_json::to_string(self).unwrap_or_default();
        Shown::of(json, self.moves.len(), &self.listed.status)
    }
}

/// A stored game's view: its listing, start, moves, where it stands, the clocks, what the
/// rules allow, and the calculator. `since` is how long the side to move's clock has run,
/// if known.
#[cfg(test)]
pub(super) fn game_view(
    d: &GameDetail,
    since: Option<std::time::Duration>,
) -> Result<GameView, ApiError> {
    Ok(view_from(d, &replay_stored(d)?, since))
}

/// `d`'s view, its game `replayed` to where it stands.
fn view_from(d: &GameDetail, replayed: &Replayed, since: Option<std::time::Duration>) -> GameView {
    let Replayed {
        spec,
        game,
        moves,
        outcome,
        ..
    } = replayed;
    let mut outcome = outcome.clone();
    let rules = game.rules();
    let report = ImpasseReport::new(game.position(), Some(&spec.start.to_setup()));
    // A player who left is recorded as resigning (`%TORYO`, as the CSA record has no word
    // for it); the view says what happened, as the stored reason does.
    if d.listed.reason.as_deref() == Some("abnormal") && outcome["reason"] == "resignation" {
        outcome["reason"] = json!("abnormal");
    }
    let playing = d.listed.status == "playing";
    let clock = ClockView::of(spec, moves, playing, game.turn(), since);
    let (legal, physical_fouls) = if playing && game.outcome().is_none() {
        moves_to_offer(game)
    } else {
        (Vec::new(), BTreeMap::new())
    };
    GameView {
        listed: ListedView::of(&d.listed),
        start_sfen: spec.start.to_sfen(),
        time: TimeView::of([spec.total, spec.byoyomi, spec.increment], spec.clock),
        start_times: spec.main_times,
        max_moves: spec.max_moves,
        moves: moves.clone(),
        sfen: game.position().to_sfen(),
        turn: game.turn().name(),
        in_check: game.position().is_check(),
        outcome,
        impasse: impasse_json(&report),
        fouls: rules.fouls.code(),
        pending_foul: game
            .pending_foul()
            .filter(|_| playing)
            .map(|f| PendingFoulView {
                by: f.by.name(),
                kind: f.kind.code(),
                mv: f.mv.to_string(),
                ply: f.ply,
            }),
        rules_digest: d.game.rules_digest.clone(),
        black_kind: d.game.kinds[0].as_str(),
        white_kind: d.game.kinds[1].as_str(),
        allows: AllowsView {
            declaration: rules.declaration.is_some(),
            impasse_count: rules.agreement.is_some(),
            sennichite_agreement: rules.agreed_sennichite,
            sennichite: game.sennichite_agreeable().is_ok(),
        },
        clock,
        legal,
        physical_fouls,
    }
}

/// What the page may send in a game being played: the side to move's legal moves, and the
/// fouls it could make with real pieces (nifu, uchifuzume, a piece left with no move, the
/// king left in check) with their kind — these lose or are refused, as the rules say;
/// nothing else that is not legal is offered.
fn moves_to_offer(game: &Game) -> (Vec<String>, BTreeMap<String, &'static str>) {
    let pos = game.position();
    // The king a claimed-fouls game's foul left in check is not taken (it is claimed).
    let king = pos.king(!game.turn());
    let legal = pos
        .legal_moves()
        .iter()
        .filter(|m| king.is_none_or(|k| m.to() != k))
        .map(ToString::to_string)
        .collect();
    let fouls = pos
        .physical_fouls()
        .iter()
        .map(|(m, k)| (m.to_string(), k.code()))
        .collect();
    (legal, fouls)
}

/// The clocks as a view shows them: each side's main time left after the stored moves,
/// its byoyomi periods and thinking units left, the byoyomi and increment, and for a game
/// being played the side whose clock runs and how long it has run (`elapsed_ms`, none when
/// the server does not know).
#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct ClockView {
    black_ms: gyoku::Millis,
    white_ms: gyoku::Millis,
    /// Byoyomi periods each side has left (1 without them).
    black_periods: u32,
    white_periods: u32,
    /// Thinking units each side has left (0 without them).
    black_units: u32,
    white_units: u32,
    unit_ms: gyoku::Millis,
    byoyomi_ms: u64,
    increment_ms: u64,
    running: Option<&'static str>,
    elapsed_ms: Option<u64>,
}

impl ClockView {
    /// `spec`'s clocks after `moves`; `turn`'s running for `since` if `playing`.
    fn of(
        spec: &GameSpec,
        moves: &[MoveView],
        playing: bool,
        turn: gyoku::Color,
        since: Option<std::time::Duration>,
    ) -> ClockView {
        // The side to move once the buoy's moves (which cost nothing) are played.
        let first = if spec.initial_moves.len().is_multiple_of(2) {
            spec.start.turn()
        } else {
            !spec.start.turn()
        };
        let mut clock = spec.start_clock(0, first);
        for m in moves.iter().skip(spec.initial_moves.len()) {
            crate::lobby::charge(&mut clock, m.seconds.unwrap_or(0) * 1000);
        }
        let [black, white] = [gyoku::Color::Black, gyoku::Color::White];
        ClockView {
            black_ms: clock.remaining(black),
            white_ms: clock.remaining(white),
            black_periods: clock.periods_left(black),
            white_periods: clock.periods_left(white),
            black_units: clock.units_left(black),
            white_units: clock.units_left(white),
            unit_ms: spec.clock.units.unit,
            byoyomi_ms: u64::from(spec.byoyomi) * 1000,
            increment_ms: u64::from(spec.increment) * 1000,
            running: playing.then(|| turn.name()),
            elapsed_ms: since
                .filter(|_| playing)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        }
    }
}

/// A stored game, read now; `no_such_game` (404) when there is none.
pub(super) async fn detail_of(api: &Stored, id: &str) -> Result<GameDetail, ApiError> {
    let key = id.to_string();
    with_db(api, move |db| db.game(&key)).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_such_game",
            format!("no game '{id}'"),
        )
    })
}

/// A stored game's view, read now.
pub(super) async fn view_of(api: &std::sync::Arc<Stored>, id: &str) -> Result<GameView, ApiError> {
    let detail = detail_of(api, id).await?;
    let since = detail.turn_started_ms.map(|started| {
        let ms = crate::wall::utc_now_ms().saturating_sub(started);
        std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    });
    let shared = std::sync::Arc::clone(api);
    let (view, brought) = work(api, move || {
        let (replayed, brought) = shared.kept.bring(&detail)?;
        Ok((view_from(&detail, &replayed, since), brought))
    })
    .await?;
    let counter = match brought {
        Brought::Replayed => &api.replays,
        Brought::Appended => &api.appended,
    };
    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(view)
}

#[cfg(test)]
mod tests {
    use crate::http::replay::tests::stored;
    use crate::lobby::ClockExtras;

    /// Games of each kind, and their views.
    fn views() -> Vec<(String, serde_json::Value)> {
        let opening: &[(&str, u64, Option<&str>)] = &[
            ("+7776FU", 3, Some("* 120 -3334FU")),
            ("-3334FU", 2, None),
            ("+8822UM", 5, Some("good")),
        ];
        let mut periods = stored("playing-with-periods", "csa", "playing", opening, None);
        periods.game.clock = ClockExtras {
            periods: 3,
            units: gyoku::ThinkingUnits {
                count: 10,
                unit: 60_000,
            },
        };
        periods.game.main_times = Some([540, 600]);
        // White in check, a pawn in hand: its fouls with real pieces are listed.
        let mut in_check = stored("in-check", "csa", "playing", &[], None);
        in_check.game.start_sfen = "4k4/9/9/9/9/9/9/4R4/4K4 w p 1".into();
        let games = [
            stored("playing", "csa", "playing", opening, None),
            periods,
            in_check,
            stored(
                "resigned",
                "csa",
                "finished",
                &opening[..2],
                Some("V2\nN+alice\nN-bob\nPI\n+\n+7776FU\nT3\n-3334FU\nT2\n%TORYO\nT4\n"),
            ),
            stored(
                "fouled",
                "csa",
                "finished",
                &opening[..1],
                Some(
                    "V2\nN+alice\nN-bob\nPI\n+\n+7776FU\nT3\n'ILLEGAL_MOVE(-5152OU)\n%-ILLEGAL_ACTION\n",
                ),
            ),
        ];
        games
            .iter()
            .map(|d| {
                let view = super::game_view(d, Some(std::time::Duration::from_millis(1500)));
                (
                    d.game.id.clone(),
                    serde_json::to_value(view.unwrap()).unwrap(),
                )
            })
            .collect()
    }

    /// Every part of a game's view, pinned to what it was before the views were typed
    /// (`testdata/game_views.json`; `GYOKU_BLESS=1` writes it again).
    #[test]
    fn a_games_view_is_what_it_was() {
        let got = serde_json::Value::Object(views().into_iter().collect());
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/http/testdata/game_views.json"
        );
        if std::env::var_os("GYOKU_BLESS").is_some() {
            std::fs::write(path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        }
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for (id, view) in got.as_object().unwrap() {
            assert_eq!(view, &want[id], "{id}");
        }
        assert_eq!(
            got.as_object().unwrap().len(),
            want.as_object().unwrap().len()
        );
    }
}
