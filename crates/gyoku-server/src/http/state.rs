//! What the handlers share, in parts: the stored games and their views (the storage
//! connections, the work slots, the games kept replayed, the watched views, the counters
//! `GET /api/health` reports), the event streams' bounds, the uploads' slots, the web
//! page's seats, the league, the admin endpoint's tries, and the options.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use axum::extract::FromRef;
use axum::http::StatusCode;
use tokio::sync::Semaphore;

use crate::play::Play;
use crate::store::{Archive, StoreError};

use super::error::ApiError;
use super::guard::{self, HttpOptions};
use super::watched::Watching;

/// What the handlers share, in parts: each handler takes only the parts it uses
/// (`State<Arc<Stored>>`, `State<Seats>`, …), handed out of this by axum's [`FromRef`].
#[derive(Clone)]
pub(super) struct AppState {
    pub(super) stored: Arc<Stored>,
    pub(super) watchers: Arc<Watchers>,
    pub(super) uploads: Arc<Uploads>,
    pub(super) seats: Seats,
    pub(super) league: Arc<crate::league::League>,
    pub(super) admin: Arc<Admin>,
    pub(super) options: Arc<HttpOptions>,
    /// The analysis queue, on the instance that analyses (none without an analysis
    /// engine, or on a web instance, which relays).
    pub(super) analyst: Option<Arc<super::analysis_queue::Analyst>>,
    /// The engine tests and their workers (on the referee; a web instance relays).
    pub(super) tests: Option<Arc<crate::engine_tests::Tests>>,
}

/// The stored games and their views: the connections requests read with, the slots views
/// are made in, the games kept replayed, the views being watched, and the counters
/// `GET /api/health` reports.
pub(super) struct Stored {
    /// The storage connections requests read with.
    pub(super) db: super::reads::Reads,
    /// Replaying stored games for their views runs on blocking threads, this many at once.
    pub(super) work: Semaphore,
    /// Games being played, kept replayed for their next view.
    pub(super) kept: super::kept::KeptReplays,
    /// The games event streams watch: each change's view built once for all of them.
    pub(super) watching: Watching,
    /// Storage reads made, and stored games replayed (`GET /api/health`).
    pub(super) reads: AtomicU64,
    pub(super) replays: AtomicU64,
    /// Views made by playing on a game kept replayed ([`super::kept`]).
    pub(super) appended: AtomicU64,
}

/// How many event streams are open, at all and from each address.
pub(super) struct Watchers {
    /// Event streams open at once.
    pub(super) open: Arc<Semaphore>,
    /// Event streams open at once from one address.
    pub(super) per_address: guard::PerAddress,
}

/// What an upload asks (judging, converting, the calculator) runs apart, this many at
/// once, so that no upload keeps a game's view waiting.
pub(super) struct Uploads {
    pub(super) slots: Semaphore,
}

/// The web page's games: `None` on a web instance, which relays them to its referee.
#[derive(Clone)]
pub(super) struct Seats(pub(super) Option<Arc<Play>>);

impl Seats {
    /// The web page's games, held here (not on a web instance, whose routes for them relay
    /// to the referee and never ask).
    pub(super) fn play(&self) -> Result<&Arc<Play>, ApiError> {
        self.0.as_ref().ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "not_here",
                "this instance does not hold the web page's games (its referee does)",
            )
        })
    }
}

/// The events' admin endpoint: wrong tokens, by address (slowed as wrong passwords are).
#[derive(Default)]
pub(super) struct Admin {
    pub(super) tries: std::sync::Mutex<crate::csa_port::throttle::LoginThrottle>,
}

impl AppState {
    /// The parts, new, for a router over `dbs` under `options`.
    pub(super) fn new(
        dbs: Vec<Box<dyn Archive>>,
        play: Option<Arc<Play>>,
        league: Arc<crate::league::League>,
        options: &HttpOptions,
    ) -> AppState {
        let open = Arc::new(Semaphore::new(options.max_watchers.max(1)));
        crate::metrics::get().watchers(crate::metrics::permits_taken(
            &open,
            options.max_watchers.max(1),
            |s| s,
        ));
        AppState {
            stored: Arc::new(Stored {
                db: super::reads::Reads::new(dbs),
                work: Semaphore::new(2),
                kept: super::kept::KeptReplays::default(),
                watching: Watching::default(),
                reads: AtomicU64::new(0),
                replays: AtomicU64::new(0),
                appended: AtomicU64::new(0),
            }),
            watchers: Arc::new(Watchers {
                open,
                per_address: guard::PerAddress::new(options.max_watchers_per_address.max(1)),
            }),
            uploads: Arc::new(Uploads {
                slots: Semaphore::new(1),
            }),
            seats: Seats(play),
            league,
            admin: Arc::new(Admin::default()),
            options: Arc::new(options.clone()),
            analyst: None,
            tests: None,
        }
    }
}

/// Hands each part out of the whole, for a handler's `State<Part>`.
macro_rules! parts {
    ($($part:ty => $field:ident),* $(,)?) => {
        $(impl FromRef<AppState> for $part {
            fn from_ref(state: &AppState) -> Self {
                state.$field.clone()
            }
        })*
    };
}

parts! {
    Arc<Stored> => stored,
    Arc<Watchers> => watchers,
    Arc<Uploads> => uploads,
    Arc<crate::league::League> => league,
    Arc<HttpOptions> => options,
}

/// Event streams (`GET /api/games/{id}/events`) open at once by default
/// ([`super::HttpOptions::max_watchers`]); more are refused (503).
pub const MAX_WATCHERS: usize = 4096;

/// Runs `f` on the database on a blocking thread.
pub(super) async fn with_db<T: Send + 'static>(
    api: &Stored,
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
    api: &Stored,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&api.work, f).await
}

/// Runs an upload's CPU work (judge, convert, the calculator) on a blocking thread, apart
/// from the game views'.
pub(super) async fn upload_work<T: Send + 'static>(
    uploads: &Uploads,
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    work_on(&uploads.slots, f).await
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
