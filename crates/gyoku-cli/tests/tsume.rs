//! `gyoku judge --tsume` on the tsume records of `tests/data/tsume` (issue 48): each
//! correct problem says so, each broken one names its convention and ply.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn judge(paths: &[PathBuf], extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(["judge", "--tsume", "--lenient"])
        .args(extra)
        .args(paths)
        .output()
        .expect("run gyoku")
}

/// A fault's kind and ply.
type Said = (&'static str, usize);

/// (file under tests/data, plies, the faults; none for a correct one)
const TABLE: &[(&str, usize, &[Said])] = &[
    ("tsume/taichitsume.kif", 7, &[]),
    ("tsume/kobayashi_kinsho196702.ki2", 49, &[]),
    ("records/kif/bod.kifu", 1, &[]),
    ("tsume/broken/leftover.kifu", 7, &[("pieces_left", 7)]),
    (
        "tsume/broken/alternative.kifu",
        3,
        &[("alternative_mate", 1)],
    ),
    (
        "tsume/broken/shorter-defence.kifu",
        5,
        &[("longer_defence", 2), ("pieces_left", 5)],
    ),
    (
        "tsume/broken/escape.kifu",
        7,
        &[("escape", 2), ("escape", 2), ("escape", 4), ("escape", 4)],
    ),
    ("tsume/broken/not-check.kifu", 3, &[("not_check", 1)]),
];

#[test]
fn every_problem_is_judged_as_its_table_row_says() {
    let paths: Vec<PathBuf> = TABLE.iter().map(|(f, ..)| data(f)).collect();
    let out = judge(&paths, &["--json"]);
    // Some are broken: exit status 1, the answer on standard output all the same.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), TABLE.len(), "{v}");
    for (r, &(file, plies, faults)) in records.iter().zip(TABLE) {
        assert!(r["file"].as_str().unwrap().ends_with(file), "{r}");
        assert_eq!(r["plies"], plies, "{file}: {r}");
        let got: Vec<(&str, u64)> = r["faults"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["kind"].as_str().unwrap(), f["ply"].as_u64().unwrap()))
            .collect();
        let want: Vec<(&str, u64)> = faults.iter().map(|&(k, p)| (k, p as u64)).collect();
        assert_eq!(got, want, "{file}: {r}");
        assert_eq!(r["correct"], faults.is_empty(), "{file}: {r}");
        assert_eq!(r["undecided"], serde_json::json!([]), "{file}: {r}");
    }
    let correct = TABLE.iter().filter(|(_, _, f)| f.is_empty()).count();
    assert_eq!(v["correct"], correct);
    assert_eq!(v["faulty"], TABLE.len() - correct);
}

#[test]
fn the_text_names_the_convention_and_the_move() {
    let out = judge(
        &[
            data("tsume/broken/alternative.kifu"),
            data("tsume/taichitsume.kif"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("alternative.kifu: ply 1: alternative solution (余詰): 9a2a mates in 3\n"),
        "{text}"
    );
    assert!(
        text.contains("taichitsume.kif: correct, mate in 7\n"),
        "{text}"
    );
    assert!(
        text.ends_with("1 correct, 1 faulty, 0 undecided within 1000000 nodes a search\n"),
        "{text}"
    );
    // Correct only: exit status 0.
    let out = judge(&[data("tsume/taichitsume.kif")], &[]);
    assert!(out.status.success());
}

#[test]
fn a_budget_too_small_leaves_moves_undecided() {
    let out = judge(
        &[data("tsume/kobayashi_kinsho196702.ki2")],
        &["--json", "--nodes", "1"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["records"][0];
    assert_eq!(r["correct"], false, "{r}");
    assert_eq!(r["faults"], serde_json::json!([]), "{r}");
    assert!(!r["undecided"].as_array().unwrap().is_empty(), "{r}");
    assert_eq!(v["undecided"], 1);
}

#[test]
fn without_files_it_says_what_it_needs() {
    let out = Command::new(env!("CARGO_BIN_EXE_gyoku"))
        .args(["judge", "--tsume"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tsume judges record files"));
}
