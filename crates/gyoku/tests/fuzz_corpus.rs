//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) through the same
//! invariants the fuzz targets check, so that a stable `cargo test` exercises them.

mod common;

use std::fs;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = common::data_dir().join("../../fuzz/corpus").join(target);
    let mut n = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = fs::read(&path).unwrap();
        let result = std::panic::catch_unwind(|| check(&data));
        assert!(
            result.is_ok(),
            "{target}: {} breaks an invariant",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 10, "{target}: only {n} corpus files");
}

#[test]
fn sfen_roundtrip_corpus() {
    replay("sfen_roundtrip", gyoku::fuzzing::sfen_roundtrip);
}

#[test]
fn usi_move_corpus() {
    replay("usi_move", gyoku::fuzzing::usi_move);
}

#[test]
fn legals_are_legal_corpus() {
    replay("legals_are_legal", gyoku::fuzzing::legals_are_legal);
}
