//! One CSA client's connection: login, then lines in and messages out.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;

use gyoku_proto::csa::{ClientMessage, Login};
use gyoku_proto::csa_line::ServerLine;

use super::new_names;
use super::pace::Pace;
use super::{LOGIN_TIME, Limits, MAX_LINE, WRITE_TIMEOUT};
use crate::accounts::{Accounts, Checked};
use crate::driver::{ConnHandle, Handle, WriterMsg, queue};
use crate::identity::{GameName, Identity, RatingKey};
use crate::lobby::{CheckedLogin, ConnId, Input};

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

/// What a client hears when its password cannot be checked (storage unavailable): not
/// `LOGIN:incorrect`, which would tell a right password it is wrong.
pub const UNAVAILABLE: &str =
    "passwords cannot be checked now (storage unavailable); try again later";

/// One client: logged in (a deadline, password hashes a few at once), then its lines to
/// the driver and the driver's messages to it (a bounded queue, a write deadline).
pub(crate) async fn connection(
    id: ConnId,
    socket: TcpStream,
    driver: Handle,
    accounts: Accounts,
    limits: &Limits,
) {
    let address = socket
        .peer_addr()
        .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |a| a.ip());
    let (read_half, write_half) = socket.into_split();
    let (tx, rx) = queue();
    let closed = Arc::new(Notify::new());
    // Set when the lobby refuses a reconnection: the try then counts as a wrong guess.
    let refused = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = spawn_writer(write_half, rx, Arc::clone(&closed), Arc::clone(&refused));
    let mut reader = BufReader::new(read_half);
    let mut buf = Vec::new();
    let say = |line: ServerLine| {
        let _ = tx.push_lines(vec![line]);
    };
    let gate = Gate {
        closed: &closed,
        driver: &driver,
        accounts: &accounts,
        limits,
        address,
    };
    let (login, ticketed) = match gate.log_in(&mut reader, &mut buf, &say).await {
        LoggedIn::Gone => return,
        LoggedIn::Not => {
            drop(tx);
            let _ = writer.await;
            return;
        }
        LoggedIn::As(login, ticketed) => (*login, ticketed),
    };
    // A reconnection's token is checked by the lobby: a refused one counts as a wrong
    // guess for the name and the address once the connection ends.
    let reconnecting = login.reconnect.is_some().then(|| login.name.clone());
    tracing::Span::current().record("player", tracing::field::display(&login.name));
    tracing::info!("logged in");
    let checked = checked_login(login, ticketed, &accounts, address);
    let conn = ConnHandle {
        out: tx.clone(),
        closed: Arc::clone(&closed),
    };
    if !driver.register(id, conn).await || !driver.input(Input::LoggedIn(id, checked)).await {
        return;
    }
    drop(tx);
    pass_lines(id, &mut reader, &mut buf, &closed, &driver).await;
    tracing::info!("closed");
    let _ = driver.input(Input::Closed(id)).await;
    let _ = writer.await;
    if let Some(name) = reconnecting
        && refused.load(std::sync::atomic::Ordering::Relaxed)
    {
        let mut throttle = limits
            .throttle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(said) = throttle.failed(address, &name, Instant::now()) {
            tracing::warn!("reconnect: {said}");
        }
    }
}

/// The one place the lobby's values become the protocol's text: writes what the driver
/// queues for the client, each write within [`WRITE_TIMEOUT`]; notes a refused
/// reconnection in `refused`, and `closed` when it stops.
fn spawn_writer(
    mut write_half: tokio::net::tcp::OwnedWriteHalf,
    mut rx: crate::driver::Incoming,
    closed: Arc<Notify>,
    refused: Arc<std::sync::atomic::AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut text = String::new();
        while let Some(msg) = rx.recv().await {
            if matches!(msg, WriterMsg::Close) {
                break;
            }
            if let WriterMsg::Lines(lines) = &msg
                && lines
                    .iter()
                    .any(|l| matches!(l, ServerLine::ReconnectRefused(_)))
            {
                refused.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            text.clear();
            msg.write_to(&mut text);
            let w = tokio::time::timeout(WRITE_TIMEOUT, write_half.write_all(text.as_bytes()));
            if !matches!(w.await, Ok(Ok(()))) {
                break;
            }
        }
        let _ = write_half.shutdown().await;
        closed.notify_one();
    })
}

/// What the login phase ended with.
enum LoggedIn {
    /// The connection was closed (its writer stopped): nothing more to do.
    Gone,
    /// No login: the deadline, the end of the stream, an unreadable line.
    Not,
    /// A login, with who a web page's ticket says it is.
    As(Box<Login>, Option<Identity>),
}

/// What a password check came to.
enum Verdict {
    Right,
    Wrong,
    /// A new name its address may not bind yet (for this long).
    NewRefused(std::time::Duration),
    /// Storage could not say (not the client's fault).
    Unavailable(String),
    /// No place to check it in time, or the server is stopping.
    Stop,
    /// The connection was closed meanwhile.
    Gone,
}

/// What a connection's login is checked with.
struct Gate<'a> {
    closed: &'a Notify,
    driver: &'a Handle,
    accounts: &'a Accounts,
    limits: &'a Limits,
    address: std::net::IpAddr,
}

impl Gate<'_> {
    /// Reads lines until a login is accepted, within [`LOGIN_TIME`].
    async fn log_in(
        &self,
        reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
        buf: &mut Vec<u8>,
        say: &impl Fn(ServerLine),
    ) -> LoggedIn {
        let deadline = Instant::now() + LOGIN_TIME;
        loop {
            let line = tokio::select! {
                l = tokio::time::timeout_at(deadline, read_line(reader, buf)) => l,
                () = self.closed.notified() => return LoggedIn::Gone,
            };
            let line = match line {
                Ok(Ok(Some(l))) => l,
                Ok(Err(e)) => {
                    say(ServerLine::Error(e.to_string()));
                    return LoggedIn::Not;
                }
                _ => return LoggedIn::Not,
            };
            let login = match ClientMessage::parse(&line) {
                Ok(ClientMessage::Login(login)) => login,
                Ok(ClientMessage::KeepAlive) => continue,
                _ => {
                    say(ServerLine::LoginIncorrect);
                    if line.split_whitespace().count() >= 4 {
                        say(ServerLine::LoginUsage);
                    }
                    continue;
                }
            };
            // The engine a web page's seat chose, with the seat's ticket: the ticket says
            // who it is.
            if let Some(who) = self.driver.ticket(&login.name, &login.password) {
                return LoggedIn::As(Box::new(login), Some(who));
            }
            let guess = !login.password.is_empty() || login.reconnect.is_some();
            // Guessing is slowed: after a few wrong passwords (or reconnect tries) for this
            // name or from this address, each try waits (within the login deadline).
            if guess {
                let wait = self
                    .limits
                    .throttle
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .wait(self.address, &login.name, Instant::now());
                if !wait.is_zero() {
                    crate::metrics::get().throttle("csa_login");
                    let until = (Instant::now() + wait).min(deadline);
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => {}
                        () = self.closed.notified() => return LoggedIn::Gone,
                    }
                }
            }
            // A player coming back to its game proves who it is by the game's token (128
            // bits, given to it alone), checked by the lobby: no password hash, so a crowd
            // coming back at once costs no hashing (issue 42).
            if login.reconnect.is_some() {
                return LoggedIn::As(Box::new(login), None);
            }
            let right = match self.check(&login, deadline).await {
                Verdict::Right => true,
                Verdict::Wrong => false,
                Verdict::NewRefused(wait) => {
                    say(ServerLine::LoginIncorrect);
                    say(ServerLine::Error(new_names::refusal(wait)));
                    continue;
                }
                Verdict::Unavailable(e) => {
                    // Not the client's fault: a right password must not hear it is wrong.
                    tracing::warn!("login of {}: {e}", login.name);
                    say(ServerLine::Error(UNAVAILABLE.into()));
                    continue;
                }
                Verdict::Stop => return LoggedIn::Not,
                Verdict::Gone => return LoggedIn::Gone,
            };
            if guess {
                let mut throttle = self
                    .limits
                    .throttle
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if right {
                    throttle.succeeded(self.address, &login.name);
                } else if let Some(said) =
                    throttle.failed(self.address, &login.name, Instant::now())
                {
                    tracing::warn!("login: {said}");
                }
            }
            if right {
                return LoggedIn::As(Box::new(login), None);
            }
            say(ServerLine::LoginIncorrect);
        }
    }

    /// Checks the login's name and password on the password threads: every check (a
    /// storage read, a hash for a password) waits for a place on their queue rather than
    /// being refused when a crowd logs in at once, within the login deadline; a few hashes
    /// at once (each takes tens of milliseconds and memory).
    async fn check(&self, login: &Login, deadline: Instant) -> Verdict {
        let limits = self.limits;
        let _place = tokio::select! {
            place = limits.checking.acquire() => match place {
                Ok(p) => p,
                Err(_) => return Verdict::Stop,
            },
            () = tokio::time::sleep_until(deadline) => return Verdict::Stop,
            () = self.closed.notified() => return Verdict::Gone,
        };
        let _permit = if login.password.is_empty() {
            None
        } else {
            match limits.hashing.acquire().await {
                Ok(p) => Some(p),
                Err(_) => return Verdict::Stop,
            }
        };
        let accounts = self.accounts.clone();
        let (name, password) = (login.name.clone(), login.password.clone());
        let now = chrono::Local::now().format("%Y/%m/%d %H:%M:%S").to_string();
        let new_names = Arc::clone(&limits.new_names);
        let address = self.address;
        // A new name is bound only while its address may bind one: asked before the hash,
        // so a crowd of new names costs a read each, not a hash each.
        let may_bind = move || {
            new_names
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take(address, Instant::now())
        };
        let checked = limits
            .hash_pool
            .run(move || accounts.check_paced(&name, &password, &now, may_bind))
            .await;
        match checked {
            None => Verdict::Unavailable("the password threads are busy".into()),
            Some(Ok(Checked::Right)) => Verdict::Right,
            Some(Ok(Checked::Wrong)) => Verdict::Wrong,
            Some(Ok(Checked::NewRefused(wait))) => Verdict::NewRefused(wait),
            Some(Err(e)) => Verdict::Unavailable(e.to_string()),
        }
    }
}

/// The lobby's view of an accepted login: who it is (a reconnecting player's rating key is
/// the one its game was started with — the lobby gives it back —, not one made from a
/// password not checked here) and the game it asks for.
fn checked_login(
    login: Login,
    ticketed: Option<Identity>,
    accounts: &Accounts,
    address: std::net::IpAddr,
) -> CheckedLogin {
    let who = ticketed.unwrap_or_else(|| Identity::Csa {
        rating_key: (!login.password.is_empty() && login.reconnect.is_none())
            .then(|| RatingKey::from(accounts.rating_id(&login.name, &login.password))),
        name: login.name.clone(),
    });
    CheckedLogin {
        who,
        game: if login.x1 || login.reconnect.is_some() {
            None
        } else {
            Some(match &login.game {
                Some(g) => (GameName::from(g.name.as_str()), g.turn),
                None => (GameName::from("default-1500-0"), None),
            })
        },
        x1: login.x1,
        address: Some(address),
        reconnect: login.reconnect,
    }
}

/// The client's lines to the driver, at its pace, until it or the server closes.
async fn pass_lines(
    id: ConnId,
    reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
    buf: &mut Vec<u8>,
    closed: &Notify,
    driver: &Handle,
) {
    let mut pace = Pace::new(Instant::now());
    loop {
        let line = tokio::select! {
            l = read_line(reader, buf) => l,
            () = closed.notified() => break,
        };
        match line {
            Ok(Some(l)) => {
                // Past its pace, a client's lines wait here, reading nothing meanwhile.
                let wait = pace.wait(Instant::now());
                if !wait.is_zero() {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = closed.notified() => break,
                    }
                }
                if !driver.input(Input::Line(id, l)).await {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                tracing::info!("read: {e}");
                break;
            }
        }
    }
}
