//! `gyoku csa-client` end to end: two of them put Gyoku's built-in engine on `gyoku serve`
//! (loopback), play a game, and write records that judge to what the server said; the
//! engine is told the rules of the game the server proposes (issue 41, item 6); one whose
//! connection is cut mid-game comes back with its reconnect token (issue 42, item 2).

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod kit;
use kit::{Killed, gyoku, wait_until};

#[test]
fn two_engines_play_a_game_on_gyoku_serve_and_the_records_agree() {
    let dir = std::env::temp_dir().join(format!("gyoku-csa-client-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (_server, port) = serve(&dir.join("server"), &[]);
    // Alice's engine has what it is sent logged (a tee in front of it).
    std::fs::create_dir_all(&dir).unwrap();
    let told = dir.join("alice-engine.log");
    let client = |name: &str, style: &str| {
        let engine = format!("{} engine --style {style}", gyoku());
        let engine = if name == "alice" {
            format!("sh -c \"tee -a '{}' | {engine}\"", told.display())
        } else {
            engine
        };
        Killed(
            Command::new(gyoku())
                .args(["csa-client", "--engine"])
                .arg(engine)
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--id", name, "--password", "pw"])
                .args(["--game", "rules_csa24h_bridge-60-1"])
                .arg("--out")
                .arg(dir.join(name))
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let mut clients = [client("alice", "greedy"), client("bob", "random")];
    all_succeed(&mut clients, Duration::from_secs(120));
    // The game is played under csa24h (its name says so, its Game_Summary's Declaration
    // too): the engine, which offers YaneuraOu's option, is told CSARule24H before the game.
    let sent = std::fs::read_to_string(&told).unwrap();
    let option = "setoption name EnteringKingRule value CSARule24H";
    let at = |needle: &str| sent.lines().position(|l| l == needle);
    assert!(at(option).is_some(), "{sent}");
    assert!(at(option) < at("usinewgame"), "before the game: {sent}");
    for name in ["alice", "bob"] {
        let out = dir.join(name);
        let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        let r: serde_json::Value = serde_json::from_str(results.trim()).unwrap();
        assert_eq!(r["disagreements"], serde_json::json!([]), "{results}");
        let result = r["result"].as_str().unwrap();
        assert!(
            ["#WIN", "#LOSE", "#DRAW", "#CENSORED"].contains(&result),
            "{results}"
        );
        // Each record, judged again, gives what the server said to this side.
        for ext in ["csa", "kif"] {
            let file = find(&out, ext);
            let judged = Command::new(gyoku())
                .args(["judge", "--json"])
                .arg(&file)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&judged.stdout);
            let me = r["me"].as_str().unwrap();
            let expected = match result {
                "#WIN" => me.to_string(),
                "#LOSE" if me == "black" => "white".to_string(),
                "#LOSE" => "black".to_string(),
                _ => "draw".to_string(),
            };
            assert!(
                text.contains(&format!("\"{expected}\"")),
                "{ext}: {text} ({results})"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits until every client has exited, each successfully, all within `within`.
fn all_succeed(clients: &mut [Killed], within: Duration) {
    wait_until(within, "every client's end", || {
        clients.iter_mut().all(|c| {
            c.0.try_wait()
                .unwrap()
                .inspect(|status| assert!(status.success(), "{status}"))
                .is_some()
        })
    });
}

/// `gyoku serve` on loopback ports of its own with its data in `data` and `extra` options,
/// once it says it listens; its CSA port.
fn serve(data: &Path, extra: &[&str]) -> (kit::Served, u16) {
    let args = ["--csa", "127.0.0.1:0", "--http", "off"]
        .into_iter()
        .chain(extra.iter().copied());
    let served = kit::serve(
        args.map(std::ffi::OsString::from)
            .chain(["--data-dir".into(), data.as_os_str().to_owned()]),
    );
    let port = served.csa.port();
    (served, port)
}

fn find(dir: &Path, ext: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == ext))
        .unwrap_or_else(|| panic!("no .{ext} in {}", dir.display()))
}

/// A proxy between a client and the server that cuts a game's connection (both ways) after
/// `after` moves echoed live (after `START:`, or after a resumed game's
/// `END Reconnect_State`), at most `cuts` times in all.
fn cutting_proxy(upstream: u16, after: usize, cuts: usize) -> (u16, Arc<AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let cut = Arc::new(AtomicUsize::new(0));
    let done = Arc::clone(&cut);
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            // Client to server: as it comes.
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut &c2, &mut &s2);
                let _ = s2.shutdown(Shutdown::Both);
            });
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let mut from = BufReader::new(&server);
                let mut to = &client;
                let mut moves = 0;
                let mut live = false;
                let mut line = String::new();
                while from.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if to.write_all(line.as_bytes()).is_err() {
                        break;
                    }
                    if line.starts_with("START:") || line == "END Reconnect_State\n" {
                        live = true;
                    }
                    if live && line.starts_with(['+', '-']) && line.contains(",T") {
                        moves += 1;
                    }
                    line.clear();
                    if moves >= after
                        && done
                            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                                (n < cuts).then_some(n + 1)
                            })
                            .is_ok()
                    {
                        break;
                    }
                }
                let _ = server.shutdown(Shutdown::Both);
                let _ = client.shutdown(Shutdown::Both);
            });
        }
    });
    (port, cut)
}

/// Issue 42, item 2: `gyoku csa-client` whose connection is cut twice mid-game comes back
/// with the game's reconnect token each time, keeping its engine, and finishes the game;
/// the server's record and the client's agree, and nothing was lost as a disconnection.
#[test]
fn a_client_whose_connection_is_cut_twice_comes_back_and_finishes() {
    let dir = std::env::temp_dir().join(format!("gyoku-csa-cut-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (_server, port) = serve(&dir.join("server"), &["--reconnect-grace", "30s"]);
    let (proxied, cuts) = cutting_proxy(port, 6, 2);
    let client = |name: &str, port: u16| {
        let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
        Killed(
            Command::new(gyoku())
                .args(["csa-client", "--engine"])
                .arg(format!("{} engine --style random", gyoku()))
                .args(["--host", "127.0.0.1", "--port", &port.to_string()])
                .args(["--id", name, "--password", "pw"])
                .args(["--game", "cut-300-10", "--out"])
                .arg(dir.join(name))
                .stderr(log)
                .spawn()
                .unwrap(),
        )
    };
    let mut clients = [client("carol", proxied), client("dave", port)];
    all_succeed(&mut clients, Duration::from_secs(180));
    assert_eq!(cuts.load(Ordering::SeqCst), 2, "the proxy cut twice");
    let said = std::fs::read_to_string(dir.join("carol.log")).unwrap();
    assert_eq!(said.matches("back in the game").count(), 2, "{said}");
    for name in ["carol", "dave"] {
        let results = std::fs::read_to_string(dir.join(name).join("results.jsonl")).unwrap();
        let r: serde_json::Value = serde_json::from_str(results.trim()).unwrap();
        assert_eq!(
            r["disagreements"],
            serde_json::json!([]),
            "{name}: {results}"
        );
        assert!(r["plies"].as_u64().unwrap() > 12, "{results}");
        let file = find(&dir.join(name), "csa");
        let judged = Command::new(gyoku())
            .args(["judge", "--json"])
            .arg(&file)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&judged.stdout).unwrap();
        assert_eq!(v["agrees"], true, "{name}: {v}");
    }
    // The server ended the game by the rules, not as a disconnection.
    let server_csa = walk_find(&dir.join("server"), "csa");
    let record = std::fs::read_to_string(&server_csa).unwrap();
    assert!(!record.contains("abnormal"), "{record}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first file under `dir` (any depth) ending in `.ext`.
fn walk_find(dir: &Path, ext: &str) -> std::path::PathBuf {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                return p;
            }
        }
    }
    panic!("no .{ext} under {}", dir.display())
}
