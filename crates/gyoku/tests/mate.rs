//! The mate search (`gyoku::mate`) against tables with answers from another solver, the
//! uchifuzume tables, and a brute-force search on the last plies of real games.

mod common;

use std::ops::ControlFlow;

use gyoku::mate::{Limits, Outcome, Solver};
use gyoku::{Move, Position};

/// A tsume's SFEN often has no attacker's king: searched as it stands.
fn position(sfen: &str) -> Position {
    match Position::from_sfen(sfen) {
        Ok(pos) => pos,
        Err(gyoku::SfenError::Position(e)) => e.ignore_all_safe().expect(sfen),
        Err(e) => panic!("{sfen}: {e}"),
    }
}

/// Whether the side to move mates within `plies` (odd), trying every check and reply.
fn brute_mate_within(pos: &Position, plies: u32) -> bool {
    pos.for_each_check(|m| {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let replies = after.legal_moves();
        let mated = replies.is_empty()
            || (plies >= 3
                && replies.iter().all(|&r| {
                    let mut next = after.clone();
                    next.play_unchecked(r);
                    brute_mate_within(&next, plies - 2)
                }));
        if mated {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The line is played from `pos`: the attacker checks at every move, the last leaves the
/// defender mated.
fn assert_line_mates(pos: &Position, line: &[Move], what: &str) {
    let mut after = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i % 2 == 0 {
            assert!(
                after.gives_check(m),
                "{what}: ply {}: {m} does not check",
                i + 1
            );
        }
        after
            .play(m)
            .unwrap_or_else(|e| panic!("{what}: ply {}: {m} is illegal: {e:?}", i + 1));
    }
    assert!(
        after.is_checkmate(),
        "{what}: {line:?} does not end in mate"
    );
}

/// `tests/data/mate/positions.tsv`: every answer cshogi gives is Gyoku's too. A mate in one
/// or three has that length here; a longer mate cshogi found is found (its length may
/// differ: neither df-pn gives the shortest); where cshogi found none, Gyoku finds none
/// either or proves there is none. A line it gives mates.
#[test]
fn the_table_of_answers() {
    let text = std::fs::read_to_string(common::data_dir().join("mate/positions.tsv")).unwrap();
    let mut solver = Solver::new(16 << 20);
    let limits = Limits {
        nodes: 3_000_000,
        ..Limits::default()
    };
    let mut counts = [0usize; 4];
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (sfen, answer) = (cols[0], cols[1]);
        let what = format!("positions.tsv line {}: {sfen}", n + 1);
        let pos = position(sfen);
        // Where cshogi found nothing, a smaller budget: the answer is "none" or "unknown".
        let limits = if answer == "none" {
            Limits {
                nodes: 200_000,
                ..limits
            }
        } else {
            limits
        };
        let report = solver.solve(&pos, &limits, None);
        match (answer, &report.outcome) {
            ("mate 1", Outcome::Mate(l)) if l.len() == 1 => counts[0] += 1,
            ("mate 3", Outcome::Mate(l)) if l.len() == 3 => counts[1] += 1,
            ("mate", Outcome::Mate(l)) if l.len() >= 5 => counts[2] += 1,
            ("none", Outcome::NoMate | Outcome::Unknown) => counts[3] += 1,
            (_, other) => panic!("{what}: expected {answer}, found {other:?}"),
        }
        if let Outcome::Mate(l) = &report.outcome {
            assert_line_mates(&pos, l, &what);
        }
        // The direct searches agree with the df-pn's answer.
        assert_eq!(pos.mate_in_1().is_some(), answer == "mate 1", "{what}");
        let three = pos.mate_in_3().map(|l| l.len());
        let expected = match answer {
            "mate 1" => Some(1),
            "mate 3" => Some(3),
            _ => None,
        };
        assert_eq!(three, expected, "{what}");
    }
    assert!(
        counts.iter().all(|&c| c >= 10),
        "each kind of answer: {counts:?}"
    );
}

/// The uchifuzume rows of the legality tables: the pawn drop that would mate is neither a
/// check the search plays nor the start of a line it gives.
#[test]
fn uchifuzume_is_never_a_mate() {
    let mut rows = 0;
    let mut solver = Solver::new(1 << 20);
    for file in ["endings/uchifuzume.tsv", "legality/moves.tsv"] {
        let text = std::fs::read_to_string(common::data_dir().join(file)).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() < 3 || cols[2] != "uchifuzume" {
                continue;
            }
            let pos = position(cols[0]);
            let drop: Move = cols[1].parse().unwrap();
            let what = format!("{file}: {}", cols[0]);
            assert!(!pos.checking_moves().contains(&drop), "{what}");
            assert_ne!(pos.mate_in_1(), Some(drop), "{what}");
            let report = solver.solve(&pos, &Limits::default(), None);
            if let Outcome::Mate(line) = &report.outcome {
                assert_ne!(line[0], drop, "{what}");
                assert_line_mates(&pos, line, &what);
            }
            rows += 1;
        }
    }
    assert!(rows >= 10, "{rows} uchifuzume rows");
}

/// The last plies of the first 200 of 500 real games (lishogi, `../shared/data/usi`):
/// every mate the solver gives mates; every "mate in 1 or 3" is the shortest, and every
/// "no mate" has none within three plies, by brute force.
#[test]
fn real_endgames_against_brute_force() {
    let Some(path) = gyoku_testdata::shared(
        "usi/usi_games_lishogi_500.txt",
        "the mate search on the last plies of 200 lishogi games",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut solver = Solver::new(8 << 20);
    let limits = Limits {
        nodes: 100_000,
        ..Limits::default()
    };
    let (mut mates, mut none, mut seen) = (0, 0, std::collections::HashSet::new());
    for game in text.lines().take(200) {
        let moves: Vec<Move> = game
            .split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect();
        for back in 1..=6.min(moves.len()) {
            let mut pos = Position::startpos();
            for &m in &moves[..moves.len() - back] {
                pos.play(m).unwrap();
            }
            if !seen.insert(pos.hash()) {
                continue;
            }
            let what = pos.to_sfen();
            let report = solver.solve(&pos, &limits, None);
            match &report.outcome {
                Outcome::Mate(line) => {
                    assert_line_mates(&pos, line, &what);
                    if line.len() <= 3 {
                        assert_eq!(brute_mate_within(&pos, 1), line.len() == 1, "{what}");
                    } else {
                        assert!(!brute_mate_within(&pos, 3), "{what}: shorter than found");
                    }
                    mates += 1;
                }
                Outcome::NoMate => {
                    assert!(
                        !brute_mate_within(&pos, 3),
                        "{what}: 'no mate' but one in 3"
                    );
                    none += 1;
                }
                Outcome::Unknown => {}
            }
        }
    }
    assert!(
        mates >= 100 && none >= 300,
        "{mates} mates, {none} proved none"
    );
}
