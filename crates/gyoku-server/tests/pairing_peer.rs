//! Issue 30: scheduled rounds' pairings against shogi-server's own `LeastDiff`
//! (`pairing.rb`, run in Ruby through `tests/peers/pairing_rb.rb`) on the same ratings and
//! history: over 12 rounds of 40 players (one away every third round), Gyoku's pairing
//! costs no more by shogi-server's own measure (rating differences and the penalty for
//! meeting the last opponent again) and repeats no more last opponents.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use gyoku_server::lobby::schedule::{Waiting, floodgate_cost, pair_round};

/// Whether Ruby and shogi-server are here; `None` after the skip line (a failure when
/// `GYOKU_PEERS_RUBY=1`, as in CI).
fn shogi_server() -> Option<std::path::PathBuf> {
    let dir = gyoku_testdata::shared_root().join("../peers/shogi-server");
    let required = std::env::var("GYOKU_PEERS_RUBY").is_ok_and(|v| v == "1");
    let ruby = Command::new("ruby")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !dir.join("shogi_server/pairing.rb").is_file() || !ruby {
        assert!(
            !required,
            "GYOKU_PEERS_RUBY=1 but ruby or ../shared/peers/shogi-server is missing"
        );
        gyoku_testdata::skipped(
            "no ruby or no ../shared/peers/shogi-server",
            "pairings against shogi-server's pairing.rb",
        );
        return None;
    }
    Some(dir)
}

fn theirs(dir: &std::path::Path, field: &[Waiting], seed: u64) -> Vec<(String, String)> {
    let players: Vec<serde_json::Value> = field
        .iter()
        .map(|w| serde_json::json!({"id": w.id, "rate": w.rating}))
        .collect();
    let last: HashMap<&str, &str> = field
        .iter()
        .filter_map(|w| Some((w.id.as_str(), w.last.as_ref()?.0.as_str())))
        .collect();
    let input = serde_json::json!({"players": players, "last": last, "seed": seed}).to_string();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/pairing_rb.rb");
    let mut child = Command::new("ruby")
        .arg(script)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once(' ').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

/// shogi-server's measure of a pairing, and how many pairs met last time.
fn measure(field: &[Waiting], pairs: &[(String, String)]) -> (i64, usize) {
    let by: HashMap<&str, &Waiting> = field.iter().map(|w| (w.id.as_str(), w)).collect();
    let cost = pairs
        .iter()
        .map(|(a, b)| floodgate_cost(by[a.as_str()], by[b.as_str()]))
        .sum();
    let repeats = pairs
        .iter()
        .filter(|(a, b)| by[a.as_str()].last.as_ref().is_some_and(|(o, _)| o == b))
        .count();
    (cost, repeats)
}

#[test]
fn pairings_cost_no_more_than_shogi_servers_least_diff() {
    let Some(dir) = shogi_server() else { return };
    let mut seed = 30u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    let ratings: Vec<i64> = (0..40).map(|_| 1200 + (next() % 1600) as i64).collect();
    // Ten authors' engines, four each: same-author pairs pay the kin penalty.
    let authors = [
        "gps",
        "fairy",
        "apery",
        "yaneura",
        "tanuki",
        "elmo",
        "suisho",
        "dlshogi",
        "kristall",
        "lesserkai",
    ];
    let ids: Vec<String> = (0..40)
        .map(|k| format!("{}{}+{:08x}", authors[k % 10], k / 10, next()))
        .collect();
    let mut last: HashMap<String, (String, bool)> = HashMap::new();
    let mut balance: HashMap<String, i32> = HashMap::new();
    let (mut ours_total, mut theirs_total) = (0, 0);
    for round in 0..12u64 {
        let away = (round % 3 == 2).then_some((round as usize * 7) % 40);
        let field: Vec<Waiting> = (0..40)
            .filter(|&k| Some(k) != away)
            .map(|k| Waiting {
                id: ids[k].clone(),
                rating: ratings[k],
                estimated: false,
                last: last.get(&ids[k]).cloned(),
                since_sat_out: u32::MAX,
                balance: balance.get(&ids[k]).copied().unwrap_or(0),
            })
            .collect();
        let (pairs, out) = pair_round(&field);
        let ours: Vec<(String, String)> = pairs
            .iter()
            .map(|&(b, w)| (field[b].id.clone(), field[w].id.clone()))
            .collect();
        // shogi-server leaves out an odd player before pairing (at random): give it the
        // same field less the one Gyoku left out.
        let even: Vec<Waiting> = field
            .iter()
            .enumerate()
            .filter(|&(k, _)| Some(k) != out)
            .map(|(_, w)| w.clone())
            .collect();
        let shogi = theirs(&dir, &even, round + 1);
        assert_eq!(shogi.len(), ours.len());
        let (oc, or) = measure(&even, &ours);
        let (tc, tr) = measure(&even, &shogi);
        println!(
            "round {}: {} players; cost gyoku {oc} ({or} repeats), pairing.rb {tc} ({tr} repeats)",
            round + 1,
            field.len()
        );
        assert!(
            oc <= tc,
            "round {}: gyoku {oc} > pairing.rb {tc}",
            round + 1
        );
        assert!(
            or <= tr,
            "round {}: gyoku repeats {or} > pairing.rb {tr}",
            round + 1
        );
        ours_total += oc;
        theirs_total += tc;
        for (b, w) in &ours {
            last.insert(b.clone(), (w.clone(), true));
            last.insert(w.clone(), (b.clone(), false));
            *balance.entry(b.clone()).or_default() += 1;
            *balance.entry(w.clone()).or_default() -= 1;
        }
    }
    println!("12 rounds: gyoku {ours_total}, pairing.rb {theirs_total}");
}
