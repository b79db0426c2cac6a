//! What a web instance's relayed request carries ([`super::relay`]): the deployment's relay
//! secret, and the headers that carry it and the client's address. Read by the guard (on
//! the referee) and by the relay (on a web instance).

use axum::http::HeaderName;

/// The name the relay secret is kept under in the database's secrets: made by the first
/// instance to start, read by every other.
pub const RELAY_SECRET_NAME: &str = "relay";

/// The header carrying the relay secret on a relayed request.
pub(crate) const RELAY: HeaderName = HeaderName::from_static("x-gyoku-relay");

/// The header carrying the client's address on a relayed request.
pub(crate) const CLIENT: HeaderName = HeaderName::from_static("x-gyoku-client");

/// The deployment's relay secret: 128 random bits kept in the database (made by the first
/// instance to start). Never shown.
#[derive(Clone)]
pub struct RelaySecret(String);

impl RelaySecret {
    /// The secret `text` (32 hex digits).
    pub fn new(text: String) -> RelaySecret {
        RelaySecret(text)
    }

    /// The secret's text, for the header that carries it.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }

    /// Whether `given` is the secret (compared in constant time).
    pub(crate) fn admits(&self, given: &[u8]) -> bool {
        let mine = self.0.as_bytes();
        mine.len() == given.len()
            && mine
                .iter()
                .zip(given)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

impl std::fmt::Debug for RelaySecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RelaySecret(..)")
    }
}
