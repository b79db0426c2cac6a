//! Secrets: random 128-bit tokens, kept only as digests and compared in constant time; and
//! the tickets with which an engine the web page puts on the CSA port logs in as the
//! player the page made it ([`Identity::Engine`]): the ticket says who it is, not its name.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use blake2::Blake2b;
use blake2::digest::Digest;
use blake2::digest::consts::U32;

use crate::identity::Identity;

/// A secret's digest: what is kept and compared, never the secret itself.
pub type SecretDigest = [u8; 32];

/// `bytes` as lower-case hex digits.
///
/// ```
/// assert_eq!(gyoku_server::tickets::hex(&[0x0f, 0xa0]), "0fa0");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 32 bytes from exactly 64 hex digits (a digest or a key as written).
///
/// ```
/// use gyoku_server::tickets::{from_hex32, hex};
/// assert_eq!(from_hex32(&hex(&[7; 32])), Some([7; 32]));
/// assert_eq!(from_hex32("07"), None);
/// ```
pub fn from_hex32(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// A new secret: 128 random bits as 32 hex digits.
///
/// # Panics
/// When the system has no randomness to give (a server cannot hand out secrets then).
pub fn new_secret() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's randomness");
    hex(&bytes)
}

/// The digest of `secret`.
pub fn digest(secret: &str) -> SecretDigest {
    Blake2b::<U32>::digest(secret.as_bytes()).into()
}

/// Whether two digests are equal, in time that does not depend on where they differ.
pub fn same_digest(a: &SecretDigest, b: &SecretDigest) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The secret that reaches one of the web page's seats (128 random bits): handed once to
/// the person it is for (and, for an invitation, shown to who made it, for the link); the
/// seat keeps only its digest. Its `Debug` shows none of it.
///
/// ```
/// use gyoku_server::tickets::{SeatToken, digest};
/// let token = SeatToken::new();
/// assert_eq!(token.reveal().len(), 32);
/// assert_eq!(token.digest(), digest(token.reveal()));
/// assert_eq!(format!("{token:?}"), "SeatToken(…)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SeatToken(String);

impl SeatToken {
    /// A new token.
    ///
    /// # Panics
    /// As [`new_secret`].
    #[allow(clippy::new_without_default)]
    pub fn new() -> SeatToken {
        SeatToken(new_secret())
    }

    /// What the seat keeps.
    pub fn digest(&self) -> SecretDigest {
        digest(&self.0)
    }

    /// The secret itself, to hand to the person it is for.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SeatToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatToken(…)")
    }
}

/// How long a ticket lasts.
pub const TICKET_LIFE: Duration = Duration::from_secs(6 * 3600);

/// Tickets kept at once; the oldest goes first.
pub const MAX_TICKETS: usize = 4096;

/// The tickets given out: each secret's digest, the player it admits, and when it was
/// given, until it expires or is revoked. Who logs in with one is that player, whatever
/// else says the same name.
#[derive(Debug, Default)]
pub struct Tickets {
    by_digest: HashMap<SecretDigest, (Identity, Instant)>,
}

impl Tickets {
    /// A ticket for `who` (replacing any earlier one of theirs): the secret to log in with.
    pub fn issue(&mut self, who: Identity, now: Instant) -> String {
        self.by_digest
            .retain(|_, (w, issued)| now.duration_since(*issued) < TICKET_LIFE && *w != who);
        if self.by_digest.len() >= MAX_TICKETS
            && let Some(oldest) = self
                .by_digest
                .iter()
                .min_by_key(|(_, (_, issued))| *issued)
                .map(|(d, _)| *d)
        {
            self.by_digest.remove(&oldest);
        }
        let secret = new_secret();
        self.by_digest.insert(digest(&secret), (who, now));
        secret
    }

    /// The player `secret` is a ticket for, still valid, when `name` is the name it is
    /// shown by (a ticket is not lent to another name).
    pub fn admits(&self, name: &str, secret: &str, now: Instant) -> Option<Identity> {
        let (who, issued) = self.by_digest.get(&digest(secret))?;
        (now.duration_since(*issued) < TICKET_LIFE && who.shown() == name).then(|| who.clone())
    }

    /// `who`'s ticket is no longer good.
    pub fn revoke(&mut self, who: &Identity) {
        self.by_digest.retain(|_, (w, _)| w != who);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::SeatId;
    use gyoku::Color;

    #[test]
    fn secrets_are_128_random_bits() {
        let a = new_secret();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, new_secret());
        assert!(same_digest(&digest(&a), &digest(&a)));
        assert!(!same_digest(&digest(&a), &digest(&new_secret())));
    }

    fn engine(game: u64) -> Identity {
        Identity::Engine {
            seat: SeatId {
                game,
                color: Color::White,
            },
            engine: "builtin".into(),
        }
    }

    #[test]
    fn a_ticket_admits_its_player_only_until_it_expires() {
        let mut t = Tickets::default();
        let now = Instant::now();
        let secret = t.issue(engine(3), now);
        assert_eq!(t.admits("builtin", &secret, now), Some(engine(3)));
        assert_eq!(t.admits("builtin", "guess", now), None);
        assert_eq!(t.admits("other", &secret, now), None);
        assert_eq!(t.admits("builtin", &secret, now + TICKET_LIFE), None);
        // A second ticket for the same player replaces the first.
        let again = t.issue(engine(3), now);
        assert_eq!(t.admits("builtin", &secret, now), None);
        assert_eq!(t.admits("builtin", &again, now), Some(engine(3)));
        t.revoke(&engine(3));
        assert_eq!(t.admits("builtin", &again, now), None);
    }

    #[test]
    fn tickets_are_bounded() {
        let mut t = Tickets::default();
        let now = Instant::now();
        let first = t.issue(engine(0), now);
        for i in 1..=MAX_TICKETS {
            t.issue(engine(i as u64), now + Duration::from_millis(i as u64));
        }
        assert_eq!(t.by_digest.len(), MAX_TICKETS);
        assert_eq!(t.admits("builtin", &first, now), None);
    }
}
