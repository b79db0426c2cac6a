//! Names and passwords: a name is bound to the password it first logged in with, stored as
//! an argon2id hash with a random salt. A name that logged in without a password (CSA mode
//! with only a game name, as shogi-server allows) stays unbound, and cannot take a name
//! that is bound.

use std::sync::{Arc, Mutex};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
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

/// shogi-server's rating id: `name+md5(password)` (Floodgate's public player id; not a
/// secret and not used to check anything).
///
/// ```
/// assert_eq!(
///     gyoku_server::accounts::rating_id("a", "dummy"),
///     "a+275876e34cf609db118f3d84b799a790"
/// );
/// ```
pub fn rating_id(name: &str, password: &str) -> String {
    let digest = Md5::digest(password.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}+{hex}")
}

/// The accounts, on their own database connection (checked on the connection's task, not
/// the referee's).
#[derive(Clone, Debug)]
pub struct Accounts {
    store: Arc<Mutex<Box<dyn Passwords>>>,
}

impl Accounts {
    /// Accounts stored in `store`.
    pub fn new(store: Box<dyn Passwords>) -> Accounts {
        Accounts {
            store: Arc::new(Mutex::new(store)),
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
        let a = Accounts::new(Box::new(crate::store::SqliteStore::open_memory().unwrap()));
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
