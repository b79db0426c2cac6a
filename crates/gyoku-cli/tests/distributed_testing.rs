//! Engine tests spread over workers (issue 45), through real processes: one `gyoku serve`,
//! an SPRT of the built-in engine (greedy, seed 1) against itself playing at random (seed
//! 2), played by three workers — one killed with SIGKILL while it holds a batch, one a
//! liar uploading records whose claimed results the records refute, and two honest ones.
//! The SPRT stops by itself; the stored games are the counted ones; the killed worker's
//! games are played again by another; the liar's games count as the referee judges them.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

mod kit;

/// One HTTP request, with a bearer token when given: the status and the JSON body.
fn request(
    at: SocketAddr,
    method: &str,
    path: &str,
    bearer: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    kit::request(at, method, path, &headers, body)
}

/// `gyoku serve` on loopback ports with its admin and worker tokens in `dir`, and `extra`.
fn serve_tests(dir: &Path, extra: &[&str]) -> kit::Served {
    let mut args: Vec<std::ffi::OsString> = ["--csa", "127.0.0.1:0", "--http", "127.0.0.1:0"]
        .iter()
        .chain(extra)
        .map(Into::into)
        .collect();
    for (flag, file) in [
        ("--admin-token-file", "admin-token"),
        ("--worker-token-file", "worker-token"),
    ] {
        args.push(flag.into());
        args.push(dir.join(file).into_os_string());
    }
    args.extend(["--data-dir".into(), dir.as_os_str().to_owned()]);
    kit::serve(args)
}

fn view(http: SocketAddr) -> Value {
    view_of(http, "seeds")
}

fn view_of(http: SocketAddr, name: &str) -> Value {
    let (status, v) = request(
        http,
        "GET",
        &format!("/api/tests/{name}"),
        None,
        &Value::Null,
    );
    assert_eq!(status, 200, "{v}");
    v
}

fn worker(dir: &Path, http: SocketAddr, name: &str, extra: &[&str]) -> kit::Killed {
    kit::Killed(
        Command::new(kit::gyoku())
            .args(["worker", "--server", &format!("http://{http}"), "--token"])
            .arg(dir.join("worker-token"))
            .args(["--name", name])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// A short record of game `number`: two moves, then the side to move (Black) resigns.
fn resigned_record(number: u32) -> String {
    let (black, white) = if number % 2 == 1 {
        ("greedy", "random")
    } else {
        ("random", "greedy")
    };
    format!("N+{black}\nN-{white}\nPI\n+\n+7776FU\nT0\n-3334FU\nT0\n%TORYO\nT0\n")
}

#[test]
fn an_sprt_over_three_workers_stops_by_itself_and_counts_the_referees_verdicts() {
    let dir = std::env::temp_dir().join(format!("gyoku-workers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = serve_tests(&dir, &["--worker-lease", "3s"]);
    let http = server.http.expect("a web page");
    let url = format!("http://{http}");
    let admin = std::fs::read_to_string(dir.join("admin-token"))
        .unwrap()
        .trim()
        .to_string();
    let worker_token = std::fs::read_to_string(dir.join("worker-token"))
        .unwrap()
        .trim()
        .to_string();

    // The operator makes the test.
    let made = kit::output_within(
        Command::new(kit::gyoku())
            .args(["test", "create", "--server", &url, "--admin-token"])
            .arg(dir.join("admin-token"))
            .args([
                "--name",
                "seeds",
                "--engine",
                "greedy=builtin",
                "--engine",
                "random=builtin",
                "--option",
                "greedy:Seed=1",
                "--option",
                "random:Seed=2",
                "--option",
                "random:Style=random",
                "--byoyomi",
                "1s",
                "--pairs",
                "200",
                "--batch-pairs",
                "2",
                "--sprt",
                "elo0=0,elo1=50",
                "--json",
            ]),
        Duration::from_secs(30),
        "gyoku test create",
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    assert_eq!(made["status"], "running");
    assert_eq!(made["digest"].as_str().unwrap().len(), 64);
    // A test of many openings (every first move and reply: over the API's usual 64 KiB
    // body) is made, then stopped by the operator.
    let start = gyoku::Position::startpos();
    let mut lines = String::new();
    for a in start.legal_moves().iter() {
        let mut after = start.clone();
        after.play_unchecked(*a);
        for b in after.legal_moves().iter() {
            lines.push_str(&format!("position startpos moves {a} {b}\n"));
        }
    }
    std::fs::write(dir.join("openings.txt"), &lines).unwrap();
    let suite = kit::output_within(
        Command::new(kit::gyoku())
            .args(["test", "create", "--server", &url, "--admin-token"])
            .arg(dir.join("admin-token"))
            .args([
                "--name",
                "suite",
                "--engine",
                "a=builtin",
                "--engine",
                "b=builtin",
                "--byoyomi",
                "1s",
                "--openings",
            ])
            .arg(dir.join("openings.txt")),
        Duration::from_secs(30),
        "gyoku test create (many openings)",
    );
    assert!(
        suite.status.success(),
        "{}",
        String::from_utf8_lossy(&suite.stderr)
    );
    let (_, v) = request(http, "GET", "/api/tests/suite", None, &Value::Null);
    let openings = v["spec"]["openings"].as_array().unwrap().len();
    let sent = v["spec"]["openings"].to_string().len();
    assert!(
        openings == 900 && sent > 64 * 1024,
        "{openings} openings, {sent} bytes"
    );
    let stopped = kit::output_within(
        Command::new(kit::gyoku())
            .args(["test", "stop", "suite", "--server", &url, "--admin-token"])
            .arg(dir.join("admin-token")),
        Duration::from_secs(30),
        "gyoku test stop",
    );
    assert_eq!(String::from_utf8_lossy(&stopped.stdout), "suite: stopped\n");
    // Only the operator makes tests; only the worker token registers workers.
    let (status, v) = request(http, "POST", "/api/tests", Some(&worker_token), &json!({}));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    let (status, _) = request(
        http,
        "POST",
        "/api/workers",
        Some(&admin),
        &json!({"name": "x"}),
    );
    assert_eq!(status, 401);

    // Worker 1 plays slowly (each move 200 ms) and is killed once it holds a batch.
    let me = kit::gyoku();
    let slow = [
        "--engine".to_string(),
        format!("greedy={me} engine --delay 200ms"),
        "--engine".to_string(),
        format!("random={me} engine --delay 200ms"),
        "--concurrency".to_string(),
        "4".to_string(),
    ];
    let slow: Vec<&str> = slow.iter().map(String::as_str).collect();
    let mut killed = worker(&dir, http, "killed", &slow);
    let held = gyoku_testdata::wait_for(
        Duration::from_secs(30),
        || format!("a batch for the worker to be killed: {}", view(http)),
        || {
            view(http)["batches"].as_array().and_then(|b| {
                b.iter()
                    .find(|b| {
                        b["worker"]
                            .as_str()
                            .is_some_and(|w| w.starts_with("killed-"))
                    })
                    .cloned()
            })
        },
    );
    let killed_games: Vec<u64> = held["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_u64().unwrap())
        .collect();
    assert_eq!(killed_games.len(), 4, "two pairs: {held}");

    // The liar: registers, takes a batch of one pair, and uploads records that refute
    // the results it claims.
    let (status, reg) = request(
        http,
        "POST",
        "/api/workers",
        Some(&worker_token),
        &json!({"name": "liar"}),
    );
    assert_eq!(status, 200, "{reg}");
    let liar = format!(
        "{}:{}",
        reg["worker"].as_str().unwrap(),
        reg["secret"].as_str().unwrap()
    );
    let (status, wrong) = request(
        http,
        "POST",
        "/api/workers/batch",
        Some(&format!(
            "{}:{}",
            reg["worker"].as_str().unwrap(),
            "0".repeat(64)
        )),
        &json!({"pairs": 1}),
    );
    assert_eq!(
        (status, wrong["error"]["code"].as_str()),
        (401, Some("unknown_worker"))
    );
    let (status, b) = request(
        http,
        "POST",
        "/api/workers/batch",
        Some(&liar),
        &json!({"pairs": 1, "has": []}),
    );
    assert_eq!(status, 200, "{b}");
    let batch = &b["batch"];
    let liar_games: Vec<u32> = batch["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["number"].as_u64().unwrap() as u32)
        .collect();
    assert_eq!(liar_games.len(), 2);
    // Not its batch: refused.
    let (status, v) = request(
        http,
        "POST",
        "/api/workers/games",
        Some(&liar),
        &json!({
            "batch": held["id"], "number": killed_games[0], "winner": 1, "reason": "checkmate", "record": resigned_record(killed_games[0] as u32),
        }),
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (403, Some("not_your_batch"))
    );
    // A record of another game: refused.
    let (status, v) = request(
        http,
        "POST",
        "/api/workers/games",
        Some(&liar),
        &json!({
            "batch": batch["id"], "number": liar_games[0], "winner": 1, "reason": "resignation", "record": resigned_record(liar_games[1]),
        }),
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (422, Some("wrong_record")),
        "{v}"
    );
    for &n in &liar_games {
        // Black resigns in each record: White wins. The liar claims Black won.
        let black_engine = if n % 2 == 1 { 1 } else { 2 };
        let white_engine = 3 - black_engine;
        let (status, v) = request(
            http,
            "POST",
            "/api/workers/games",
            Some(&liar),
            &json!({
                "batch": batch["id"], "number": n, "winner": black_engine, "reason": "checkmate", "record": resigned_record(n),
            }),
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["counted"], true);
        assert_eq!(v["agrees"], false);
        assert_eq!(v["winner"], format!("engine{white_engine}"));
        assert_eq!(v["reason"], "resignation");
    }

    // A worker takes at most four batches at once.
    let (_, hog) = request(
        http,
        "POST",
        "/api/workers",
        Some(&worker_token),
        &json!({"name": "hog"}),
    );
    let hog = format!(
        "{}:{}",
        hog["worker"].as_str().unwrap(),
        hog["secret"].as_str().unwrap()
    );
    for k in 0..5 {
        let (status, v) = request(
            http,
            "POST",
            "/api/workers/batch",
            Some(&hog),
            &json!({"pairs": 1, "has": []}),
        );
        if k < 4 {
            assert!(status == 200 && v["batch"].is_object(), "{status} {v}");
        } else {
            assert_eq!(
                (status, v["error"]["code"].as_str()),
                (429, Some("too_many_batches")),
                "{v}"
            );
        }
    }

    killed.kill();
    gyoku_testdata::wait_until(
        Duration::from_secs(15),
        "the killed worker's batch lapsing",
        || {
            let v = view(http);
            v["batches"].as_array().is_some_and(Vec::is_empty)
                && v["workers"]
                    .as_array()
                    .is_some_and(|w| w.iter().any(|w| w["lapsed_batches"] == 1))
        },
    );

    // Two honest workers finish the test.
    let mut honest: Vec<kit::Killed> = ["honest1", "honest2"]
        .into_iter()
        .map(|name| {
            worker(
                &dir,
                http,
                name,
                &["--concurrency", "2", "--exit-when-idle"],
            )
        })
        .collect();
    for w in &mut honest {
        let status = kit::exits_within(&mut w.0, Duration::from_secs(240), "an honest worker");
        assert!(status.success());
    }
    let v = view(http);
    assert_eq!(v["status"], "finished", "{v:#}");
    assert_eq!(v["sprt"]["decision"], "H1", "{v:#}");

    // The stored games are the counted ones.
    let db = rusqlite::Connection::open(dir.join("gyoku.sqlite3")).unwrap();
    let stored: Vec<(u32, String, Option<i64>, i64)> = db
        .prepare("SELECT number, worker, winner, agrees FROM engine_test_games WHERE test = 'seeds' ORDER BY number")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len() as u64, v["games"].as_u64().unwrap());
    let trinomial: u64 = v["trinomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(trinomial, stored.len() as u64);
    let pairs: u64 = v["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    let complete = stored
        .iter()
        .filter(|g| {
            stored
                .iter()
                .any(|h| h.0 == if g.0 % 2 == 1 { g.0 + 1 } else { g.0 - 1 })
        })
        .count();
    assert_eq!(pairs as usize * 2, complete);
    // The killed worker's games were played again, by another: a lapsed batch's pairs
    // are handed out before any new one, and the test needs more than two pairs.
    for n in &killed_games {
        let g = stored.iter().find(|g| u64::from(g.0) == *n);
        let g = g.unwrap_or_else(|| {
            panic!("game {n} of the killed worker's batch was not played again: {stored:?}")
        });
        assert!(!g.1.starts_with("killed-"), "game {n}: {g:?}");
    }
    // The liar's games count as the referee judged them.
    for &n in &liar_games {
        let g = stored.iter().find(|g| g.0 == n).unwrap();
        let white_engine = if n % 2 == 1 { 2 } else { 1 };
        assert_eq!((g.2, g.3), (Some(white_engine), 0), "game {n}");
    }
    assert_eq!(v["disagreements"], 2);
    let liar_row = v["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"].as_str().unwrap().starts_with("liar-"))
        .unwrap();
    assert_eq!(liar_row["test_disagreements"], 2);
    // Honest workers agree with the referee every time.
    for w in v["workers"].as_array().unwrap() {
        if w["id"].as_str().unwrap().starts_with("honest") {
            assert_eq!(w["test_disagreements"], 0, "{w}");
        }
    }

    // A record can be read back; the list says what was decided.
    let (status, _) = request(
        http,
        "GET",
        &format!("/api/tests/seeds/games/{}/record", liar_games[0]),
        None,
        &Value::Null,
    );
    assert_eq!(status, 200);
    let listed = kit::output_within(
        Command::new(kit::gyoku()).args(["test", "list", "--server", &url]),
        Duration::from_secs(30),
        "gyoku test list",
    );
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains("seeds [finished] greedy vs random") && listed.contains("H1 accepted"),
        "{listed}"
    );
    assert!(listed.contains("suite [stopped] a vs b: 0/"), "{listed}");
    // Started again on its database, the server has its tests as they were.
    let games = v["games"].clone();
    drop(server);
    let again = serve_tests(&dir, &[]);
    let http = again.http.expect("a web page");
    gyoku_testdata::wait_until(Duration::from_secs(15), "the tests taken up again", || {
        let (status, w) = request(http, "GET", "/api/tests/seeds", None, &Value::Null);
        status == 200
            && w["status"] == "finished"
            && w["games"] == games
            && w["sprt"]["decision"] == "H1"
            && w["disagreements"] == 2
    });
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An engine build uploaded to the server (`--engine NAME=@FILE`) is fetched by each
/// worker once, its digest checked, and run; only workers may fetch it, and a build over
/// the bound is refused before it is read.
#[test]
fn an_uploaded_engine_build_is_fetched_by_the_worker_and_played() {
    let dir = std::env::temp_dir().join(format!("gyoku-artefacts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = serve_tests(&dir, &[]);
    let http = server.http.expect("a web page");
    let url = format!("http://{http}");
    let script = format!(
        "#!/bin/sh\nexec '{}' engine --style random \"$@\"\n",
        kit::gyoku()
    );
    std::fs::write(dir.join("engine.sh"), &script).unwrap();
    let made = kit::output_within(
        Command::new(kit::gyoku())
            .args(["test", "create", "--server", &url, "--admin-token"])
            .arg(dir.join("admin-token"))
            .args(["--name", "art", "--engine"])
            .arg(format!("new=@{}", dir.join("engine.sh").display()))
            .args([
                "--engine",
                "old=builtin",
                "--byoyomi",
                "1s",
                "--pairs",
                "2",
                "--json",
            ]),
        Duration::from_secs(30),
        "gyoku test create with a build",
    );
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    let digest = made["spec"]["engines"][0]["artefact"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        digest,
        gyoku_server::engine_tests::artefacts::digest_of(script.as_bytes())
    );
    // Only a worker fetches it.
    let (status, v) = request(
        http,
        "GET",
        &format!("/api/artefacts/{digest}"),
        None,
        &Value::Null,
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (401, Some("unknown_worker"))
    );
    // A build over the bound is refused before anything is read.
    let mut s = std::net::TcpStream::connect(http).unwrap();
    use std::io::{Read, Write};
    write!(
        s,
        "POST /api/artefacts HTTP/1.1\r\nHost: {http}\r\nContent-Length: 300000000\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    // A test cannot name a build the server does not keep.
    let admin = std::fs::read_to_string(dir.join("admin-token"))
        .unwrap()
        .trim()
        .to_string();
    let (status, v) = request(
        http,
        "POST",
        "/api/tests",
        Some(&admin),
        &json!({
            "name": "nothing", "engines": [{"name": "a", "artefact": "0".repeat(64)}, {"name": "b", "command": "builtin"}],
            "preset": "csa", "byoyomi": "1s", "pairs": 1,
        }),
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("unknown_artefact"))
    );

    let cache = dir.join("cache");
    let mut w = kit::Killed(
        Command::new(kit::gyoku())
            .args(["worker", "--server", &url, "--token"])
            .arg(dir.join("worker-token"))
            .args([
                "--name",
                "w",
                "--concurrency",
                "2",
                "--exit-when-idle",
                "--cache-dir",
            ])
            .arg(&cache)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let status = kit::exits_within(&mut w.0, Duration::from_secs(120), "the worker");
    let mut said = String::new();
    let _ = w.0.stderr.take().unwrap().read_to_string(&mut said);
    assert!(status.success(), "{said}");
    let v = view_of(http, "art");
    assert_eq!(
        (v["status"].as_str(), v["games"].as_u64()),
        (Some("finished"), Some(4)),
        "{v:#}\n{said}"
    );
    let kept = cache.join(&digest);
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), script);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
