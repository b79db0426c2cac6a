//! The CSA port: the listener, and each client's connection (login, then lines to the
//! driver and its messages back).

pub(crate) mod connection;
pub(crate) mod listener;
pub mod new_names;
pub mod pace;
pub(crate) mod throttle;

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use tokio::sync::Semaphore;

/// Longest line a client may send, bytes (a move with a long PV comment fits).
pub const MAX_LINE: usize = 16 * 1024;

/// Time to log in after connecting (shogi-server's `Login_Time`).
pub const LOGIN_TIME: Duration = Duration::from_secs(300);

/// A write that takes longer than this disconnects the client.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Logins checked at once on the password threads, running or queued; more wait their
/// turn (within [`LOGIN_TIME`]).
pub const LOGIN_CHECKS: usize = 64;

/// Connections at once, in all and per address, and password hashes at once.
pub(crate) struct Limits {
    /// Connections in all.
    pub(crate) total: Semaphore,
    /// Connections per address.
    pub(crate) per_address: std::sync::Mutex<HashMap<IpAddr, usize>>,
    /// At most this many from one address.
    pub(crate) max_per_address: usize,
    /// Password hashes being computed.
    pub(crate) hashing: Semaphore,
    /// Logins being checked on the password threads (running or queued): as many as
    /// their queue holds ([`LOGIN_CHECKS`]).
    pub(crate) checking: Semaphore,
    /// The threads that compute them.
    pub(crate) hash_pool: crate::accounts::HashPool,
    /// Wrong passwords by name and by address.
    pub(crate) throttle: std::sync::Mutex<throttle::LoginThrottle>,
    /// New names bound, by address ([`new_names`]).
    pub(crate) new_names: std::sync::Arc<std::sync::Mutex<new_names::NewNames>>,
}
