//! The solver on positions with a known answer.

use super::*;

fn check_line(pos: &Position, line: &[Move]) {
    let mut after = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 {
            assert!(after.gives_check(m), "{pos}: {m} does not check");
        }
        after
            .play(m)
            .unwrap_or_else(|e| panic!("{pos}: {m}: {e:?}"));
    }
    assert!(after.is_checkmate(), "{pos}: {line:?} does not mate");
}

/// (SFEN, the shortest mate's plies, or none)
const KNOWN: &[(&str, Option<usize>)] = &[
    ("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", Some(1)),
    ("8k/9/9/9/9/9/9/9/4K4 b P 1", None),
    ("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1", Some(3)),
    ("7nk/9/7G1/9/9/9/9/9/4K4 b P 1", None),
    ("4k4/9/9/9/9/9/4p4/9/4K4 w g 1", Some(1)),
];

#[test]
fn known_positions() {
    let mut solver = Solver::new(1 << 20);
    for &(sfen, plies) in KNOWN {
        let pos = Position::from_sfen(sfen).unwrap();
        let report = solver.solve(&pos, &Limits::default(), None);
        match (&report.outcome, plies) {
            (Outcome::Mate(line), Some(n)) => {
                assert_eq!(line.len(), n, "{sfen}");
                check_line(&pos, line);
            }
            (Outcome::NoMate, None) => {}
            (other, _) => panic!("{sfen}: {other:?}, expected {plies:?}"),
        }
    }
}
