//! Secrets: random 128-bit tokens, kept only as digests and compared in constant time; and
//! the tickets with which an engine the web page puts on the CSA port logs in under a web
//! player's name (`builtin@web12w`). Such names are the web page's: the CSA port refuses
//! them without a ticket, so no CSA client can take a seat's name first.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use blake2::Blake2b;
use blake2::digest::Digest;
use blake2::digest::consts::U32;

/// A secret's digest: what is kept and compared, never the secret itself.
pub type SecretDigest = [u8; 32];

/// A new secret: 128 random bits as 32 hex digits.
///
/// # Panics
/// When the system has no randomness to give (a server cannot hand out secrets then).
pub fn new_secret() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's randomness");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of `secret`.
pub fn digest(secret: &str) -> SecretDigest {
    Blake2b::<U32>::digest(secret.as_bytes()).into()
}

/// Whether two digests are equal, in time that does not depend on where they differ.
pub fn same_digest(a: &SecretDigest, b: &SecretDigest) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `name` is a web player's (`…@web…`): such names log in on the CSA port only
/// with a ticket.
pub fn is_web_name(name: &str) -> bool {
    name.contains("@web")
}

/// How long a ticket lasts.
pub const TICKET_LIFE: Duration = Duration::from_secs(6 * 3600);

/// Tickets kept at once; the oldest goes first.
pub const MAX_TICKETS: usize = 4096;

/// The tickets given out: a name and its secret's digest, until it expires or is revoked.
#[derive(Debug, Default)]
pub struct Tickets {
    by_name: HashMap<String, (SecretDigest, Instant)>,
}

impl Tickets {
    /// A ticket for `name` (replacing any earlier one): the secret to log in with.
    pub fn issue(&mut self, name: &str, now: Instant) -> String {
        self.by_name
            .retain(|_, (_, issued)| now.duration_since(*issued) < TICKET_LIFE);
        if self.by_name.len() >= MAX_TICKETS
            && let Some(oldest) = self
                .by_name
                .iter()
                .min_by_key(|(_, (_, issued))| *issued)
                .map(|(n, _)| n.clone())
        {
            self.by_name.remove(&oldest);
        }
        let secret = new_secret();
        self.by_name
            .insert(name.to_string(), (digest(&secret), now));
        secret
    }

    /// Whether `secret` is `name`'s ticket, still valid.
    pub fn admits(&self, name: &str, secret: &str, now: Instant) -> bool {
        self.by_name.get(name).is_some_and(|(d, issued)| {
            now.duration_since(*issued) < TICKET_LIFE && same_digest(d, &digest(secret))
        })
    }

    /// `name`'s ticket is no longer good.
    pub fn revoke(&mut self, name: &str) {
        self.by_name.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_128_random_bits() {
        let a = new_secret();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, new_secret());
        assert!(same_digest(&digest(&a), &digest(&a)));
        assert!(!same_digest(&digest(&a), &digest(&new_secret())));
    }

    #[test]
    fn a_ticket_admits_its_name_only_until_it_expires() {
        let mut t = Tickets::default();
        let now = Instant::now();
        let secret = t.issue("builtin@web3w", now);
        assert!(t.admits("builtin@web3w", &secret, now));
        assert!(!t.admits("builtin@web3w", "guess", now));
        assert!(!t.admits("other@web3w", &secret, now));
        assert!(!t.admits("builtin@web3w", &secret, now + TICKET_LIFE));
        t.revoke("builtin@web3w");
        assert!(!t.admits("builtin@web3w", &secret, now));
    }

    #[test]
    fn tickets_are_bounded() {
        let mut t = Tickets::default();
        let now = Instant::now();
        let first = t.issue("a@web0b", now);
        for i in 1..=MAX_TICKETS {
            t.issue(&format!("a@web{i}b"), now + Duration::from_millis(i as u64));
        }
        assert_eq!(t.by_name.len(), MAX_TICKETS);
        assert!(!t.admits("a@web0b", &first, now));
    }

    #[test]
    fn web_names() {
        assert!(is_web_name("guest@web12b"));
        assert!(!is_web_name("alice"));
        assert!(!is_web_name("gps@home"));
    }
}
