//! The driver: the one task that runs the [`Lobby`]. Every transport reaches it through a
//! [`Handle`]; it takes what arrived (many connections' lines at once), lets the lobby
//! decide, commits every storage change of that batch in one transaction on a blocking
//! thread, and only then sends what the batch decided. The players of a game whose record
//! file is being written hear the rest once it is there, everyone else at once.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use crate::error::ServeError;
use gyoku_proto::csa::{ClientMessage, GameSummary};
use gyoku_proto::csa_line::ServerLine;

use crate::identity::Identity;
use crate::lobby::{CheckedLogin, ConnId, Input, Lobby, Now, Output, Reply};
use crate::log::note;
use crate::record_files::RecordJob;
use crate::store::{Change, Journal, StoreError};

/// Messages queued for one client before it counts as not reading.
pub const WRITE_QUEUE: usize = 4096;

/// Bytes queued for one client before it counts as not reading: past it the client is
/// disconnected, so that clients that never read cannot hold the server's memory.
pub const WRITE_QUEUE_BYTES: usize = 4 << 20;

/// The sending half of a connection's queue: bounded in messages ([`WRITE_QUEUE`]) and in
/// bytes ([`WRITE_QUEUE_BYTES`]).
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    tx: mpsc::Sender<Weighed>,
    bytes: Arc<AtomicUsize>,
}

/// The receiving half: the connection's writer.
#[derive(Debug)]
pub(crate) struct Incoming {
    rx: mpsc::Receiver<Weighed>,
    bytes: Arc<AtomicUsize>,
}

/// A connection's queue.
pub(crate) fn queue() -> (Outgoing, Incoming) {
    let (tx, rx) = mpsc::channel(WRITE_QUEUE);
    let bytes = Arc::new(AtomicUsize::new(0));
    (
        Outgoing {
            tx,
            bytes: Arc::clone(&bytes),
        },
        Incoming { rx, bytes },
    )
}

impl Outgoing {
    /// Queues `msg`; `false` (nothing queued) when the queue is full in messages or would
    /// pass its bytes, or the writer is gone.
    pub(crate) fn push(&self, msg: WriterMsg) -> bool {
        self.push_weighed(Weighed::new(msg))
    }

    /// Queues lines, as one write.
    pub(crate) fn push_lines(&self, lines: Vec<ServerLine>) -> bool {
        self.push(WriterMsg::Lines(lines))
    }

    fn push_weighed(&self, w: Weighed) -> bool {
        let len = w.bytes;
        let queued = self.bytes.fetch_add(len, Ordering::Relaxed);
        if queued + len > WRITE_QUEUE_BYTES || self.tx.try_send(w).is_err() {
            self.bytes.fetch_sub(len, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Tells the writer to close the connection once what is queued is sent.
    pub(crate) fn close(&self) {
        let _ = self.tx.try_send(Weighed::new(WriterMsg::Close));
    }
}

impl Incoming {
    /// The next message; `None` when every sender is gone.
    pub(crate) async fn recv(&mut self) -> Option<WriterMsg> {
        let w = self.rx.recv().await?;
        self.bytes.fetch_sub(w.bytes, Ordering::Relaxed);
        Some(w.msg)
    }
}

/// What goes to a connection's writer: values, formatted as text only by a socket's
/// writer ([`WriterMsg::write_to`]).
#[derive(Debug)]
pub(crate) enum WriterMsg {
    /// Lines, written in one go.
    Lines(Vec<ServerLine>),
    /// A player's `Game_Summary` block.
    Summary(Box<GameSummary>),
    /// The answer to a request, on a connection made for it.
    Reply(Reply),
    /// Close the connection.
    Close,
}

impl WriterMsg {
    /// The text a client reads, appended to `text` (each line with its line end; an
    /// answer to a request, which no socket receives, is nothing).
    pub(crate) fn write_to(&self, w: &mut impl std::fmt::Write) {
        match self {
            WriterMsg::Lines(lines) => {
                for line in lines {
                    let _ = writeln!(w, "{line}");
                }
            }
            WriterMsg::Summary(summary) => {
                let _ = write!(w, "{summary}");
            }
            WriterMsg::Reply(_) | WriterMsg::Close => {}
        }
    }

    /// What it takes in a queue: the bytes of its text, counted without writing it (an
    /// answer to a request counts as 64).
    fn weight(&self) -> usize {
        /// Counts what would be written.
        struct Count(usize);
        impl std::fmt::Write for Count {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0 += s.len();
                Ok(())
            }
        }
        if let WriterMsg::Reply(_) = self {
            return 64;
        }
        let mut n = Count(0);
        self.write_to(&mut n);
        n.0
    }
}

/// A message with its weight, counted once.
#[derive(Debug)]
struct Weighed {
    msg: WriterMsg,
    bytes: usize,
}

impl Weighed {
    fn new(msg: WriterMsg) -> Weighed {
        let bytes = msg.weight();
        Weighed { msg, bytes }
    }
}

/// What a connection inside the server hears: the lobby's values as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A line.
    Line(ServerLine),
    /// Its `Game_Summary` for a game proposed to it.
    Summary(Box<GameSummary>),
    /// The answer to its request.
    Reply(Reply),
}

/// How the driver reaches a connection: its writer's queue, and a way to close it.
pub(crate) struct ConnHandle {
    /// The writer's queue.
    pub(crate) out: Outgoing,
    /// Notified when the driver drops the connection (it does not read).
    pub(crate) closed: Arc<Notify>,
}

/// What reaches the driver.
pub(crate) enum Event {
    /// A connection and where its messages go.
    Register(ConnId, ConnHandle),
    /// An input for the lobby, and when it arrived.
    Lobby(Input, Instant),
    /// Record files are written: these players may hear the rest.
    RecordsWritten(Vec<ConnId>),
}

/// Makes a [`Handle`] and the receiver the driver reads; `csa` is the CSA port's address.
pub(crate) fn channel(csa: SocketAddr) -> (Handle, mpsc::Receiver<Event>) {
    let (events, rx) = mpsc::channel::<Event>(65_536);
    (
        Handle {
            events,
            ids: Arc::new(AtomicU64::new(1)),
            csa,
            tickets: Arc::default(),
        },
        rx,
    )
}

impl Handle {
    /// A callback for the record writer: these players' files are on disk, and they may
    /// hear the rest (nothing happens once the driver has stopped).
    pub(crate) fn records_written(&self) -> impl Fn(Vec<ConnId>) + Send + 'static {
        let events = self.events.downgrade();
        move |players| {
            if let Some(events) = events.upgrade() {
                let _ = events.blocking_send(Event::RecordsWritten(players));
            }
        }
    }
}

/// The way into the driver, for every transport: the CSA port registers its connections
/// through it, and it makes connections inside the server process (a web page's player)
/// that talk to the lobby as a CSA client does, without a socket; it also tells where the
/// CSA port is, for engines the server puts on it.
#[derive(Clone, Debug)]
pub struct Handle {
    events: mpsc::Sender<Event>,
    ids: Arc<AtomicU64>,
    csa: SocketAddr,
    /// Tickets for engines the web page puts on the CSA port under a web player's name.
    tickets: Arc<std::sync::Mutex<crate::tickets::Tickets>>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Event")
    }
}

impl Handle {
    /// A new connection's id.
    pub(crate) fn next_id(&self) -> ConnId {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Tells the driver of a connection and where its messages go; `false` once the server
    /// has stopped.
    pub(crate) async fn register(&self, id: ConnId, conn: ConnHandle) -> bool {
        self.events.send(Event::Register(id, conn)).await.is_ok()
    }

    /// Hands the lobby `input`, stamped with the time it arrived; `false` once the server
    /// has stopped.
    pub(crate) async fn input(&self, input: Input) -> bool {
        self.events
            .send(Event::Lobby(input, Instant::now()))
            .await
            .is_ok()
    }

    /// A connection registered with the driver (not yet known to the lobby): what the
    /// lobby sends to its id arrives on it; dropped, it tells the lobby it closed.
    async fn register_conn(&self) -> Option<Conn> {
        let id = self.next_id();
        let (tx, rx) = queue();
        let closed = Arc::new(Notify::new());
        let handle = ConnHandle {
            out: tx,
            closed: Arc::clone(&closed),
        };
        self.events.send(Event::Register(id, handle)).await.ok()?;
        Some(Conn {
            id,
            events: self.events.clone(),
            rx,
            closed,
            pending: std::collections::VecDeque::new(),
        })
    }

    /// Logs in a connection as `login` says (checked already: no password is asked);
    /// `None` once the server has stopped.
    pub async fn connect(&self, login: CheckedLogin) -> Option<Conn> {
        let conn = self.register_conn().await?;
        self.input(Input::LoggedIn(conn.id, login))
            .await
            .then_some(conn)
    }

    /// An operator's action on `event` (see [`Input::EventAdmin`]): the lobby's answer,
    /// a JSON line; `None` once the server has stopped.
    pub async fn event_admin(
        &self,
        event: String,
        action: crate::lobby::EventAction,
    ) -> Option<Reply> {
        let mut answer = self.register_conn().await?;
        let input = Input::EventAdmin {
            reply: answer.id,
            event,
            action,
        };
        if !self.input(input).await {
            return None;
        }
        loop {
            if let Heard::Reply(reply) = answer.recv().await? {
                return Some(reply);
            }
        }
    }

    /// Games named `game` are set up so (see [`Input::Setup`]).
    pub async fn setup(&self, game: String, setup: crate::lobby::GameSetup) -> bool {
        self.events
            .send(Event::Lobby(
                Input::Setup {
                    game,
                    setup: Box::new(setup),
                },
                Instant::now(),
            ))
            .await
            .is_ok()
    }

    /// A ticket for `who` (the engine a seat chose): the password with which it logs in
    /// on the CSA port as that player ([`Handle::ticket`]).
    pub fn issue_ticket(&self, who: Identity) -> String {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .issue(who, std::time::Instant::now())
    }

    /// The player whose ticket `password` is, logging in as `name`; `None` if it is none.
    pub fn ticket(&self, name: &str, password: &str) -> Option<Identity> {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .admits(name, password, std::time::Instant::now())
    }

    /// `who`'s ticket is no longer good (its game is over).
    pub fn revoke_ticket(&self, who: &Identity) {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .revoke(who);
    }

    /// The CSA port's address, as a client on this machine reaches it.
    pub fn csa_addr(&self) -> SocketAddr {
        let mut at = self.csa;
        if at.ip().is_unspecified() {
            at.set_ip(if at.is_ipv4() {
                IpAddr::from([127, 0, 0, 1])
            } else {
                IpAddr::from(std::net::Ipv6Addr::LOCALHOST)
            });
        }
        at
    }
}

/// A connection made by [`Handle::connect`]; it closes when dropped.
#[derive(Debug)]
pub struct Conn {
    id: ConnId,
    events: mpsc::Sender<Event>,
    rx: Incoming,
    closed: Arc<Notify>,
    pending: std::collections::VecDeque<Heard>,
}

impl Conn {
    /// Sends a message, as a client would send its line; `false` once the server has
    /// stopped.
    pub async fn send(&self, message: ClientMessage) -> bool {
        let input = Input::Message(self.id, message);
        self.events
            .send(Event::Lobby(input, Instant::now()))
            .await
            .is_ok()
    }

    /// Plays a move, as a value ([`Input::Play`]); `false` once the server has stopped.
    pub async fn play(&self, mv: gyoku::Move) -> bool {
        let input = Input::Play(self.id, mv);
        self.events
            .send(Event::Lobby(input, Instant::now()))
            .await
            .is_ok()
    }

    /// The next thing the server sends; `None` once the server has closed the connection.
    pub async fn recv(&mut self) -> Option<Heard> {
        loop {
            if let Some(heard) = self.pending.pop_front() {
                return Some(heard);
            }
            let msg = tokio::select! {
                m = self.rx.recv() => m,
                () = self.closed.notified() => None,
            };
            match msg? {
                WriterMsg::Lines(lines) => self.pending.extend(lines.into_iter().map(Heard::Line)),
                WriterMsg::Summary(summary) => return Some(Heard::Summary(summary)),
                WriterMsg::Reply(reply) => return Some(Heard::Reply(reply)),
                WriterMsg::Close => return None,
            }
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        let closed = Event::Lobby(Input::Closed(self.id), Instant::now());
        if let Err(mpsc::error::TrySendError::Full(ev)) = self.events.try_send(closed)
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            let events = self.events.clone();
            rt.spawn(async move { events.send(ev).await });
        }
    }
}

/// Messages to a player that wait: for its game's record file, or for changes not yet
/// stored.
#[derive(Default)]
struct Held {
    /// What it waits for: record batches not yet written, batches not yet stored.
    holds: usize,
    queue: Vec<Weighed>,
    /// The text queued, in bytes.
    bytes: usize,
}

/// Text a connection may have waiting (behind changes not yet stored) before it is
/// dropped as a client that floods.
const MAX_HELD_BYTES: usize = 4 << 20;

/// The connections' writers, and the players whose messages wait.
#[derive(Default)]
struct Outbox {
    conns: HashMap<ConnId, ConnHandle>,
    held: HashMap<ConnId, Held>,
}

impl Outbox {
    /// Sends (or holds) a message, in order.
    fn deliver(&mut self, id: ConnId, msg: WriterMsg) {
        self.deliver_weighed(id, Weighed::new(msg));
    }

    fn deliver_weighed(&mut self, id: ConnId, msg: Weighed) {
        if let Some(h) = self.held.get_mut(&id) {
            h.bytes += msg.bytes;
            h.queue.push(msg);
            if h.bytes > MAX_HELD_BYTES {
                // It keeps asking while its messages wait: disconnected.
                self.held.remove(&id);
                if let Some(c) = self.conns.remove(&id) {
                    c.closed.notify_one();
                }
            }
            return;
        }
        self.deliver_now(id, msg);
    }

    /// Sends a message ahead of anything held for the connection (a notice).
    fn deliver_now(&mut self, id: ConnId, msg: Weighed) {
        match msg.msg {
            WriterMsg::Close => {
                if let Some(h) = self.conns.remove(&id) {
                    h.out.close();
                }
            }
            _ => {
                if let Some(h) = self.conns.get(&id)
                    && !h.out.push_weighed(msg)
                {
                    // Not reading: disconnected (the reader reports it closed).
                    h.closed.notify_one();
                    self.conns.remove(&id);
                }
            }
        }
    }

    /// Holds a connection's messages until [`Outbox::release`].
    fn hold(&mut self, id: ConnId) {
        self.held.entry(id).or_default().holds += 1;
    }

    /// What these connections waited for is done: each hears what waited, once nothing
    /// else holds it.
    fn release(&mut self, ids: &[ConnId]) {
        for id in ids {
            let Some(h) = self.held.get_mut(id) else {
                continue;
            };
            h.holds -= 1;
            if h.holds == 0 {
                let queue = std::mem::take(&mut h.queue);
                self.held.remove(id);
                for msg in queue {
                    self.deliver_weighed(*id, msg);
                }
            }
        }
    }
}

/// Changes decided but not yet stored, and what waits for them: the connections whose
/// messages are held until they are stored, the record files to write then.
#[derive(Default)]
struct Unstored {
    changes: Vec<Change>,
    held: Vec<ConnId>,
    records: Vec<RecordJob>,
}

impl Unstored {
    /// `self`, then `later`.
    fn then(mut self, later: Unstored) -> Unstored {
        self.changes.extend(later.changes);
        self.held.extend(later.held);
        self.records.extend(later.records);
        self
    }
}

/// A commit on its blocking thread: the store and the changes come back with the result.
type Committed = (Box<dyn Journal>, Vec<Change>, Result<(), StoreError>);

/// How often at most the scheduled rounds' view is published for the web page.
const PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// How often the events' view is built again though no event changed.
const EVENTS_REFRESH: Duration = Duration::from_secs(5);

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

/// The page's view of the rounds and events, published to the league: at most every
/// [`PUBLISH_EVERY`], and only when it changed.
struct Views {
    /// When it was last published.
    at: Option<Instant>,
    /// A view left unpublished by the rate limit: published when the limit allows.
    again: Option<Instant>,
    /// The events' version last published, and when.
    events: (u64, Instant),
}

impl Default for Views {
    fn default() -> Views {
        Views {
            at: None,
            again: None,
            events: (u64::MAX, Instant::now()),
        }
    }
}

impl Views {
    fn publish(&mut self, lobby: &Lobby, league: &crate::league::League) {
        if !lobby.has_schedules() && !lobby.has_events() {
            return;
        }
        let now = Instant::now();
        match self.at {
            Some(t) if now.duration_since(t) < PUBLISH_EVERY => {
                self.again.get_or_insert(t + PUBLISH_EVERY);
            }
            _ => self.again = None,
        }
        if self
            .at
            .is_some_and(|t| now.duration_since(t) < PUBLISH_EVERY)
        {
            return;
        }
        self.at = Some(now);
        let view = lobby.scheduled_view();
        if *league.scheduled() != view {
            league.set_scheduled(view);
        }
        // Built only when an event changed (standings cost a rating fit), or every few
        // seconds for what the version does not see (a game resumed).
        if lobby.has_events()
            && (lobby.events_changed() != self.events.0
                || now.duration_since(self.events.1) >= EVENTS_REFRESH)
        {
            self.events = (lobby.events_changed(), now);
            let view = lobby.events_view();
            if *league.events() != view {
                league.set_events(view);
            }
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
    let wall = chrono::Local::now().naive_local();
    let (utc_ms, taken) = (crate::wall::utc_now_ms(), Instant::now());
    let mut gone = Vec::new();
    for (input, at) in batch.drain(..) {
        if let Input::Closed(id) = input {
            gone.push(id);
        }
        let mono =
            u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX);
        let age = i64::try_from(taken.saturating_duration_since(at).as_millis()).unwrap_or(0);
        let now = Now {
            mono,
            wall,
            utc_ms: utc_ms - age,
        };
        lobby.handle(input, now, out);
    }
    gone
}

/// Commits `changes` on a blocking thread; the store, what was stored and the result come
/// back on the receiver.
fn commit_in_background(
    mut store: Box<dyn Journal>,
    changes: Vec<Change>,
) -> tokio::sync::oneshot::Receiver<Committed> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_blocking(move || {
        let result = store.commit(&changes);
        let _ = tx.send((store, changes, result));
    });
    rx
}

/// The referee loop: takes what arrived (many connections' lines at once), lets the lobby
/// decide, commits every storage change in one transaction on a blocking thread, and only
/// then sends what depended on it. A batch that stores nothing is answered at once (after
/// what is held for the same connection), also while a commit is under way. When storage
/// fails or is slow, the lobby stops the clocks, what was decided is kept and committed
/// again with a growing wait (up to 5 s), and the clocks go on once it is stored. Returns
/// when `stop` is told (after the commit under way ends, and what it stored is sent).
pub(crate) async fn drive(
    mut lobby: Lobby,
    mut rx: mpsc::Receiver<Event>,
    store: Box<dyn Journal>,
    files: std::sync::mpsc::Sender<RecordJob>,
    changes: tokio::sync::broadcast::Sender<crate::store::notices::Changed>,
    league: Arc<crate::league::League>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ServeError> {
    let epoch = Instant::now();
    let now_of = |at: Instant| Now {
        mono: u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX),
        wall: chrono::Local::now().naive_local(),
        utc_ms: crate::wall::utc_now_ms() - i64::try_from(at.elapsed().as_millis()).unwrap_or(0),
    };
    let mut outbox = Outbox::default();
    let mut store = Some(store);
    let mut committing: Option<(Unstored, tokio::sync::oneshot::Receiver<Committed>)> = None;
    let mut waiting = Unstored::default();
    let mut retry_at: Option<Instant> = None;
    let mut slow_at: Option<Instant> = None;
    let mut failures = 0u32;
    let mut failing = false;
    let mut views = Views::default();
    let mut batch: Vec<(Input, Instant)> = Vec::new();
    let mut out = Vec::new();
    // When the last commit began (an empty one keeps the claim when nothing else does).
    let mut last_commit = Instant::now();
    loop {
        let keep_at =
            (committing.is_none() && retry_at.is_none()).then(|| last_commit + KEEP_CLAIM);
        let deadline = lobby
            .next_deadline()
            .map(|ms| epoch + Duration::from_millis(ms));
        let mut finished = None;
        tokio::select! {
            ev = rx.recv() => {
                let Some(ev) = ev else { break };
                take_batch(ev, &mut rx, &mut batch, &mut outbox);
            }
            () = sleep_until_opt(deadline) => batch.push((Input::Tick, Instant::now())),
            done = wait_commit(&mut committing) => finished = Some(done?),
            () = sleep_until_opt(retry_at) => retry_at = None,
            () = sleep_until_opt(keep_at) => {}
            () = sleep_until_opt(views.again) => views.again = None,
            () = sleep_until_opt(slow_at) => {
                slow_at = None;
                if !failing {
                    failing = true;
                    note("storage is slow: the games' clocks stop until it answers");
                    lobby.handle(Input::StorageFailing, now_of(Instant::now()), &mut out);
                    notify(&mut outbox, &mut out);
                }
            }
            _ = stop.wait_for(|stop| *stop) => break,
        }
        if let Some((unstored, (s, stored, result))) = finished {
            store = Some(s);
            slow_at = None;
            match result {
                Ok(()) => {
                    if failing {
                        failing = false;
                        note("storage works again: the games go on");
                        lobby.handle(Input::StorageWorks, now_of(Instant::now()), &mut out);
                        notify(&mut outbox, &mut out);
                    }
                    failures = 0;
                    stored_now(&stored, unstored, &changes, &files, &mut outbox)?;
                }
                Err(e @ StoreError::ClaimTaken(_)) => return Err(ServeError::ClaimTaken(e)),
                Err(e) => {
                    if failures == 0 {
                        note(&format!(
                            "storage failed ({e}); what the games decided is kept and stored again"
                        ));
                    }
                    failures += 1;
                    if !failing {
                        failing = true;
                        lobby.handle(Input::StorageFailing, now_of(Instant::now()), &mut out);
                        notify(&mut outbox, &mut out);
                    }
                    // Stored first, as decided first.
                    let again = Unstored {
                        changes: stored,
                        ..unstored
                    };
                    waiting = again.then(std::mem::take(&mut waiting));
                    retry_at = Some(Instant::now() + backoff(failures));
                }
            }
        }
        let gone = hand_over(&mut lobby, &mut batch, epoch, &mut out);
        dispatch(&mut out, &mut outbox, &mut waiting);
        views.publish(&lobby, &league);
        for id in gone {
            outbox.conns.remove(&id);
        }
        if committing.is_none()
            && retry_at.is_none()
            && (!waiting.changes.is_empty() || last_commit.elapsed() >= KEEP_CLAIM)
        {
            last_commit = Instant::now();
            let unstored = std::mem::take(&mut waiting);
            let s = store.take().expect("the store is back after each commit");
            let done = commit_in_background(s, unstored.changes.clone());
            committing = Some((unstored, done));
            slow_at = Some(Instant::now() + SLOW_COMMIT);
        }
    }
    // Stopping: the commit under way ends, and what it stored is told.
    if committing.is_some() {
        let (unstored, (_store, stored, result)) = wait_commit(&mut committing).await?;
        if result.is_ok() {
            stored_now(&stored, unstored, &changes, &files, &mut outbox)?;
        }
    }
    Ok(())
}

/// The commit under way, once it ends (never, when there is none).
async fn wait_commit(
    committing: &mut Option<(Unstored, tokio::sync::oneshot::Receiver<Committed>)>,
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

/// Changes are stored: watchers hear of each game they changed (once), the record files
/// go to the writer, and the held connections hear what waited.
fn stored_now(
    stored: &[Change],
    unstored: Unstored,
    changes: &tokio::sync::broadcast::Sender<crate::store::notices::Changed>,
    files: &std::sync::mpsc::Sender<RecordJob>,
    outbox: &mut Outbox,
) -> Result<(), ServeError> {
    let mut told: Vec<&str> = Vec::new();
    for id in stored.iter().filter_map(Change::game_id) {
        if !told.contains(&id) {
            told.push(id);
            let _ = changes.send(crate::store::notices::Changed::Game(id.to_string()));
        }
    }
    for job in unstored.records {
        if files.send(job).is_err() {
            return Err(ServeError::Task("the record writer stopped".into()));
        }
    }
    outbox.release(&unstored.held);
    Ok(())
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
