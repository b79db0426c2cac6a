//! What every handler shares: the API's storage connections, its work slots, the changes it
//! follows, the web page's seats, and the counters `GET /api/health` reports.

use std::sync::Arc;

use axum::http::StatusCode;
use tokio::sync::Semaphore;

use crate::play::Play;
use crate::store::{Archive, StoreError};

use super::error::ApiError;
use super::guard::{self, HttpOptions};
use super::watched::Watching;

pub(super) struct Api {
    /// The storage connections requests read with.
    pub(super) db: super::reads::Reads,
    /// Replaying stored games for their views runs on blocking threads, this many at once.
    pub(super) work: Semaphore,
    /// What an upload asks (judging, converting, the calculator) runs apart, this many at
    /// once, so that no upload keeps a game's view waiting.
    pub(super) uploads: Semaphore,
    /// Event streams open at once.
    pub(super) watchers: Arc<Semaphore>,
    /// The web page's games: `None` on a web instance, which relays them to its referee.
    pub(super) play: Option<Arc<Play>>,
    /// The rating list and the scheduled games, as last published.
    pub(super) league: Arc<crate::league::League>,
    /// Event streams open at once from one address.
    pub(super) watchers_per_address: guard::PerAddress,
    /// The games event streams watch: each change's view built once for all of them.
    pub(super) watching: Watching,
    /// Storage reads made, and stored games replayed (`GET /api/health`).
    pub(super) reads: std::sync::atomic::AtomicU64,
    pub(super) replays: std::sync::atomic::AtomicU64,
    /// Views made by playing on a game kept replayed ([`super::kept`]).
    pub(super) appended: std::sync::atomic::AtomicU64,
    /// Games being played, kept replayed for their next view.
    pub(super) kept: super::kept::KeptReplays,
    /// The bounds and time-outs.
    pub(super) options: HttpOptions,
    /// Wrong admin tokens, by address (slowed as wrong passwords are).
    pub(super) admin_tries: std::sync::Mutex<crate::csa_port::throttle::LoginThrottle>,
}

impl Api {
    /// The web page's games, held here (not on a web instance, whose routes for them relay
    /// to the referee and never ask).
    pub(super) fn play(&self) -> Result<&Arc<Play>, ApiError> {
        self.play.as_ref().ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_here",
                "this instance does not hold the web page's games (its referee does)",
            )
        })
    }
}

pub(super) type Shared = Arc<Api>;

/// Event streams (`GET /api/games/{id}/events`) open at once by default
/// ([`super::HttpOptions::max_watchers`]); more are refused (503).
pub const MAX_WATCHERS: usize = 4096;

/// Runs `f` on the database on a blocking thread.
pub(super) async fn with_db<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce(&mut dyn Archive) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    api.reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    api.db.run(f).await.map_err(|e| match e {
        super::reads::ReadFailed::Store(e) => ApiError::from(e),
        super::reads::ReadFailed::Thread(why) => ApiError::storage(why),
    })
}

/// Runs a game view's CPU work on a blocking thread, a bounded number at once.
pub(super) async fn work<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&api.work, f).await
}

/// Runs an upload's CPU work (judge, convert, the calculator) on a blocking thread, apart
/// from the game views'.
pub(super) async fn upload_work<T: Send + 'static>(
    api: &Shared,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&api.uploads, f).await
}

pub(super) async fn work_on<T: Send + 'static>(
    slots: &Semaphore,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = slots.acquire().await.map_err(ApiError::storage)?;
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?
}
