//! New names in a crowd (issue 43): from `addresses` loopback addresses (127.0.0.2, …)
//! `names` clients log in at once, each with a new name and a password, while a known
//! player logs in from 127.0.0.1. Reports how long the known player waited, and how many
//! of the crowd were let in (each a password hash and a stored account) or refused.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};

/// What a crowd of new names did.
#[derive(Clone, Debug, Default)]
pub struct LoginFloodReport {
    /// New names tried.
    pub names: usize,
    /// Let in (bound).
    pub admitted: usize,
    /// Refused (`LOGIN:incorrect`).
    pub refused: usize,
    /// Neither within two minutes (or the connection failed).
    pub unanswered: usize,
    /// How long the known player's login took, while the crowd came, ms.
    pub known_login_ms: f64,
    /// How long until every one of the crowd had its answer, seconds.
    pub crowd_seconds: f64,
}

/// Connects from `source` and logs in `name` with `password` (x1): the first line heard.
async fn login_from(
    source: IpAddr,
    addr: SocketAddr,
    name: &str,
    password: &str,
) -> Option<String> {
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(source, 0)).ok()?;
    let stream = socket.connect(addr).await.ok()?;
    first_line(stream, name, password).await
}

async fn first_line(mut stream: TcpStream, name: &str, password: &str) -> Option<String> {
    stream
        .write_all(format!("LOGIN {name} {password} x1\n").as_bytes())
        .await
        .ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let read = tokio::time::timeout(Duration::from_secs(120), reader.read_line(&mut line)).await;
    matches!(read, Ok(Ok(n)) if n > 0).then_some(line)
}

/// Binds `known` first, then sends the crowd and, 100 ms into it, logs `known` in again.
pub async fn flood(addr: SocketAddr, names: usize, addresses: u8) -> LoginFloodReport {
    let home = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let _ = login_from(home, addr, "known", "known-pw").await;
    let start = Instant::now();
    let crowd: Vec<_> = (0..names)
        .map(|k| {
            let source = IpAddr::V4(Ipv4Addr::new(
                127,
                0,
                0,
                2 + (k % usize::from(addresses.max(1))) as u8,
            ));
            tokio::spawn(async move { login_from(source, addr, &format!("new{k}"), "pw").await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let asked = Instant::now();
    let known = login_from(home, addr, "known", "known-pw").await;
    let known_login_ms = asked.elapsed().as_secs_f64() * 1000.0;
    if !known
        .as_deref()
        .is_some_and(|l| l.starts_with("LOGIN:known OK"))
    {
        eprintln!("login-flood: the known player heard {known:?}");
    }
    let mut report = LoginFloodReport {
        names,
        known_login_ms,
        ..LoginFloodReport::default()
    };
    for c in crowd {
        match c.await.ok().flatten() {
            Some(l) if l.starts_with("LOGIN:incorrect") => report.refused += 1,
            Some(l) if l.starts_with("LOGIN:") => report.admitted += 1,
            _ => report.unanswered += 1,
        }
    }
    report.crowd_seconds = start.elapsed().as_secs_f64();
    report
}
