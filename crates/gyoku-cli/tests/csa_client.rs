//! `gyoku csa-client` end to end: two of them put Gyoku's built-in engine on `gyoku serve`
//! (loopback), play a game, and write records that judge to what the server said; the
//! engine is told the rules of the game the server proposes (issue 41, item 6).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn gyoku() -> &'static str {
    env!("CARGO_BIN_EXE_gyoku")
}

#[test]
fn two_engines_play_a_game_on_gyoku_serve_and_the_records_agree() {
    let dir = std::env::temp_dir().join(format!("gyoku-csa-client-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Killed(
        Command::new(gyoku())
            .args([
                "serve",
                "--csa",
                &format!("127.0.0.1:{port}"),
                "--http",
                "off",
            ])
            .arg("--data-dir")
            .arg(dir.join("server"))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut err = BufReader::new(server.0.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("CSA protocol on"), "{line}");
    // Keep draining the server's standard error (a closed pipe would stop it).
    std::thread::spawn(move || {
        let mut sink = String::new();
        while err.read_line(&mut sink).is_ok_and(|n| n > 0) {
            sink.clear();
        }
    });
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
    let start = Instant::now();
    for c in &mut clients {
        loop {
            if let Some(status) = c.0.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no end in 120 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
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

fn find(dir: &Path, ext: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == ext))
        .unwrap_or_else(|| panic!("no .{ext} in {}", dir.display()))
}
