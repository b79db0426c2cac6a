//! The referee loop, as a [`Driver`] whose state is named: what arrived is handed to the
//! lobby in batches, each batch's changes are committed in one transaction on a blocking
//! thread while the next batch is decided, and what a batch decided goes out once its
//! changes are stored. Storage that fails or is slow stops the games' clocks until it
//! works again; nothing decided is lost meanwhile.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

use super::views::Views;
use super::{Event, Outbox, Weighed, WriterMsg};
use crate::error::ServeError;
use crate::lobby::{ConnId, Input, Lobby, Now, Output};
use crate::record_files::RecordJob;
use crate::store::notices::Changed;
use crate::store::{Change, Journal, StoreError};

/// Changes decided but not yet stored, and what waits for them: the connections whose
/// messages are held until they are stored, the record files to write then.
#[derive(Default)]
struct Unstored {
    changes: Vec<Change>,
    held: Vec<ConnId>,
    records: Vec<RecordJob>,
    /// When each move among the inputs that decided these changes arrived: its echo goes
    /// out once they are stored (the echo latency metric).
    moves_arrived: Vec<Instant>,
}

impl Unstored {
    /// `self`, then `later`.
    fn then(mut self, later: Unstored) -> Unstored {
        self.changes.extend(later.changes);
        self.held.extend(later.held);
        self.records.extend(later.records);
        self.moves_arrived.extend(later.moves_arrived);
        self
    }
}

/// Whether an input is a move (a CSA move line, or a web seat's move).
fn is_move(input: &Input) -> bool {
    match input {
        Input::Line(_, line) => {
            let b = line.as_bytes();
            matches!(b.first(), Some(b'+' | b'-')) && b.get(1).is_some_and(u8::is_ascii_digit)
        }
        Input::Play(..) => true,
        _ => false,
    }
}

/// A commit on its blocking thread: the store and the changes come back with the result.
type Committed = (Box<dyn Journal>, Vec<Change>, Result<(), StoreError>);

/// How long a commit may take before the games' clocks stop (storage is failing).
const SLOW_COMMIT: Duration = Duration::from_secs(1);

/// How long storage may go unused before an empty commit asks whether it is still there:
/// after an outage PostgreSQL's connection, and the referee's claim on the database with
/// it, are made again within this, not at the next move (a standby cannot take the
/// database from a referee that is only idle).
const KEEP_CLAIM: Duration = Duration::from_secs(1);

/// The wait before trying storage again after the `n`th failure in a row.
fn backoff(failures: u32) -> Duration {
    Duration::from_millis(100u64 << failures.min(6)).min(Duration::from_secs(5))
}

/// What the loop woke for.
enum Woke {
    /// Inputs arrived (the first; the rest are taken with it).
    Inbound(Event),
    /// A lobby deadline came (a clock, an agreement, a round).
    Tick,
    /// The commit under way ended.
    Committed(Box<(Unstored, Committed)>),
    /// The wait after a failed commit is over: commit again.
    Retry,
    /// Storage has been idle: an empty commit keeps the claim on it.
    KeepClaim,
    /// The rate limit let a held view of the rounds and events be published.
    Publish,
    /// The commit under way is slow.
    Slow,
}

/// Where storage stands: the store (away while a commit runs on it), the commit under way,
/// what waits for the next one, and how the last ones went.
struct Storage {
    store: Option<Box<dyn Journal>>,
    committing: Option<(Unstored, oneshot::Receiver<Committed>)>,
    waiting: Unstored,
    /// When the last commit began (an empty one keeps the claim when nothing else does).
    last_commit: Instant,
    /// When to commit again after a failure.
    retry_at: Option<Instant>,
    /// When the commit under way counts as slow.
    slow_at: Option<Instant>,
    /// When the commit under way began (for the commit latency metric).
    commit_began: Instant,
    /// Failed commits in a row.
    failures: u32,
    /// The lobby has been told storage fails (its clocks are stopped).
    failing: bool,
}

/// The referee loop's state.
struct Driver {
    lobby: Lobby,
    /// The instant the lobby's monotonic milliseconds count from.
    epoch: Instant,
    outbox: Outbox,
    storage: Storage,
    views: Views,
    /// The inputs taken and not yet handed to the lobby, each with when it arrived.
    batch: Vec<(Input, Instant)>,
    /// What the lobby decided and the loop has not yet carried out.
    out: Vec<Output>,
    /// Record files to write once stored.
    files: std::sync::mpsc::Sender<RecordJob>,
    /// Who hears of each stored game's change (the HTTP API's followers).
    changes: broadcast::Sender<Changed>,
    league: Arc<crate::league::League>,
}

/// The referee loop: takes what arrived (many connections' lines at once), lets the lobby
/// decide, commits every storage change in one transaction on a blocking thread, and only
/// then sends what depended on it. A batch that stores nothing is answered at once (after
/// what is held for the same connection), also while a commit is under way. When storage
/// fails or is slow, the lobby stops the clocks, what was decided is kept and committed
/// again with a growing wait (up to 5 s), and the clocks go on once it is stored. Returns
/// when `stop` is told (after the commit under way ends, and what it stored is sent).
pub(crate) async fn drive(
    lobby: Lobby,
    mut rx: mpsc::Receiver<Event>,
    store: Box<dyn Journal>,
    files: std::sync::mpsc::Sender<RecordJob>,
    changes: broadcast::Sender<Changed>,
    league: Arc<crate::league::League>,
    stop: crate::supervisor::Stop,
) -> Result<(), ServeError> {
    let mut d = Driver {
        lobby,
        epoch: Instant::now(),
        outbox: Outbox::default(),
        storage: Storage {
            store: Some(store),
            committing: None,
            waiting: Unstored::default(),
            last_commit: Instant::now(),
            commit_began: Instant::now(),
            retry_at: None,
            slow_at: None,
            failures: 0,
            failing: false,
        },
        views: Views::default(),
        batch: Vec::new(),
        out: Vec::new(),
        files,
        changes,
        league,
    };
    loop {
        let deadline = d.lobby_deadline();
        let keep_at = d.keep_claim_at();
        let woke = tokio::select! {
            ev = rx.recv() => match ev {
                Some(ev) => Woke::Inbound(ev),
                None => break,
            },
            () = sleep_until_opt(deadline) => Woke::Tick,
            done = wait_commit(&mut d.storage.committing) => Woke::Committed(Box::new(done?)),
            () = sleep_until_opt(d.storage.retry_at) => Woke::Retry,
            () = sleep_until_opt(keep_at) => Woke::KeepClaim,
            () = sleep_until_opt(d.views.again) => Woke::Publish,
            () = sleep_until_opt(d.storage.slow_at) => Woke::Slow,
            () = stop.cancelled() => break,
        };
        d.on(woke, &mut rx)?;
        d.after_batch();
    }
    d.finish().await
}

impl Driver {
    /// `at` as the lobby counts time.
    fn now_of(&self, at: Instant) -> Now {
        Clocks::read().now(self.epoch, at)
    }

    /// When the lobby next has something to do.
    fn lobby_deadline(&mut self) -> Option<Instant> {
        let epoch = self.epoch;
        self.lobby
            .next_deadline()
            .map(|ms| epoch + Duration::from_millis(ms))
    }

    /// When an empty commit keeps the claim on storage (none while one runs or waits).
    fn keep_claim_at(&self) -> Option<Instant> {
        let s = &self.storage;
        (s.committing.is_none() && s.retry_at.is_none()).then(|| s.last_commit + KEEP_CLAIM)
    }

    /// Does what the loop woke for.
    fn on(&mut self, woke: Woke, rx: &mut mpsc::Receiver<Event>) -> Result<(), ServeError> {
        match woke {
            Woke::Inbound(ev) => take_batch(ev, rx, &mut self.batch, &mut self.outbox),
            Woke::Tick => self.batch.push((Input::Tick, Instant::now())),
            Woke::Committed(done) => {
                let (unstored, committed) = *done;
                self.on_committed(unstored, committed)?;
            }
            Woke::Retry => self.storage.retry_at = None,
            Woke::KeepClaim => {}
            Woke::Publish => self.views.again = None,
            Woke::Slow => self.on_slow(),
        }
        Ok(())
    }

    /// The commit under way is slow: the games' clocks stop until it answers.
    fn on_slow(&mut self) {
        self.storage.slow_at = None;
        if !self.storage.failing {
            tracing::warn!("storage is slow: the games' clocks stop until it answers");
            self.storage_failing();
        }
    }

    /// Tells the lobby storage fails (its clocks stop), and the players at once.
    fn storage_failing(&mut self) {
        self.storage.failing = true;
        let now = self.now_of(Instant::now());
        self.lobby.handle(Input::StorageFailing, now, &mut self.out);
        notify(&mut self.outbox, &mut self.out);
    }

    /// A commit ended: what it stored goes out, or, when it failed, what it held is kept
    /// to be committed again after a wait. Another server holding the database ends the
    /// loop.
    fn on_committed(
        &mut self,
        unstored: Unstored,
        (store, stored, result): Committed,
    ) -> Result<(), ServeError> {
        self.storage.store = Some(store);
        self.storage.slow_at = None;
        let metrics = crate::metrics::get();
        metrics.commits.inc();
        metrics
            .commit_seconds
            .observe(self.storage.commit_began.elapsed().as_secs_f64());
        if result.is_err() {
            metrics.storage_errors.inc();
        }
        match result {
            Ok(()) => {
                if self.storage.failing {
                    self.storage.failing = false;
                    tracing::info!("storage works again: the games go on");
                    let now = self.now_of(Instant::now());
                    self.lobby.handle(Input::StorageWorks, now, &mut self.out);
                    notify(&mut self.outbox, &mut self.out);
                }
                self.storage.failures = 0;
                self.stored_now(&stored, unstored)
            }
            Err(e @ StoreError::ClaimTaken(_)) => Err(ServeError::ClaimTaken(e)),
            Err(e) => {
                if self.storage.failures == 0 {
                    tracing::error!(
                        "storage failed ({e}); what the games decided is kept and stored again"
                    );
                }
                self.storage.failures += 1;
                if !self.storage.failing {
                    self.storage_failing();
                }
                // Stored first, as decided first.
                let again = Unstored {
                    changes: stored,
                    ..unstored
                };
                let later = std::mem::take(&mut self.storage.waiting);
                self.storage.waiting = again.then(later);
                self.storage.retry_at = Some(Instant::now() + backoff(self.storage.failures));
                Ok(())
            }
        }
    }

    /// After whatever woke the loop: the batch goes to the lobby, what it decided is sent
    /// or held, the rounds' and events' view is published, and a commit starts when one
    /// is due.
    fn after_batch(&mut self) {
        let moves_arrived: Vec<Instant> = self
            .batch
            .iter()
            .filter(|(input, _)| is_move(input))
            .map(|&(_, at)| at)
            .collect();
        let gone = hand_over(&mut self.lobby, &mut self.batch, self.epoch, &mut self.out);
        let waiting = self.storage.waiting.changes.len();
        dispatch(&mut self.out, &mut self.outbox, &mut self.storage.waiting);
        if self.storage.waiting.changes.len() > waiting {
            self.storage.waiting.moves_arrived.extend(moves_arrived);
        } else {
            // Nothing to store: what the moves got (an error) went out at once.
            echoed(&moves_arrived);
        }
        self.views.publish(&self.lobby, &self.league);
        for id in gone {
            self.outbox.conns.remove(&id);
        }
        self.start_commit();
    }

    /// Starts committing what waits (or an empty commit that keeps the claim), unless a
    /// commit runs or waits to be tried again.
    fn start_commit(&mut self) {
        let s = &mut self.storage;
        if s.committing.is_some()
            || s.retry_at.is_some()
            || (s.waiting.changes.is_empty() && s.last_commit.elapsed() < KEEP_CLAIM)
        {
            return;
        }
        s.last_commit = Instant::now();
        let unstored = std::mem::take(&mut s.waiting);
        s.commit_began = Instant::now();
        let store = s.store.take().expect("the store is back after each commit");
        let done = commit_in_background(store, unstored.changes.clone());
        s.committing = Some((unstored, done));
        s.slow_at = Some(Instant::now() + SLOW_COMMIT);
    }

    /// Changes are stored: watchers hear of each game they changed (once), the record
    /// files go to the writer, and the held connections hear what waited.
    fn stored_now(&mut self, stored: &[Change], unstored: Unstored) -> Result<(), ServeError> {
        log_stored(stored);
        count_stored(stored);
        let mut told: Vec<&str> = Vec::new();
        for id in stored.iter().filter_map(Change::game_id) {
            if !told.contains(&id) {
                told.push(id);
                let _ = self.changes.send(Changed::Game(id.to_string()));
            }
        }
        for job in unstored.records {
            if self.files.send(job).is_err() {
                return Err(ServeError::Task("the record writer stopped".into()));
            }
        }
        self.outbox.release(&unstored.held);
        echoed(&unstored.moves_arrived);
        Ok(())
    }

    /// Stopping: the commit under way ends, and what it stored is told.
    async fn finish(mut self) -> Result<(), ServeError> {
        if self.storage.committing.is_some() {
            let (unstored, (_store, stored, result)) =
                wait_commit(&mut self.storage.committing).await?;
            if result.is_ok() {
                self.stored_now(&stored, unstored)?;
            }
        }
        Ok(())
    }
}

/// The metrics of stored changes: moves, games started, resumed and ended.
fn count_stored(stored: &[Change]) {
    let metrics = crate::metrics::get();
    for change in stored {
        match change {
            Change::Move { .. } => {
                metrics.moves.inc();
            }
            Change::GameStarted(_) | Change::GameResumed { .. } => {
                metrics.games_live.inc();
            }
            Change::GameEnded { reason, .. } => metrics.finished(reason),
            Change::Buoy { .. } | Change::EventEntry { .. } => {}
        }
    }
}

/// The echo latency of moves that arrived at `arrived`, their echoes going out now.
fn echoed(arrived: &[Instant]) {
    let metrics = crate::metrics::get();
    for at in arrived {
        metrics.echo_seconds.observe(at.elapsed().as_secs_f64());
    }
}

/// Says, in each game's span, that a stored game started, was resumed or ended (and, at
/// `debug`, each stored move).
fn log_stored(stored: &[Change]) {
    // A span costs an allocation: moves (most of what is stored) make one only when told.
    let moves_too = tracing::enabled!(tracing::Level::DEBUG);
    for change in stored {
        let Some(id) = change.game_id() else {
            continue;
        };
        if matches!(change, Change::Move { .. }) && !moves_too {
            continue;
        }
        let _game = tracing::info_span!("game", id = %id).entered();
        match change {
            Change::GameStarted(g) => tracing::info!(
                "started: {} ({} vs {}, rules {})",
                g.name,
                g.black,
                g.white,
                g.rules
            ),
            Change::Move { ply, csa, .. } => tracing::debug!("move {ply}: {csa}"),
            Change::GameEnded {
                status,
                result,
                reason,
                ..
            } => tracing::info!(
                "{status}: {} ({reason})",
                result.as_deref().unwrap_or("no result")
            ),
            Change::GameResumed { .. } => tracing::info!("resumed"),
            Change::Buoy { .. } | Change::EventEntry { .. } => {}
        }
    }
}

/// `first` and whatever else has arrived (up to 4,096 inputs): the lobby's inputs into
/// `batch`, the rest done at once.
fn take_batch(
    first: Event,
    rx: &mut mpsc::Receiver<Event>,
    batch: &mut Vec<(Input, Instant)>,
    outbox: &mut Outbox,
) {
    let mut push = |ev: Event, batch: &mut Vec<(Input, Instant)>| match ev {
        Event::Register(id, h) => {
            outbox.conns.insert(id, h);
        }
        Event::Lobby(input, at) => batch.push((input, at)),
        Event::RecordsWritten(players) => outbox.release(&players),
    };
    push(first, batch);
    while batch.len() < 4096 {
        match rx.try_recv() {
            Ok(ev) => push(ev, batch),
            Err(_) => break,
        }
    }
}

/// The batch's inputs to the lobby, each at the instant it arrived; the connections that
/// closed.
fn hand_over(
    lobby: &mut Lobby,
    batch: &mut Vec<(Input, Instant)>,
    epoch: Instant,
    out: &mut Vec<Output>,
) -> Vec<ConnId> {
    let clocks = Clocks::read();
    let mut gone = Vec::new();
    for (input, at) in batch.drain(..) {
        if let Input::Closed(id) = input {
            gone.push(id);
        }
        lobby.handle(input, clocks.now(epoch, at), out);
    }
    gone
}

/// The clocks read once (for a whole batch): the local wall time, Unix time, and the
/// instant they were read at.
struct Clocks {
    wall: chrono::NaiveDateTime,
    utc_ms: i64,
    read_at: Instant,
}

impl Clocks {
    fn read() -> Clocks {
        Clocks {
            wall: chrono::Local::now().naive_local(),
            utc_ms: crate::wall::utc_now_ms(),
            read_at: Instant::now(),
        }
    }

    /// The lobby's time of an input that arrived `at`: monotonic from `epoch`, Unix time
    /// taken back by its age when the clocks were read.
    fn now(&self, epoch: Instant, at: Instant) -> Now {
        let mono =
            u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX);
        let age = self.read_at.saturating_duration_since(at).as_millis();
        Now {
            mono,
            wall: self.wall,
            utc_ms: self.utc_ms - i64::try_from(age).unwrap_or(0),
        }
    }
}

/// Commits `changes` on a blocking thread; the store, what was stored and the result come
/// back on the receiver.
fn commit_in_background(
    mut store: Box<dyn Journal>,
    changes: Vec<Change>,
) -> oneshot::Receiver<Committed> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let result = store.commit(&changes);
        let _ = tx.send((store, changes, result));
    });
    rx
}

/// The commit under way, once it ends (never, when there is none).
async fn wait_commit(
    committing: &mut Option<(Unstored, oneshot::Receiver<Committed>)>,
) -> Result<(Unstored, Committed), ServeError> {
    let Some((_, done)) = committing.as_mut() else {
        return std::future::pending().await;
    };
    let result = done.await;
    let (unstored, _) = committing.take().expect("a commit was under way");
    result
        .map(|committed| (unstored, committed))
        .map_err(|_| ServeError::Task("the storage thread failed".into()))
}

/// What a batch decided: sent at once when it stores nothing (after what is held for the
/// same connections), else held with its changes until they are stored.
fn dispatch(out: &mut Vec<Output>, outbox: &mut Outbox, waiting: &mut Unstored) {
    let changes: Vec<Change> = out
        .iter()
        .filter_map(|o| match o {
            Output::Store(change) => Some(change.clone()),
            _ => None,
        })
        .collect();
    if changes.is_empty() {
        for o in out.drain(..) {
            if let Some((id, msg)) = to_writer(o) {
                outbox.deliver(id, msg);
            }
        }
        return;
    }
    let mut unstored = Unstored {
        changes,
        ..Unstored::default()
    };
    // The players of games whose record file this batch writes hear this batch's
    // messages (their result among them) once the file is there.
    let mut job = RecordJob {
        files: Vec::new(),
        players: Vec::new(),
    };
    for o in out.iter_mut() {
        if let Output::WriteRecord {
            path,
            bytes,
            players,
        } = o
        {
            job.files
                .push((PathBuf::from(std::mem::take(path)), std::mem::take(bytes)));
            job.players.extend_from_slice(players);
        }
    }
    for &p in &job.players {
        outbox.hold(p);
    }
    if !job.files.is_empty() {
        unstored.records.push(job);
    }
    for o in out.drain(..) {
        let Some((id, msg)) = to_writer(o) else {
            continue;
        };
        if !unstored.held.contains(&id) {
            outbox.hold(id);
            unstored.held.push(id);
        }
        outbox.deliver(id, msg);
    }
    let earlier = std::mem::take(waiting);
    *waiting = earlier.then(unstored);
}

/// What the lobby says of storage itself (its clocks stopped): told at once, ahead of what
/// is held.
fn notify(outbox: &mut Outbox, out: &mut Vec<Output>) {
    for o in out.drain(..) {
        match to_writer(o) {
            Some((id, WriterMsg::Close)) => outbox.deliver(id, WriterMsg::Close),
            Some((id, msg)) => outbox.deliver_now(id, Weighed::new(msg)),
            None => {}
        }
    }
}

/// What goes to a connection's writer, if anything does.
fn to_writer(o: Output) -> Option<(ConnId, WriterMsg)> {
    match o {
        Output::Send(id, lines) => Some((id, WriterMsg::Lines(lines))),
        Output::Summary(id, summary) => Some((id, WriterMsg::Summary(summary))),
        Output::Reply(id, reply) => Some((id, WriterMsg::Reply(reply))),
        Output::Close(id) => Some((id, WriterMsg::Close)),
        Output::Store(_) | Output::WriteRecord { .. } => None,
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
