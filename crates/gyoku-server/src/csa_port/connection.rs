//! One CSA client's connection: login, then lines in and messages out.

use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;

use gyoku_proto::csa::ClientMessage;
use gyoku_proto::csa_line::ServerLine;

use super::new_names;
use super::pace::Pace;
use super::{LOGIN_TIME, Limits, MAX_LINE, WRITE_TIMEOUT};
use crate::accounts::{Accounts, Checked};
use crate::driver::{ConnHandle, Handle, WriterMsg, queue};
use crate::identity::{GameName, Identity, RatingKey};
use crate::lobby::{CheckedLogin, ConnId, Input};
use crate::log::note;

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
    let (read_half, mut write_half) = socket.into_split();
    let (tx, mut rx) = queue();
    let closed = Arc::new(Notify::new());
    let writer_closed = Arc::clone(&closed);
    // Set when the lobby refuses a reconnection: the try then counts as a wrong guess.
    let refused = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer_refused = Arc::clone(&refused);
    let writer = tokio::spawn(async move {
        // The one place the lobby's values become the protocol's text.
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
                writer_refused.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            text.clear();
            msg.write_to(&mut text);
            let w = tokio::time::timeout(WRITE_TIMEOUT, write_half.write_all(text.as_bytes()));
            if !matches!(w.await, Ok(Ok(()))) {
                break;
            }
        }
        let _ = write_half.shutdown().await;
        writer_closed.notify_one();
    });
    let mut reader = BufReader::new(read_half);
    let mut buf = Vec::new();
    let say = |line: ServerLine| {
        let _ = tx.push_lines(vec![line]);
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
                say(ServerLine::Error(e.to_string()));
                break None;
            }
            _ => break None,
        };
        match ClientMessage::parse(&line) {
            Ok(ClientMessage::Login(login)) => {
                // The engine a web page's seat chose, with the seat's ticket: the ticket says
                // who it is.
                if let Some(who) = driver.ticket(&login.name, &login.password) {
                    break Some((login, Some(who)));
                }
                // Guessing is slowed: after a few wrong passwords (or reconnect tries) for
                // this name or from this address, each try waits (within the login
                // deadline).
                if !login.password.is_empty() || login.reconnect.is_some() {
                    let wait = limits
                        .throttle
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .wait(address, &login.name, Instant::now());
                    if !wait.is_zero() {
                        let until = (Instant::now() + wait).min(deadline);
                        tokio::select! {
                            () = tokio::time::sleep_until(until) => {}
                            () = closed.notified() => return,
                        }
                    }
                }
                // A player coming back to its game proves who it is by the game's token
                // (128 bits, given to it alone), checked by the lobby: no password hash, so
                // a crowd coming back at once costs no hashing (issue 42).
                if login.reconnect.is_some() {
                    break Some((login, None));
                }
                // Every check (a storage read, a hash for a password) waits for a place on
                // the password threads' queue rather than being refused when a crowd logs
                // in at once; the login deadline bounds the wait.
                let _place = tokio::select! {
                    place = limits.checking.acquire() => match place {
                        Ok(p) => p,
                        Err(_) => break None,
                    },
                    () = tokio::time::sleep_until(deadline) => break None,
                    () = closed.notified() => return,
                };
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
                let new_names = Arc::clone(&limits.new_names);
                // A new name is bound only while its address may bind one: asked before the
                // hash, so a crowd of new names costs a read each, not a hash each.
                let may_bind = move || {
                    new_names
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .take(address, Instant::now())
                };
                let checked = limits
                    .hash_pool
                    .run(move || accounts.check_paced(&name, &password, &now, may_bind))
                    .await
                    .ok_or_else(|| "the password threads are busy".to_string())
                    .and_then(|r| r.map_err(|e| e.to_string()));
                let ok = match checked {
                    Ok(Checked::Right) => true,
                    Ok(Checked::Wrong) => false,
                    Ok(Checked::NewRefused(wait)) => {
                        say(ServerLine::LoginIncorrect);
                        say(ServerLine::Error(new_names::refusal(wait)));
                        continue;
                    }
                    Err(e) => {
                        // Not the client's fault: a right password must not hear it is wrong.
                        note(&format!("login of {}: {e}", login.name));
                        say(ServerLine::Error(UNAVAILABLE.into()));
                        continue;
                    }
                };
                if !login.password.is_empty() || login.reconnect.is_some() {
                    let mut throttle = limits
                        .throttle
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if ok {
                        throttle.succeeded(address, &login.name);
                    } else if let Some(said) = throttle.failed(address, &login.name, Instant::now())
                    {
                        note(&format!("login: {said}"));
                    }
                }
                if ok {
                    break Some((login, None));
                }
                say(ServerLine::LoginIncorrect);
            }
            Ok(ClientMessage::KeepAlive) => {}
            _ => {
                say(ServerLine::LoginIncorrect);
                if line.split_whitespace().count() >= 4 {
                    say(ServerLine::LoginUsage);
                }
            }
        }
    };
    // A reconnection's token is checked by the lobby: a refused one counts as a wrong
    // guess for the name and the address once the connection ends.
    let reconnecting = login
        .as_ref()
        .and_then(|(l, _)| l.reconnect.is_some().then(|| l.name.clone()));
    let Some((login, ticketed)) = login else {
        drop(tx);
        let _ = writer.await;
        return;
    };
    // A reconnecting player's rating key is the one its game was started with (the lobby
    // gives it back), not one made from a password not checked here.
    let who = ticketed.unwrap_or_else(|| Identity::Csa {
        rating_key: (!login.password.is_empty() && login.reconnect.is_none())
            .then(|| RatingKey::from(accounts.rating_id(&login.name, &login.password))),
        name: login.name.clone(),
    });
    let checked = CheckedLogin {
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
    };
    let conn = ConnHandle {
        out: tx.clone(),
        closed: Arc::clone(&closed),
    };
    if !driver.register(id, conn).await || !driver.input(Input::LoggedIn(id, checked)).await {
        return;
    }
    drop(tx);
    let mut pace = Pace::new(Instant::now());
    loop {
        let line = tokio::select! {
            l = read_line(&mut reader, &mut buf) => l,
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
                note(&format!("connection {id}: {e}"));
                break;
            }
        }
    }
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
            note(&format!("reconnect: {said}"));
        }
    }
}
