//! `gyoku ratings`: the maximum-likelihood list from records, and `--floodgate` against
//! shogi-server's own `mk_rate` (Debian's ruby and ruby-gsl, `../shared/peers`) on the same
//! seeded game histories: every player's rate within 1 point, the same players rated and
//! not, the same groups, the same weighted wins and losses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn gyoku() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gyoku"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gyoku-ratings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// SplitMix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `YYYY/MM/DD HH:MM:SS` of seconds since 1970 (no zone).
fn time_text(t: i64) -> String {
    gyoku_league::ratings::floodgate::format_time(t).replace('-', "/")
}

/// 2026-11-21 00:00 as seconds since 1970.
const BASE: i64 = 1_795_219_200;

/// A Floodgate-like history: 40 players of spread strengths over 500 days (so the 730-day
/// cut and the half-life both matter under other options), draws, `@NORATE` and `@…`
/// logins, repeated lines, games after the base date, disconnections (`abnormal`, each with
/// its CSA record for mk_rate to count plies in), a few players with too few games, and a
/// group of three who play only each other.
fn history(seed: u64, dir: &Path) -> String {
    let mut rng = Rng(seed);
    let strengths: Vec<f64> = (0..40).map(|_| (rng.unit() - 0.5) * 1200.0).collect();
    let id = |i: usize| format!("p{i}+t{i:03x}");
    let mut lines = Vec::new();
    for k in 0..4000u64 {
        let a = rng.below(40) as usize;
        let b = (a + 1 + rng.below(39) as usize) % 40;
        // Players 37-39 play seldom.
        if (a >= 37 || b >= 37) && rng.below(8) != 0 {
            continue;
        }
        let t = BASE - rng.below(500 * 86_400) as i64
            + if rng.below(100) == 0 { 86_400 * 3 } else { 0 };
        let p = 1.0 / (1.0 + 10f64.powf((strengths[b] - strengths[a]) / 400.0));
        let (bm, wm) = if rng.below(100) < 8 {
            ("draw", "draw")
        } else if rng.unit() < p {
            ("win", "lose")
        } else {
            ("lose", "win")
        };
        let mut black = id(a);
        match rng.below(100) {
            0..=2 => black = black.replacen('+', "@NORATE+", 1),
            3..=5 => black = black.replacen('+', "@600-10+", 1),
            _ => {}
        }
        let (state, plies) = if rng.below(50) == 0 {
            ("abnormal", 10 + rng.below(50))
        } else {
            ("toryo", 40 + rng.below(160))
        };
        let file = dir.join(format!("g{k}.csa"));
        if state == "abnormal" {
            std::fs::write(&file, "+7776FU\n".repeat(plies as usize)).unwrap();
        }
        let line = format!(
            "{}\t{state}\t{bm}\t{black}\t{}\t{wm}\t{}\t{plies}",
            time_text(t),
            id(b),
            file.display()
        );
        if rng.below(100) == 0 {
            lines.push(line.clone());
        }
        lines.push(line);
    }
    for k in 0..60 {
        let a = rng.below(3);
        let b = (a + 1 + rng.below(2)) % 3;
        let (bm, wm) = if rng.below(2) == 0 {
            ("win", "lose")
        } else {
            ("lose", "win")
        };
        let t = BASE - rng.below(20 * 86_400) as i64;
        lines.push(format!(
            "{}\ttoryo\t{bm}\tq{a}+x{a}\tq{b}+x{b}\t{wm}\th{k}.csa\t90",
            time_text(t)
        ));
    }
    lines.join("\n") + "\n"
}

/// A player in `players.yaml`: its group and fields.
type Listed = BTreeMap<String, (u32, BTreeMap<String, String>)>;

/// Reads mk_rate's (and Gyoku's) `players.yaml`: groups, ids, then each player's fields.
fn players_yaml(text: &str) -> Listed {
    let mut out = Listed::new();
    let (mut group, mut id) = (0, String::new());
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        match indent {
            2 => group = t.trim_end_matches(':').parse().unwrap(),
            4 => {
                id = t
                    .trim_end_matches(':')
                    .trim_matches(['\'', '"'])
                    .to_string();
                out.insert(id.clone(), (group, BTreeMap::new()));
            }
            6 => {
                let (k, v) = t.split_once(": ").unwrap();
                out.get_mut(&id)
                    .unwrap()
                    .1
                    .insert(k.to_string(), v.to_string());
            }
            _ => {}
        }
    }
    out
}

fn mk_rate(peers: &Path, results: &Path, options: &[&str]) -> Listed {
    let out = Command::new("ruby")
        .env("RUBYLIB", peers.join("rgl-shim"))
        .arg(peers.join("shogi-server/mk_rate"))
        .args(options)
        .arg(results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mk_rate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    players_yaml(&String::from_utf8(out.stdout).unwrap())
}

fn ours(results: &Path, options: &[&str]) -> Listed {
    let out = gyoku()
        .args(["ratings", "--floodgate", "--yaml"])
        .args(options)
        .arg(results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gyoku ratings: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    players_yaml(&String::from_utf8(out.stdout).unwrap())
}

/// Whether this machine can run mk_rate; `None` after the skip line (a failure when
/// `GYOKU_MK_RATE=1`, as in CI).
fn mk_rate_peers() -> Option<PathBuf> {
    let peers = gyoku_testdata::shared_root().join("../peers");
    let required = std::env::var("GYOKU_MK_RATE").is_ok_and(|v| v == "1");
    if !peers.join("shogi-server/mk_rate").is_file() {
        assert!(
            !required,
            "GYOKU_MK_RATE=1 but ../shared/peers/shogi-server/mk_rate is missing"
        );
        gyoku_testdata::skipped(
            "no ../shared/peers/shogi-server/mk_rate",
            "gyoku ratings --floodgate against mk_rate",
        );
        return None;
    }
    let gsl = Command::new("ruby").args(["-e", "require 'gsl'"]).output();
    if !gsl.is_ok_and(|o| o.status.success()) {
        assert!(
            !required,
            "GYOKU_MK_RATE=1 but ruby with ruby-gsl cannot be run"
        );
        gyoku_testdata::skipped(
            "no ruby with ruby-gsl",
            "gyoku ratings --floodgate against mk_rate",
        );
        return None;
    }
    Some(peers)
}

#[test]
fn floodgate_ratings_equal_mk_rates() {
    let Some(peers) = mk_rate_peers() else { return };
    let scenarios: [&[&str]; 4] = [
        &["--base-date", "2026-11-21"],
        &[
            "--base-date",
            "2026-11-21",
            "--half-life",
            "120",
            "--half-life-ignore",
            "3",
            "--ignore",
            "400",
            "--skip-draw-games",
        ],
        &[
            "--base-date",
            "2026-11-21",
            "--fixed-rate-player",
            "p3+t003",
            "--fixed-rate",
            "1500",
            "--abnormal-threshold",
            "0",
        ],
        &["--base-date", "2026-06-01", "--abnormal-threshold", "45"],
    ];
    let mut compared = 0;
    for (seed, options) in scenarios.iter().enumerate() {
        let dir = temp(&format!("mk-rate-{seed}"));
        let results = dir.join("results.txt");
        std::fs::write(&results, history(seed as u64 + 1, &dir)).unwrap();
        let theirs = mk_rate(&peers, &results, options);
        let mine = ours(&results, options);
        assert_eq!(
            theirs.keys().collect::<Vec<_>>(),
            mine.keys().collect::<Vec<_>>(),
            "{options:?}: the players listed"
        );
        let groups = |l: &Listed| -> BTreeSet<Vec<String>> {
            let mut by: BTreeMap<u32, Vec<String>> = BTreeMap::new();
            for (id, (g, _)) in l {
                by.entry(*g).or_default().push(id.clone());
            }
            by.into_iter()
                .map(|(g, mut ids)| {
                    ids.push(if g == 999 {
                        "(not rated)".into()
                    } else {
                        String::new()
                    });
                    ids
                })
                .collect()
        };
        assert_eq!(groups(&theirs), groups(&mine), "{options:?}: the groups");
        let mut worst = 0.0f64;
        for (id, (_, t)) in &theirs {
            let m = &mine[id].1;
            let num = |f: &BTreeMap<String, String>, k: &str| -> f64 { f[k].parse().unwrap() };
            let diff = (num(t, "rate") - num(m, "rate")).abs();
            worst = worst.max(diff);
            assert!(
                diff <= 1.0,
                "{options:?} {id}: mk_rate {} gyoku {}",
                t["rate"],
                m["rate"]
            );
            for k in ["win", "loss"] {
                assert!(
                    (num(t, k) - num(m, k)).abs() < 1e-6,
                    "{options:?} {id} {k}: {t:?} {m:?}"
                );
            }
            assert_eq!(t["name"], m["name"]);
            compared += 1;
        }
        let rated = theirs.values().filter(|(g, _)| *g != 999).count();
        println!(
            "{options:?}: {} players ({rated} rated), largest rate difference {worst}",
            theirs.len()
        );
        assert!(
            rated >= 20,
            "{options:?}: too few rated players to compare ({rated})"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(compared > 100);
}

#[test]
fn a_list_from_record_files_by_maximum_likelihood() {
    // Kifu for JS's sample games (MIT) in tests/data: every record with both players named
    // and a result is rated; the JSON lists each player once with its games.
    let dir = gyoku_testdata::repo_data().join("records/kifu-for-js/csa");
    let out = gyoku()
        .args(["ratings", "--json"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["method"], "mle");
    let players = v["players"].as_array().unwrap();
    let games: u64 = players.iter().map(|p| p["games"].as_u64().unwrap()).sum();
    assert_eq!(games, 2 * v["games"].as_u64().unwrap());
    assert!(players.len() >= 2, "{v}");
    for p in players {
        assert!(
            p["elo"].as_f64().unwrap().is_finite() && p["error"].as_f64().unwrap() > 0.0,
            "{p}"
        );
    }
}

#[test]
fn mk_game_results_lines_rate_both_ways_and_bad_lines_are_named() {
    let dir = temp("lines");
    let file = dir.join("results.txt");
    std::fs::write(
        &file,
        "2026/11/20 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\tx.csa\t80\n",
    )
    .unwrap();
    let out = gyoku()
        .args(["ratings", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["players"][0]["name"].as_str()),
        (Some(1), Some("a+1"))
    );
    std::fs::write(
        &file,
        "2026/11/20 10:00:00\ttoryo\twin\ta+1\tb+2\tlose\tx.csa\t80\n2026/11/20\ttoryo\n",
    )
    .unwrap();
    let out = gyoku()
        .args(["ratings", "--floodgate"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("results.txt:2:"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_floodgate_example_in_the_docs_is_mk_rates_own() {
    // tests/data/ratings/floodgate-results.txt, whose list docs/ratings.md shows: mk_rate's
    // rates, by gyoku (checked against mk_rate itself where it can run).
    let file = gyoku_testdata::repo_data().join("ratings/floodgate-results.txt");
    let mine = ours(&file, &["--base-date", "2026-11-21"]);
    let rates: Vec<(&str, &str)> = mine
        .iter()
        .map(|(id, (_, f))| (id.as_str(), f["rate"].as_str()))
        .collect();
    assert_eq!(
        rates,
        [
            ("apery+e5", "880"),
            ("fsf+b2", "1174"),
            ("gps+a1", "1341"),
            ("lesserkai+f6", "480"),
            ("newbie+g7", "0"),
            ("tanuki+c3", "1149"),
            ("yane+d4", "973"),
        ]
    );
    if let Some(peers) = mk_rate_peers() {
        let theirs = mk_rate(&peers, &file, &["--base-date", "2026-11-21"]);
        for (id, (g, f)) in &theirs {
            assert_eq!(
                (mine[id].0, f["rate"].parse::<f64>().unwrap()),
                (*g, mine[id].1["rate"].parse::<f64>().unwrap()),
                "{id}"
            );
        }
    }
}

#[test]
fn a_servers_database_is_rated_by_its_rating_ids() {
    use gyoku_server::store::{Change, Journal, SqliteStore, StartedGame};
    let dir = temp("db");
    let path = dir.join("gyoku.sqlite3");
    let mut store = SqliteStore::open(&path).unwrap();
    // alice (one password) beats bob 12 times of 16; a no contest is not counted; carol
    // (no password, no rating id) plays once.
    let game = |k: u32, black: &str, white: &str, ids: [Option<&str>; 2], result: &str| {
        let id = format!("g{k}");
        vec![
            Change::GameStarted(Box::new(StartedGame {
                id: id.clone(),
                name: "rated-600-10".into(),
                black: black.into(),
                white: white.into(),
                rules: "csa".into(),
                fouls: None,
                max_moves: 256,
                least_time_per_move: 0,
                total_time: 600,
                byoyomi: 10,
                increment: 0,
                start_sfen: "startpos".into(),
                initial_moves: String::new(),
                started_at: format!("2026/11/20 10:{k:02}:00"),
                replay_of: None,
                rating_ids: ids.map(|i| i.map(str::to_string)),
                rules_digest: None,
                kinds: [gyoku_server::identity::PlayerKind::Csa; 2],
                main_times: None,
                clock: Default::default(),
                started_ms: None,
            })),
            Change::GameEnded {
                game_id: id,
                status: "finished",
                result: Some(result.into()),
                reason: "resignation".into(),
                ended_at: format!("2026/11/20 11:{k:02}:00"),
                record: String::new(),
                record_path: String::new(),
            },
        ]
    };
    let ids = [Some("alice+aa"), Some("bob+bb")];
    for k in 0..16 {
        let result = if k % 4 == 3 { "white" } else { "black" };
        store.commit(&game(k, "alice", "bob", ids, result)).unwrap();
    }
    store
        .commit(&game(16, "alice", "bob", ids, "no_contest"))
        .unwrap();
    store
        .commit(&game(17, "carol", "bob", [None, Some("bob+bb")], "white"))
        .unwrap();
    drop(store);
    let out = gyoku()
        .args(["ratings", "--json", "--db"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["games"].as_u64(), v["uncounted"].as_u64()),
        (Some(17), Some(1)),
        "{v}"
    );
    let names: Vec<&str> = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice+aa", "bob+bb", "carol"], "{v}");
    // Floodgate's list: alice and bob rated (16 games, wins and losses each), carol not.
    let out = gyoku()
        .args([
            "ratings",
            "--floodgate",
            "--base-date",
            "2026-11-21",
            "--json",
            "--db",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rated: Vec<(&str, i64)> = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["rate"].as_i64().unwrap()))
        .collect();
    // 12 to 4: 400·log10(3) = 190.8 apart about 1000, cut toward zero.
    assert_eq!(
        rated,
        [("alice+aa", 1095), ("bob+bb", 904), ("carol", 0)],
        "{v}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
