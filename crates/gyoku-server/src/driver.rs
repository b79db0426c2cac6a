//! The driver: the one task that runs the [`Lobby`](crate::lobby::Lobby). Every transport
//! reaches it through a [`Handle`]; it takes what arrived (many connections' lines at
//! once), lets the lobby decide, commits every storage change of that batch in one
//! transaction on a blocking thread, and only then sends what the batch decided. The
//! players of a game whose record file is being written hear the rest once it is there,
//! everyone else at once.
//!
//! This file holds the transports' side (the [`Handle`], an in-process [`Conn`], each
//! connection's bounded queue) and the outbox that holds messages until what they depend
//! on is stored; `run` is the loop itself (a `Driver` whose state is named), `views` the
//! rounds' and events' view it publishes.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use gyoku_proto::csa::{ClientMessage, GameSummary};
use gyoku_proto::csa_line::ServerLine;

use crate::identity::Identity;
use crate::lobby::{CheckedLogin, ConnId, Input, Reply};

mod run;
mod views;
pub(crate) use run::drive;

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
