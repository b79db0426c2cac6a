//! Why the server stopped.

use crate::store::StoreError;

/// Why the server stopped, by kind; `Display` says what and where.
#[derive(Debug)]
pub enum ServeError {
    /// An address could not be listened on.
    Listen {
        /// The address.
        addr: String,
        /// Why.
        why: String,
    },
    /// Storage could not be opened, or failed for good.
    Storage(StoreError),
    /// Another referee took the database while this one was cut off from it.
    ClaimTaken(StoreError),
    /// The server cannot run as asked (a web instance without PostgreSQL, say).
    Config(String),
    /// One of the server's own tasks failed (a thread that cannot start, the record
    /// writer, the storage thread).
    Task(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Listen { addr, why } => write!(f, "cannot listen on {addr}: {why}"),
            ServeError::Storage(e) => write!(f, "{e}"),
            ServeError::ClaimTaken(e) => write!(
                f,
                "{e}: it took the database while this referee was cut off from it; this one stops"
            ),
            ServeError::Config(m) | ServeError::Task(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<StoreError> for ServeError {
    fn from(e: StoreError) -> ServeError {
        ServeError::Storage(e)
    }
}
