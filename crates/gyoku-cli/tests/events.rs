//! Organised events on `gyoku serve --event-file`, through the real binary: a Swiss event
//! of twelve scripted engines over five rounds on CSA connections, the server killed with
//! SIGKILL in round 3 and started again, finishes with standings and crosstable that agree
//! and every record judging to its board's result; the admin endpoint answers to its token
//! only, and not to another site's page; a missing player forfeits.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gyoku::{Color, Position};
use serde_json::{Value, json};

mod kit;
use kit::request;

/// `gyoku serve`'s arguments for an event's server on `csa` and `http`.
fn serve_args(dir: &Path, csa: &str, http: &str, event: &Path) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = ["--csa", csa, "--http", http, "--max-moves", "70"]
        .map(Into::into)
        .to_vec();
    args.extend([
        "--event-file".into(),
        event.as_os_str().to_owned(),
        "--admin-token-file".into(),
        dir.join("admin-token").into_os_string(),
        "--data-dir".into(),
        dir.as_os_str().to_owned(),
    ]);
    args
}

/// `gyoku serve` with an event on loopback ports of its own, once it listens (what it says
/// kept in `said`): the server, its CSA and HTTP ports.
fn start_fresh(
    dir: &Path,
    event: &Path,
    said: &Arc<std::sync::Mutex<String>>,
) -> (kit::Served, u16, u16) {
    let server = kit::try_serve(serve_args(dir, "127.0.0.1:0", "127.0.0.1:0", event), said)
        .unwrap_or_else(|| panic!("the server never listened: {}", said.lock().unwrap()));
    let (csa, http) = (server.csa.port(), server.http.expect("a web page").port());
    (server, csa, http)
}

/// `gyoku serve` again on the ports it had, once it listens there (tried again while they
/// are still being freed).
fn start(
    dir: &Path,
    csa: u16,
    http: u16,
    event: &Path,
    said: &Arc<std::sync::Mutex<String>>,
) -> kit::Served {
    let (csa, http) = (format!("127.0.0.1:{csa}"), format!("127.0.0.1:{http}"));
    let mut server = None;
    kit::wait_until(
        Duration::from_secs(10),
        "the server listening again",
        || {
            server = kit::try_serve(serve_args(dir, &csa, &http, event), said);
            server.is_some()
        },
    );
    server.expect("listening")
}

/// `GET /api/events/<name>`, or null while the server is down.
fn event_view(http: SocketAddr, name: &str) -> Value {
    if TcpStream::connect(http).is_err() {
        return Value::Null;
    }
    let (status, v) = request(
        http,
        "GET",
        &format!("/api/events/{name}"),
        &[],
        &Value::Null,
    );
    if status == 200 { v } else { Value::Null }
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// What the players saw, all of them.
#[derive(Default)]
struct Seen {
    /// Games played to their end.
    finished: AtomicUsize,
    /// Game_Summaries of a game the player had been given before (a suspended game taken
    /// up again after the kill).
    resumed: AtomicUsize,
    /// Each player's Game_IDs, as given.
    given: std::sync::Mutex<HashSet<(String, String)>>,
}

/// Reads a line, looking at `stop` while none comes; `None` when the connection is gone
/// or the test stops.
fn next_line(r: &mut BufReader<TcpStream>, line: &mut String, stop: &AtomicBool) -> Option<()> {
    line.clear();
    loop {
        match r.read_line(line) {
            Ok(0) => return None,
            Ok(_) => return Some(()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
}

/// A scripted engine: logs in (again whenever the connection drops), asks for the event's
/// game, and plays each game it is given: random legal moves, resigning now and then (the
/// lower its seed, the less often), until the test stops.
fn engine(csa: u16, name: String, game: String, seed: u64, seen: Arc<Seen>, stop: Arc<AtomicBool>) {
    let mut rng = Rng(seed | 1);
    let resign_percent = 2 + seed as usize % 12;
    while !stop.load(Ordering::Relaxed) {
        let Ok(stream) = TcpStream::connect(("127.0.0.1", csa)) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut w = stream.try_clone().unwrap();
        let mut r = BufReader::new(stream);
        if w.write_all(format!("LOGIN {name} pw x1\n").as_bytes())
            .is_err()
        {
            continue;
        }
        // Games on this connection until it drops.
        loop {
            if w.write_all(format!("%%GAME {game} *\n").as_bytes())
                .is_err()
            {
                break;
            }
            if play(&mut r, &mut w, &mut rng, resign_percent, &seen, &stop).is_none() {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One game; `None` when the connection dropped (or the test stops).
fn play(
    r: &mut BufReader<TcpStream>,
    w: &mut TcpStream,
    rng: &mut Rng,
    resign_percent: usize,
    seen: &Seen,
    stop: &AtomicBool,
) -> Option<()> {
    let mut line = String::new();
    let mut listed = Vec::new();
    let mut color = Color::Black;
    let mut in_position = false;
    let mut id = String::new();
    loop {
        next_line(r, &mut line, stop)?;
        let l = line.trim_end();
        if let Some(v) = l.strip_prefix("Game_ID:") {
            id = v.to_string();
        }
        if l == "Your_Turn:-" {
            color = Color::White;
        } else if l == "Your_Turn:+" {
            color = Color::Black;
        } else if l == "BEGIN Position" {
            in_position = true;
        } else if l == "END Position" {
            in_position = false;
        } else if in_position && l.len() >= 7 && gyoku_proto::csa::move_shaped(&l[..7]) {
            listed.push(l[..7].to_string());
        } else if l == "END Game_Summary" {
            break;
        }
    }
    // A game and a side given twice: the same player, taking up its suspended game.
    if !seen
        .given
        .lock()
        .unwrap()
        .insert((format!("{color:?}"), id.clone()))
    {
        seen.resumed.fetch_add(1, Ordering::Relaxed);
    }
    w.write_all(b"AGREE\n").ok()?;
    let mut pos = Position::startpos();
    for m in &listed {
        let (_, mv) = gyoku_kifu::csa::parse_move(m, &pos).ok()?;
        pos.play(mv).ok()?;
    }
    let mut started = false;
    loop {
        if started && pos.turn() == color {
            let moves = pos.legal_moves();
            if !moves.is_empty() {
                let text = if pos.move_number() > 12 && rng.below(100) < resign_percent {
                    "%TORYO".to_string()
                } else {
                    let mv = moves[rng.below(moves.len())];
                    gyoku_kifu::csa::move_text(&pos, mv, color)
                };
                std::thread::sleep(Duration::from_millis(10));
                w.write_all(format!("{text}\n").as_bytes()).ok()?;
            }
        }
        let turn = pos.turn();
        loop {
            next_line(r, &mut line, stop)?;
            let l = line.trim_end();
            if l.starts_with("START:") {
                started = true;
                break;
            }
            if l.len() > 8 && gyoku_proto::csa::move_shaped(&l[..7]) && l[7..].starts_with(",T") {
                let (_, mv) = gyoku_kifu::csa::parse_move(&l[..7], &pos).ok()?;
                pos.play(mv).ok()?;
                if pos.turn() != turn {
                    break;
                }
            }
            if matches!(l, "#WIN" | "#LOSE" | "#DRAW" | "#CENSORED") {
                seen.finished.fetch_add(1, Ordering::Relaxed);
                return Some(());
            }
            if l.starts_with("REJECT:") {
                return Some(());
            }
        }
    }
}

fn event_file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("event.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_swiss_event_of_twelve_finishes_after_a_kill_in_round_three() {
    let dir = std::env::temp_dir().join(format!("gyoku-event-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let names: Vec<String> = (1..=12).map(|i| format!("engine{i:02}")).collect();
    let listed: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let file = event_file(
        &dir,
        &format!(
            "name = \"cup\"\ngame = \"cup-600-0\"\nformat = \"swiss\"\nrounds = 5\n\
             forfeit_after = 300\nparticipants = [{}]\n",
            listed.join(", ")
        ),
    );
    let said = Arc::new(std::sync::Mutex::new(String::new()));
    let (mut server, csa, http_port) = start_fresh(&dir, &file, &said);
    let http: SocketAddr = format!("127.0.0.1:{http_port}").parse().unwrap();
    let seen = Arc::new(Seen::default());
    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (name, seen, stop) = (n.clone(), Arc::clone(&seen), Arc::clone(&stop));
            std::thread::spawn(move || {
                engine(
                    csa,
                    name,
                    "cup-600-0".into(),
                    i as u64 * 7919 + 3,
                    seen,
                    stop,
                )
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut killed = false;
    let view = loop {
        let v = event_view(http, "cup");
        assert!(
            Instant::now() < deadline,
            "the event did not finish: {v}\n{}",
            said.lock().unwrap()
        );
        if v["status"] == "finished" {
            break v;
        }
        let under_way = v["round"] == 3
            && v["pairings"][2]["boards"]
                .as_array()
                .is_some_and(|b| b.iter().filter(|b| b["playing"] == true).count() >= 2);
        if !killed && under_way {
            std::thread::sleep(Duration::from_millis(50));
            server.process.kill();
            killed = true;
            // Started again as soon as its ports are free (`start` waits for that).
            server = start(&dir, csa, http_port, &file, &said);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    stop.store(true, Ordering::Relaxed);
    for p in players {
        p.join().unwrap();
    }
    server.process.kill();
    assert!(killed, "the server was never killed in round 3");
    let resumed = seen.resumed.load(Ordering::Relaxed);
    eprintln!(
        "{} games finished, {resumed} resumed after the kill",
        seen.finished.load(Ordering::Relaxed)
    );
    assert!(resumed >= 1, "no game was resumed after the kill");

    // Five rounds of six boards, every board decided by a game, no pair twice.
    let rounds = view["pairings"].as_array().unwrap();
    assert_eq!(rounds.len(), 5, "{view}");
    let mut met = HashSet::new();
    let mut points = std::collections::HashMap::<String, f64>::new();
    let db = rusqlite::Connection::open(dir.join("gyoku.sqlite3")).unwrap();
    for round in rounds {
        let boards = round["boards"].as_array().unwrap();
        assert_eq!(boards.len(), 6, "{round}");
        assert!(round["bye"].is_null());
        for b in boards {
            let (black, white) = (b["black"].as_str().unwrap(), b["white"].as_str().unwrap());
            assert!(met.insert((black.min(white).to_string(), black.max(white).to_string())));
            let result = b["result"].as_str().unwrap();
            let (pb, pw) = match result {
                "black" => (1.0, 0.0),
                "white" => (0.0, 1.0),
                "draw" => (0.5, 0.5),
                other => panic!("{other}: {b}"),
            };
            *points.entry(black.into()).or_default() += pb;
            *points.entry(white.into()).or_default() += pw;
            // The game's record file judges to the board's result.
            let id = b["game_id"].as_str().expect("each board was played");
            let (game_black, path): (String, String) = db
                .query_row(
                    "SELECT black, record_path FROM games WHERE id = ?1 AND status = 'finished'",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_gyoku"))
                .args(["judge", "--json", "--max-moves", "70"])
                .arg(dir.join("records").join(&path))
                .output()
                .unwrap();
            let judged: Value = serde_json::from_slice(&out.stdout).unwrap();
            let expected = match (result, game_black == black) {
                ("draw", _) => "draw",
                ("black", true) | ("white", false) => "black",
                _ => "white",
            };
            assert_eq!(judged["result"], expected, "{id}: {judged}");
        }
    }
    // The standings add up to the boards, and each line to its crosstable row.
    let standings = view["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 12);
    let total: f64 = standings
        .iter()
        .map(|l| l["points"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 30.0);
    let order: Vec<&str> = view["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for line in standings {
        let name = line["name"].as_str().unwrap();
        assert_eq!(line["points"].as_f64().unwrap(), points[name], "{line}");
        assert_eq!(line["games"], 5);
        let row = &view["crosstable"][order.iter().position(|p| *p == name).unwrap()];
        let crossed: f64 = row
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["points"].as_f64().unwrap())
            .sum();
        assert_eq!(crossed, points[name], "{name}");
    }
    let ranked: Vec<f64> = standings
        .iter()
        .map(|l| l["points"].as_f64().unwrap())
        .collect();
    assert!(ranked.windows(2).all(|w| w[0] >= w[1]), "{ranked:?}");
    // The token was made, readable by its owner only, and never printed.
    let token = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    assert_eq!(token.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("admin-token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(!said.lock().unwrap().contains(token.trim()));
    // The event file changed after the event began: the server will not start, and says
    // why, leaving the stored event as it is.
    let changed = std::fs::read_to_string(&file)
        .unwrap()
        .replace("rounds = 5", "rounds = 6");
    std::fs::write(&file, changed).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args([
            "serve",
            "--csa",
            "127.0.0.1:0",
            "--http",
            "off",
            "--event-file",
        ])
        .arg(&file)
        .arg("--data-dir")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        err.contains("event cup: stored entry 0: the event file differs"),
        "{err}"
    );
    let stored: u32 = db
        .query_row(
            "SELECT COUNT(*) FROM event_log WHERE event = 'cup'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(stored > 30, "{stored} entries");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_admin_endpoint_answers_to_its_token_only_and_a_missing_player_forfeits() {
    let dir = std::env::temp_dir().join(format!("gyoku-event-admin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = event_file(
        &dir,
        "name = \"club\"\ngame = \"club-60-0\"\nformat = \"swiss\"\nrounds = 3\n\
         forfeit_after = 2\nparticipants = [\"ann\", \"bob\", \"cat\", \"dan\"]\n",
    );
    let said = Arc::new(std::sync::Mutex::new(String::new()));
    let (_server, csa, http_port) = start_fresh(&dir, &file, &said);
    let http: SocketAddr = format!("127.0.0.1:{http_port}").parse().unwrap();
    let token = std::fs::read_to_string(dir.join("admin-token")).unwrap();
    let bearer = format!("Bearer {}", token.trim());
    let admin = "/api/events/club/admin";
    let pause = json!({"action": "pause"});

    // Without the token, with a wrong one, from another site's page: refused.
    let (status, v) = request(http, "POST", admin, &[], &pause);
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (401, json!("unauthorized"))
    );
    let wrong = format!("Bearer {}", "0".repeat(64));
    let (status, _) = request(http, "POST", admin, &[("Authorization", &wrong)], &pause);
    assert_eq!(status, 401);
    // Issue 43: wrong tokens from one address are slowed as wrong passwords are: with the
    // two above, three more are refused as wrong (five free tries), then one comes too soon
    // (429, with the seconds to wait).
    let mut statuses = Vec::new();
    let mut retry_after = None;
    for _ in 0..12 {
        let (status, v) = request(http, "POST", admin, &[("Authorization", &wrong)], &pause);
        statuses.push(status);
        if status == 429 {
            assert_eq!(v["error"]["code"], "slow_down", "{v}");
            retry_after = v["error"]["retry_after"].as_f64();
            break;
        }
    }
    assert!(
        statuses.len() >= 4 && statuses[..statuses.len() - 1].iter().all(|s| *s == 401),
        "{statuses:?}"
    );
    // After the wait the address is heard again: the token's pause below is answered
    // (tried again while it is still 429, up to the wait it was given and 5 s more).
    let wait = retry_after.expect("slowed down within twelve tries");
    let heard_by = Instant::now() + Duration::from_secs_f64(wait) + Duration::from_secs(5);
    let foreign = [
        ("Authorization", bearer.as_str()),
        ("Origin", "http://evil.example"),
    ];
    let (status, v) = request(http, "POST", admin, &foreign, &pause);
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (403, json!("cross_origin"))
    );
    // The event is shown as soon as the referee loop runs (a moment after it listens).
    let shown = gyoku_testdata::wait_for(
        Duration::from_secs(10),
        || "the event to be shown".to_string(),
        || Some(event_view(http, "club")).filter(|v| !v.is_null()),
    );
    assert_eq!(shown["status"], "playing", "nothing was paused");

    // ann and cat come; bob and dan do not: after 2 s each board is forfeited to the one
    // who came (round 1: ann v bob, cat v dan).
    let mut clients = Vec::new();
    for name in ["ann", "cat"] {
        let mut s = TcpStream::connect(("127.0.0.1", csa)).unwrap();
        s.write_all(format!("LOGIN {name} pw x1\n%%GAME club-60-0 *\n").as_bytes())
            .unwrap();
        clients.push(s);
    }
    let v = gyoku_testdata::wait_for(
        Duration::from_secs(20),
        || format!("round 1 to be forfeited: {}", event_view(http, "club")),
        || Some(event_view(http, "club")).filter(|v| v["round"] == 2),
    );
    let r1 = &v["pairings"][0]["boards"];
    assert_eq!(r1[0]["reason"], "forfeit", "{v}");
    assert_eq!(
        (r1[0]["black"].clone(), r1[0]["result"].clone()),
        (json!("ann"), json!("black"))
    );
    assert_eq!(
        (r1[1]["black"].clone(), r1[1]["result"].clone()),
        (json!("cat"), json!("black"))
    );

    // With the token (the scheme's name in any case): pause (twice is refused), adjust a
    // result, resume.
    let bearer = bearer.replacen("Bearer", "bearer", 1);
    let ok = [("Authorization", bearer.as_str())];
    let (status, v) = gyoku_testdata::wait_for(
        heard_by.saturating_duration_since(Instant::now()) + Duration::from_secs(5),
        || "the admin endpoint to hear the token again".to_string(),
        || {
            let (status, v) = request(http, "POST", admin, &ok, &pause);
            (status != 429 || Instant::now() > heard_by).then_some((status, v))
        },
    );
    assert_eq!((status, v["status"].clone()), (200, json!("paused")), "{v}");
    let (status, v) = request(http, "POST", admin, &ok, &pause);
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (409, json!("refused")),
        "{v}"
    );
    let adjust = json!({"action": "adjust", "round": 1, "board": 1, "result": "white",
                        "reason": "ann's engine was not the one registered"});
    let (status, v) = request(http, "POST", admin, &ok, &adjust);
    assert_eq!(status, 200, "{v}");
    let open = json!({"action": "adjust", "round": 2, "board": 1, "result": "draw",
                      "reason": "too early"});
    let (status, v) = request(http, "POST", admin, &ok, &open);
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("has not ended")
    );
    let mut v = Value::Null;
    kit::wait_until(Duration::from_secs(10), "the adjusted result shown", || {
        v = event_view(http, "club");
        v["pairings"][0]["boards"][0]["result"] == "white"
    });
    assert_eq!(v["status"], "paused");
    let b = &v["pairings"][0]["boards"][0];
    assert_eq!(b["result"], "white", "{v}");
    assert_eq!(
        b["adjustments"][0]["reason"],
        "ann's engine was not the one registered"
    );
    let bob = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "bob")
        .unwrap();
    assert_eq!(bob["points"], 1.0);
    let (status, v) = request(http, "POST", admin, &ok, &json!({"action": "resume"}));
    assert_eq!(
        (status, v["status"].clone()),
        (200, json!("playing")),
        "{v}"
    );
    let (status, v) = request(
        http,
        "POST",
        admin,
        &ok,
        &json!({"action": "end", "reason": "the hall closes"}),
    );
    assert_eq!(status, 200, "{v}");
    kit::wait_until(Duration::from_secs(10), "the event's end shown", || {
        event_view(http, "club")["ended"] == "the hall closes"
    });
    // A name that is not a participant is refused the event's game.
    let mut eve = TcpStream::connect(("127.0.0.1", csa)).unwrap();
    eve.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    eve.write_all(b"LOGIN eve pw x1\n%%GAME club-60-0 *\n")
        .unwrap();
    let mut r = BufReader::new(eve);
    let mut line = String::new();
    while !line.contains("club") {
        line.clear();
        assert!(r.read_line(&mut line).unwrap() > 0);
    }
    assert!(
        line.contains("eve is not a participant of the event club"),
        "{line}"
    );
    assert!(!said.lock().unwrap().contains(token.trim()));
    drop(clients);
    // A token file others may read is refused at start, and says why.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let loose = dir.join("loose-token");
        std::fs::write(&loose, "f".repeat(64)).unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_gyoku"))
            .args(["serve", "--csa", "127.0.0.1:0", "--http", "off"])
            .arg("--admin-token-file")
            .arg(&loose)
            .arg("--data-dir")
            .arg(dir.join("other"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("others may read it (mode 644)"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 43: a `--schedule` for an event's game got no waiters, and a second `--schedule`
/// for one game silently replaced the first: both are refused before the server starts.
#[test]
fn schedules_that_could_not_work_are_refused() {
    let dir = std::env::temp_dir().join(format!("gyoku-event-schedules-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = event_file(
        &dir,
        "name = \"cup\"\ngame = \"cup-600-10\"\nformat = \"swiss\"\nrounds = 3\n\
         participants = [\"ann\", \"bob\", \"cat\", \"dan\"]\n",
    );
    let serve = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gyoku"))
            .args([
                "serve",
                "--csa",
                "127.0.0.1:0",
                "--http",
                "off",
                "--data-dir",
            ])
            .arg(&dir)
            .args(extra)
            .output()
            .unwrap()
    };
    let twice = serve(&["--schedule", "club-60-0=:00", "--schedule", "club-60-0=:30"]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains("--schedule club-60-0: given twice"),
        "{}",
        String::from_utf8_lossy(&twice.stderr)
    );
    let file = file.to_str().unwrap().to_string();
    let event = serve(&["--event-file", &file, "--schedule", "cup-600-10=:00"]);
    assert_eq!(event.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&event.stderr).contains("that is the game of the event cup"),
        "{}",
        String::from_utf8_lossy(&event.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 43: an event's seat was anyone's — a stranger who logged in first as a participant,
/// with a password of his own, played that participant's boards. With `gyoku event-keys`
/// the seats belong to the keys the organiser hands out: the stranger is refused (and binds
/// nothing), the participant gets in with its key and is given its board.
#[test]
fn an_events_seats_belong_to_the_keys_the_organiser_hands_out() {
    let dir = std::env::temp_dir().join(format!("gyoku-event-keys-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = event_file(
        &dir,
        "name = \"keyed\"\ngame = \"keyed-60-0\"\nformat = \"round-robin\"\n\
         participants = [\"p1\", \"p2\"]\n",
    );
    let made = Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .arg("event-keys")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let told: Value = serde_json::from_slice(&made.stdout).unwrap();
    assert_eq!(
        (told["event"].clone(), told["participants"].clone()),
        (json!("keyed"), json!(2))
    );
    let keys_file = PathBuf::from(told["keys_file"].as_str().unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&keys_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the keys are for their owner only");
    }
    let listing = std::fs::read_to_string(&keys_file).unwrap();
    let key = |name: &str| {
        listing
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no key for {name}: {listing}"))
            .to_string()
    };
    let (k1, k2) = (key("p1"), key("p2"));
    assert_eq!((k1.len(), k2.len()), (32, 32));
    let with_table = std::fs::read_to_string(&file).unwrap();
    assert!(
        with_table.contains("[seats]") && !with_table.contains(&k1),
        "{with_table}"
    );
    // Asked again, it refuses: the keys handed out stay the keys.
    let again = Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .arg("event-keys")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("have keys already"));

    let said = Arc::new(std::sync::Mutex::new(String::new()));
    let (_server, csa, _http) = start_fresh(&dir, &file, &said);
    // The stranger comes first, with p1's name and a password of his own; then without one.
    for login in [
        "LOGIN p1 strangers-own x1",
        "LOGIN p1 keyed-60-0,strangers-own",
    ] {
        let (_s, mut r) = kit::csa_login(csa, login);
        let lines = kit::read_until(&mut r, "LOGIN:");
        assert_eq!(
            lines.last().unwrap(),
            "LOGIN:incorrect",
            "{login}: {lines:?}"
        );
    }
    // The participants, each with its key: logged in, and given their board.
    let (mut s1, mut r1) = kit::csa_login(csa, &format!("LOGIN p1 {k1} x1"));
    assert_eq!(
        kit::read_until(&mut r1, "LOGIN:").last().unwrap(),
        "LOGIN:p1 OK"
    );
    s1.write_all(b"%%GAME keyed-60-0 *\n").unwrap();
    let (_s2, mut r2) = kit::csa_login(csa, &format!("LOGIN p2 keyed-60-0,{k2}"));
    assert_eq!(
        kit::read_until(&mut r2, "LOGIN:").last().unwrap(),
        "LOGIN:p2 OK"
    );
    for r in [&mut r1, &mut r2] {
        let summary = kit::read_until(r, "END Game_Summary");
        assert!(
            summary.iter().any(|l| l == "Name+:p1" || l == "Name-:p1"),
            "{summary:?}"
        );
    }
    assert!(!said.lock().unwrap().contains(&k1), "a key is never shown");
    let _ = std::fs::remove_dir_all(&dir);
}
