//! Names and passwords: a name is bound to the password it first logged in with, stored as
//! an argon2id hash with a random salt. A name that logged in without a password (CSA mode
//! with only a game name, as shogi-server allows) stays unbound, and cannot take a name
//! that is bound.

use std::sync::{Arc, Mutex};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use blake2::Blake2bMac;
use blake2::digest::consts::U16;
use blake2::digest::{KeyInit, Mac};
use md5::{Digest, Md5};

use crate::store::{Passwords, StoreError};

/// Hashes a password with argon2id and a fresh random salt (PHC string).
///
/// # Errors
/// When the system has no randomness to give.
pub fn hash_password(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| format!("no randomness for a salt: {e}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `password` matches a stored PHC hash.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// shogi-server's rating id, `name+md5(password)`: unsalted, so anyone who sees it can test
/// passwords against it. Written only when the operator asks (`--md5-rating-ids`, for
/// shogi-server's own test suite).
///
/// ```
/// assert_eq!(
///     gyoku_server::accounts::md5_rating_id("a", "dummy"),
///     "a+275876e34cf609db118f3d84b799a790"
/// );
/// ```
pub fn md5_rating_id(name: &str, password: &str) -> String {
    format!("{name}+{}", hex(&Md5::digest(password.as_bytes())))
}

/// Gyoku's rating id: `name+` and 32 hex digits of a BLAKE2b MAC of the name and password
/// under the server's own secret key. The same player gets the same id on one server (the
/// key is kept in its database); nothing about the password can be learnt from it without
/// the key, and it differs from server to server.
///
/// ```
/// use gyoku_server::accounts::keyed_rating_id;
/// let id = keyed_rating_id("a", "dummy", &[7; 32]);
/// assert!(id.starts_with("a+") && id.len() == 2 + 32);
/// assert_eq!(id, keyed_rating_id("a", "dummy", &[7; 32]));
/// assert_ne!(id, keyed_rating_id("a", "dummy", &[8; 32]));
/// assert_ne!(id, gyoku_server::accounts::md5_rating_id("a", "dummy"));
/// ```
pub fn keyed_rating_id(name: &str, password: &str, key: &[u8; 32]) -> String {
    let mut mac = <Blake2bMac<U16> as KeyInit>::new_from_slice(key).expect("a 32-byte key fits");
    // The name's length first, so that no other name and password give the same bytes.
    mac.update(&(name.len() as u64).to_le_bytes());
    mac.update(name.as_bytes());
    mac.update(password.as_bytes());
    format!("{name}+{}", hex(&mac.finalize().into_bytes()))
}

/// How a server makes rating ids.
#[derive(Clone, Debug)]
enum RatingIds {
    /// Keyed by the server's secret.
    Keyed([u8; 32]),
    /// shogi-server's `name+md5(password)`.
    Md5,
}

/// The accounts, on their own database connection (checked on the connection's task, not
/// the referee's).
#[derive(Clone, Debug)]
pub struct Accounts {
    store: Arc<Mutex<Box<dyn Passwords>>>,
    rating_ids: Arc<RatingIds>,
}

/// The name of the rating ids' key among the server's secrets.
const RATING_KEY: &str = "rating_id_key";

impl Accounts {
    /// Accounts stored in `store`, making rating ids with the server's key (made and kept
    /// in the database the first time), or shogi-server's `md5` ones when asked.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails, or the system has no randomness for a key.
    pub fn new(
        mut store: Box<dyn Passwords>,
        md5_rating_ids: bool,
    ) -> Result<Accounts, StoreError> {
        let rating_ids = if md5_rating_ids {
            RatingIds::Md5
        } else {
            let mut fresh = [0u8; 32];
            getrandom::fill(&mut fresh)
                .map_err(|e| StoreError(format!("no randomness for a key: {e}")))?;
            let kept = store.secret(RATING_KEY, &hex(&fresh))?;
            let mut key = [0u8; 32];
            for (i, byte) in key.iter_mut().enumerate() {
                *byte = kept
                    .get(2 * i..2 * i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| StoreError(format!("the stored {RATING_KEY} does not read")))?;
            }
            RatingIds::Keyed(key)
        };
        Ok(Accounts {
            store: Arc::new(Mutex::new(store)),
            rating_ids: Arc::new(rating_ids),
        })
    }

    /// The public rating id of `name` logged in with `password` (in `'rating:` record
    /// lines).
    pub fn rating_id(&self, name: &str, password: &str) -> String {
        match &*self.rating_ids {
            RatingIds::Keyed(key) => keyed_rating_id(name, password, key),
            RatingIds::Md5 => md5_rating_id(name, password),
        }
    }

    /// Checks `name` with `password` (empty: none given), binding the name on its first
    /// login with a password. Blocking: call it off the async threads.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub fn check(&self, name: &str, password: &str, now: &str) -> Result<bool, StoreError> {
        let bound = self.lock().password_hash(name)?;
        match (bound, password.is_empty()) {
            (Some(hash), false) => Ok(verify_password(password, &hash)),
            (Some(_), true) => Ok(false),
            (None, true) => Ok(true),
            (None, false) => {
                let hash = hash_password(password).map_err(StoreError)?;
                let bound = self.lock().bind_password(name, &hash, now)?;
                // Someone may have bound the name between the two statements.
                Ok(bound == hash || verify_password(password, &bound))
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn Passwords>> {
        self.store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_password_binds_the_name() {
        let a = Accounts::new(
            Box::new(crate::store::SqliteStore::open_memory().unwrap()),
            false,
        )
        .unwrap();
        assert!(a.check("p", "one", "t").unwrap());
        assert!(a.check("p", "one", "t").unwrap());
        assert!(!a.check("p", "two", "t").unwrap());
        assert!(!a.check("p", "", "t").unwrap());
        assert!(a.check("q", "", "t").unwrap());
        assert!(a.check("q", "later", "t").unwrap());
    }

    #[test]
    fn hashes_are_salted() {
        let h1 = hash_password("x").unwrap();
        let h2 = hash_password("x").unwrap();
        assert_ne!(h1, h2);
        assert!(verify_password("x", &h1) && verify_password("x", &h2));
        assert!(h1.starts_with("$argon2id$"));
    }
}
