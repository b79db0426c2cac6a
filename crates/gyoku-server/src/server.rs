//! The CSA server on tokio: connections, the referee's loop, storage and record files.
//!
//! One task runs the [`Lobby`]: it takes what arrived (many connections' lines at once),
//! lets the lobby decide, commits every storage change of that batch in one transaction
//! on a blocking thread, and only then sends what the batch decided. Finished games'
//! record files are written by a thread of their own, off the moves' path: the players of
//! a game whose file is being written hear the rest once it is there, everyone else at
//! once. Each connection has a reader task (bounded lines, a login deadline) and a writer
//! task (a bounded queue: a client that does not read is disconnected, never waited for).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::time::Instant;

use gyoku_proto::csa::ClientMessage;

use crate::accounts::{Accounts, rating_id};
use crate::lobby::{CheckedLogin, Config, ConnId, GameSpec, Input, Lobby, Now, Output};
use crate::store::{Archive, Change, DbUrl, Journal};

/// Longest line a client may send, bytes (a move with a long PV comment fits).
pub const MAX_LINE: usize = 16 * 1024;

/// Time to log in after connecting (shogi-server's `Login_Time`).
pub const LOGIN_TIME: Duration = Duration::from_secs(300);

/// Messages queued for one client before it counts as not reading.
pub const WRITE_QUEUE: usize = 4096;

/// A write that takes longer than this disconnects the client.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Ended games whose record files are checked at start, and written again from the
/// database if missing or different (the server stopped between the commit and the file).
pub const RECORDS_CHECKED_AT_START: u32 = 10_000;

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
    /// The HTTP API's address (`None`: no HTTP).
    pub http: Option<SocketAddr>,
    /// The USI engines people may play against on the web page, by name.
    pub engines: Vec<crate::play::EngineChoice>,
}

/// Why the server stopped.
#[derive(Debug)]
pub struct ServeError(pub String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

enum WriterMsg {
    Text(String),
    Close,
}

struct ConnHandle {
    tx: mpsc::Sender<WriterMsg>,
    closed: Arc<Notify>,
}

enum Event {
    Register(ConnId, ConnHandle),
    Lobby(Input, Instant),
    /// Record files are written: these players may hear the rest.
    RecordsWritten(Vec<ConnId>),
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
}

/// Runs the server until `shutdown` completes. `on_start` is called once it listens.
///
/// # Errors
/// [`ServeError`] when it cannot listen or open storage, or storage fails (the server
/// stops rather than echo a move it could not store).
pub async fn run(
    options: Options,
    on_start: impl FnOnce(&Started),
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), ServeError> {
    let db = options.db.clone();
    let records = options.records.clone();
    let (store, accounts, buoys, (interrupted, suspended), records_restored) =
        tokio::task::spawn_blocking(move || {
            let mut store = crate::store::open(&db)?;
            let records_restored = restore_record_files(&mut *store, &records)?;
            store.start_upkeep()?;
            let interrupted = store.suspend_unfinished()?;
            let buoys = store.buoys()?;
            let mut suspended = Vec::new();
            for (g, moves) in store.suspended_games()? {
                match GameSpec::from_stored(&g, moves) {
                    Some(spec) => suspended.push(spec),
                    None => note(&format!(
                        "suspended game {} cannot be read back; left as it is",
                        g.id
                    )),
                }
            }
            let accounts = Accounts::new(crate::store::open(&db)?);
            Ok::<_, crate::store::StoreError>((
                store,
                accounts,
                buoys,
                (interrupted, suspended),
                records_restored,
            ))
        })
        .await
        .map_err(|e| ServeError(e.to_string()))?
        .map_err(|e| ServeError(e.to_string()))?;
    let listener = listen(options.csa)
        .map_err(|e| ServeError(format!("cannot listen on {}: {e}", options.csa)))?;
    let local = listener
        .local_addr()
        .map_err(|e| ServeError(e.to_string()))?;
    // The HTTP API reads the same storage through a connection of its own.
    // Each committed change's Game_ID, for the API's watchers.
    let (changes, _) = tokio::sync::broadcast::channel::<String>(4096);
    let (tx, rx) = mpsc::channel::<Event>(65_536);
    let ids = Arc::new(AtomicU64::new(1));
    let connector = LocalConnector {
        events: tx.clone(),
        ids: Arc::clone(&ids),
        csa: local,
    };
    let http = match options.http {
        None => None,
        Some(addr) => {
            let db = options.db.clone();
            let conn = tokio::task::spawn_blocking(move || crate::store::open(&db))
                .await
                .map_err(|e| ServeError(e.to_string()))?
                .map_err(|e| ServeError(e.to_string()))?;
            let l = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| ServeError(format!("cannot listen on {addr}: {e}")))?;
            let at = l.local_addr().map_err(|e| ServeError(e.to_string()))?;
            let watched = changes.clone();
            let play = crate::play::Play::new(connector.clone(), options.engines.clone());
            let task = tokio::spawn(async move {
                let served = crate::http::serve(l, conn, watched, play, std::future::pending());
                if let Err(e) = served.await {
                    note(&format!("the HTTP API stopped: {e}"));
                }
            });
            Some((at, task))
        }
    };
    on_start(&Started {
        csa: local,
        interrupted,
        suspended: suspended.len(),
        records_restored,
        http: http.as_ref().map(|(at, _)| *at),
    });
    let limits = Arc::new(Limits {
        total: Semaphore::new(options.max_connections),
        per_address: std::sync::Mutex::new(HashMap::new()),
        max_per_address: options.max_per_address,
        hashing: Semaphore::new(2),
    });
    let files = spawn_record_writer(options.records.clone(), tx.downgrade())
        .map_err(|e| ServeError(format!("cannot start the record writer: {e}")))?;
    let acceptor = tokio::spawn(accept_loop(listener, tx, accounts, limits, ids));
    let lobby = Lobby::new(options.lobby.clone(), buoys, suspended);
    let result = tokio::select! {
        r = referee_loop(lobby, rx, store, files, changes) => r,
        () = shutdown => Ok(()),
    };
    acceptor.abort();
    if let Some((_, task)) = http {
        task.abort();
    }
    result
}

/// Writes again the record files of the latest ended games that are missing or differ
/// from the database's record (the server stopped after committing a game's end and
/// before its file was written).
fn restore_record_files(
    store: &mut dyn Archive,
    records: &std::path::Path,
) -> Result<usize, crate::store::StoreError> {
    let mut restored = 0;
    for (path, text) in store.latest_records(RECORDS_CHECKED_AT_START)? {
        let path = records.join(path);
        let bytes = crate::lobby::record::encode(&text);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            write_record_file(&path, &bytes);
            restored += 1;
        }
    }
    Ok(restored)
}

fn write_record_file(path: &std::path::Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Synced, although the record is durable in the database already: unsynced, the
    // files' metadata rode on the database's own commits (one filesystem journal) and the
    // moves' p99 at 9,900 games grew from 12-15 ms to 89 ms.
    if let Err(e) = gyoku_kifu::files::write_atomic(path, bytes) {
        // The record is in the database; the file is a copy.
        note(&format!("record file: {e}"));
    }
}

/// Record files to write, and the players who wait for them.
struct RecordJob {
    files: Vec<(PathBuf, Vec<u8>)>,
    players: Vec<ConnId>,
}

/// Starts the thread that writes record files in the order their games ended and tells
/// the referee when each batch is on disk. It ends when the referee drops its sender.
fn spawn_record_writer(
    records: PathBuf,
    events: mpsc::WeakSender<Event>,
) -> std::io::Result<std::sync::mpsc::Sender<RecordJob>> {
    let (jobs, queue) = std::sync::mpsc::channel::<RecordJob>();
    std::thread::Builder::new()
        .name("gyoku-records".into())
        .spawn(move || {
            while let Ok(job) = queue.recv() {
                for (path, bytes) in &job.files {
                    write_record_file(&records.join(path), bytes);
                }
                let Some(events) = events.upgrade() else {
                    return;
                };
                if events
                    .blocking_send(Event::RecordsWritten(job.players))
                    .is_err()
                {
                    return;
                }
            }
        })?;
    Ok(jobs)
}

/// Listens on `addr` with a deep accept queue: thousands of clients connecting at once
/// (a tournament's start, a reconnecting crowd) are queued, not refused.
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

struct Limits {
    total: Semaphore,
    per_address: std::sync::Mutex<HashMap<IpAddr, usize>>,
    max_per_address: usize,
    hashing: Semaphore,
}

async fn accept_loop(
    listener: TcpListener,
    tx: mpsc::Sender<Event>,
    accounts: Accounts,
    limits: Arc<Limits>,
    ids: Arc<AtomicU64>,
) {
    loop {
        let Ok((mut socket, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = socket.set_nodelay(true);
        let Ok(permit) = limits.total.try_acquire() else {
            let _ = socket.write_all(b"##[ERROR] too many connections\n").await;
            continue;
        };
        let admitted = {
            let mut map = limits
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let n = map.entry(peer.ip()).or_insert(0);
            let ok = *n < limits.max_per_address;
            if ok {
                *n += 1;
            }
            ok
        };
        if !admitted {
            let _ = socket
                .write_all(b"##[ERROR] too many connections from your address\n")
                .await;
            continue;
        }
        permit.forget();
        let id = ids.fetch_add(1, Ordering::Relaxed);
        let tx = tx.clone();
        let accounts = accounts.clone();
        let limits = Arc::clone(&limits);
        tokio::spawn(async move {
            connection(id, socket, tx, accounts, &limits).await;
            let mut map = limits
                .per_address
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(n) = map.get_mut(&peer.ip()) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&peer.ip());
                }
            }
            drop(map);
            limits.total.add_permits(1);
        });
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes; `Ok(None)` at the end of the stream.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
) -> Result<Option<String>, String> {
    buf.clear();
    let mut limited = reader.take(MAX_LINE as u64 + 1);
    let n = limited
        .read_until(b'\n', buf)
        .await
        .map_err(|e| e.to_string())?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE {
        return Err(format!("a line longer than {MAX_LINE} bytes"));
    }
    // Comments may be EUC-JP or Shift_JIS (shogi-server's tests send both): keep the
    // bytes readable whatever they are.
    let text = match std::str::from_utf8(buf) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::EUC_JP.decode(buf).0.into_owned(),
    };
    Ok(Some(text.trim_end_matches(['\r', '\n']).to_string()))
}

async fn connection(
    id: ConnId,
    socket: TcpStream,
    events: mpsc::Sender<Event>,
    accounts: Accounts,
    limits: &Limits,
) {
    let (read_half, mut write_half) = socket.into_split();
    let (tx, mut rx) = mpsc::channel::<WriterMsg>(WRITE_QUEUE);
    let closed = Arc::new(Notify::new());
    let writer_closed = Arc::clone(&closed);
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            match msg {
                WriterMsg::Text(t) => {
                    let w = tokio::time::timeout(WRITE_TIMEOUT, write_half.write_all(t.as_bytes()));
                    if !matches!(w.await, Ok(Ok(()))) {
                        break;
                    }
                }
                WriterMsg::Close => break,
            }
        }
        let _ = write_half.shutdown().await;
        writer_closed.notify_one();
    });
    let mut reader = BufReader::new(read_half);
    let mut buf = Vec::new();
    let say = |text: &str| {
        let _ = tx.try_send(WriterMsg::Text(text.to_string()));
    };
    // Log in.
    let deadline = Instant::now() + LOGIN_TIME;
    let login = loop {
        let line = tokio::select! {
            l = tokio::time::timeout_at(deadline, read_line(&mut reader, &mut buf)) => l,
            () = closed.notified() => return,
        };
        let line = match line {
            Ok(Ok(Some(l))) => l,
            Ok(Err(e)) => {
                say(&format!("##[ERROR] {e}\n"));
                break None;
            }
            _ => break None,
        };
        match ClientMessage::parse(&line) {
            Ok(ClientMessage::Login(login)) => {
                // Hashing a password takes tens of milliseconds and memory: a few at once.
                let _permit = if login.password.is_empty() {
                    None
                } else {
                    match limits.hashing.acquire().await {
                        Ok(p) => Some(p),
                        Err(_) => break None,
                    }
                };
                let accounts = accounts.clone();
                let (name, password) = (login.name.clone(), login.password.clone());
                let now = chrono::Local::now().format("%Y/%m/%d %H:%M:%S").to_string();
                let ok =
                    tokio::task::spawn_blocking(move || accounts.check(&name, &password, &now))
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .unwrap_or(false);
                if ok {
                    break Some(login);
                }
                say("LOGIN:incorrect\n");
            }
            Ok(ClientMessage::KeepAlive) => {}
            _ => {
                say("LOGIN:incorrect\n");
                if line.split_whitespace().count() >= 4 {
                    say("type 'LOGIN name password' or 'LOGIN name password x1'\n");
                }
            }
        }
    };
    let Some(login) = login else {
        drop(tx);
        let _ = writer.await;
        return;
    };
    let checked = CheckedLogin {
        rating_id: (!login.password.is_empty()).then(|| rating_id(&login.name, &login.password)),
        game: if login.x1 {
            None
        } else {
            Some(match &login.game {
                Some(g) => (g.name.clone(), g.turn),
                None => ("default-1500-0".to_string(), None),
            })
        },
        name: login.name,
        x1: login.x1,
    };
    let handle = ConnHandle {
        tx: tx.clone(),
        closed: Arc::clone(&closed),
    };
    if events.send(Event::Register(id, handle)).await.is_err()
        || events
            .send(Event::Lobby(Input::LoggedIn(id, checked), Instant::now()))
            .await
            .is_err()
    {
        return;
    }
    drop(tx);
    loop {
        let line = tokio::select! {
            l = read_line(&mut reader, &mut buf) => l,
            () = closed.notified() => break,
        };
        match line {
            Ok(Some(l)) => {
                if events
                    .send(Event::Lobby(Input::Line(id, l), Instant::now()))
                    .await
                    .is_err()
                {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                note(&format!("connection {id}: {e}"));
                break;
            }
        }
    }
    let _ = events
        .send(Event::Lobby(Input::Closed(id), Instant::now()))
        .await;
    let _ = writer.await;
}

/// Makes connections inside the server process — a web page's player — that talk to the
/// lobby as a CSA client does, without a socket; and tells where the CSA port is, for
/// engines the server puts on it.
#[derive(Clone, Debug)]
pub struct LocalConnector {
    events: mpsc::Sender<Event>,
    ids: Arc<AtomicU64>,
    csa: SocketAddr,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Event")
    }
}

impl LocalConnector {
    /// Logs in a connection as `login` says (checked already: no password is asked);
    /// `None` once the server has stopped.
    pub async fn connect(&self, login: CheckedLogin) -> Option<LocalConn> {
        let id = self.ids.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel::<WriterMsg>(WRITE_QUEUE);
        let closed = Arc::new(Notify::new());
        let handle = ConnHandle {
            tx,
            closed: Arc::clone(&closed),
        };
        self.events.send(Event::Register(id, handle)).await.ok()?;
        self.events
            .send(Event::Lobby(Input::LoggedIn(id, login), Instant::now()))
            .await
            .ok()?;
        Some(LocalConn {
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

/// A connection made by [`LocalConnector::connect`]; it closes when dropped.
#[derive(Debug)]
pub struct LocalConn {
    id: ConnId,
    events: mpsc::Sender<Event>,
    rx: mpsc::Receiver<WriterMsg>,
    closed: Arc<Notify>,
    pending: std::collections::VecDeque<String>,
}

impl std::fmt::Debug for WriterMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriterMsg")
    }
}

impl LocalConn {
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

impl Drop for LocalConn {
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

fn note(msg: &str) {
    eprintln!("gyoku serve: {msg}");
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
                    && h.tx.try_send(WriterMsg::Text(text)).is_err()
                {
                    // Not reading: disconnected (the reader reports it closed).
                    h.closed.notify_one();
                    self.conns.remove(&id);
                }
            }
            WriterMsg::Close => {
                if let Some(h) = self.conns.remove(&id) {
                    let _ = h.tx.try_send(WriterMsg::Close);
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

async fn referee_loop(
    mut lobby: Lobby,
    mut rx: mpsc::Receiver<Event>,
    store: Box<dyn Journal>,
    files: std::sync::mpsc::Sender<RecordJob>,
    changes: tokio::sync::broadcast::Sender<String>,
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
