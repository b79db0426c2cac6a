//! One client's chat against silent listeners (issue 43): N x1 clients log in and never
//! read; one client writes `%%CHAT` lines of 16,000 bytes as fast as the server takes
//! them, reading what it is sent. The server must drop the listeners that do not read and
//! stay within its memory, not abort: run it under an address-space limit, and report its
//! peak RSS and whether it was still there at the end.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// What a flood did.
#[derive(Clone, Debug, Default)]
pub struct FloodReport {
    /// Listeners logged in.
    pub listeners: usize,
    /// Listeners the server had closed by the end (it drops a client that does not read).
    pub dropped: usize,
    /// Chat lines the chatter wrote.
    pub lines: u64,
    /// How long the chatter wrote, seconds.
    pub seconds: f64,
    /// Whether the chatter's connection was still open at the end.
    pub chatter_connected: bool,
}

/// Logs in `name` (x1) and waits for the server's `LOGIN:<name> OK`.
async fn login(addr: SocketAddr, name: &str) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    s.write_all(format!("LOGIN {name} pw x1\n").as_bytes())
        .await
        .ok()?;
    let mut r = BufReader::new(&mut s);
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        line.clear();
        let read = tokio::time::timeout(Duration::from_secs(30), r.read_line(&mut line)).await;
        match read {
            Ok(Ok(n)) if n > 0 => {
                if line.starts_with(&format!("LOGIN:{name} OK")) {
                    return Some(s);
                }
            }
            _ => return None,
        }
    }
    None
}

/// Floods `addr` for `seconds` with `listeners` silent listeners.
pub async fn flood(addr: SocketAddr, listeners: usize, seconds: u64) -> FloodReport {
    let mut silent = Vec::new();
    for k in 0..listeners {
        if let Some(s) = login(addr, &format!("listener{k}")).await {
            silent.push(s);
        }
    }
    let mut report = FloodReport {
        listeners: silent.len(),
        ..FloodReport::default()
    };
    let Some(chatter) = login(addr, "chatter").await else {
        return report;
    };
    let (r, mut w) = chatter.into_split();
    let drain = tokio::spawn(crate::csa_load::drain(r));
    let line = format!("%%CHAT {}\n", "x".repeat(16_000));
    let start = Instant::now();
    let until = start + Duration::from_secs(seconds);
    while Instant::now() < until {
        let wrote = tokio::time::timeout_at(until.into(), w.write_all(line.as_bytes())).await;
        match wrote {
            Ok(Ok(())) => report.lines += 1,
            Ok(Err(_)) => break,
            Err(_) => break,
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    report.chatter_connected = !drain.is_finished();
    drain.abort();
    // A listener the server dropped reads to its end: what was queued, then EOF.
    for mut s in silent {
        let mut buf = vec![0u8; 1 << 16];
        let closed = loop {
            match tokio::time::timeout(Duration::from_millis(500), s.read(&mut buf)).await {
                Ok(Ok(0) | Err(_)) => break true,
                Ok(Ok(_)) => {}
                Err(_) => break false,
            }
        };
        report.dropped += usize::from(closed);
    }
    report
}
