//! Property tests for the parsers and the position invariants.

use gyoku::{Move, Position, Setup, Square};
use proptest::prelude::*;

/// Text shaped like SFEN: piece letters, digits, slashes, spaces and a little noise.
fn sfen_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex(
        "[lnsgkbrpLNSGKBRP+1-9/ ]{0,60}( [bw]( [-0-9PLNSGBRplnsgbr]{0,10}( [0-9]{1,4})?)?)?",
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Parsing never panics; what parses writes an SFEN that reads back the same.
    #[test]
    fn sfen_parse_is_total_and_round_trips(text in sfen_like()) {
        gyoku::fuzzing::sfen_roundtrip(text.as_bytes());
    }

    /// Arbitrary text never panics the SFEN parser, and errors name a field and column.
    #[test]
    fn sfen_errors_say_where(text in "\\PC{0,80}") {
        if let Err(e) = Setup::from_sfen(&text) {
            prop_assert!(e.column >= 1);
            prop_assert!(e.to_string().starts_with("sfen: field "));
        }
    }

    /// USI moves: what parses prints back identically; errors carry a column.
    #[test]
    fn usi_moves_round_trip(
        text in "[1-9a-iPLNSGBRK*+]{0,6}|[0-9][a-j][0-9][a-j][+x]?|[PLNSGBRKp][*][0-9][a-j]x?"
    ) {
        prop_assert_eq!(Move::from_usi_bytes(text.as_bytes()), text.parse::<Move>().ok());
        match text.parse::<Move>() {
            Ok(m) => prop_assert_eq!(m.to_string(), text),
            Err(e) => prop_assert!(e.column >= 1 && e.column <= text.len() + 1),
        }
    }

    /// Every board move and every drop round-trips through USI.
    #[test]
    fn every_move_round_trips(from in 0usize..81, to in 0usize..81, promote: bool, role in 0usize..7) {
        let (from, to) = (Square::from_index(from).unwrap(), Square::from_index(to).unwrap());
        let normal = Move::Normal { from, to, promote };
        prop_assert_eq!(normal.to_string().parse::<Move>().unwrap(), normal);
        let drop = Move::Drop { role: gyoku::Role::HAND[role], to };
        prop_assert_eq!(drop.to_string().parse::<Move>().unwrap(), drop);
    }

    /// Random games: legal moves are legal, the hash is a pure function of the position,
    /// and a refused move leaves the position unchanged.
    #[test]
    fn random_games_keep_invariants(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        gyoku::fuzzing::legals_are_legal(&bytes);
        let mut pos = Position::startpos();
        for b in bytes {
            let before = pos.clone();
            let bogus = Move::Normal {
                from: Square::from_index(usize::from(b) % 81).unwrap(),
                to: Square::from_index(usize::from(b / 3) % 81).unwrap(),
                promote: b % 2 == 0,
            };
            if pos.play(bogus).is_err() {
                prop_assert!(pos == before);
            } else {
                continue;
            }
            let legal = pos.legal_moves();
            if legal.is_empty() { break; }
            pos.play(legal[usize::from(b) % legal.len()]).unwrap();
        }
    }
}
