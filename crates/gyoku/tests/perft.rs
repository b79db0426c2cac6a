//! Perft tables: every count in `tests/data/perft/*.perft` (with its source) and the
//! shared perft data, up to a node limit that keeps the suite fast. Deeper counts are run
//! by `gyoku perft` in release (CI runs the start position to depth 5).

mod common;

use std::fs;

use gyoku::{Position, perft};

const NODE_LIMIT: u64 = 60_000_000;

struct Case {
    id: String,
    sfen: String,
    depth: u32,
    nodes: u64,
    source: String,
}

fn read_perft_file(text: &str) -> Vec<Case> {
    let (mut id, mut sfen) = (String::new(), String::new());
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => id = rest.to_string(),
            "sfen" => sfen = rest.to_string(),
            "perft" => {
                let (numbers, source) = rest.split_once(';').unwrap_or((rest, ""));
                let mut it = numbers.split_whitespace();
                let depth = it.next().and_then(|d| d.parse().ok()).expect("depth");
                let nodes = it.next().and_then(|d| d.parse().ok()).expect("nodes");
                cases.push(Case {
                    id: id.clone(),
                    sfen: sfen.clone(),
                    depth,
                    nodes,
                    source: source.trim().to_string(),
                });
            }
            other => panic!("line {}: unknown key {other}", n + 1),
        }
    }
    cases
}

#[test]
fn perft_tables_match() {
    let dir = common::data_dir().join("perft");
    let mut checked = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "perft") {
            continue;
        }
        for case in read_perft_file(&fs::read_to_string(&path).unwrap()) {
            assert!(
                !case.source.is_empty(),
                "{}: {} has no source",
                path.display(),
                case.id
            );
            let pos =
                Position::from_sfen(&case.sfen).unwrap_or_else(|e| panic!("{}: {e}", case.id));
            if case.nodes > NODE_LIMIT {
                continue;
            }
            assert_eq!(
                perft(&pos, case.depth),
                case.nodes,
                "{} depth {}",
                case.id,
                case.depth
            );
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} perft counts checked");
}

/// The shared tables (shogiops random positions, talkchess gentest, python-shogi edge
/// cases), read in place. Some have one king or extra pieces, so faults that are safe to
/// play through are accepted.
#[test]
fn shared_perft_tables_match() {
    let (mut checked, mut files) = (0, 0);
    for (name, what) in [
        (
            "perft_misc.tsv",
            "python-shogi's and shogiops' perft edge cases",
        ),
        (
            "perft_shogiops_random.tsv",
            "perft(1) of shogiops' 292 random positions",
        ),
        (
            "perft_talkchess_gentest.tsv",
            "perft(1) and perft(2) of talkchess gentest",
        ),
    ] {
        let Some(path) = gyoku_testdata::shared(&format!("perft/{name}"), what) else {
            continue;
        };
        let text = fs::read_to_string(path).unwrap();
        files += 1;
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            let (sfen, expected): (&str, Vec<(u32, u64)>) = match name {
                "perft_talkchess_gentest.tsv" => (
                    cols[1],
                    vec![(1, cols[2].parse().unwrap()), (2, cols[3].parse().unwrap())],
                ),
                _ => (
                    cols[0],
                    vec![(cols[1].parse().unwrap(), cols[2].parse().unwrap())],
                ),
            };
            let setup = gyoku::Setup::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            let pos = Position::from_setup(setup)
                .or_else(|e| e.ignore_all_safe())
                .unwrap_or_else(|e| panic!("{sfen}: {e}"));
            for (depth, nodes) in expected {
                assert_eq!(perft(&pos, depth), nodes, "{name}: {sfen} depth {depth}");
                checked += 1;
            }
        }
    }
    if files == 3 {
        assert!(checked > 300, "only {checked} shared perft counts checked");
    }
}
