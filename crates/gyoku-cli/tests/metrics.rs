//! `gyoku serve --metrics ADDR` (issue 50, item 1), through the real binary: `GET
//! /metrics` in Prometheus's text format, checked by `promtool check metrics` where it is
//! installed (CI installs it, and sets GYOKU_REQUIRE_PROMTOOL=1), and counting what a
//! played game, refused connections and open ones did.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

mod kit;

/// The metrics' text, fetched from `at`.
fn scrape(at: SocketAddr) -> String {
    let mut s = TcpStream::connect(at).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(
        format!("GET /metrics HTTP/1.1\r\nHost: {at}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    body.to_string()
}

/// The value of the sample named `sample` (with its labels, as written).
fn value(text: &str, sample: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        l.strip_prefix(sample)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// `promtool check metrics` on `text`, where promtool is installed.
fn promtool_accepts(text: &str) {
    let spawned = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        assert!(
            std::env::var("GYOKU_REQUIRE_PROMTOOL").as_deref() != Ok("1"),
            "GYOKU_REQUIRE_PROMTOOL=1 and promtool cannot be run"
        );
        eprintln!(
            "skipped: no promtool on PATH: the metrics' format is not checked by Prometheus's own tool"
        );
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_metrics_count_a_game_its_moves_and_the_connections() {
    let dir = std::env::temp_dir().join(format!("gyoku-metrics-it-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = kit::serve([
        "--csa".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--http".as_ref(),
        "off".as_ref(),
        "--metrics".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--max-connections-per-address".as_ref(),
        "3".as_ref(),
        "--data-dir".as_ref(),
        dir.as_os_str(),
    ]);
    let said = server.said();
    let at: SocketAddr = said
        .lines()
        .find_map(|l| {
            let rest = &l[l.find("metrics on http://")? + "metrics on http://".len()..];
            rest.split('/').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no metrics address said: {said}"));
    let before = scrape(at);
    promtool_accepts(&before);
    assert_eq!(value(&before, "gyoku_moves_total"), Some(0.0), "{before}");
    assert_eq!(value(&before, "gyoku_games_live"), Some(0.0), "{before}");

    // Two players, a game of four moves, Black resigns.
    let csa = server.csa.port();
    let mut players = ["black", "white"].map(|name| {
        let (mut s, mut r) = kit::csa_login(csa, &format!("LOGIN {name} pw"));
        kit::read_until(&mut r, "LOGIN:");
        let sign = if name == "black" { '+' } else { '-' };
        s.write_all(format!("%%GAME m-600-0 {sign}\n").as_bytes())
            .unwrap();
        (s, r)
    });
    for p in players.iter_mut() {
        kit::read_until(&mut p.1, "END Game_Summary");
        p.0.write_all(b"AGREE\n").unwrap();
    }
    for p in players.iter_mut() {
        kit::read_until(&mut p.1, "START:");
    }
    let live = scrape(at);
    assert_eq!(value(&live, "gyoku_games_live"), Some(1.0), "{live}");
    assert_eq!(
        value(&live, "gyoku_connections_open{kind=\"csa\"}"),
        Some(2.0),
        "{live}"
    );
    {
        let [(b, br), (w, wr)] = &mut players;
        kit::csa_moves(
            [(b, br), (w, wr)],
            &["+7776FU", "-3334FU", "+2726FU", "-8384FU"],
        );
    }
    players[0].0.write_all(b"%TORYO\n").unwrap();
    for (p, outcome) in players.iter_mut().zip(["#LOSE", "#WIN"]) {
        kit::read_until(&mut p.1, outcome);
    }
    // The server closes the players' connections after the game, as shogi-server does:
    // then three connections reach the limit of three from one address, and a fourth is
    // refused.
    gyoku_testdata::wait_until(
        Duration::from_secs(10),
        "the players' connections closed",
        || value(&scrape(at), "gyoku_connections_open{kind=\"csa\"}") == Some(0.0),
    );
    let extra: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(("127.0.0.1", csa)).unwrap())
        .collect();
    let mut refused = TcpStream::connect(("127.0.0.1", csa)).unwrap();
    refused
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut said_to_it = String::new();
    let _ = refused.read_to_string(&mut said_to_it);
    assert!(
        said_to_it.contains("too many connections from your address"),
        "{said_to_it:?}"
    );

    let after = gyoku_testdata::wait_for(
        Duration::from_secs(10),
        || "the game's end counted".to_string(),
        || {
            let text = scrape(at);
            (value(&text, "gyoku_games_live") == Some(0.0)).then_some(text)
        },
    );
    promtool_accepts(&after);
    assert_eq!(value(&after, "gyoku_moves_total"), Some(4.0), "{after}");
    let finished: f64 = after
        .lines()
        .filter(|l| l.starts_with("gyoku_games_finished_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(finished, 1.0, "{after}");
    assert!(
        after.contains("gyoku_games_finished_total{kind=\"resign"),
        "{after}"
    );
    assert_eq!(
        value(
            &after,
            "gyoku_refused_total{kind=\"too_many_from_address\"}"
        ),
        Some(1.0),
        "{after}"
    );
    assert_eq!(
        value(&after, "gyoku_connections_accepted_total"),
        Some(5.0),
        "{after}"
    );
    assert_eq!(
        value(&after, "gyoku_connections_open{kind=\"csa\"}"),
        Some(3.0),
        "{after}"
    );
    // Every move's echo, and every commit, timed.
    assert_eq!(
        value(&after, "gyoku_echo_seconds_count"),
        Some(4.0),
        "{after}"
    );
    assert!(
        value(&after, "gyoku_commits_total").is_some_and(|n| n >= 3.0),
        "{after}"
    );
    assert!(
        value(&after, "gyoku_commit_seconds_count").is_some_and(|n| n >= 3.0),
        "{after}"
    );
    assert_eq!(
        value(&after, "gyoku_storage_errors_total"),
        Some(0.0),
        "{after}"
    );
    drop(extra);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The metrics' address a server said it serves them on.
fn metrics_address(said: &str) -> SocketAddr {
    said.lines()
        .find_map(|l| {
            let rest = &l[l.find("metrics on http://")? + "metrics on http://".len()..];
            rest.split('/').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no metrics address said: {said}"))
}

/// An HTTP request whose answer is not read: the connection stays open (an event stream).
fn held(at: SocketAddr, path: &str) -> TcpStream {
    let mut s = TcpStream::connect(at).unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: {at}\r\n\r\n").as_bytes())
        .unwrap();
    s
}

#[test]
fn the_metrics_count_engines_watchers_http_connections_and_slowed_logins() {
    let dir = std::env::temp_dir().join(format!("gyoku-metrics-web-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // An engine that is a process of its own: Gyoku's built-in one over USI.
    let engine = format!("mine={} engine --delay 50ms", kit::gyoku());
    let server = kit::serve([
        "--csa".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--http".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--metrics".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--engine".as_ref(),
        std::ffi::OsStr::new(&engine),
        "--data-dir".as_ref(),
        dir.as_os_str(),
    ]);
    let at = metrics_address(&server.said());
    let http = server.http.expect("the HTTP API's address");
    let before = scrape(at);
    promtool_accepts(&before);
    assert_eq!(
        value(&before, "gyoku_engine_processes"),
        Some(0.0),
        "{before}"
    );
    assert_eq!(value(&before, "gyoku_watchers"), Some(0.0), "{before}");

    // A game against the engine, watched by one event stream.
    let (token, game) = kit::game_against("mine", 40, |method, path, body| {
        kit::request(http, method, path, &[], body)
    });
    let stream = held(
        http,
        &format!("/api/games/{}/events", game.replace('+', "%2B")),
    );
    let live = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || "the engine and the stream counted".to_string(),
        || {
            let text = scrape(at);
            (value(&text, "gyoku_engine_processes") == Some(1.0)
                && value(&text, "gyoku_watchers") == Some(1.0))
            .then_some(text)
        },
    );
    promtool_accepts(&live);
    assert!(
        value(&live, "gyoku_connections_open{kind=\"http\"}").is_some_and(|n| n >= 1.0),
        "{live}"
    );

    // Wrong passwords for a name: past the free ones, each try waits and is counted.
    let csa = server.csa.port();
    let (_s, mut r) = kit::csa_login(csa, "LOGIN hanako right");
    kit::read_until(&mut r, "LOGIN:hanako OK");
    drop((_s, r));
    for _ in 0..6 {
        let (_s, mut r) = kit::csa_login(csa, "LOGIN hanako wrong");
        kit::read_until(&mut r, "LOGIN:incorrect");
    }
    let after = scrape(at);
    promtool_accepts(&after);
    assert!(
        value(&after, "gyoku_throttled_total{kind=\"csa_login\"}").is_some_and(|n| n >= 1.0),
        "{after}"
    );

    // The seat resigns: the stream ends with the game, and the engine's process is
    // kept, idle, for the next game (the page's engine pool): still one.
    let (status, v) = kit::request(
        http,
        "POST",
        &format!("/api/seats/{token}/resign"),
        &[],
        &Value::Null,
    );
    assert_eq!(status, 200, "{v}");
    let over = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || "the stream's end counted".to_string(),
        || {
            let text = scrape(at);
            (value(&text, "gyoku_watchers") == Some(0.0)).then_some(text)
        },
    );
    assert_eq!(value(&over, "gyoku_engine_processes"), Some(1.0), "{over}");
    drop(stream);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A web instance serves metrics of its own: its HTTP connections, its event streams and
/// the requests it relays to the referee (PostgreSQL, as CI has it).
#[test]
fn a_web_instance_counts_what_it_relays() {
    let Some((_c, _name, url)) =
        kit::fresh_database("gyoku_metrics", "a web instance's metrics (--role web)")
    else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("gyoku-metrics-relay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = |who: &str| dir.join(who).display().to_string();
    let any = "127.0.0.1:0";
    let referee_dir = data("referee");
    let referee = kit::Instance::start(&[
        "--db",
        &url,
        "--csa",
        any,
        "--http",
        any,
        "--data-dir",
        &referee_dir,
    ]);
    let r_http = referee.address("open http://").to_string();
    let web_dir = data("web");
    let web = kit::Instance::start(&[
        "--role",
        "web",
        "--referee",
        &r_http,
        "--db",
        &url,
        "--http",
        any,
        "--metrics",
        any,
        "--data-dir",
        &web_dir,
    ]);
    let w_http = web.address("web instance on http://");
    let at = web.address("metrics on http://");
    let before = scrape(at);
    promtool_accepts(&before);
    assert_eq!(
        value(&before, "gyoku_relay_seconds_count"),
        Some(0.0),
        "{before}"
    );
    // A seat asked for at the web instance is made by the referee: a relayed request.
    let (status, seat) = kit::request(
        w_http,
        "POST",
        "/api/play",
        &[],
        &json!({"opponent": "builtin", "rules": "csa", "color": "black", "max_moves": 6,
                "time": {"total": 60, "byoyomi": 10}, "name": "Taro"}),
    );
    assert_eq!(status, 201, "{seat}");
    let _open = held(w_http, "/api/games");
    let after = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || "the relay and the open connection counted".to_string(),
        || {
            let text = scrape(at);
            (value(&text, "gyoku_relay_seconds_count").is_some_and(|n| n >= 1.0)
                && value(&text, "gyoku_connections_open{kind=\"http\"}").is_some_and(|n| n >= 1.0))
            .then_some(text)
        },
    );
    promtool_accepts(&after);
    drop((web, referee));
    let _ = std::fs::remove_dir_all(&dir);
}
