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
use crate::lobby::{CheckedLogin, ConnId, Input, Lobby, Now, Output};
use crate::record_files::RecordJob;
use crate::store::{Change, Journal};

/// Messages queued for one client before it counts as not reading.
pub const WRITE_QUEUE: usize = 4096;

/// Bytes queued for one client before it counts as not reading: past it the client is
/// disconnected, so that clients that never read cannot hold the server's memory.
pub const WRITE_QUEUE_BYTES: usize = 4 << 20;

/// The sending half of a connection's queue: bounded in messages ([`WRITE_QUEUE`]) and in
/// bytes ([`WRITE_QUEUE_BYTES`]).
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    tx: mpsc::Sender<WriterMsg>,
    bytes: Arc<AtomicUsize>,
}

/// The receiving half: the connection's writer.
#[derive(Debug)]
pub(crate) struct Incoming {
    rx: mpsc::Receiver<WriterMsg>,
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
    /// Queues `text`; `false` (nothing queued) when the queue is full in messages or would
    /// pass its bytes, or the writer is gone.
    pub(crate) fn push(&self, text: String) -> bool {
        let len = text.len();
        let queued = self.bytes.fetch_add(len, Ordering::Relaxed);
        if queued + len > WRITE_QUEUE_BYTES || self.tx.try_send(WriterMsg::Text(text)).is_err() {
            self.bytes.fetch_sub(len, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Tells the writer to close the connection once what is queued is sent.
    pub(crate) fn close(&self) {
        let _ = self.tx.try_send(WriterMsg::Close);
    }
}

impl Incoming {
    /// The next message; `None` when every sender is gone.
    pub(crate) async fn recv(&mut self) -> Option<WriterMsg> {
        let msg = self.rx.recv().await;
        if let Some(WriterMsg::Text(t)) = &msg {
            self.bytes.fetch_sub(t.len(), Ordering::Relaxed);
        }
        msg
    }
}

/// What goes to a connection's writer.
pub(crate) enum WriterMsg {
    /// Text to send as it is.
    Text(String),
    /// Close the connection.
    Close,
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

    /// Logs in a connection as `login` says (checked already: no password is asked);
    /// `None` once the server has stopped.
    pub async fn connect(&self, login: CheckedLogin) -> Option<Conn> {
        let id = self.next_id();
        let (tx, rx) = queue();
        let closed = Arc::new(Notify::new());
        let handle = ConnHandle {
            out: tx,
            closed: Arc::clone(&closed),
        };
        self.events.send(Event::Register(id, handle)).await.ok()?;
        self.events
            .send(Event::Lobby(Input::LoggedIn(id, login), Instant::now()))
            .await
            .ok()?;
        Some(Conn {
            id,
            events: self.events.clone(),
            rx,
            closed,
            pending: std::collections::VecDeque::new(),
        })
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

    /// A ticket for a web player's name (`builtin@web12w`): the password with which an
    /// engine the page puts on the CSA port logs in as that name ([`Handle::admits`]).
    pub fn issue_ticket(&self, name: &str) -> String {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .issue(name, std::time::Instant::now())
    }

    /// Whether `password` is `name`'s ticket.
    pub fn admits(&self, name: &str, password: &str) -> bool {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .admits(name, password, std::time::Instant::now())
    }

    /// `name`'s ticket is no longer good (its game is over).
    pub fn revoke_ticket(&self, name: &str) {
        self.tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .revoke(name);
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
    pending: std::collections::VecDeque<String>,
}

impl std::fmt::Debug for WriterMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriterMsg")
    }
}

impl Conn {
    /// Sends a line, as a client would (without its newline); `false` once the server has
    /// stopped.
    pub async fn send(&self, line: &str) -> bool {
        let input = Input::Line(self.id, line.to_string());
        self.events
            .send(Event::Lobby(input, Instant::now()))
            .await
            .is_ok()
    }

    /// The next line the server sends (without its newline); `None` once the server has
    /// closed the connection.
    pub async fn recv(&mut self) -> Option<String> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Some(line);
            }
            let msg = tokio::select! {
                m = self.rx.recv() => m,
                () = self.closed.notified() => None,
            };
            match msg? {
                WriterMsg::Text(text) => {
                    self.pending.extend(text.lines().map(str::to_string));
                }
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

/// Messages to a player that wait for its game's record file.
#[derive(Default)]
struct Held {
    /// Record batches not yet written that this player waits for.
    files: usize,
    queue: Vec<WriterMsg>,
}

/// The connections' writers, and the players whose messages wait for a record file.
#[derive(Default)]
struct Outbox {
    conns: HashMap<ConnId, ConnHandle>,
    held: HashMap<ConnId, Held>,
}

impl Outbox {
    /// Sends (or holds) a message, in order.
    fn deliver(&mut self, id: ConnId, msg: WriterMsg) {
        if let Some(h) = self.held.get_mut(&id) {
            h.queue.push(msg);
            return;
        }
        match msg {
            WriterMsg::Text(text) => {
                if let Some(h) = self.conns.get(&id)
                    && !h.out.push(text)
                {
                    // Not reading: disconnected (the reader reports it closed).
                    h.closed.notify_one();
                    self.conns.remove(&id);
                }
            }
            WriterMsg::Close => {
                if let Some(h) = self.conns.remove(&id) {
                    h.out.close();
                }
            }
        }
    }

    fn hold(&mut self, id: ConnId) {
        self.held.entry(id).or_default().files += 1;
    }

    /// A record batch is written: its players hear what waited, once nothing else holds
    /// them.
    fn release(&mut self, players: &[ConnId]) {
        for id in players {
            let Some(h) = self.held.get_mut(id) else {
                continue;
            };
            h.files -= 1;
            if h.files == 0 {
                let queue = std::mem::take(&mut h.queue);
                self.held.remove(id);
                for msg in queue {
                    self.deliver(*id, msg);
                }
            }
        }
    }
}

/// The referee loop: takes what arrived (many connections' lines at once), lets the lobby
/// decide, commits every storage change of that batch in one transaction on a blocking
/// thread, and only then sends what the batch decided. Returns when `stop` is told (after
/// the batch being committed is sent), or with an error when storage fails.
pub(crate) async fn drive(
    mut lobby: Lobby,
    mut rx: mpsc::Receiver<Event>,
    store: Box<dyn Journal>,
    files: std::sync::mpsc::Sender<RecordJob>,
    changes: tokio::sync::broadcast::Sender<String>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ServeError> {
    let epoch = Instant::now();
    let mut outbox = Outbox::default();
    let mut store = Some(store);
    let mut batch: Vec<(Input, Instant)> = Vec::new();
    let mut out = Vec::new();
    loop {
        let deadline = lobby
            .next_deadline()
            .map(|ms| epoch + Duration::from_millis(ms));
        tokio::select! {
            ev = rx.recv() => {
                let Some(ev) = ev else { return Ok(()) };
                let mut push = |ev: Event, batch: &mut Vec<(Input, Instant)>| match ev {
                    Event::Register(id, h) => { outbox.conns.insert(id, h); }
                    Event::Lobby(input, at) => batch.push((input, at)),
                    Event::RecordsWritten(players) => outbox.release(&players),
                };
                push(ev, &mut batch);
                while batch.len() < 4096 {
                    match rx.try_recv() {
                        Ok(ev) => push(ev, &mut batch),
                        Err(_) => break,
                    }
                }
            }
            () = sleep_until_opt(deadline) => batch.push((Input::Tick, Instant::now())),
            _ = stop.wait_for(|stop| *stop) => return Ok(()),
        }
        let wall = chrono::Local::now().naive_local();
        let mut gone = Vec::new();
        for (input, at) in batch.drain(..) {
            if let Input::Closed(id) = input {
                gone.push(id);
            }
            let mono =
                u64::try_from(at.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX);
            lobby.handle(input, Now { mono, wall }, &mut out);
        }
        let stores: Vec<Change> = out
            .iter()
            .filter_map(|o| match o {
                Output::Store(op) => Some(op.clone()),
                _ => None,
            })
            .collect();
        if !stores.is_empty() {
            let mut s = store.take().expect("the store is back after each batch");
            let (s, result) = tokio::task::spawn_blocking(move || {
                let r = s.commit(&stores).map_err(|e| e.to_string());
                (s, r)
            })
            .await
            .map_err(|e| ServeError(e.to_string()))?;
            store = Some(s);
            if let Err(e) = result {
                // Nothing of this batch was stored: say nothing of it, and stop.
                return Err(ServeError(format!("storage failed, stopping: {e}")));
            }
            // Watchers hear of each game this batch changed, once (none may be listening).
            let mut told: Vec<&str> = Vec::new();
            for id in out.iter().filter_map(|o| match o {
                Output::Store(op) => op.game_id(),
                _ => None,
            }) {
                if !told.contains(&id) {
                    told.push(id);
                    let _ = changes.send(id.to_string());
                }
            }
        }
        // The players of games whose record file this batch writes hear this batch's
        // messages (their result among them) once the file is there.
        let mut job = RecordJob {
            files: Vec::new(),
            players: Vec::new(),
        };
        for o in &mut out {
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
        for o in out.drain(..) {
            match o {
                Output::Send(id, text) => outbox.deliver(id, WriterMsg::Text(text)),
                Output::Close(id) => outbox.deliver(id, WriterMsg::Close),
                Output::Store(_) | Output::WriteRecord { .. } => {}
            }
        }
        if !job.files.is_empty() && files.send(job).is_err() {
            return Err(ServeError("the record writer stopped".into()));
        }
        for id in gone {
            outbox.conns.remove(&id);
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
