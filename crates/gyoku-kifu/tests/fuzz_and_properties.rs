//! The `records` fuzz target's corpus replayed on stable, and a property: any game Gyoku
//! plays round-trips through every format with its comments, times (where the format
//! has them) and end.

use gyoku::{Move, Position};
use gyoku_kifu::{Format, Record, RecordMove, Terminal, read_str, write};
use proptest::prelude::*;

#[test]
fn records_corpus_replays() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/records");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        gyoku_kifu::fuzzing::records(&data);
        n += 1;
    }
    assert!(n >= 10, "{n}");
}

const ENDS: [Option<Terminal>; 6] = [
    None,
    Some(Terminal::Resign),
    Some(Terminal::Suspend),
    Some(Terminal::Declaration),
    Some(Terminal::TimeUp),
    Some(Terminal::Sennichite),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_game_round_trips(picks in proptest::collection::vec(any::<u16>(), 0..120), end in 0usize..6, handicap: bool) {
        let start = if handicap { gyoku::Handicap::TwoPiece.position() } else { Position::startpos() };
        let mut record = Record::new(start.clone());
        let mut pos = start;
        for (i, p) in picks.iter().enumerate() {
            let legal = pos.legal_moves();
            if legal.is_empty() { break; }
            let mv: Move = legal[usize::from(*p) % legal.len()];
            pos.play_unchecked(mv);
            record.moves.push(RecordMove { mv, time_ms: Some(u64::from(*p % 300) * 1000), comments: if i % 7 == 0 { vec![format!("c{i}")] } else { vec![] } });
        }
        record.end = ENDS[end].clone();
        for format in [Format::Csa, Format::Kif, Format::Ki2, Format::Jkf, Format::Usi] {
            let text = write(&record, format);
            let back = &read_str(&text, format).unwrap()[0];
            prop_assert_eq!(back.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), record.moves.iter().map(|m| m.mv).collect::<Vec<_>>());
            prop_assert!(back.start.same_position(&record.start));
            prop_assert_eq!(&back.end, &record.end, "{:?}", format);
            if format != Format::Usi {
                prop_assert_eq!(back.moves.iter().map(|m| m.comments.clone()).collect::<Vec<_>>(), record.moves.iter().map(|m| m.comments.clone()).collect::<Vec<_>>());
            }
            if format != Format::Usi && format != Format::Ki2 {
                prop_assert_eq!(back.moves.iter().map(|m| m.time_ms).collect::<Vec<_>>(), record.moves.iter().map(|m| m.time_ms).collect::<Vec<_>>());
            }
        }
    }
}
