//! The README's way, end to end: `gyoku match` between GPSShogi's `gpsusi` and
//! Fairy-Stockfish (Debian packages; CI installs them) under csa, jsa and try, then
//! `gyoku judge DIR` on the records it wrote, which must end every game as the match did.
//!
//! Runs when `GYOKU_REAL_ENGINES=1` (as CI sets it), and then fails if an engine is
//! missing; otherwise it says it was skipped.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

const GPSUSI: &str = "/usr/games/gpsusi";
const FAIRY: &str = "/usr/games/fairy-stockfish";

fn gyoku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(args)
        .output()
        .expect("run gyoku")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn wanted() -> bool {
    if std::env::var("GYOKU_REAL_ENGINES").as_deref() == Ok("1") {
        for e in [GPSUSI, FAIRY] {
            assert!(Path::new(e).exists(), "{e} is not installed");
        }
        true
    } else {
        gyoku_testdata::skipped(
            "GYOKU_REAL_ENGINES is not 1",
            "matches between gpsusi and Fairy-Stockfish (CI installs them and sets it)",
        );
        false
    }
}

/// The game number of a record file `game-0007.kif`.
fn game_number(file: &str) -> u64 {
    let name = Path::new(file).file_stem().unwrap().to_str().unwrap();
    name.strip_prefix("game-").unwrap().parse().unwrap()
}

#[test]
fn match_records_judge_again_to_the_same_end() {
    if !wanted() {
        return;
    }
    for preset in ["csa", "jsa", "try"] {
        let dir =
            std::env::temp_dir().join(format!("gyoku-cli-real-{preset}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.to_str().unwrap();
        let summary = json(&gyoku(&[
            "match",
            "--engine",
            GPSUSI,
            "--engine",
            FAIRY,
            "--games",
            "2",
            "--rules",
            preset,
            "--byoyomi",
            "1s",
            "--margin",
            "700ms",
            "--option",
            "1:LimitDepth=4",
            "--option",
            "1:Thread=1",
            "--out",
            out,
            "--json",
        ]));
        assert_eq!(summary["games"], 2, "{preset}: {summary}");
        // How the match ended each game: the winner's colour, or a draw.
        let mut played = BTreeMap::new();
        for g in summary["results"].as_array().unwrap() {
            let result = match g["winner"].as_str() {
                None => "draw".to_string(),
                Some(w) if Some(w) == g["black"].as_str() => "black".to_string(),
                Some(_) => "white".to_string(),
            };
            let reason = g["reason"].as_str().unwrap().to_string();
            assert!(
                !["crash", "hang", "garbage", "flood"].contains(&reason.as_str()),
                "{preset}: real engines do not forfeit: {g}"
            );
            played.insert(g["game"].as_u64().unwrap(), (result, reason));
        }
        // `gyoku judge DIR`: every KIF and CSA record, judged under the same rules.
        let judged = json(&gyoku(&["judge", out, "--rules", preset, "--json"]));
        let judged = judged.as_array().unwrap();
        assert_eq!(judged.len(), 4, "{preset}: two games, KIF and CSA each");
        for j in judged {
            let file = j["file"].as_str().unwrap();
            let (result, reason) = &played[&game_number(file)];
            assert_eq!(j["agrees"], true, "{preset}: {j}");
            assert_eq!(j["result"].as_str().unwrap_or("draw"), result, "{j}");
            assert_eq!(j["reason"].as_str(), Some(reason.as_str()), "{j}");
        }
        eprintln!("{preset}: {played:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Issue 29: a round-robin and a Swiss tournament of four real engines (the built-in
/// greedy and random engines, gpsusi, Fairy-Stockfish), each interrupted once (SIGINT) and
/// resumed by the same command, run to their standings; every record judges again to the
/// result `results.jsonl` gives it, and the crosstable's totals are the standings' points.
#[test]
fn tournaments_of_four_real_engines_resume_and_judge_again() {
    if !wanted() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_gyoku");
    let engines = [
        format!("greedy={bin} engine"),
        format!("random={bin} engine --style random --seed 5"),
        format!("gps={GPSUSI}"),
        format!("fsf={FAIRY}"),
    ];
    for (format, extra) in [("round-robin", &[][..]), ("swiss", &["--rounds", "3"][..])] {
        let dir = std::env::temp_dir().join(format!(
            "gyoku-cli-tournament-{format}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut args: Vec<String> = vec!["tournament".into(), "--format".into(), format.into()];
        for e in &engines {
            args.push("--engine".into());
            args.push(e.clone());
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(["--byoyomi", "200ms", "--concurrency", "2", "--out"].map(String::from));
        args.push(dir.display().to_string());
        // Interrupted once, after two games.
        let mut child = Command::new(bin)
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let results = dir.join("results.jsonl");
        gyoku_testdata::wait_until(
            std::time::Duration::from_secs(120),
            "two games to finish",
            || std::fs::read_to_string(&results).map_or(0, |t| t.lines().count()) >= 2,
        );
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(
            status.code(),
            Some(1),
            "{format}: an interrupted tournament exits 1"
        );
        let before = std::fs::read_to_string(&results).unwrap().lines().count();
        // Resumed: the same command plays only what is missing.
        args.push("--json".into());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = json(&gyoku(&refs));
        assert_eq!(v["interrupted"], false, "{v}");
        assert_eq!(v["resumed"].as_u64().unwrap() as usize, before);
        assert_eq!(v["games"], v["total"]);
        // Every record judges to its result.
        for r in v["results"].as_array().unwrap() {
            let n = r["game"].as_u64().unwrap();
            for ext in ["csa", "kif"] {
                let record = dir.join(format!("game-{n:04}.{ext}"));
                let judged = json(&gyoku(&["judge", record.to_str().unwrap(), "--json"]));
                assert_eq!(judged["agrees"], true, "{}", record.display());
                assert_eq!(judged["result"], r["result"], "{}", record.display());
            }
        }
        // The crosstable's rows add up to the standings (less any byes).
        let names: Vec<&str> = v["engines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        for line in v["standings"].as_array().unwrap() {
            let i = names
                .iter()
                .position(|n| *n == line["engine"].as_str().unwrap())
                .unwrap();
            let row: f64 = v["crosstable"][i]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["points"].as_f64().unwrap())
                .sum();
            assert_eq!(
                row + line["bye_points"].as_f64().unwrap(),
                line["points"].as_f64().unwrap(),
                "{format} {line}"
            );
        }
        println!(
            "{format}: {} games, {before} before the interrupt; winner {}",
            v["games"], v["standings"][0]["engine"]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
