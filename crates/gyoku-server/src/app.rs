//! The composition root: opens storage, writes missing record files again, takes up
//! suspended games and buoys, then starts the driver, the CSA port, the HTTP API and the
//! record writer, and stops them all with one shutdown. The only file that knows every
//! part.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use crate::accounts::Accounts;
use crate::csa_port::Limits;
use crate::csa_port::listener::{accept_loop, listen};
use crate::driver::{self, drive};
use crate::error::ServeError;
use crate::lobby::{Config, GameSpec, Lobby};
use crate::record_files::{restore_record_files, spawn_record_writer};
use crate::store::DbUrl;
use crate::supervisor::{Ending, Stop, Supervisor};

/// The latest games of each scheduled game name read at start, for its pairings' history
/// (last opponents, colours).
const SCHEDULED_HISTORY: u32 = 100_000;

/// How long the HTTP API may take to finish its requests at shutdown before its open
/// connections (event streams among them) are cut.
pub const HTTP_GRACE: Duration = Duration::from_secs(2);

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The CSA port's address.
    pub csa: SocketAddr,
    /// The database.
    pub db: DbUrl,
    /// Where record files go (`YYYY/MM/DD/<Game_ID>.csa` under it).
    pub records: PathBuf,
    /// The lobby's settings.
    pub lobby: Config,
    /// Connections at once.
    pub max_connections: usize,
    /// Connections at once from one address.
    pub max_per_address: usize,
    /// New names one address (an IPv6 /64) may bind to a password in an hour
    /// ([`crate::csa_port::new_names`]; `gyoku serve` says 20).
    pub new_names_per_address: u32,
    /// The HTTP API's address (`None`: no HTTP).
    pub http: Option<SocketAddr>,
    /// The HTTP side's bounds, time-outs and the host names it answers to.
    pub http_options: crate::http::HttpOptions,
    /// Rating ids as shogi-server writes them, `name+md5(password)` (unsalted: for
    /// shogi-server's own test suite), instead of ids keyed by the server's secret.
    pub md5_rating_ids: bool,
    /// The USI engines people may play against on the web page, by name.
    pub engines: Vec<crate::play::EngineChoice>,
    /// How often the rating list is computed again from the stored games.
    pub ratings_every: std::time::Duration,
    /// Organised events (`--event-file`), taken up from storage where they stood.
    pub events: Vec<crate::event::EventFile>,
    /// When another referee holds the database, wait for it to let go (a standby) rather
    /// than stop.
    pub standby: bool,
    /// Where `GET /metrics` (Prometheus's text format) listens, apart from the HTTP API
    /// (`None`: no metrics).
    pub metrics: Option<SocketAddr>,
}

/// What the server tells its caller once it listens.
#[derive(Debug, Clone)]
pub struct Started {
    /// The CSA port's address (with the port the system chose, for port 0).
    pub csa: SocketAddr,
    /// Games that were being played when the server last stopped, now suspended.
    pub interrupted: usize,
    /// Suspended games waiting for both players to log in again.
    pub suspended: usize,
    /// Record files that were missing and were written again from the database.
    pub records_restored: usize,
    /// The HTTP API's address, when it listens.
    pub http: Option<SocketAddr>,
    /// The metrics' address, when they are served.
    pub metrics: Option<SocketAddr>,
}

/// Runs the server until `shutdown` completes. `on_start` is called once it listens.
///
/// One shutdown reaches every part: the CSA port stops accepting, the HTTP API stops
/// (gracefully, then its open streams are cut after [`HTTP_GRACE`]), the driver sends what
/// the batch it is committing decided and stops, and the record writer writes every file
/// it was handed before this returns.
///
/// # Errors
/// [`ServeError`] when it cannot listen or open storage, or storage fails (the server
/// stops rather than echo a move it could not store).
pub async fn run(
    options: Options,
    on_start: impl FnOnce(&Started),
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), ServeError> {
    // One referee a database: a second one stops here (or, a standby, waits), before it
    // touches a game.
    let store = claim(&options.db, options.standby).await?;
    let taking_up = TakingUp {
        db: options.db.clone(),
        records: options.records.clone(),
        md5_rating_ids: options.md5_rating_ids,
        events: options.events.clone(),
        schedules: options
            .lobby
            .schedules
            .iter()
            .map(|(g, _)| g.clone())
            .collect(),
    };
    let Stored {
        store,
        accounts,
        buoys,
        interrupted,
        suspended,
        recent_ids,
        records_restored,
        taken_up,
        scheduled,
        relay_secret,
    } = tokio::task::spawn_blocking(move || taking_up.take_up(store))
        .await
        .map_err(|e| ServeError::Task(e.to_string()))??;
    let listener = listen(options.csa).map_err(|e| ServeError::Listen {
        addr: options.csa.to_string(),
        why: e.to_string(),
    })?;
    let local = listener.local_addr().map_err(|e| ServeError::Listen {
        addr: options.csa.to_string(),
        why: e.to_string(),
    })?;
    // The HTTP API reads the same storage through a connection of its own.
    // Each committed change's Game_ID, for the API's watchers.
    let (changes, _) = tokio::sync::broadcast::channel::<crate::store::notices::Changed>(4096);
    let (driver, events) = driver::channel(local);
    let league = Arc::new(crate::league::League::default());
    let limits = csa_limits(&options)?;
    let mut tasks = Supervisor::default();
    let http = match options.http {
        None => None,
        Some(addr) => {
            let serving = Serving {
                driver: driver.clone(),
                changes: changes.clone(),
                league: league.clone(),
                accounts: crate::web_accounts::WebAccounts::new(accounts.clone(), limits.clone()),
            };
            Some(start_http(addr, &options, serving, relay_secret, &mut tasks).await?)
        }
    };
    on_start(&Started {
        csa: local,
        interrupted,
        suspended: suspended.len(),
        records_restored,
        http,
        metrics: start_metrics(&options, &limits, &mut tasks).await?,
    });
    let (files, writer) = spawn_record_writer(options.records.clone(), driver.records_written())
        .map_err(|e| ServeError::Task(format!("cannot start the record writer: {e}")))?;
    // Computed again at the next start: cut off.
    let rating = ratings_loop(
        options.db.clone(),
        driver.clone(),
        league.clone(),
        options.ratings_every,
        tasks.stop_signal(),
    );
    tasks.spawn("the rating list", Ending::CutOff, rating);
    let acceptor = accept_loop(
        listener,
        driver.clone(),
        accounts,
        limits,
        tasks.stop_signal(),
    );
    tasks.spawn("the CSA port", Ending::PlayedOut, acceptor);
    // Every record file the driver hands over is on disk before the server returns: the
    // writer ends once the driver, which owns its queue, has.
    tasks.spawn_blocking("the record writer", Ending::PlayedOut, move || {
        let _ = writer.join();
    });
    drop(driver);
    let mut config = options.lobby.clone();
    config.events = taken_up;
    let mut lobby = Lobby::new(config, buoys, suspended);
    lobby.remember_game_ids(recent_ids);
    lobby.remember_scheduled(&scheduled);
    // The driver owns the record writer's queue: when it returns, the queue closes.
    let stop = tasks.stop_signal();
    let driving = drive(
        lobby,
        events,
        store,
        files,
        changes,
        league.clone(),
        stop.clone(),
    );
    tokio::pin!(driving);
    let result = tokio::select! {
        r = &mut driving => r,
        () = shutdown => {
            stop.cancel();
            driving.await
        }
    };
    // However the driver stopped, everything else stops with it.
    tasks.stop().await;
    result
}

/// The metrics read when scraped (the CSA connections open: those allowed, less those
/// left), and, when `options` asks, `GET /metrics` served by a task of `tasks` until they
/// stop: its address.
async fn start_metrics(
    options: &Options,
    limits: &Arc<Limits>,
    tasks: &mut Supervisor,
) -> Result<Option<SocketAddr>, ServeError> {
    // Held weakly: the limits (and their password threads) go with the server.
    crate::metrics::get().connections_open(
        "csa",
        crate::metrics::permits_taken(limits, options.max_connections, |l| &l.total),
    );
    crate::metrics::get()
        .engine_processes(|| i64::try_from(gyoku_arena::engine::running()).unwrap_or(i64::MAX));
    match options.metrics {
        Some(addr) => listen_for_metrics(addr, tasks).await.map(Some),
        None => Ok(None),
    }
}

/// Serves `GET /metrics` on `addr` by a task of `tasks` until they stop: the address it
/// listens on.
pub(crate) async fn listen_for_metrics(
    addr: SocketAddr,
    tasks: &mut Supervisor,
) -> Result<SocketAddr, ServeError> {
    let listen_error = |e: std::io::Error| ServeError::Listen {
        addr: addr.to_string(),
        why: e.to_string(),
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(listen_error)?;
    let local = listener.local_addr().map_err(listen_error)?;
    let stop = tasks.stop_signal();
    tasks.spawn("the metrics", Ending::CutOff, async move {
        if let Err(e) = crate::metrics::serve(listener, stop).await {
            tracing::error!("the metrics on {local} stopped: {e}");
        }
    });
    Ok(local)
}

/// The CSA port's connection limits and login workers, as `options` sets them.
fn csa_limits(options: &Options) -> Result<Arc<Limits>, ServeError> {
    Ok(Arc::new(Limits {
        total: Semaphore::new(options.max_connections),
        per_address: std::sync::Mutex::new(HashMap::new()),
        max_per_address: options.max_per_address,
        hashing: Semaphore::new(2),
        checking: Semaphore::new(crate::csa_port::LOGIN_CHECKS),
        hash_pool: crate::accounts::HashPool::new(2, crate::csa_port::LOGIN_CHECKS)
            .map_err(|e| ServeError::Task(format!("cannot start the password threads: {e}")))?,
        throttle: std::sync::Mutex::default(),
        new_names: Arc::new(std::sync::Mutex::new(
            crate::csa_port::new_names::NewNames::new(options.new_names_per_address),
        )),
    }))
}

/// What the HTTP side is served with, beside the options.
struct Serving {
    driver: driver::Handle,
    changes: tokio::sync::broadcast::Sender<crate::store::notices::Changed>,
    league: Arc<crate::league::League>,
    accounts: crate::web_accounts::WebAccounts,
}

/// The HTTP API and the web page on `addr`, on storage connections of its own, served by
/// a task of `tasks` until they stop (its open streams given [`HTTP_GRACE`]): its
/// address.
async fn start_http(
    addr: SocketAddr,
    options: &Options,
    serving: Serving,
    relay_secret: String,
    tasks: &mut Supervisor,
) -> Result<SocketAddr, ServeError> {
    let db = options.db.clone();
    let conns = tokio::task::spawn_blocking(move || {
        let first = crate::store::open(&db)?;
        crate::http::open_readers(&db, first, crate::http::READERS)
    })
    .await
    .map_err(|e| ServeError::Task(e.to_string()))??;
    let l = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServeError::Listen {
            addr: addr.to_string(),
            why: e.to_string(),
        })?;
    let at = l.local_addr().map_err(|e| ServeError::Listen {
        addr: addr.to_string(),
        why: e.to_string(),
    })?;
    let watched = serving.changes;
    let play = Some(crate::play::Play::new(
        serving.driver,
        options.engines.clone(),
        (
            Duration::from_millis(options.lobby.reconnect_grace_ms),
            options.http_options.presence_silence,
        ),
        Some(serving.accounts),
    ));
    let mut http_options = options.http_options.clone();
    http_options.relay_secret = Some(crate::http::RelaySecret::new(relay_secret));
    let league = serving.league;
    let stopped = tasks.stop_signal().cancelled_owned();
    tasks.spawn("the HTTP API", Ending::Grace(HTTP_GRACE), async move {
        let served = crate::http::serve(l, conns, watched, play, league, http_options, stopped);
        if let Err(e) = served.await {
            tracing::error!("the HTTP API stopped: {e}");
        }
    });
    Ok(at)
}

/// What a starting referee takes up from storage, and with what.
struct TakingUp {
    db: DbUrl,
    records: std::path::PathBuf,
    md5_rating_ids: bool,
    events: Vec<crate::event::EventFile>,
    schedules: Vec<String>,
}

/// What storage held at the start.
struct Stored {
    store: Box<dyn crate::store::Backend>,
    accounts: Accounts,
    buoys: Vec<crate::store::StoredBuoy>,
    interrupted: usize,
    suspended: Vec<GameSpec>,
    recent_ids: Vec<String>,
    records_restored: usize,
    taken_up: Vec<crate::event::Event>,
    scheduled: Vec<crate::store::NamedGame>,
    relay_secret: String,
}

impl TakingUp {
    /// Reads what the referee goes on from (blocking: on a thread of its own): the
    /// deployment's relay secret, the events, the scheduled games' history, record files
    /// to restore, games left unfinished (suspended), buoys, recent Game_IDs, the accounts
    /// (with the events' keyed seats).
    fn take_up(
        self,
        mut store: Box<dyn crate::store::Backend>,
    ) -> Result<Stored, crate::store::StoreError> {
        // The deployment's relay secret, for the web instances that relay to this one.
        let relay_secret = store.secret(
            crate::http::RELAY_SECRET_NAME,
            &crate::tickets::new_secret(),
        )?;
        let seats = crate::event::seats::SeatKeys::merged(self.events.iter().map(|f| &f.seats));
        let taken_up = take_up_events(&mut *store, self.events)?;
        let mut scheduled = Vec::new();
        for game in &self.schedules {
            scheduled.extend(store.games_named(game, SCHEDULED_HISTORY)?);
        }
        let records_restored = restore_record_files(&mut *store, &self.records)?;
        store.start_upkeep()?;
        let interrupted = store.suspend_unfinished()?;
        let buoys = store.buoys()?;
        // Game_IDs follow the clock: those of the last minute are not issued again.
        let since = (chrono::Local::now() - chrono::Duration::seconds(60))
            .format("%Y/%m/%d %H:%M:%S")
            .to_string();
        let recent_ids = store.game_ids_since(&since)?;
        let mut suspended = Vec::new();
        for (g, moves) in store.suspended_games()? {
            match GameSpec::from_stored(&g, moves) {
                Some(spec) => suspended.push(spec),
                None => tracing::warn!(
                    game = %g.id,
                    "a suspended game cannot be read back; left as it is"
                ),
            }
        }
        let accounts = Accounts::new(crate::store::open(&self.db)?, self.md5_rating_ids)?
            .with_event_seats(seats);
        Ok(Stored {
            store,
            accounts,
            buoys,
            interrupted,
            suspended,
            recent_ids,
            records_restored,
            taken_up,
            scheduled,
            relay_secret,
        })
    }
}

/// How long a standby waits between its tries at the database's claim.
const STANDBY_RETRY: Duration = Duration::from_secs(1);

/// How long a referee started right after another was killed waits for the claim the dead
/// one held: PostgreSQL lets an advisory lock go when it notices the connection closed,
/// a moment after the process died (a restart within that moment found the claim taken).
const CLAIM_GRACE: Duration = Duration::from_secs(3);

/// Storage, claimed for this referee: at once, or (`standby`) once the referee holding it
/// lets go or is gone (its connection closed: PostgreSQL frees its advisory lock then).
async fn claim(db: &DbUrl, standby: bool) -> Result<Box<dyn crate::store::Backend>, ServeError> {
    let mut said = false;
    let mut store = None;
    let began = tokio::time::Instant::now();
    loop {
        let db = db.clone();
        let held = store.take();
        let tried = tokio::task::spawn_blocking(move || {
            let mut store = match held {
                Some(s) => s,
                None => crate::store::open(&db).map_err(|e| (e, None))?,
            };
            match store.claim() {
                Ok(()) => Ok(store),
                Err(e) => Err((e, Some(store))),
            }
        })
        .await
        .map_err(|e| ServeError::Task(e.to_string()))?;
        match tried {
            Ok(claimed) => {
                if said {
                    tracing::info!("the other referee let go of the database: this one takes over");
                }
                return Ok(claimed);
            }
            Err((e, back)) if standby => {
                if !said {
                    tracing::info!("standing by: {e}");
                    said = true;
                }
                store = back;
                tokio::time::sleep(STANDBY_RETRY).await;
            }
            Err((crate::store::StoreError::ClaimTaken(_), back))
                if began.elapsed() < CLAIM_GRACE =>
            {
                store = back;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err((e, _)) => return Err(ServeError::Storage(e)),
        }
    }
}

/// Each event as storage has it: its stored entries applied again (none: not begun).
fn take_up_events(
    store: &mut dyn crate::store::Journal,
    files: Vec<crate::event::EventFile>,
) -> Result<Vec<crate::event::Event>, crate::store::StoreError> {
    use crate::store::StoreError;
    files
        .into_iter()
        .map(|file| {
            let name = file.name.clone();
            let entries = store
                .event_entries(&name)?
                .iter()
                .enumerate()
                .map(|(k, text)| {
                    serde_json::from_str::<crate::event::Entry>(text).map_err(|e| {
                        StoreError::Unreadable(format!(
                            "event {name}: stored entry {k} cannot be read: {e}"
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            crate::event::Event::replay(file, &entries).map_err(|why| {
                StoreError::Conflict(format!(
                    "event {name}: {why} (the stored event is left as it is; give the file \
                     its first content again, or the event another name)"
                ))
            })
        })
        .collect()
}

/// Computes the rating list from the stored games (Floodgate's method: players with a
/// rating id, `mk_rate`'s rules) at start and then every `every`, off the referee loop, and
/// hands it to the lobby.
async fn ratings_loop(
    db: DbUrl,
    driver: driver::Handle,
    league: Arc<crate::league::League>,
    every: std::time::Duration,
    stop: Stop,
) {
    // The rates last kept: a list is kept again only when it changed.
    let mut kept: Option<crate::lobby::Ratings> = None;
    loop {
        let db = db.clone();
        let last = kept.take();
        let computed = tokio::task::spawn_blocking(move || {
            let lists = crate::ratings::from_store(&db)?;
            let at = chrono::Local::now().format("%Y/%m/%d %H:%M:%S").to_string();
            let floodgate = lists.floodgate.map(|(ratings, list)| {
                if !ratings.is_empty() && last.as_ref() != Some(&ratings) {
                    if let Err(e) = crate::ratings::keep(&db, &at, &ratings) {
                        tracing::warn!("the rating list was not kept: {e}");
                        return (ratings, list, last);
                    }
                    return (ratings.clone(), list, Some(ratings));
                }
                (ratings, list, last)
            });
            Ok::<_, String>((floodgate, lists.people, at))
        })
        .await;
        match computed {
            Ok(Ok((floodgate, people, at))) => {
                // The accounts' list stands whatever became of Floodgate's.
                league.set_people(people);
                match floodgate {
                    Ok((ratings, list, now_kept)) => {
                        kept = now_kept;
                        league.set_ratings(at, list);
                        if !driver.input(crate::lobby::Input::Ratings(ratings)).await {
                            return;
                        }
                    }
                    Err(e) => tracing::warn!("the rating list was not computed: {e}"),
                }
            }
            Ok(Err(e)) => tracing::warn!("the rating list was not computed: {e}"),
            // Its blocking task was cancelled: the runtime is shutting down (a message
            // then would come after the server's last word).
            Err(e) if e.is_cancelled() => return,
            Err(e) => tracing::warn!("the rating list was not computed: {e}"),
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.cancelled() => return,
        }
    }
}
