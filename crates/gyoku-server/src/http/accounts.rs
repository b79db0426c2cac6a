//! People's accounts on the page: `POST /api/accounts` registers (`{"name", "password"}`)
//! and logs in, `POST /api/session` logs in, `GET /api/session` says who is logged in,
//! `DELETE /api/session` logs out, `POST /api/account/password` changes the password
//! (`{"password", "new_password"}`). A session is a cookie (`HttpOnly`, `SameSite=Lax`,
//! `Secure` when the page is reached over HTTPS); acting requests pass the origin checks
//! every acting request passes.

use axum::Json;
use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::body::{Request, typed_body};
use super::error::ApiError;
use super::seats::SeatApi;
use super::session::session_secret;
use crate::web_accounts::{AccountError, SESSION_COOKIE, SESSION_LIFETIME, Session, WebAccounts};

/// The body of registering, logging in.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Credentials {
    name: String,
    password: String,
}

impl Request for Credentials {}

/// The body of changing a password.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NewPassword {
    password: String,
    new_password: String,
}

impl Request for NewPassword {}

/// The accounts, where this server keeps them.
fn accounts(api: &SeatApi) -> Result<&WebAccounts, ApiError> {
    api.play()?.accounts().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no_accounts",
            "this server keeps no accounts",
        )
    })
}

impl From<AccountError> for ApiError {
    fn from(e: AccountError) -> ApiError {
        let message = e.to_string();
        match e {
            AccountError::BadName => ApiError::input("invalid_name", message),
            AccountError::BadPassword => ApiError::input("invalid_password", message),
            AccountError::Taken => ApiError::new(StatusCode::CONFLICT, "name_taken", message),
            AccountError::Wrong => {
                ApiError::new(StatusCode::UNAUTHORIZED, "wrong_password", message)
            }
            AccountError::TooMany(wait) | AccountError::Slowed(wait) => {
                ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many", message)
                    .with("retry_after", json!(wait.as_secs().max(1)))
            }
            AccountError::Busy => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", message),
            AccountError::Store(e) => ApiError::from(e),
        }
    }
}

/// Whether the page was reached over HTTPS (its `Origin`, or a proxy's
/// `X-Forwarded-Proto`): the cookie is `Secure` then.
fn over_https(headers: &HeaderMap) -> bool {
    let said = |name: &str, prefix: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim().to_ascii_lowercase().starts_with(prefix))
    };
    said("origin", "https://") || said("x-forwarded-proto", "https")
}

/// The `Set-Cookie` that opens a session (`secret`), or (`None`) ends one.
fn cookie(secret: Option<&str>, headers: &HeaderMap) -> HeaderValue {
    let (value, age) = match secret {
        Some(s) => (s, SESSION_LIFETIME.as_secs()),
        None => ("", 0),
    };
    let secure = if over_https(headers) { "; Secure" } else { "" };
    let text =
        format!("{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={age}{secure}");
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// An answer naming the session's account, with its cookie.
fn logged_in(status: StatusCode, session: &Session, headers: &HeaderMap) -> Response {
    let mut r = (status, Json(json!({ "name": session.name }))).into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, cookie(Some(&session.secret), headers));
    r
}

/// `POST /api/accounts` with `{"name", "password"}`: registers the name (1 to 24 letters,
/// digits or `_`; a password of at least 8 characters) and logs in: 201 `{"name"}` and
/// the session's cookie. 409 `name_taken`, 429 `too_many` (new accounts from one address
/// are paced: `retry_after` seconds).
pub(super) async fn register(
    State(api): State<SeatApi>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let accounts = accounts(&api)?;
    let body: Credentials = typed_body(api.options(), &headers, body).await?;
    let session = accounts
        .register(&body.name, &body.password, peer.ip())
        .await?;
    Ok(logged_in(StatusCode::CREATED, &session, &headers))
}

/// `POST /api/session` with `{"name", "password"}`: logs in: `{"name"}` and the session's
/// cookie. 401 `wrong_password`; 429 `too_many` after many wrong ones.
pub(super) async fn log_in(
    State(api): State<SeatApi>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let accounts = accounts(&api)?;
    let body: Credentials = typed_body(api.options(), &headers, body).await?;
    let session = accounts
        .log_in(&body.name, &body.password, peer.ip())
        .await?;
    Ok(logged_in(StatusCode::OK, &session, &headers))
}

/// `GET /api/session`: `{"name"}`, the account logged in (null for a guest), and
/// `accounts`: whether this server keeps accounts.
pub(super) async fn session(
    State(api): State<SeatApi>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, ApiError> {
    let keeps = api.play().is_ok_and(|p| p.accounts().is_some());
    let name = super::session::session_account(api.seats(), &headers).await?;
    Ok(Json(json!({ "name": name, "accounts": keeps })))
}

/// `DELETE /api/session`: logs out (the session ends on the server, the cookie is
/// cleared): 204.
pub(super) async fn log_out(
    State(api): State<SeatApi>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(secret) = session_secret(&headers) {
        accounts(&api)?.log_out(&secret).await?;
    }
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, cookie(None, &headers));
    Ok(r)
}

/// `POST /api/account/password` with `{"password", "new_password"}`: the logged-in
/// account's password changes (the account's other sessions end): `{"name"}`. 401
/// `wrong_password` without a session or with a wrong password.
pub(super) async fn change_password(
    State(api): State<SeatApi>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<serde_json::Value>, ApiError> {
    let accounts = accounts(&api)?;
    let body: NewPassword = typed_body(api.options(), &headers, body).await?;
    let secret = session_secret(&headers).ok_or(AccountError::Wrong)?;
    let name = accounts
        .change_password(&secret, (&body.password, &body.new_password), peer.ip())
        .await?;
    Ok(Json(json!({ "name": name })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_http_only_lax_and_secure_over_https() {
        let mut h = HeaderMap::new();
        let plain = cookie(Some("s"), &h);
        let plain = plain.to_str().unwrap();
        assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Lax"));
        assert!(!plain.contains("Secure"));
        h.insert("origin", HeaderValue::from_static("https://shogi.example"));
        assert!(
            cookie(Some("s"), &h)
                .to_str()
                .unwrap()
                .ends_with("; Secure")
        );
        assert!(cookie(None, &h).to_str().unwrap().contains("Max-Age=0"));
    }
}
