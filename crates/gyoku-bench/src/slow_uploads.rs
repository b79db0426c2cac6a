//! Slow record uploads while a person plays (issue 43): ADDRESSES loopback addresses
//! (127.0.0.2, …) each keep PER_ADDRESS `POST /api/judge` bodies arriving a byte a second,
//! while two people play a byoyomi game over the HTTP API from 127.0.0.1, each thinking a
//! while before each move. Reports how long each move's answer took, the moves not
//! answered 200, how the uploads were answered, and whether the game was lost on time.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// What the uploads and the game saw.
#[derive(Clone, Debug, Default)]
pub struct SlowUploadsReport {
    /// Slow uploads sent.
    pub uploads: usize,
    /// Uploads the server answered before they were stopped (refused at once, or cut off).
    pub uploads_answered: usize,
    /// Moves sent.
    pub moves: usize,
    /// Moves not answered 200.
    pub moves_failed: usize,
    /// The move answers' times, ms, sorted.
    pub move_ms: Vec<u32>,
    /// How the game stood at the end (`playing`, or its result and reason).
    pub game: String,
    /// Whether a player lost on time.
    pub lost_on_time: bool,
}

/// One HTTP request from `from` (`Connection: close`), with `headers` besides its own: the
/// status and JSON body, `None` when nothing answered within 30 s.
pub(crate) async fn request_with(
    from: IpAddr,
    at: SocketAddr,
    (method, path): (&str, &str),
    headers: &[(&str, &str)],
    body: &Value,
) -> Option<(u16, Value)> {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(from, 0)).ok()?;
    let mut s = socket.connect(at).await.ok()?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {at}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).await.ok()?;
    s.write_all(body.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut answer))
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&answer);
    let status = text.get(9..12)?.parse().ok()?;
    let json = text.split_once("\r\n\r\n").map_or("", |(_, j)| j);
    Some((status, serde_json::from_str(json).unwrap_or(Value::Null)))
}

/// [`request_with`] no headers of its own.
async fn request(
    from: IpAddr,
    at: SocketAddr,
    method: &str,
    path: &str,
    body: &Value,
) -> Option<(u16, Value)> {
    request_with(from, at, (method, path), &[], body).await
}

/// A record upload from `from` that sends a byte a second until `stop`; counts in
/// `answered` if the server answers before then.
async fn slow_upload(
    from: IpAddr,
    at: SocketAddr,
    answered: Arc<AtomicUsize>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let Ok(socket) = TcpSocket::new_v4() else {
        return;
    };
    if socket.bind(SocketAddr::new(from, 0)).is_err() {
        return;
    }
    let Ok(mut s): Result<TcpStream, _> = socket.connect(at).await else {
        return;
    };
    let head = format!(
        "POST /api/judge HTTP/1.1\r\nHost: {at}\r\nContent-Length: 1000000\r\n\
         Connection: close\r\n\r\nV2.2\n"
    );
    if s.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let mut buf = [0u8; 64];
    loop {
        tokio::select! {
            read = s.read(&mut buf) => {
                if matches!(read, Ok(n) if n > 0) {
                    answered.fetch_add(1, Ordering::Relaxed);
                }
                return;
            }
            () = tokio::time::sleep(Duration::from_secs(1)) => {
                if s.write_all(b"'").await.is_err() {
                    return;
                }
            }
            _ = stop.changed() => return,
        }
    }
}

/// Plays `plies` moves of a game between two people (byoyomi `byoyomi` seconds, no main
/// time), each thinking `think` before a move, while `addresses` × `per_address` slow
/// uploads hang on.
pub async fn run(
    http: SocketAddr,
    addresses: u8,
    per_address: usize,
    plies: usize,
    think: Duration,
    byoyomi: u32,
) -> Result<SlowUploadsReport, String> {
    let home = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let game = json!({"opponent": "person", "color": "black", "rules": "csa",
                      "time": {"total": 0, "byoyomi": byoyomi}});
    let (status, made) = request(home, http, "POST", "/api/play", &game)
        .await
        .ok_or("POST /api/play: no answer")?;
    if status != 201 {
        return Err(format!("POST /api/play: {status} {made}"));
    }
    let black = made["token"].as_str().unwrap_or_default().to_string();
    let invite = made["invite"].as_str().unwrap_or_default().to_string();
    let join = json!({"name": "Hanako"});
    let (status, joined) = request(
        home,
        http,
        "POST",
        &format!("/api/seats/{invite}/join"),
        &join,
    )
    .await
    .ok_or("join: no answer")?;
    if status != 200 {
        return Err(format!("join: {status} {joined}"));
    }
    let white = joined["token"].as_str().unwrap_or_default().to_string();
    // A seat's view, or what answered instead (a status, or nothing).
    let seat = |token: String| async move {
        match request(
            home,
            http,
            "GET",
            &format!("/api/seats/{token}"),
            &Value::Null,
        )
        .await
        {
            Some((200, v)) => Ok(v),
            Some((status, v)) => Err(format!("{status} {}", v["error"]["code"])),
            None => Err("no answer".to_string()),
        }
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while seat(black.clone()).await.unwrap_or_default()["seat"]["phase"] != "playing" {
        if Instant::now() > deadline {
            return Err("the game never started".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let answered = Arc::new(AtomicUsize::new(0));
    let uploads: Vec<_> = (0..addresses)
        .flat_map(|a| (0..per_address).map(move |_| a))
        .map(|a| {
            let from = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + a));
            tokio::spawn(slow_upload(from, http, Arc::clone(&answered), stop.clone()))
        })
        .collect();
    // The uploads land before the first move.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut report = SlowUploadsReport {
        uploads: uploads.len(),
        ..SlowUploadsReport::default()
    };
    for ply in 0..plies {
        let token = if ply % 2 == 0 { &black } else { &white };
        let view = match seat(token.clone()).await {
            Ok(v) => v,
            Err(_) => {
                // The player cannot see the position: this move is not made.
                report.moves += 1;
                report.moves_failed += 1;
                continue;
            }
        };
        if view["game"]["status"] != "playing" {
            break;
        }
        // A varied legal move (always the first would repeat the position).
        let legal = view["game"]["legal"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let Some(mv) = legal
            .get((ply * 31 + 7) % legal.len().max(1))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            break;
        };
        tokio::time::sleep(think).await;
        let asked = Instant::now();
        let answer = request(
            home,
            http,
            "POST",
            &format!("/api/seats/{token}/move"),
            &json!({ "move": mv }),
        )
        .await;
        report.move_ms.push(asked.elapsed().as_millis() as u32);
        report.moves += 1;
        if !matches!(answer, Some((200, _))) {
            report.moves_failed += 1;
        }
    }
    match seat(black.clone()).await {
        Ok(end) => {
            let g = &end["game"];
            report.game = if g["status"] == "playing" {
                "playing".into()
            } else {
                format!("{} {}", g["result"], g["reason"])
            };
            report.lost_on_time = g.to_string().contains("time_up");
        }
        Err(why) => report.game = format!("not shown ({why})"),
    }
    let _ = stop_tx.send(true);
    for u in uploads {
        let _ = u.await;
    }
    report.uploads_answered = answered.load(Ordering::Relaxed);
    report.move_ms.sort_unstable();
    Ok(report)
}
