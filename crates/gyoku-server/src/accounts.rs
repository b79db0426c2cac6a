//! Names and passwords: a name is bound to the password it first logged in with, stored as
//! an argon2id hash with a random salt. A name that logged in without a password (CSA mode
//! with only a game name, as shogi-server allows) stays unbound, and cannot take a name
//! that is bound. A name an event seats with a key ([`crate::event::seats`]) takes only
//! its key while the event is on the server, and is never bound.

use std::sync::{Arc, Mutex};

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use blake2::Blake2bMac;
use blake2::digest::consts::U16;
use blake2::digest::{KeyInit, Mac};
use md5::{Digest, Md5};

use crate::event::seats::SeatsOnServer;
use crate::store::{Passwords, StoreError};
use crate::tickets::{from_hex32, hex};

thread_local! {
    /// This thread's argon2 memory, reused from hash to hash (19 MiB with the default
    /// parameters): hashing allocates nothing after the first time.
    static BLOCKS: std::cell::RefCell<Vec<Block>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `argon2` with `params` into `out`, in this thread's reused memory.
fn argon2_into(
    algorithm: Algorithm,
    version: Version,
    params: Params,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> Result<(), String> {
    let blocks = params.block_count();
    // Parameters from a stored hash are the server's own; a larger one is still bounded.
    if blocks > 256 * 1024 {
        return Err(format!(
            "argon2 memory of {blocks} KiB is more than this server uses"
        ));
    }
    let argon = Argon2::new(algorithm, version, params);
    BLOCKS.with_borrow_mut(|memory| {
        if memory.len() < blocks {
            memory.resize(blocks, Block::default());
        }
        argon
            .hash_password_into_with_memory(password, salt, out, &mut memory[..blocks])
            .map_err(|e| e.to_string())
    })
}

/// Hashes a password with argon2id and a fresh random salt (PHC string).
///
/// # Errors
/// When the system has no randomness to give.
pub fn hash_password(password: &str) -> Result<String, String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| format!("no randomness for a salt: {e}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    let mut salt_bytes = [0u8; 16];
    let salt_raw = salt
        .decode_b64(&mut salt_bytes)
        .map_err(|e| e.to_string())?;
    let params = Params::default();
    let mut out = [0u8; 32];
    argon2_into(
        Algorithm::Argon2id,
        Version::V0x13,
        params.clone(),
        password.as_bytes(),
        salt_raw,
        &mut out,
    )?;
    let hash = PasswordHash {
        algorithm: argon2::ARGON2ID_IDENT,
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
    };
    Ok(hash.to_string())
}

/// Whether `password` matches a stored PHC hash (compared in constant time).
pub fn verify_password(password: &str, hash: &str) -> bool {
    let Ok(h) = PasswordHash::new(hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params), Some(expected), Some(salt)) = (
        Algorithm::try_from(h.algorithm),
        Params::try_from(&h),
        h.hash,
        h.salt,
    ) else {
        return false;
    };
    let version = h
        .version
        .and_then(|v| Version::try_from(v).ok())
        .unwrap_or(Version::V0x13);
    let mut salt_bytes = [0u8; 64];
    let Ok(salt_raw) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let mut out = vec![0u8; expected.len()];
    argon2_into(
        algorithm,
        version,
        params,
        password.as_bytes(),
        salt_raw,
        &mut out,
    )
    .is_ok()
        && Output::new(&out).is_ok_and(|got| got == expected)
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
    seats: Arc<SeatsOnServer>,
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
                .map_err(|e| StoreError::Internal(format!("no randomness for a key: {e}")))?;
            let kept = store.secret(RATING_KEY, &hex(&fresh))?;
            let key = kept.get(..64).and_then(from_hex32).ok_or_else(|| {
                StoreError::Unreadable(format!("the stored {RATING_KEY} does not read"))
            })?;
            RatingIds::Keyed(key)
        };
        Ok(Accounts {
            store: Arc::new(Mutex::new(store)),
            rating_ids: Arc::new(rating_ids),
            seats: Arc::default(),
        })
    }

    /// These accounts with the events' keyed seats: a seated name logs in with its key
    /// only (a stranger's password for it is wrong, and binds nothing).
    #[must_use]
    pub fn with_event_seats(mut self, seats: SeatsOnServer) -> Accounts {
        self.seats = Arc::new(seats);
        self
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
        self.check_paced(name, password, now, || Ok(()))
            .map(|c| c == Checked::Right)
    }

    /// As [`Accounts::check`], but a name not yet bound is bound only if `may_bind` says so
    /// (asked before any hash is made; its `Err` is how long until it may).
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub fn check_paced(
        &self,
        name: &str,
        password: &str,
        now: &str,
        may_bind: impl FnOnce() -> Result<(), std::time::Duration>,
    ) -> Result<Checked, StoreError> {
        let right = |ok: bool| if ok { Checked::Right } else { Checked::Wrong };
        // An event's seat: its key, and nothing stored, decides.
        if let Some(ok) = self.seats.check(name, password) {
            return Ok(right(ok));
        }
        let bound = self.lock().password_hash(name)?;
        match (bound, password.is_empty()) {
            (Some(hash), false) => Ok(right(verify_password(password, &hash))),
            (Some(_), true) => Ok(Checked::Wrong),
            (None, true) => Ok(Checked::Right),
            (None, false) => {
                if let Err(wait) = may_bind() {
                    return Ok(Checked::NewRefused(wait));
                }
                let hash = hash_password(password).map_err(StoreError::Internal)?;
                let bound = self.lock().bind_password(name, &hash, now)?;
                // Someone may have bound the name between the two statements.
                Ok(right(bound == hash || verify_password(password, &bound)))
            }
        }
    }

    /// Registers `name` with `password` (a web account): true when it was bound now,
    /// false when it is bound already or an event seats it. Blocking: call it off the
    /// async threads.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails, or there is no randomness for a salt.
    pub fn register(&self, name: &str, password: &str, now: &str) -> Result<bool, StoreError> {
        if self.seats.check(name, "").is_some() || self.lock().password_hash(name)?.is_some() {
            return Ok(false);
        }
        let hash = hash_password(password).map_err(StoreError::Internal)?;
        Ok(self.lock().bind_password(name, &hash, now)? == hash)
    }

    /// Whether `name` is a bound account and `password` its password (an event's seated
    /// name is not a web account). Blocking.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub fn verify(&self, name: &str, password: &str) -> Result<bool, StoreError> {
        if self.seats.check(name, "").is_some() {
            return Ok(false);
        }
        let hash = self.lock().password_hash(name)?;
        Ok(hash.is_some_and(|h| !password.is_empty() && verify_password(password, &h)))
    }

    /// Whether `name` is bound to a password (an account, on the web page or the CSA
    /// port). Blocking.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails.
    pub fn is_bound(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self.lock().password_hash(name)?.is_some())
    }

    /// Gives `name` the password `new`, letting go of its web sessions but the one whose
    /// digest is `keep`. Blocking.
    ///
    /// # Errors
    /// [`StoreError`] when the database fails, or there is no randomness for a salt.
    pub fn set_password(&self, name: &str, new: &str, keep: &str) -> Result<bool, StoreError> {
        let hash = hash_password(new).map_err(StoreError::Internal)?;
        self.lock().change_password(name, &hash, keep)
    }

    /// The database the accounts are kept in, for their web sessions. Blocking.
    pub(crate) fn store(&self) -> std::sync::MutexGuard<'_, Box<dyn Passwords>> {
        self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn Passwords>> {
        self.store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a login's check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// The right password (or none, for a name that has none).
    Right,
    /// A wrong one.
    Wrong,
    /// A new name, not bound: its address has bound as many as it may for now (for this
    /// long).
    NewRefused(std::time::Duration),
}

/// Threads of their own for password hashing: argon2 takes 19 MiB a hash, and on the
/// runtime's blocking pool every thread that hashed kept its allocator arena's share (1,200
/// logins left the server at 560 MiB for good). On two long-lived threads the memory is
/// reused, and what the hashes take stays bounded.
#[derive(Debug)]
pub struct HashPool {
    jobs: std::sync::mpsc::SyncSender<Box<dyn FnOnce() + Send>>,
}

impl HashPool {
    /// `threads` hashing threads, with room for `queue` waiting jobs.
    ///
    /// # Errors
    /// When a thread cannot be started.
    pub fn new(threads: usize, queue: usize) -> std::io::Result<HashPool> {
        let (jobs, rx) = std::sync::mpsc::sync_channel::<Box<dyn FnOnce() + Send>>(queue);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let rx = Arc::clone(&rx);
            std::thread::Builder::new()
                .name(format!("gyoku-hash-{i}"))
                .spawn(move || {
                    loop {
                        let job = rx
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .recv();
                        match job {
                            Ok(job) => job(),
                            // The pool is gone: the thread ends.
                            Err(_) => return,
                        }
                    }
                })?;
        }
        Ok(HashPool { jobs })
    }

    /// Runs `f` on a hashing thread; `None` when the queue is full or the pool is gone.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.jobs
            .try_send(Box::new(move || {
                let _ = tx.send(f());
            }))
            .ok()?;
        rx.await.ok()
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

    /// Issue 43: a new name is bound only when its address may bind one; a known name is
    /// checked as ever.
    #[test]
    fn a_new_name_is_bound_only_when_allowed() {
        let a = Accounts::new(
            Box::new(crate::store::SqliteStore::open_memory().unwrap()),
            false,
        )
        .unwrap();
        let wait = std::time::Duration::from_secs(90);
        assert!(a.check("known", "pw", "t").unwrap());
        let refused = a.check_paced("fresh", "pw", "t", || Err(wait)).unwrap();
        assert_eq!(refused, Checked::NewRefused(wait));
        let known = a.check_paced("known", "pw", "t", || Err(wait)).unwrap();
        assert_eq!(known, Checked::Right);
        let wrong = a.check_paced("known", "no", "t", || Err(wait)).unwrap();
        assert_eq!(wrong, Checked::Wrong);
        // Refused, it was not bound: allowed later, it is.
        assert_eq!(
            a.check_paced("fresh", "other", "t", || Ok(())).unwrap(),
            Checked::Right
        );
    }

    /// Issue 43: an event's seat belongs to its key. A stranger who comes first with the
    /// name and a password of his own is refused and binds nothing; the key gets in, even
    /// where the name was bound to another password before the event.
    #[test]
    fn a_seated_name_takes_its_key_only() {
        use std::collections::BTreeMap;

        use crate::event::seats::{SeatKeys, written_digest};
        let people = ["p3".to_string(), "p4".to_string()];
        let written = BTreeMap::from([
            ("p3".to_string(), written_digest("key-of-p3")),
            ("p4".to_string(), written_digest("key-of-p4")),
        ]);
        let keys = SeatKeys::read(&written, &people).unwrap();
        let a = Accounts::new(
            Box::new(crate::store::SqliteStore::open_memory().unwrap()),
            false,
        )
        .unwrap();
        assert!(a.check("p4", "old password", "t").unwrap());
        let a = a.with_event_seats(SeatKeys::merged([&keys]));
        for (name, password, right) in [
            ("p3", "stranger's own", false),
            ("p3", "", false),
            ("p3", "key-of-p4", false),
            ("p3", "key-of-p3", true),
            ("p4", "old password", false),
            ("p4", "key-of-p4", true),
            ("other", "anything", true),
        ] {
            assert_eq!(
                a.check(name, password, "t").unwrap(),
                right,
                "{name} {password}"
            );
        }
        // Nothing was bound by the tries: the store has no p3.
        assert_eq!(a.lock().password_hash("p3").unwrap(), None);
    }

    #[tokio::test]
    async fn the_pool_runs_jobs_and_refuses_past_its_queue() {
        let pool = HashPool::new(2, 4).unwrap();
        assert_eq!(pool.run(|| 6 * 7).await, Some(42));
        let names: Vec<String> = futures_util::future::join_all(
            (0..2).map(|_| pool.run(|| std::thread::current().name().unwrap_or("").to_string())),
        )
        .await
        .into_iter()
        .flatten()
        .collect();
        assert!(
            names.iter().all(|n| n.starts_with("gyoku-hash-")),
            "{names:?}"
        );
    }

    /// Hashes stored before the memory was reused (the argon2 crate's own API) still
    /// verify, and ours verify with that API.
    #[test]
    fn hashes_read_both_ways_with_the_argon2_crate() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let salt = SaltString::encode_b64(b"sixteen byte slt").unwrap();
        let theirs = Argon2::default()
            .hash_password(b"secret", &salt)
            .unwrap()
            .to_string();
        assert!(verify_password("secret", &theirs));
        assert!(!verify_password("Secret", &theirs));
        let ours = hash_password("secret").unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"secret", &parsed)
                .is_ok()
        );
        assert!(!verify_password("secret", "not a hash"));
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
