//! People's accounts on the web page: registering, logging in and out, the session a
//! browser keeps in a cookie, and changing a password. The accounts are the CSA port's
//! (one `players` table, argon2id): a name registered here logs in there with the same
//! password, and the other way round.
//!
//! A session's secret (128 random bits) lives only in the browser's cookie; the database
//! keeps its digest, so a copy of the database opens no session. Registering is paced by
//! address as the CSA port's new names are, wrong passwords slowed as there, and every
//! hash made on the server's password threads.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::accounts::Accounts;
use crate::csa_port::Limits;
use crate::store::{NewSession, StoreError};
use crate::tickets::{digest, hex, new_secret};

/// The cookie a logged-in browser keeps its session in.
pub const SESSION_COOKIE: &str = "gyoku_session";

/// How long a session lasts after logging in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// The shortest password an account takes, in characters.
pub const MIN_PASSWORD: usize = 8;

/// The longest password, in bytes (a hash's input is bounded).
pub const MAX_PASSWORD: usize = 256;

/// The longest account name: as long as a name a CSA record carries.
pub const MAX_NAME: usize = 24;

/// Why an account's request was refused.
#[derive(Debug)]
pub enum AccountError {
    /// The name is not 1 to [`MAX_NAME`] letters, digits or `_`.
    BadName,
    /// The password is shorter than [`MIN_PASSWORD`] or longer than [`MAX_PASSWORD`].
    BadPassword,
    /// The name is someone's account already (or an event's seat).
    Taken,
    /// The name and password do not match an account (or the session is not one).
    Wrong,
    /// Too many new accounts from this address for now: this long until another.
    TooMany(Duration),
    /// Too many wrong passwords: this long until the next try.
    Slowed(Duration),
    /// The password threads are busy.
    Busy,
    /// The database failed.
    Store(StoreError),
}

impl std::fmt::Display for AccountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AccountError::BadName => write!(
                f,
                "a name is 1 to {MAX_NAME} letters (a-z, A-Z), digits or _"
            ),
            AccountError::BadPassword => write!(
                f,
                "a password is at least {MIN_PASSWORD} characters and at most {MAX_PASSWORD} bytes"
            ),
            AccountError::Taken => f.write_str("that name is taken"),
            AccountError::Wrong => f.write_str("no account has that name and password"),
            AccountError::TooMany(wait) => write!(
                f,
                "too many new accounts from your address; try again in {} min",
                wait.as_secs().div_ceil(60).max(1)
            ),
            AccountError::Slowed(wait) => write!(
                f,
                "too many wrong passwords; try again in {} s",
                wait.as_secs().max(1)
            ),
            AccountError::Busy => f.write_str("the server is busy; try again in a moment"),
            AccountError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl From<StoreError> for AccountError {
    fn from(e: StoreError) -> AccountError {
        AccountError::Store(e)
    }
}

/// A session opened: the account's name, and the secret for the browser's cookie.
#[derive(Debug)]
pub struct Session {
    /// The account.
    pub name: String,
    /// The cookie's value (never logged, never stored).
    pub secret: String,
}

/// Whether `name` may be an account's: 1 to [`MAX_NAME`] ASCII letters, digits or `_` (what
/// a CSA record and a Game_Summary carry unchanged).
///
/// ```
/// use gyoku_server::web_accounts::valid_name;
/// assert!(valid_name("taro_2"));
/// assert!(!valid_name("") && !valid_name("名人") && !valid_name("a b"));
/// ```
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `password` may be an account's.
pub fn valid_password(password: &str) -> bool {
    password.chars().count() >= MIN_PASSWORD && password.len() <= MAX_PASSWORD
}

/// The accounts as the web page reaches them.
#[derive(Clone)]
pub struct WebAccounts {
    accounts: Accounts,
    limits: Arc<Limits>,
}

impl std::fmt::Debug for WebAccounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebAccounts")
    }
}

/// Now as stored: the time as text, and Unix milliseconds.
fn now() -> (String, i64) {
    let at = chrono::Local::now();
    (
        at.format("%Y/%m/%d %H:%M:%S").to_string(),
        at.timestamp_millis(),
    )
}

/// A session secret's digest as stored; `None` for what cannot be a secret (32 hex digits).
fn session_digest(secret: &str) -> Option<String> {
    (secret.len() == 32 && secret.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| hex(&digest(secret)))
}

impl WebAccounts {
    /// The accounts, hashed on `limits`' password threads and paced by its counts.
    pub(crate) fn new(accounts: Accounts, limits: Arc<Limits>) -> WebAccounts {
        WebAccounts { accounts, limits }
    }

    /// Runs `f` on a password thread.
    async fn hashing<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Accounts) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, AccountError> {
        let accounts = self.accounts.clone();
        let _place = self
            .limits
            .checking
            .try_acquire()
            .map_err(|_| AccountError::Busy)?;
        match self.limits.hash_pool.run(move || f(&accounts)).await {
            None => Err(AccountError::Busy),
            Some(r) => Ok(r?),
        }
    }

    /// Runs `f` (a read or a write, no hash) off the async threads.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Accounts) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, AccountError> {
        let accounts = self.accounts.clone();
        tokio::task::spawn_blocking(move || f(&accounts))
            .await
            .map_err(|e| AccountError::Store(StoreError::Internal(e.to_string())))?
            .map_err(AccountError::Store)
    }

    /// Opens a session for `name`.
    async fn open(&self, name: String) -> Result<Session, AccountError> {
        let secret = new_secret();
        let stored = hex(&digest(&secret));
        let who = name.clone();
        self.blocking(move |a| {
            let (at, now_ms) = now();
            let lifetime = i64::try_from(SESSION_LIFETIME.as_millis()).unwrap_or(i64::MAX);
            a.store().open_session(&NewSession {
                digest: &stored,
                name: &who,
                now: &at,
                now_ms,
                expires_ms: now_ms.saturating_add(lifetime),
            })
        })
        .await?;
        Ok(Session { name, secret })
    }

    /// Registers `name` with `password` for a person at `address`, and logs them in.
    ///
    /// # Errors
    /// [`AccountError`]: a bad name or password, a name taken, too many from the address.
    pub async fn register(
        &self,
        name: &str,
        password: &str,
        address: IpAddr,
    ) -> Result<Session, AccountError> {
        if !valid_name(name) {
            return Err(AccountError::BadName);
        }
        if !valid_password(password) {
            return Err(AccountError::BadPassword);
        }
        let who = name.to_string();
        if self.blocking(move |a| a.is_bound(&who)).await? {
            return Err(AccountError::Taken);
        }
        // Counted before the hash: a crowd of new names costs a read each.
        self.limits
            .new_names
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take(address, Instant::now())
            .map_err(AccountError::TooMany)?;
        let (who, pw) = (name.to_string(), password.to_string());
        let bound = self
            .hashing(move |a| a.register(&who, &pw, &now().0))
            .await?;
        if !bound {
            return Err(AccountError::Taken);
        }
        self.open(name.to_string()).await
    }

    /// Logs `name` in with `password`, from `address`.
    ///
    /// # Errors
    /// [`AccountError::Wrong`], [`AccountError::Slowed`] after many wrong tries.
    pub async fn log_in(
        &self,
        name: &str,
        password: &str,
        address: IpAddr,
    ) -> Result<Session, AccountError> {
        if !valid_name(name) || password.is_empty() || password.len() > MAX_PASSWORD {
            return Err(AccountError::Wrong);
        }
        self.checked(name, password, address).await?;
        self.open(name.to_string()).await
    }

    /// Checks `name`'s password, slowed after wrong ones as the CSA port's logins are.
    async fn checked(
        &self,
        name: &str,
        password: &str,
        address: IpAddr,
    ) -> Result<(), AccountError> {
        let wait = self
            .limits
            .throttle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .wait(address, name, Instant::now());
        if !wait.is_zero() {
            crate::metrics::get().throttle("web_login");
            return Err(AccountError::Slowed(wait));
        }
        let (who, pw) = (name.to_string(), password.to_string());
        let right = self.hashing(move |a| a.verify(&who, &pw)).await?;
        let mut throttle = self
            .limits
            .throttle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if right {
            throttle.succeeded(address, name);
            Ok(())
        } else {
            if let Some(line) = throttle.failed(address, name, Instant::now()) {
                tracing::warn!("web page: {line}");
            }
            Err(AccountError::Wrong)
        }
    }

    /// The account a session's secret is for, while it lasts.
    ///
    /// # Errors
    /// [`AccountError::Store`].
    pub async fn who(&self, secret: &str) -> Result<Option<String>, AccountError> {
        let Some(stored) = session_digest(secret) else {
            return Ok(None);
        };
        self.blocking(move |a| a.store().session_name(&stored, now().1))
            .await
    }

    /// Lets go of a session.
    ///
    /// # Errors
    /// [`AccountError::Store`].
    pub async fn log_out(&self, secret: &str) -> Result<(), AccountError> {
        let Some(stored) = session_digest(secret) else {
            return Ok(());
        };
        self.blocking(move |a| a.store().end_session(&stored)).await
    }

    /// Changes the password of the session's account, given its password now; the
    /// account's other sessions end (this one goes on).
    ///
    /// # Errors
    /// [`AccountError::Wrong`] for a session that is not one or a wrong password,
    /// [`AccountError::BadPassword`] for a new one too short or too long.
    pub async fn change_password(
        &self,
        secret: &str,
        (password, new): (&str, &str),
        address: IpAddr,
    ) -> Result<String, AccountError> {
        let name = self.who(secret).await?.ok_or(AccountError::Wrong)?;
        if !valid_password(new) {
            return Err(AccountError::BadPassword);
        }
        self.checked(&name, password, address).await?;
        let keep = session_digest(secret).unwrap_or_default();
        let (who, pw) = (name.clone(), new.to_string());
        if self
            .hashing(move |a| a.set_password(&who, &pw, &keep))
            .await?
        {
            Ok(name)
        } else {
            Err(AccountError::Wrong)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_secrets_are_read_only_when_they_can_be_one() {
        let secret = new_secret();
        assert_eq!(session_digest(&secret), Some(hex(&digest(&secret))));
        assert_eq!(session_digest(""), None);
        assert_eq!(session_digest("../../etc/passwd"), None);
        assert_eq!(session_digest(&"g".repeat(32)), None);
    }

    #[test]
    fn names_and_passwords_are_bounded() {
        assert!(valid_name(&"a".repeat(MAX_NAME)) && !valid_name(&"a".repeat(MAX_NAME + 1)));
        assert!(!valid_password("short") && valid_password("long enough"));
        assert!(valid_password("パスワードです。長い") && !valid_password(&"x".repeat(257)));
    }
}
