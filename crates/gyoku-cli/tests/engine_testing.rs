//! Engine testing as an engine author runs it (issue 44): engines by the names given, the
//! ratings keyed by them, an opening suite in a seeded random order, each game's USI log,
//! and results in fastchess's output form read back by a parser written from the line
//! forms OpenBench's and ShogiBench's workers read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use regex::Regex;

fn gyoku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(args)
        .output()
        .expect("run gyoku")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The built-in engine as a deterministic engine (it starts each game from its seed).
fn engine(seed: u32) -> String {
    format!(
        "{} engine --seed {seed} --reseed-each-game",
        env!("CARGO_BIN_EXE_gyoku")
    )
}

/// A fresh directory under cargo's scratch directory for integration tests (in `target/`,
/// replaced by the next run).
fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gyoku-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The suite shipped in the repository.
fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openings/gyoku-4ply.sfen")
}

/// A game's moves, from its CSA record (the lines of moves, without times or comments).
fn moves(dir: &Path, n: u32) -> Vec<String> {
    std::fs::read_to_string(dir.join(format!("game-{n:04}.csa")))
        .unwrap()
        .lines()
        .filter(|l| (l.starts_with('+') || l.starts_with('-')) && l.len() == 7)
        .map(str::to_string)
        .collect()
}

fn results(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn engines_named_on_the_command_line_are_rated_by_those_names() {
    let dir = fresh("named");
    let (new, old) = (format!("new={}", engine(1)), format!("old={}", engine(2)));
    let out = gyoku(&[
        "match",
        "--engine",
        &new,
        "--engine",
        &old,
        "--games",
        "4",
        "--byoyomi",
        "100ms",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(summary["engines"], serde_json::json!(["new", "old"]));
    for line in results(&dir) {
        let players = line["players"].as_array().unwrap();
        let mut names: Vec<&str> = players.iter().map(|p| p.as_str().unwrap()).collect();
        names.sort_unstable();
        assert_eq!(names, ["new", "old"], "{line}");
    }
    let kif = std::fs::read(dir.join("game-0001.csa")).unwrap();
    assert!(
        text(&kif).contains("N+new\nN-old\n"),
        "game 1's record names the engines as given"
    );
    let ratings = gyoku(&["ratings", dir.to_str().unwrap(), "--json"]);
    let list: serde_json::Value = serde_json::from_str(&ok(&ratings)).unwrap();
    let mut rated: Vec<String> = list["players"]
        .as_array()
        .expect("a list of players")
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    rated.sort();
    assert_eq!(rated, ["new", "old"], "{list}");
    // Two engines may not share a given name.
    let twice = gyoku(&["match", "--engine", &new, "--engine", &new]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(text(&twice.stderr).contains("two engines named 'new'"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two builds of one engine report one `id name`: the second is named apart, with a
/// warning, and rated as a player of its own. A directory written before names existed
/// (both engines under one name) still rates as it did, with a warning that two commands
/// share the name.
#[test]
fn two_engines_with_one_id_name_are_told_apart() {
    let dir = fresh("same-id");
    let out = gyoku(&[
        "match",
        "--engine",
        &engine(1),
        "--engine",
        &engine(2),
        "--games",
        "2",
        "--byoyomi",
        "100ms",
        "--out",
        dir.to_str().unwrap(),
    ]);
    ok(&out);
    assert!(
        text(&out.stderr).contains("engine 2 is named 'Gyoku builtin (greedy) (2)'"),
        "{}",
        text(&out.stderr)
    );
    let rated = ok(&gyoku(&["ratings", dir.to_str().unwrap()]));
    assert!(
        rated.contains("Gyoku builtin (greedy) (2)") && rated.contains("games"),
        "{rated}"
    );
    // The old shape: both players under the engines' shared id name.
    let lines: String = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .replace(" (2)", "");
    std::fs::write(dir.join("results.jsonl"), lines).unwrap();
    let old = gyoku(&["ratings", dir.to_str().unwrap()]);
    let list = ok(&old);
    assert_eq!(
        list.matches("Gyoku builtin (greedy)").count(),
        1,
        "rated as one player, as before: {list}"
    );
    assert!(
        text(&old.stderr).contains("'Gyoku builtin (greedy)' names 2 different engine commands"),
        "{}",
        text(&old.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Deterministic engines replay the same game from the same start: without openings, game
/// 3 repeats game 1. From the shipped suite in a random order, no two of 20 games are
/// equal; the order is the seed's (the same seed, the same order; another, another).
#[test]
fn a_random_opening_order_is_the_seeds_and_no_two_games_repeat() {
    let play = |dir: &Path, extra: &[String], games: &str| {
        let mut args: Vec<String> = [
            "match",
            "--engine",
            &format!("a={}", engine(1)),
            "--engine",
            &format!("b={}", engine(2)),
            "--games",
            games,
            "--byoyomi",
            "100ms",
            "--out",
            dir.to_str().unwrap(),
            "--json",
        ]
        .map(str::to_string)
        .to_vec();
        args.extend_from_slice(extra);
        ok(&gyoku(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    };
    let plain = fresh("no-openings");
    play(&plain, &[], "4");
    assert_eq!(moves(&plain, 1), moves(&plain, 3), "deterministic engines");
    let suite = suite();
    let suite = suite.to_str().unwrap();
    let random = |seed: &str| {
        [
            "--openings",
            suite,
            "--openings-order",
            "random",
            "--seed",
            seed,
        ]
        .map(str::to_string)
    };
    let first = fresh("random-openings-5");
    play(&first, &random("5"), "20");
    let games: BTreeSet<Vec<String>> = (1..=20).map(|n| moves(&first, n)).collect();
    assert_eq!(games.len(), 20, "no two of the 20 games are equal");
    let order = |dir: &Path| -> serde_json::Value {
        let id: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("match.json")).unwrap()).unwrap();
        id["openings"].clone()
    };
    let again = fresh("random-openings-5-again");
    let other = fresh("random-openings-6");
    play(&again, &random("5"), "2");
    play(&other, &random("6"), "2");
    assert_eq!(
        order(&first),
        order(&again),
        "the same seed, the same order"
    );
    assert_ne!(order(&first), order(&other), "another seed, another order");
    assert_eq!(order(&first).as_array().unwrap().len(), 225);
    for dir in [plain, first, again, other] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// `--output fastchess`, read as the tools that read fastchess and shogitest read it: a
/// `Finished game` line per game (ShogiBench's worker splits it on spaces and takes the
/// third word as the game and the seventh as the result; pairs are games 2k−1 and 2k,
/// the first named engine of the first game scoring them), and the `Results of` block.
#[test]
fn fastchess_output_is_read_by_a_parser_of_its_line_forms() {
    let dir = fresh("fastchess");
    let logs = dir.join("usi");
    let (new, old) = (format!("new={}", engine(1)), format!("old={}", engine(2)));
    let suite = suite();
    let out = gyoku(&[
        "match",
        "--engine",
        &new,
        "--engine",
        &old,
        "--games",
        "8",
        "--byoyomi",
        "100ms",
        "--openings",
        suite.to_str().unwrap(),
        "--output",
        "fastchess",
        "--sprt",
        "elo0=0,elo1=10",
        "--log-usi",
        logs.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stdout = ok(&out);
    let finished =
        Regex::new(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2) \{([^}]*)\}$")
            .unwrap();
    let mut by_game = std::collections::BTreeMap::new();
    for line in stdout.lines().filter(|l| l.starts_with("Finished game")) {
        let c = finished
            .captures(line)
            .unwrap_or_else(|| panic!("not a Finished game line: {line}"));
        let tokens: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((tokens[2], tokens[6]), (&c[1], &c[4]), "{line}");
        by_game.insert(
            c[1].parse::<u32>().unwrap(),
            (c[2].to_string(), c[3].to_string(), c[4].to_string()),
        );
    }
    assert_eq!(by_game.len(), 8, "{stdout}");
    // The lines agree with results.jsonl, game by game.
    for line in results(&dir) {
        let n = line["game"].as_u64().unwrap() as u32;
        let (black, white, score) = &by_game[&n];
        let players = line["players"].as_array().unwrap();
        assert_eq!(
            (players[0].as_str(), players[1].as_str()),
            (Some(black.as_str()), Some(white.as_str()))
        );
        let winner = line["winner"].as_str();
        let want = match (winner, line["black"].as_str()) {
            (None, _) => "1/2-1/2",
            (Some(w), Some(b)) if w == b => "1-0",
            _ => "0-1",
        };
        assert_eq!(score, want, "game {n}");
    }
    // The pentanomial counts, as OpenBench's worker makes them from the lines.
    let value = |r: &str| match r {
        "0-1" => 0,
        "1/2-1/2" => 1,
        _ => 2,
    };
    let mut penta = [0u64; 5];
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for (n, (black, _, score)) in &by_game {
        let first = if black == "new" {
            value(score)
        } else {
            2 - value(score)
        };
        match first {
            2 => wins += 1,
            0 => losses += 1,
            _ => draws += 1,
        }
        if n % 2 == 1 {
            let (_, _, second) = &by_game[&(n + 1)];
            penta[value(score) + 2 - value(second)] += 1;
        }
    }
    let block = Regex::new(concat!(
        r"Results of new vs old \(([^)]*)\):\n",
        r"Elo: (-?[\d.]+|NaN|inf) \+/- ([\d.]+|NaN|inf), nElo: (-?[\d.]+) \+/- ([\d.]+)\n",
        r"LOS: ([\d.]+) %, DrawRatio: ([\d.]+) %, PairsRatio: ([\d.]+|inf)\n",
        r"Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+), Points: ([\d.]+) \(([\d.]+) %\)\n",
        r"Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\], WL/DD Ratio: ([\d.]+|inf)\n",
        r"LLR: (-?[\d.]+) \((-?[\d.]+), (-?[\d.]+)\) \[([\d.]+), ([\d.]+)\]",
    ))
    .unwrap();
    let c = block
        .captures(&stdout)
        .unwrap_or_else(|| panic!("no Results of block: {stdout}"));
    assert!(c[1].contains("byoyomi 100ms") && c[1].contains("gyoku-4ply.sfen"));
    let n = |i: usize| c[i].parse::<u64>().unwrap();
    assert_eq!(
        (n(9), n(10), n(11), n(12)),
        (8, wins, losses, draws),
        "{stdout}"
    );
    assert_eq!([n(15), n(16), n(17), n(18), n(19)], penta, "{stdout}");
    // Each game's USI traffic: both engines, the go and the answer.
    for g in 1..=8 {
        let log = std::fs::read_to_string(logs.join(format!("game-{g:04}.usi.log"))).unwrap();
        for needle in [
            "new > go ",
            "old > go ",
            "new < bestmove ",
            "old < bestmove ",
        ] {
            assert!(log.contains(needle), "game {g}'s log has no '{needle}'");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn engine_options_are_checked() {
    let (new, old) = (format!("new={}", engine(1)), format!("old={}", engine(2)));
    for (option, says) in [
        ("new:speed=3", "unknown key 'speed'"),
        ("nobody:nodes=3", "no engine 'nobody'"),
        ("new:nodes=many", "'many' is not a whole number"),
        ("nodes=3", "ENGINE:KEY=VALUE"),
        ("3:nodes=3", "no engine '3'"),
    ] {
        let out = gyoku(&[
            "match",
            "--engine",
            &new,
            "--engine",
            &old,
            "--engine-option",
            option,
        ]);
        assert_eq!(out.status.code(), Some(2), "{option}");
        assert!(
            text(&out.stderr).contains(says),
            "{option}: {}",
            text(&out.stderr)
        );
    }
    let out = gyoku(&[
        "match", "--engine", &new, "--engine", &old, "--output", "pgn",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("text, json or fastchess"));
}

/// A run's directory resumes only its own games (issue 43): a tournament's line edited to
/// an engine against itself is no game of the schedule and is played again; results
/// without the file that says whose they are are refused, for a match and a tournament.
#[test]
fn a_resume_counts_only_the_scheduled_games_of_its_own_run() {
    let dir = fresh("forged");
    let engines = [
        format!("a={}", engine(1)),
        format!("b={}", engine(2)),
        format!("c={}", engine(3)),
    ];
    let run = |dir: &Path| {
        let mut args = vec!["tournament".to_string()];
        for e in &engines {
            args.extend(["--engine".to_string(), e.clone()]);
        }
        args.extend(
            [
                "--byoyomi",
                "100ms",
                "--concurrency",
                "1",
                "--json",
                "--out",
            ]
            .map(str::to_string),
        );
        args.push(dir.to_str().unwrap().to_string());
        gyoku(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let first: serde_json::Value = serde_json::from_str(&ok(&run(&dir))).unwrap();
    assert_eq!(first["games"], 6);
    // Game 1 (a vs b) rewritten as a vs a, a win for Black.
    let lines: Vec<String> = std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["game"] == 1 {
                v["players"] = serde_json::json!(["a", "a"]);
                v["result"] = serde_json::json!("black");
            }
            v.to_string()
        })
        .collect();
    std::fs::write(dir.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
    let again = run(&dir);
    let resumed: serde_json::Value = serde_json::from_str(&ok(&again)).unwrap();
    assert!(
        text(&again.stderr)
            .contains("game 1 (a vs a, round 1) is no game of this tournament's schedule"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(
        (resumed["resumed"].as_u64(), resumed["games"].as_u64()),
        (Some(5), Some(6))
    );
    let games: u64 = resumed["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["games"].as_u64().unwrap())
        .sum();
    assert_eq!(
        games, 12,
        "each of the six games counted for its two engines once"
    );
    // Its tournament.json gone, the directory's results are no one's.
    std::fs::remove_file(dir.join("tournament.json")).unwrap();
    let refused = run(&dir);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("has results.jsonl but no tournament.json"),
        "{}",
        text(&refused.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // The same for a match.
    let dir = fresh("no-match-json");
    let (a, b) = (format!("a={}", engine(1)), format!("b={}", engine(2)));
    let args = [
        "match",
        "--engine",
        &a,
        "--engine",
        &b,
        "--games",
        "2",
        "--byoyomi",
        "100ms",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ];
    ok(&gyoku(&args));
    std::fs::remove_file(dir.join("match.json")).unwrap();
    let refused = gyoku(&args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("has results.jsonl but no match.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Floodgate's result lines with a bad date on the first line are a results file with an
/// error at that line (issue 43), not a file of no games.
#[test]
fn a_results_file_with_a_bad_first_date_is_an_error_at_its_line() {
    let dir = fresh("bad-date");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("results.txt");
    std::fs::write(
        &file,
        "2026/13/45 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\tx.csa\t80\n\
         2026/11/20 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\ty.csa\t80\n",
    )
    .unwrap();
    let out = gyoku(&["ratings", "--floodgate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("results.txt:1:"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 41, items 4 and 5: a match under an event preset plays the event's clock and
/// prints the digest `gyoku rules` gives it; byoyomi periods, thinking units and floored
/// minutes are taken and shown; periods without a byoyomi are refused, saying why.
#[test]
fn a_match_names_its_rules_digest_and_its_clock() {
    let (a, b) = (format!("a={}", engine(1)), format!("b={}", engine(2)));
    let run = |extra: &[&str]| {
        let mut args = vec![
            "match", "--engine", &a, "--engine", &b, "--games", "2", "--json",
        ];
        args.extend_from_slice(extra);
        let v: serde_json::Value = serde_json::from_str(&ok(&gyoku(&args))).unwrap();
        v
    };
    let listed: serde_json::Value =
        serde_json::from_str(&ok(&gyoku(&["rules", "floodgate", "--json"]))).unwrap();
    let floodgate = run(&["--rules", "floodgate", "--max-moves", "24"]);
    assert_eq!(floodgate["rules"], "floodgate");
    assert_eq!(floodgate["rules_digest"].as_str().unwrap().len(), 64);
    // --max-moves made other rules: not the preset's digest; as it is, the preset's.
    assert_ne!(floodgate["rules_digest"], listed["digest"]);
    let plain = run(&["--rules", "floodgate"]);
    assert_eq!(
        plain["rules_digest"], listed["digest"],
        "the event's own clock"
    );
    let out = fresh("clock-extras");
    let timed = run(&[
        "--rules",
        "csa",
        "--max-moves",
        "12",
        "--time",
        "60s",
        "--byoyomi",
        "10s",
        "--periods",
        "3",
        "--thinking-units",
        "10x60s",
        "--rounding",
        "floored-minutes",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(timed["games"], 2, "{timed}");
    let identity = std::fs::read_to_string(out.join("match.json")).unwrap();
    assert!(
        identity.contains("60s, byoyomi 10s, 3 periods, 10x60s units, floored minutes"),
        "{identity}"
    );
    let refused = gyoku(&[
        "match",
        "--engine",
        &a,
        "--engine",
        &b,
        "--time",
        "60+1s",
        "--periods",
        "3",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--periods: only with a byoyomi"),
        "{}",
        text(&refused.stderr)
    );
}
