//! The web session a request carries: its cookie's secret, and the account it is for.

use axum::http::{HeaderMap, header};

use super::error::ApiError;
use super::state::Seats;
use crate::web_accounts::SESSION_COOKIE;

/// The session secret the request's cookie carries.
pub(super) fn session_secret(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.trim().to_string())
}

/// The account the request's session is for: `None` for a guest (no cookie, or one that
/// has expired or was let go), or on a server that keeps no accounts.
pub(super) async fn session_account(
    seats: &Seats,
    headers: &HeaderMap,
) -> Result<Option<String>, ApiError> {
    let (Some(secret), Ok(play)) = (session_secret(headers), seats.play()) else {
        return Ok(None);
    };
    match play.accounts() {
        Some(accounts) => Ok(accounts.who(&secret).await?),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_session_is_read_from_the_cookie_header() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("theme=dark; gyoku_session=abc123 ; other=1"),
        );
        assert_eq!(session_secret(&h).as_deref(), Some("abc123"));
        assert_eq!(session_secret(&HeaderMap::new()), None);
    }
}
