//! Legality tables: `tests/data/legality/moves.tsv` pins every `IllegalMoveKind` and the
//! probes that caught other libraries (perf-anchors §5); the shared SFEN cases are read in
//! place.

mod common;

use std::collections::BTreeSet;
use std::fs;

use gyoku::{IllegalMoveKind, Move, Position, Role, Setup};

#[test]
fn move_table() {
    let text = fs::read_to_string(common::data_dir().join("legality/moves.tsv")).unwrap();
    let mut kinds_seen = BTreeSet::new();
    let mut rows = 0;
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [sfen, usi, expected, note] = cols[..] else {
            panic!("line {}: expected 4 columns", n + 1)
        };
        let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let m: Move = usi.parse().unwrap();
        let got = pos.check_move(m);
        let got_code = got.map_or_else(|k| k.code(), |()| "legal");
        assert_eq!(
            got_code,
            expected,
            "line {}: {usi} in {sfen}: {note}",
            n + 1
        );
        assert_eq!(
            pos.legal_moves().contains(&m),
            got.is_ok(),
            "line {}",
            n + 1
        );
        // A foul that can be made with real pieces is among the physical fouls, with its
        // kind; a legal move and a physically impossible one are not.
        let physical = matches!(
            got,
            Err(IllegalMoveKind::Nifu
                | IllegalMoveKind::Uchifuzume
                | IllegalMoveKind::DeadPiece
                | IllegalMoveKind::KingInCheck)
        );
        let fouls = pos.physical_fouls();
        assert_eq!(
            fouls.iter().find(|(f, _)| *f == m).map(|&(_, k)| k),
            if physical { got.err() } else { None },
            "line {}: physical fouls of {usi}",
            n + 1
        );
        for (f, k) in &fouls {
            assert_eq!(pos.check_move(*f), Err(*k), "line {}", n + 1);
        }
        let mut played = pos.clone();
        assert_eq!(played.play(m), got, "line {}", n + 1);
        if got.is_err() {
            assert!(
                played == pos,
                "line {}: a refused move changed the position",
                n + 1
            );
        }
        kinds_seen.insert(got_code);
        rows += 1;
    }
    assert!(rows >= 40);
    for kind in IllegalMoveKind::ALL {
        if kind != IllegalMoveKind::DropPromoted {
            assert!(
                kinds_seen.contains(kind.code()),
                "no row pins {}",
                kind.code()
            );
        }
    }
}

#[test]
fn promoted_pieces_cannot_be_dropped() {
    // USI cannot write such a drop, but records and programs can ask for one.
    let pos = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P 1").unwrap();
    for role in [Role::ProPawn, Role::Horse, Role::Dragon] {
        let m = Move::Drop {
            role,
            to: "5e".parse().unwrap(),
        };
        assert_eq!(pos.check_move(m), Err(IllegalMoveKind::DropPromoted));
    }
    let king = Move::Drop {
        role: Role::King,
        to: "5e".parse().unwrap(),
    };
    assert_eq!(pos.check_move(king), Err(IllegalMoveKind::NotInHand));
}

#[test]
fn codes_are_stable() {
    let codes: Vec<&str> = IllegalMoveKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(
        codes,
        [
            "nifu",
            "uchifuzume",
            "dead_piece",
            "drop_promoted",
            "illegal_promotion",
            "king_in_check",
            "bad_movement",
            "out_of_turn",
            "not_in_hand"
        ]
    );
    for kind in IllegalMoveKind::ALL {
        assert_eq!(IllegalMoveKind::from_code(kind.code()), Some(kind));
    }
}

fn moves(list: &str) -> BTreeSet<String> {
    list.split_whitespace().map(str::to_string).collect()
}

/// The rows of `shared/data/sfen/sfen_cases.tsv`, each checked as its `check` column says.
#[test]
fn shared_sfen_cases() {
    let Some(path) = gyoku_testdata::shared(
        "sfen/sfen_cases.tsv",
        "the SFEN edge cases and legality facts of python-shogi and shogiops",
    ) else {
        return;
    };
    let text = fs::read_to_string(path).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (input, check, expected) = (cols[0], cols[1], cols[2]);
        let setup = Setup::from_sfen(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let pos = || {
            Position::from_setup(setup.clone())
                .or_else(|e| e.ignore_all_safe())
                .unwrap_or_else(|e| panic!("{input}: {e}"))
        };
        if check.starts_with("canonical")
            || check.starts_with("round-trip")
            || check.starts_with("hand with repeated letters (no counts)")
        {
            assert_eq!(setup.to_sfen(), expected, "{check}");
        } else if check.starts_with("hand with repeated letters and no counts") {
            let p = pos();
            assert_eq!(
                expected,
                format!(
                    "perft1={} perft2={}",
                    gyoku::perft(&p, 1),
                    gyoku::perft(&p, 2)
                )
            );
        } else if check.starts_with("only board and side") {
            let legal: BTreeSet<String> =
                pos().legal_moves().iter().map(|m| m.to_string()).collect();
            assert_eq!(legal, moves("5e5d 5e5f 5e4e 5e6e"), "{check}");
        } else if check == "number of legal moves" || check.starts_with("no legal move") {
            let want: usize = expected.split_whitespace().next().unwrap().parse().unwrap();
            assert_eq!(pos().legal_moves().len(), want, "{input}");
        } else if let Some(rest) = check.strip_prefix("'position startpos moves ") {
            let mut p = pos();
            for m in rest
                .trim_end_matches(" gives")
                .trim_end_matches('\'')
                .split_whitespace()
            {
                p.play(m.parse().unwrap()).unwrap();
            }
            assert_eq!(p.to_sfen(), expected);
        } else if check.contains(" is legal; after it the SFEN is") {
            let mut p = pos();
            p.play(check.split_whitespace().next().unwrap().parse().unwrap())
                .unwrap();
            assert_eq!(p.to_sfen(), expected);
        } else if check.starts_with("1e1a") {
            let mut p = pos();
            assert_eq!(
                p.check_move("1e1a".parse().unwrap()),
                Err(IllegalMoveKind::DeadPiece)
            );
            p.play("1e1a+".parse().unwrap()).unwrap();
            assert_eq!(p.to_sfen(), expected);
        } else if check.starts_with("P*5b illegal") || check.starts_with("same, Black has no king")
        {
            let p = pos();
            assert_eq!(
                p.check_move("P*5b".parse().unwrap()),
                Err(IllegalMoveKind::Uchifuzume)
            );
            assert!(p.is_legal("L*5b".parse().unwrap()));
        } else if check.starts_with("after 9d9e") {
            // Fourfold repetition belongs to the game referee (issue 3); here the moves must
            // all be legal and bring the position back.
            let mut p = pos();
            let first = p.clone();
            for m in "9d9e 8h6h 8b6b 6h8h 6b8b".split_whitespace() {
                p.play(m.parse().unwrap()).unwrap();
            }
            assert!(!p.same_position(&first));
            continue;
        } else {
            panic!("unhandled case: {check}");
        }
        checked += 1;
    }
    assert!(checked >= 12, "{checked}");
}
