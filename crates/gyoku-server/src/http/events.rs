//! Organised events: `GET /api/events` (each event's name, status and round), `GET
//! /api/events/{name}` (pairings, standings, crosstable, live) and the operator's `POST
//! /api/events/{name}/admin` (pause, resume, adjust a result, end), which answers only to
//! the admin token given at start (`gyoku serve --admin-token-file`), sent as
//! `Authorization: Bearer <token>`, from no other site's page.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use blake2::{Blake2b512, Digest};
use serde::Deserialize;
use serde_json::{Value, json};

use super::HttpOptions;
use super::body::{Request, typed_body};
use super::error::ApiError;
use super::state::{Admin, AppState, Seats};
use crate::event::BoardResult;
use crate::league::League;
use crate::lobby::EventAction;

/// How long the admin endpoint waits for the lobby's answer.
const ADMIN_ANSWER: Duration = Duration::from_secs(10);

/// The most bytes of an operator's reason kept.
pub const MAX_REASON: usize = 500;

/// The fewest different characters an admin token may have.
pub const MIN_DISTINCT: usize = 10;

/// The operator's token: compared in constant time, never shown (`Debug` hides it).
#[derive(Clone)]
pub struct AdminToken(String);

impl AdminToken {
    /// A token; at least 32 characters, of at least 10 different ones (an
    /// unguessable one: `gyoku serve` makes 64 hex digits from the system's random source;
    /// 32 `a`s are refused).
    ///
    /// # Errors
    /// When it is shorter, or made of too few characters.
    pub fn new(token: String) -> Result<AdminToken, String> {
        if token.chars().count() < 32 {
            return Err("an admin token has at least 32 characters".into());
        }
        let distinct: std::collections::BTreeSet<char> = token.chars().collect();
        if distinct.len() < MIN_DISTINCT {
            return Err(format!(
                "an admin token of {} different characters is guessable: use at least \
                 {MIN_DISTINCT} (delete the file and gyoku serve makes one)",
                distinct.len()
            ));
        }
        Ok(AdminToken(token))
    }

    /// A fresh token's text: 64 hex digits (256 bits) from the system's random source.
    ///
    /// # Errors
    /// When there is no random source.
    pub fn random_text() -> Result<String, String> {
        let mut raw = [0u8; 32];
        getrandom::fill(&mut raw).map_err(|e| format!("no random source: {e}"))?;
        Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Whether `given` is the token (their digests compared in constant time).
    pub fn admits(&self, given: &str) -> bool {
        let a = Blake2b512::digest(self.0.as_bytes());
        let b = Blake2b512::digest(given.as_bytes());
        a.iter()
            .zip(b.iter())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
    }
}

impl std::fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminToken(…)")
    }
}

/// `GET /api/events`: `{"events": [{"name", "game", "format", "status", "round",
/// "rounds"}]}`.
pub(super) async fn list_events(State(league): State<Arc<League>>) -> Json<Value> {
    let events = league.events();
    Json(json!({
        "events": events.iter().map(|e| json!({
            "name": e["name"],
            "game": e["game"],
            "format": e["format"],
            "status": e["status"],
            "round": e["round"],
            "rounds": e["rounds"],
        })).collect::<Vec<_>>(),
    }))
}

fn no_event(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no_such_event",
        format!(
            "there is no event '{}'",
            name.chars().take(64).collect::<String>()
        ),
    )
}

/// `GET /api/events/{name}`: the event ([`crate::event::view::to_json`]).
pub(super) async fn event(
    State(league): State<Arc<League>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    league
        .events()
        .iter()
        .find(|e| e["name"] == name.as_str())
        .cloned()
        .map(Json)
        .ok_or_else(|| no_event(&name))
}

/// What the admin endpoint uses: the options (its token, the body's bounds), the wrong
/// tries so far, the league (which events there are) and the seats (the driver the action
/// goes to).
#[derive(Clone)]
pub(super) struct AdminApi {
    options: Arc<HttpOptions>,
    admin: Arc<Admin>,
    league: Arc<League>,
    seats: Seats,
}

impl axum::extract::FromRef<AppState> for AdminApi {
    fn from_ref(state: &AppState) -> Self {
        AdminApi {
            options: Arc::clone(&state.options),
            admin: Arc::clone(&state.admin),
            league: Arc::clone(&state.league),
            seats: state.seats.clone(),
        }
    }
}

/// `POST /api/events/{name}/admin` with `Authorization: Bearer <token>` and a JSON body:
/// `{"action": "pause"}`, `{"action": "resume"}`, `{"action": "end", "reason"}` or
/// `{"action": "adjust", "round", "board", "result": "black"|"white"|"draw", "reason"}`.
/// Answers `{"ok": true, "status"}`; 401 `unauthorized` without the token or with another,
/// 403 `admin_off` when the server was started without one, 403 `cross_origin` from
/// another site's page, 409 `refused` when the event cannot do it now.
pub(super) async fn admin(
    State(AdminApi {
        options,
        admin,
        league,
        seats,
    }): State<AdminApi>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    check_token(
        options.admin_token.as_ref(),
        "the server was started without an admin token (gyoku serve --admin-token-file FILE)",
        &admin,
        peer,
        &headers,
    )?;
    let body: AdminBody = typed_body(&options, &headers, body).await?;
    let action = body.action()?;
    if !league.events().iter().any(|e| e["name"] == name.as_str()) {
        return Err(no_event(&name));
    }
    let answer = tokio::time::timeout(
        ADMIN_ANSWER,
        seats.play()?.driver().event_admin(name.clone(), action),
    )
    .await
    .ok()
    .flatten()
    .ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_answer",
            "the server did not answer in time; look at the event before trying again",
        )
    })?;
    let crate::lobby::Reply::EventAdmin(answer) = answer;
    match answer {
        Ok(status) => Ok(Json(json!({"ok": true, "status": status}))),
        Err(why) => Err(ApiError::new(StatusCode::CONFLICT, "refused", why)),
    }
}

/// `POST /api/events/{name}/admin`'s body: an action and what it needs.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AdminBody {
    /// `pause`, `resume`, `adjust` or `end`.
    action: Option<String>,
    /// Why (`adjust`, `end`): one line.
    reason: Option<String>,
    /// `black`, `white` or `draw` (`adjust`).
    result: Option<String>,
    /// The round and the board, from 1 (`adjust`).
    round: Option<u32>,
    board: Option<u32>,
}

impl Request for AdminBody {
    fn invalid(path: &str) -> ApiError {
        match path {
            "round" | "board" => number_needed(path),
            _ => ApiError::input("invalid_json", format!("{path}: a string was expected")),
        }
    }
}

/// 400 `invalid_json`: `key` is a number from 1.
fn number_needed(key: &str) -> ApiError {
    ApiError::input("invalid_json", format!("{key}: a number from 1"))
}

impl AdminBody {
    /// The action it asks for.
    fn action(&self) -> Result<EventAction, ApiError> {
        let reason = || -> Result<String, ApiError> {
            let r = self.reason.as_deref().unwrap_or("").trim();
            if r.is_empty() {
                return Err(ApiError::input("invalid_json", "reason: say why"));
            }
            if r.len() > MAX_REASON || r.chars().any(char::is_control) {
                return Err(ApiError::input(
                    "invalid_json",
                    format!("reason: one line of at most {MAX_REASON} bytes"),
                ));
            }
            Ok(r.to_string())
        };
        match self.action.as_deref() {
            Some("pause") => Ok(EventAction::Pause),
            Some("resume") => Ok(EventAction::Resume),
            Some("end") => Ok(EventAction::End { reason: reason()? }),
            Some("adjust") => {
                let result = self
                    .result
                    .as_deref()
                    .and_then(BoardResult::adjustable)
                    .ok_or_else(|| {
                        ApiError::input("invalid_json", "result: black, white or draw")
                    })?;
                Ok(EventAction::Adjust {
                    round: self.round.ok_or_else(|| number_needed("round"))?,
                    board: self.board.ok_or_else(|| number_needed("board"))?,
                    result,
                    reason: reason()?,
                })
            }
            _ => Err(ApiError::input(
                "invalid_json",
                "action: pause, resume, adjust or end",
            )),
        }
    }
}

/// The token of an `Authorization` header's value: the `Bearer` scheme (its name in any
/// case, as HTTP's schemes are), then the token.
/// Whether a request carries `token` (`Authorization: Bearer <token>`): 403 `admin_off`
/// (with `off`) when the server has none, 401 `unauthorized` without it or with another,
/// 429 `slow_down` while an address that sent wrong ones waits (after five, each try waits
/// longer, doubling to 30 s), as wrong passwords are.
pub(super) fn check_token(
    token: Option<&AdminToken>,
    off: &str,
    admin: &Admin,
    peer: SocketAddr,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let Some(token) = token else {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "admin_off", off));
    };
    let who = format!("operator's token from {}", peer.ip());
    let now = tokio::time::Instant::now();
    let wait = lock(&admin.tries).wait(peer.ip(), &who, now);
    if !wait.is_zero() {
        crate::metrics::get().throttle("admin");
        let seconds = wait.as_secs_f64().ceil().max(1.0);
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "slow_down",
            format!("too many wrong tokens from this address: try again in {seconds} s"),
        )
        .with("retry_after", json!(seconds)));
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer);
    if !given.is_some_and(|g| token.admits(g)) {
        if let Some(said) = lock(&admin.tries).failed(peer.ip(), &who, now) {
            tracing::warn!(peer = %peer, "{said}");
        }
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send the token as Authorization: Bearer <token>",
        ));
    }
    lock(&admin.tries).succeeded(peer.ip(), &who);
    Ok(())
}

/// `Bearer <token>`'s token.
pub(super) fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_of_few_characters_is_refused_and_the_scheme_read_in_any_case() {
        assert!(AdminToken::new("a".repeat(32)).is_err());
        assert!(AdminToken::new("ab".repeat(20)).is_err());
        assert!(AdminToken::new(AdminToken::random_text().unwrap()).is_ok());
        assert!(AdminToken::new("0123456789".repeat(4)).is_ok());
        for (value, token) in [
            ("Bearer abc", Some("abc")),
            ("bearer abc", Some("abc")),
            ("BEARER  abc ", Some("abc")),
            ("Basic abc", None),
            ("Bearer", None),
            ("Bearer ", None),
        ] {
            assert_eq!(bearer(value), token, "{value:?}");
        }
    }

    #[test]
    fn the_token_admits_itself_only_and_is_never_shown() {
        let text = "0123456789abcdef".repeat(3);
        let t = AdminToken::new(text.clone()).unwrap();
        assert!(t.admits(&text));
        assert!(!t.admits(&text[1..]));
        assert!(!t.admits(""));
        assert!(!format!("{t:?}").contains("0123"));
        assert!(AdminToken::new("short".into()).is_err());
    }

    /// A body read as the endpoint reads it: typed, then its action.
    fn action_of(body: &Value) -> Result<EventAction, ApiError> {
        serde_path_to_error::deserialize::<_, AdminBody>(body.clone())
            .map_err(|e| AdminBody::invalid(&e.path().to_string()))?
            .action()
    }

    #[test]
    fn actions_are_read_and_mistakes_named() {
        let a = action_of(&json!({"action": "adjust", "round": 2, "board": 1,
            "result": "draw", "reason": "agreed by both teams"}))
        .unwrap();
        assert_eq!(
            a,
            EventAction::Adjust {
                round: 2,
                board: 1,
                result: BoardResult::Draw,
                reason: "agreed by both teams".into()
            }
        );
        for bad in [
            json!({"action": "adjust", "round": 2, "board": 1, "result": "draw"}),
            json!({"action": "adjust", "round": 0.5, "board": 1, "result": "draw", "reason": "x"}),
            json!({"action": "adjust", "round": 1, "board": 1, "result": "both_absent", "reason": "x"}),
            json!({"action": "end", "reason": "two\nlines"}),
            json!({"action": "restart"}),
            json!({"action": 5}),
        ] {
            assert!(action_of(&bad).is_err(), "{bad}");
        }
        // A number of the wrong shape is named as the number it should be.
        let e = action_of(&json!({"action": "adjust", "round": "two"})).unwrap_err();
        assert!(format!("{e:?}").contains("round: a number from 1"), "{e:?}");
    }
}
