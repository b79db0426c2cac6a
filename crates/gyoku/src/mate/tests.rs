//! The solver on positions with a known answer.

use super::*;
use crate::Color;

/// A tsume position: the attacker may have no king.
pub(super) fn lenient(sfen: &str) -> Position {
    match Position::from_sfen(sfen) {
        Ok(pos) => pos,
        Err(crate::SfenError::Position(e)) => e.ignore_all_safe().unwrap(),
        Err(e) => panic!("{sfen}: {e}"),
    }
}

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

/// (SFEN, Black's prospect, White's: the mate's plies, `None` for no mate proved)
const PROSPECTS: &[(&str, Option<usize>, Option<usize>)] = &[
    // White to move and not in check: Black is searched as if it were its turn.
    ("4k4/9/4P4/9/9/9/9/9/4K4 w Gp 1", Some(1), None),
    // White to move, in check and mated already: Black's mate is the empty line.
    ("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", Some(0), None),
    // White in check by a lone rook: every reply escapes for good.
    ("4k4/9/9/9/4R4/9/9/9/4K4 w - 1", None, None),
    // White in check from the rook, the king's only reply 2a; then a gold dropped on 2b,
    // guarded by the pawn, mates: Black's line is the reply and the mate.
    ("8k/9/7P1/9/8R/9/9/9/4K4 w G 1", Some(2), None),
];

#[test]
fn prospects_of_both_sides() {
    let mut solver = Solver::new(1 << 20);
    let limits = Limits {
        nodes: 100_000,
        ..Limits::default()
    };
    for &(sfen, black, white) in PROSPECTS {
        let pos = Position::from_sfen(sfen).unwrap();
        let p = Prospects::search(&pos, &mut solver, &limits, None);
        for (color, want) in [(Color::Black, black), (Color::White, white)] {
            match (&p.by.get(color).outcome, want) {
                (Outcome::Mate(line), Some(n)) => assert_eq!(line.len(), n, "{sfen} {color}"),
                (Outcome::NoMate, None) => {}
                (other, _) => panic!("{sfen}: {color}: {other:?}, expected {want:?}"),
            }
        }
    }
}

#[test]
fn a_mate_longer_than_max_plies_is_not_given() {
    // A mate in three, searched within one ply: none found, and none proved absent.
    let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
    let within = |max_plies| Limits {
        nodes: 10_000,
        max_plies,
    };
    let report = Solver::new(1 << 20).solve(&pos, &within(1), None);
    assert_eq!(report.outcome, Outcome::Unknown);
    let report = Solver::new(1 << 20).solve(&pos, &within(3), None);
    assert!(matches!(report.outcome, Outcome::Mate(line) if line.len() == 3));
}

#[test]
fn a_futile_interposition_counts_for_nothing_in_tsume_mode() {
    // Black's rook on 1i checks from afar; White can only drop its pawn between, which the
    // rook takes, the gold guarding it: futile.
    let pos = lenient("7lk/7p1/7G1/9/9/9/9/9/8R w p 2");
    assert!(!pos.is_checkmate());
    let mut solver = Solver::new(1 << 20);
    let within = |n| Limits {
        nodes: 10_000,
        max_plies: n,
    };
    let mut ask = |n, tsume| {
        solver
            .mate_within(&pos, Color::Black, &within(n), tsume, None)
            .0
    };
    assert_eq!(ask(0, true), Within::Mate(0));
    assert_eq!(ask(0, false), Within::NotWithin);
    assert_eq!(ask(1, false), Within::NotWithin);
    assert_eq!(ask(2, false), Within::Mate(2));
    // The rook on 1c: the pawn can only be dropped on 1b, beside the king, where the gold
    // could take it and mate too; the rook's capture, the futile one, counts for nothing,
    // with one ply allowed (the depth limit) and with two (the gold's mate found first).
    let pos = lenient("7lk/7p1/7GR/9/9/9/9/9/9 w p 2");
    for n in [0, 1, 2, 3] {
        let (got, _) = solver.mate_within(&pos, Color::Black, &within(n), true, None);
        assert_eq!(got, Within::Mate(0), "within {n}");
    }
}

/// A proof is kept with the attacker's pieces it needs (証明駒): the gold dropped on the
/// king's head mates whatever else Black holds, so the proof serves the same board with
/// the gold alone in hand, and not with the silver alone. A mate by a check from afar
/// needs, besides, all Black holds of each kind White holds none of (White could
/// interpose one it had).
#[test]
fn a_proof_keeps_the_pieces_it_needs() {
    let hands = |board: &str, held: &str| lenient(&format!("{board} b {held} 1")).hands;
    let solve = |board: &str, held: &str| {
        let mut pos = lenient(&format!("{board} b {held} 1"));
        let mut table = table::Table::with_bytes(1 << 16);
        let found = dfpn::DfPn::new(&mut table, Color::Black, 10_000, 100, None).search(&mut pos);
        assert!(found.is_proof(), "{board}");
        (found.proof_hand, table, pos.board_key)
    };
    let head = "4k4/9/4P4/9/9/9/9/9/4K4";
    let (needed, table, key) = solve(head, "GS");
    assert_eq!(needed, hands(head, "G")[0]);
    let served = table.get(key, hands(head, "G"), Color::Black);
    assert!(served.is_some_and(|e| e.is_proof()));
    assert!(table.get(key, hands(head, "S"), Color::Black).is_none());
    // Only a lance from 9c or further mates (on 9b the king takes it), a check White
    // could block on 9b with a silver it held.
    let file = "kl7/9/2G6/9/9/9/9/9/4K4";
    let (needed, _, _) = solve(file, "LS");
    assert_eq!(needed, hands(file, "LS")[0]);
}
