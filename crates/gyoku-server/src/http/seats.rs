//! Playing from the page: `POST /api/play` makes a game, `/api/seats/{token}/…` acts in
//! it. The seat knows its colour, its game and whose turn it is from the server's lines,
//! so acting reads no storage first: a move is sent as a value, and the lobby (the one
//! referee) echoes it, ends the game on it (lost fouls), or refuses it (refused fouls)
//! with its refusal as a value, answered `illegal_move` (422) with its kind. Only the answer's view of the game is read
//! from storage: one read and one replay per action.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};

use gyoku::rules::Fouls;
use gyoku::{Color, GameError, Move, Preset};
use gyoku_proto::csa::ClientMessage;

use super::body::{Request, typed_body};
use super::error::ApiError;
use super::state::{AppState, Seats, Stored};
use super::tools::read_position;
use super::view::view_of;
use crate::lobby::ClockExtras;
use crate::play::{GameRequest, Opponent, Phase, PlayError, Said, Seat, SeatState};
use crate::tickets::SeatToken;

/// What the seats' handlers use: the seats, the stored games (a seat's answer has its
/// game's view) and the options (the body's bounds).
#[derive(Clone)]
pub(super) struct SeatApi {
    seats: Seats,
    stored: Arc<Stored>,
    options: Arc<super::HttpOptions>,
    /// The analysis engine's name, where this instance analyses games.
    analysis: Option<String>,
}

impl axum::extract::FromRef<AppState> for SeatApi {
    fn from_ref(state: &AppState) -> Self {
        SeatApi {
            seats: state.seats.clone(),
            stored: Arc::clone(&state.stored),
            options: Arc::clone(&state.options),
            analysis: state.analyst.as_ref().map(|a| a.options.name.clone()),
        }
    }
}

impl SeatApi {
    /// The web page's games ([`Seats::play`]).
    pub(super) fn play(&self) -> Result<&Arc<crate::play::Play>, ApiError> {
        self.seats.play()
    }

    /// The seats themselves.
    pub(super) fn seats(&self) -> &Seats {
        &self.seats
    }

    /// The options (the bodies' bounds).
    pub(super) fn options(&self) -> &super::HttpOptions {
        &self.options
    }
}

/// Who a person asking to play is: their account (from the session's cookie), or a guest
/// under `name`. A guest may give any name, an account's too (issue 40: who plays is
/// their kind and rating key, never their name); only the account is rated.
async fn player(
    api: &SeatApi,
    headers: &HeaderMap,
    name: Option<String>,
) -> Result<(String, Option<String>), ApiError> {
    if let Some(account) = super::session::session_account(&api.seats, headers).await? {
        return Ok((account.clone(), Some(account)));
    }
    Ok((name.unwrap_or_else(|| "guest".into()), None))
}

/// The seat the token reaches; its holder is here (issue 42: a person whose page stops
/// asking for the seat, or says it leaves, is away).
fn seat_of(api: &SeatApi, token: &str) -> Result<Arc<Seat>, ApiError> {
    let seat = api.play()?.seat(token).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_such_seat",
            "no seat with this token (a server restart forgets them)",
        )
    })?;
    seat.here();
    Ok(seat)
}

/// The other person of a game between two people being played, as a seat sees them.
struct OtherPerson {
    name: String,
    /// Since when they were last here (or said they left).
    away: std::time::Duration,
    /// Whether their page said it left.
    said_so: bool,
    grace: std::time::Duration,
    silence: std::time::Duration,
}

impl OtherPerson {
    /// The other person of `seat`'s game, if it is a person's game being played and the
    /// server has a grace.
    fn of(api: &SeatApi, seat: &Seat, s: &SeatState) -> Result<Option<OtherPerson>, ApiError> {
        let (grace, silence) = api.play()?.presence_bounds();
        let Some(other) = seat.partner() else {
            return Ok(None);
        };
        if s.phase != Phase::Playing || grace.is_zero() {
            return Ok(None);
        }
        let (away, said_so) = other.unseen_for();
        Ok(Some(OtherPerson {
            name: other.who.shown().to_string(),
            away,
            said_so,
            grace,
            silence,
        }))
    }

    /// Here: their page has asked within the silence and not said it left.
    fn here(&self) -> bool {
        !self.said_so && self.away < self.silence
    }

    /// The grace counts from the leaving, or from the last ask (then never before the
    /// silence is past).
    fn claimable_after(&self) -> std::time::Duration {
        if self.said_so {
            self.grace
        } else {
            self.grace.max(self.silence)
        }
    }

    fn seconds_left(&self) -> u64 {
        self.claimable_after().saturating_sub(self.away).as_secs()
    }

    fn claimable(&self) -> bool {
        self.away >= self.claimable_after()
    }

    fn json(&self) -> Value {
        json!({
            "name": self.name,
            "here": self.here(),
            "away_seconds": self.away.as_secs(),
            "grace": self.grace.as_secs(),
            "seconds_left": self.seconds_left(),
            "claimable": self.claimable(),
        })
    }
}

/// The other person as the API shows them: whether they are here, and once away, how long
/// until the game may be claimed. Null when the other side is an engine, the game is not
/// being played, or the grace is zero.
fn opponent_json(api: &SeatApi, seat: &Seat, s: &SeatState) -> Result<Value, ApiError> {
    Ok(OtherPerson::of(api, seat, s)?.map_or(Value::Null, |o| o.json()))
}

fn play_error(e: &PlayError) -> ApiError {
    let (status, code) = match e {
        PlayError::NoSuchEngine(_) => (StatusCode::BAD_REQUEST, "no_such_engine"),
        PlayError::BadTime(_) => (StatusCode::BAD_REQUEST, "invalid_time"),
        PlayError::Full => (StatusCode::SERVICE_UNAVAILABLE, "too_many_seats"),
        PlayError::TooManyForAddress => (StatusCode::TOO_MANY_REQUESTS, "too_many_seats"),
        PlayError::EnginesBusy => (StatusCode::SERVICE_UNAVAILABLE, "engines_busy"),
        PlayError::Stopped => (StatusCode::SERVICE_UNAVAILABLE, "stopping"),
        PlayError::Taken => (StatusCode::CONFLICT, "invitation_taken"),
        PlayError::NoSuchLevel(..) => (StatusCode::BAD_REQUEST, "invalid_level"),
    };
    ApiError::new(status, code, e.to_string())
}

/// A seat as the API shows it (the invitation's code only to its creator's seat; an
/// invitation says who invites, the rules, the time and the side offered).
fn seat_json(seat: &Seat, s: &SeatState) -> Value {
    let terms = seat.terms.as_ref().map(|t| {
        let fouls = t.fouls.unwrap_or(t.preset.rules().fouls).code();
        json!({
            "from": t.from,
            "rules": t.preset.name(),
            "fouls": fouls,
            "time": super::view::TimeView::of(t.time, t.clock),
            "sfen": t.start,
        })
    });
    json!({
        "invitation": terms,
        "color": s.color.name(),
        "login": s.login.as_deref().unwrap_or(seat.who.shown()),
        "game_name": seat.game,
        "invite": seat.invite.as_ref().map(SeatToken::reveal),
        "phase": s.phase.name(),
        "game_id": s.game_id(),
        "games": s.games,
        "result": s.result,
        "error": s.error,
        "proposal": s.proposal.map(|(_, by)| by.name()),
        "proposal_kind": s.proposal.map(|(what, _)| what.code()),
    })
}

/// `GET /api/play`: what a game may be made with.
pub(super) async fn options(State(api): State<SeatApi>) -> Result<Json<Value>, ApiError> {
    let play = api.play()?;
    let mut opponents = play.engine_names();
    opponents.push("person".into());
    Ok(Json(json!({
        "opponents": opponents,
        "engines": play.engine_names(),
        // The engine that analyses finished games (null: none).
        "analysis": api.analysis,
        // Each engine's levels, lowest first (none: it plays on the game's clock).
        "levels": play
            .engines()
            .iter()
            .map(|e| {
                let levels = e.levels.iter().map(|l| json!({
                    "level": l.level,
                    "nodes": l.nodes,
                    "depth": l.depth,
                    "movetime_ms": l.movetime_ms,
                    "text": l.describe(),
                }));
                (e.name.clone(), Value::Array(levels.collect()))
            })
            .collect::<serde_json::Map<_, _>>(),
        "presets": Preset::ALL.iter().map(|p| p.name()).collect::<Vec<_>>(),
        // The handicaps a start position may name, lightest first.
        "handicaps": gyoku::Handicap::ALL
            .iter()
            .map(|h| json!({ "name": h.name(), "japanese": h.japanese() }))
            .collect::<Vec<_>>(),
        // What an illegal move does under each preset's own rules.
        "fouls": Preset::ALL
            .iter()
            .map(|p| {
                (p.name().to_string(), json!(p.rules().fouls.code()))
            })
            .collect::<serde_json::Map<_, _>>(),
    })))
}

/// `POST /api/play`'s body: every field may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PlayBody {
    /// `person`, or an engine's name (`builtin` by default).
    opponent: Option<String>,
    /// A rule set's preset (`csa` by default).
    rules: Option<String>,
    /// What an illegal move does (`lose`, `refuse`, `claim`); the preset's by default.
    fouls: Option<String>,
    /// The clock (10 minutes and a 10 s byoyomi by default).
    time: Option<TimeBody>,
    /// `black`, `white` or `random` (the default).
    color: Option<String>,
    /// The start position (`startpos` by default).
    sfen: Option<String>,
    /// The move limit in plies, 0 for none; the preset's by default.
    max_moves: Option<u32>,
    /// The person's name (`guest` by default).
    name: Option<String>,
    /// The engine's level (its lowest by default, for an engine with levels).
    level: Option<u32>,
}

/// A requested clock: seconds, each 0 when left out.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TimeBody {
    total: Option<u32>,
    byoyomi: Option<u32>,
    increment: Option<u32>,
    /// Byoyomi periods.
    periods: Option<u32>,
    /// Thinking-time units beside the byoyomi.
    thinking_units: Option<UnitsBody>,
}

/// Thinking-time units: how many, of how many seconds each.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct UnitsBody {
    count: Option<u32>,
    seconds: Option<u32>,
}

impl Request for PlayBody {
    fn invalid(path: &str) -> ApiError {
        let time = |why: String| ApiError::input("invalid_time", why);
        match path {
            "time" => time("time: {\"total\", \"byoyomi\", \"increment\"} in seconds".into()),
            "time.total" | "time.byoyomi" | "time.increment" => {
                time(format!("{path}: whole seconds"))
            }
            "time.thinking_units" => time("time.thinking_units: {\"count\", \"seconds\"}".into()),
            _ if path.starts_with("time.") => time(format!("{path}: a whole number")),
            "max_moves" => max_moves_invalid(),
            _ => ApiError::input("invalid_json", format!("{path}: a string was expected")),
        }
    }
}

/// 400 `invalid_max_moves`.
fn max_moves_invalid() -> ApiError {
    ApiError::input(
        "invalid_max_moves",
        "max_moves: a number of plies from 0 (none) to 100,000",
    )
}

impl TimeBody {
    /// Main time, byoyomi and increment in seconds.
    fn seconds(&self) -> [u32; 3] {
        [self.total, self.byoyomi, self.increment].map(|t| t.unwrap_or(0))
    }

    /// Byoyomi periods and thinking units, none when left out.
    fn extras(&self) -> ClockExtras {
        let units = self.thinking_units.as_ref();
        ClockExtras {
            periods: self.periods.unwrap_or(0),
            units: units.map_or_else(gyoku::ThinkingUnits::default, |u| gyoku::ThinkingUnits {
                count: u.count.unwrap_or(0),
                unit: u64::from(u.seconds.unwrap_or(0)) * 1000,
            }),
        }
    }
}

/// `POST /api/seats/{code}/join`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct JoinBody {
    /// The joiner's name (`guest` by default).
    name: Option<String>,
}

impl Request for JoinBody {}

/// `POST /api/seats/{token}/move`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MoveBody {
    /// The move, USI.
    #[serde(rename = "move")]
    mv: Option<String>,
}

impl Request for MoveBody {}

/// `POST /api/play` with `{"opponent", "rules", "fouls", "time": {"total", "byoyomi",
/// "increment", "periods", "thinking_units": {"count", "seconds"}}, "color", "sfen",
/// "max_moves", "name"}`: the person's seat (201).
pub(super) async fn start(
    State(api): State<SeatApi>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let play = api.play()?;
    let body: PlayBody = typed_body(&api.options, &headers, body).await?;
    let opponent = match body.opponent.as_deref().unwrap_or("builtin") {
        "person" => Opponent::Person,
        name => Opponent::Engine(name.to_string()),
    };
    let preset: Preset = body
        .rules
        .as_deref()
        .unwrap_or("csa")
        .parse()
        .map_err(|e| ApiError::input("invalid_rules", format!("rules: {e}")))?;
    let fouls = body
        .fouls
        .as_deref()
        .map(str::parse::<Fouls>)
        .transpose()
        .map_err(|e| ApiError::input("invalid_fouls", e))?;
    let time = body.time.as_ref().map_or([600, 10, 0], TimeBody::seconds);
    let clock = body
        .time
        .as_ref()
        .map_or_else(ClockExtras::default, TimeBody::extras);
    let color = match body.color.as_deref().unwrap_or("random") {
        "black" | "sente" | "b" => Some(Color::Black),
        "white" | "gote" | "w" => Some(Color::White),
        "random" => None,
        other => {
            return Err(ApiError::input(
                "invalid_color",
                format!("color: '{other}' is not black, white or random"),
            ));
        }
    };
    let start = match body.sfen.as_deref() {
        None | Some("" | "startpos") => None,
        Some(text) => Some(read_position(text, false, "sfen")?),
    };
    if body.max_moves.is_some_and(|n| n > 100_000) {
        return Err(max_moves_invalid());
    }
    let max_moves = body.max_moves;
    let (name, account) = player(&api, &headers, body.name).await?;
    let (seat, token) = play
        .start(
            GameRequest {
                opponent,
                preset,
                fouls,
                time,
                clock,
                color,
                start,
                max_moves,
                name,
                account,
                level: body.level,
            },
            peer.ip(),
        )
        .await
        .map_err(|e| play_error(&e))?;
    let mut v = seat_json(&seat, &seat.state());
    v["token"] = json!(token.reveal());
    Ok((StatusCode::CREATED, Json(v)))
}

/// `GET /api/seats/{token}`: the seat, and its game's view once it has one. A used
/// invitation shows the game it started (as a spectator sees it), and acts no more.
pub(super) async fn seat(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let seat = seat_of(&api, &token)?;
    let s = seat.state();
    if s.phase == Phase::Taken {
        let game = seat.joined().map(|j| j.state());
        let mut shown = s.clone();
        shown.games = game.map(|g| g.games).unwrap_or_default();
        return answer(&api, &seat, &shown).await;
    }
    answer(&api, &seat, &s).await
}

/// The seat and its game's view.
async fn answer(api: &SeatApi, seat: &Seat, s: &SeatState) -> Result<Json<Value>, ApiError> {
    let game = match s.game_id() {
        Some(id) => Some(view_of(&api.stored, id).await?),
        None => None,
    };
    let mut shown = seat_json(seat, s);
    shown["opponent"] = opponent_json(api, seat, s)?;
    Ok(Json(json!({ "seat": shown, "game": game })))
}

/// `GET /api/seats/{token}/presence`: the seat's holder is here (its page asks every second
/// while the game is played), and how the other person stands (`opponent`: here, or away
/// with the seconds until the game may be claimed). Reads no storage.
pub(super) async fn presence(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let seat = seat_of(&api, &token)?;
    let s = seat.state();
    Ok(Json(json!({
        "phase": s.phase.name(),
        "opponent": opponent_json(&api, &seat, &s)?,
    })))
}

/// `POST /api/seats/{token}/leave`: the seat's page is going (closed, or gone elsewhere;
/// sent as a beacon): its person is away from now, until the page asks again.
pub(super) async fn leave(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<StatusCode, ApiError> {
    seat_of(&api, &token)?.left();
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/seats/{token}/claim-absence`: the other person has been away for the
/// server's grace: the game ends as if they had left (`abnormal`, this seat wins).
/// `409 opponent_here` (with `seconds_left`) before then.
pub(super) async fn claim_absence(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let seat = seat_of(&api, &token)?;
    let before = playing(&seat)?;
    let opponent = OtherPerson::of(&api, &seat, &before)?;
    if !opponent.as_ref().is_some_and(OtherPerson::claimable) {
        let left = opponent.as_ref().map(OtherPerson::seconds_left);
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "opponent_here",
            left.map_or_else(
                || "there is no person's absence to claim in this game".to_string(),
                |n| format!("the other player may come back for {n} s more"),
            ),
        )
        .with("seconds_left", json!(left)));
    }
    if let Some(other) = seat.partner() {
        other.leave();
    }
    let after = seat
        .wait_for(|s| s.phase != Phase::Playing)
        .await
        .ok_or_else(no_answer)?;
    answer(&api, &seat, &after).await
}

/// `POST /api/seats/{code}/join` with `{"name"}`: opens an invitation. The game starts, and
/// the answer carries `token`, the joiner's own seat secret (the link's code acts no more:
/// whoever opens it later sees the game).
pub(super) async fn join(
    State(api): State<SeatApi>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    // The seat first: a body to no seat is never read.
    let invitation = seat_of(&api, &token)?;
    let body: JoinBody = typed_body(&api.options, &headers, body).await?;
    let (name, account) = player(&api, &headers, body.name).await?;
    let (seat, secret) = api
        .play()?
        .join(&invitation, (&name, account.as_deref()), peer.ip())
        .await
        .map_err(|e| play_error(&e))?;
    let Json(mut v) = answer(&api, &seat, &seat.state()).await?;
    v["token"] = json!(secret.reveal());
    Ok(Json(v))
}

/// What the seat knows while its game is being played, or `not_playing` (409).
fn playing(seat: &Seat) -> Result<SeatState, ApiError> {
    let s = seat.state();
    if s.phase == Phase::Playing && s.game_id().is_some() {
        return Ok(s);
    }
    Err(ApiError::new(
        StatusCode::CONFLICT,
        "not_playing",
        format!("the seat is {}, not playing", s.phase.name()),
    ))
}

/// `not_your_turn` (409) unless the seat is to move.
fn your_turn(s: &SeatState) -> Result<(), ApiError> {
    let turn = s.to_move().ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "not_playing",
            "the seat does not know the position of its game",
        )
    })?;
    if turn == s.color {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::CONFLICT,
        "not_your_turn",
        format!("it is {}'s turn", turn.name()),
    ))
}

fn no_answer() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "no_answer",
        "the server did not answer in time",
    )
}

/// The lobby refused what the seat sent (`##[ERROR] …`).
fn refused(before: &SeatState, after: &SeatState) -> Option<ApiError> {
    (after.errors > before.errors && after.phase == Phase::Playing).then(|| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "refused",
            after.error.clone().unwrap_or_default(),
        )
    })
}

/// `POST /api/seats/{token}/move` with `{"move": "7g7f"}` (USI).
pub(super) async fn play_move(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    // The seat first: a body to no seat is never read.
    let seat = seat_of(&api, &token)?;
    let body: MoveBody = typed_body(&api.options, &headers, body).await?;
    let text = body
        .mv
        .ok_or_else(|| ApiError::input("invalid_move", "move: a USI move is needed"))?;
    let mv: Move = text.parse().map_err(|e| {
        ApiError::input("invalid_move", format!("move '{text}': {e}")).with("move", json!(text))
    })?;
    let before = playing(&seat)?;
    your_turn(&before)?;
    // On the seat's turn the next echo is its own move: the lobby played it.
    let after = seat
        .send_and_wait(Said::Move(mv), |b, n| {
            n.errors > b.errors || n.phase != Phase::Playing || n.echoes > b.echoes
        })
        .await
        .ok_or_else(no_answer)?;
    if after.errors > before.errors
        && after.phase == Phase::Playing
        && let Some(GameError::IllegalMove(kind)) = after.refusal
    {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
            format!(
                "'{text}' is illegal: {} ({kind}); refused, play another move",
                kind.code()
            ),
        )
        .with("kind", json!(kind.code()))
        .with("ply", json!(before.played + 1))
        .with("move", json!(text))
        .with("refused", json!(true)));
    }
    if let Some(e) = refused(&before, &after) {
        return Err(e);
    }
    answer(&api, &seat, &after).await
}

/// Sends an action that ends the game (`%TORYO`, `%KACHI`, `%%CLAIM`) on the seat's turn
/// and answers with the result.
async fn ending_action(
    api: &SeatApi,
    token: &str,
    action: ClientMessage,
) -> Result<Json<Value>, ApiError> {
    let seat = seat_of(api, token)?;
    let before = playing(&seat)?;
    your_turn(&before)?;
    let after = seat
        .send_and_wait(Said::Message(action), |b, n| {
            n.errors > b.errors || n.phase != Phase::Playing
        })
        .await
        .ok_or_else(no_answer)?;
    if let Some(e) = refused(&before, &after) {
        return Err(e);
    }
    answer(api, &seat, &after).await
}

/// `POST /api/seats/{token}/resign`.
pub(super) async fn resign(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    ending_action(&api, &token, ClientMessage::Resign).await
}

/// `POST /api/seats/{token}/impasse`: proposes an impasse count (持将棋), or accepts the
/// other player's proposal, on either turn.
pub(super) async fn impasse(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    agreement(&api, &token, ClientMessage::Impasse).await
}

/// `POST /api/seats/{token}/sennichite`: proposes a sennichite by agreement (the JSA's
/// since 2019-10-01: the position repeated, fewer than four times), or accepts the other
/// player's proposal, on either turn.
pub(super) async fn sennichite(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    agreement(&api, &token, ClientMessage::Sennichite).await
}

/// `POST /api/seats/{token}/claim`: claims the foul the opponent has just made (under
/// fouls that stand only when claimed), on the seat's turn, before its own next move.
pub(super) async fn claim(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    ending_action(&api, &token, ClientMessage::Claim).await
}

/// A proposal (or an acceptance) sent, and the seat's state once the lobby answered.
async fn agreement(
    api: &SeatApi,
    token: &str,
    word: ClientMessage,
) -> Result<Json<Value>, ApiError> {
    let seat = seat_of(api, token)?;
    let before = playing(&seat)?;
    let after = seat
        .send_and_wait(Said::Message(word), |b, n| {
            n.errors > b.errors || n.phase != Phase::Playing || n.proposals > b.proposals
        })
        .await
        .ok_or_else(no_answer)?;
    if let Some(e) = refused(&before, &after) {
        return Err(e);
    }
    answer(api, &seat, &after).await
}

/// `POST /api/seats/{token}/declare`: 入玉宣言, judged under the game's rules.
pub(super) async fn declare(
    State(api): State<SeatApi>,
    Path(token): Path<String>,
) -> Result<Json<Value>, ApiError> {
    ending_action(&api, &token, ClientMessage::Declare).await
}
