//! No line makes a parser panic, and what is written parses back to itself.

use gyoku_proto::{Command, EngineMessage, Go};
use proptest::prelude::*;

proptest! {
    #[test]
    fn any_line_parses_without_panic(line in "\\PC{0,200}") {
        let _ = Command::parse(&line);
        let _ = EngineMessage::parse(&line);
    }

    #[test]
    fn usi_like_lines_parse_without_panic(line in "(usi|go|position|setoption|bestmove|option|info|id)( [a-z0-9+*-]{0,8}){0,12}") {
        let c = Command::parse(&line);
        let m = EngineMessage::parse(&line);
        // Whatever was understood writes back to a line that parses to the same thing.
        if !matches!(c, Command::Unknown(_)) {
            prop_assert_eq!(Command::parse(&c.to_string()), c);
        }
        if !matches!(m, EngineMessage::Other(_) | EngineMessage::Malformed { .. }) {
            prop_assert_eq!(EngineMessage::parse(&m.to_string()), m);
        }
    }

    #[test]
    fn go_round_trips(b in proptest::option::of(0u64..1_000_000), w in proptest::option::of(0u64..1_000_000), y in proptest::option::of(0u64..100_000), inc in proptest::option::of(0u64..100_000), ponder: bool, infinite: bool) {
        let go = Go { ponder, btime: b, wtime: w, byoyomi: y, binc: inc, winc: inc, infinite, ..Go::default() };
        prop_assert_eq!(Command::parse(&Command::Go(go.clone()).to_string()), Command::Go(go));
    }
}

/// The `usi_messages` fuzz target's corpus, replayed on stable through the same invariant.
#[test]
fn usi_messages_corpus_replays() {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/usi_messages");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let line = String::from_utf8_lossy(&data);
        let c = Command::parse(&line);
        if !matches!(c, Command::Unknown(_)) {
            assert_eq!(Command::parse(&c.to_string()), c);
        }
        let m = EngineMessage::parse(&line);
        if !matches!(m, EngineMessage::Other(_) | EngineMessage::Malformed { .. }) {
            assert_eq!(EngineMessage::parse(&m.to_string()), m);
        }
        n += 1;
    }
    assert!(n >= 100, "{n}");
}

proptest::proptest! {
    /// No line makes the CSA client-message parser panic, and whatever it reads it writes
    /// back as a line that reads the same — but an ignored line (81Dojo's `%%%…`), whose
    /// text is not kept, and is written as nothing.
    #[test]
    fn csa_client_lines_never_panic(line in "[ -~\t%+\\-,'A-Z0-9]{0,60}") {
        use gyoku_proto::csa::ClientMessage;
        if let Ok(m) = ClientMessage::parse(&line)
            && m != ClientMessage::Ignored
        {
            let again = ClientMessage::parse(&m.to_string());
            proptest::prop_assert_eq!(again.as_ref().ok(), Some(&m), "{}", line);
        }
    }

    /// No sequence of server lines makes a client session panic, and a move it reads
    /// keeps its text as sent.
    #[test]
    fn csa_server_lines_never_panic(lines in proptest::collection::vec(
        "[ -~\t%+\\-,'.#A-Z0-9:_]{0,40}", 0..40)) {
        use gyoku_proto::csa_client::{ClientSession, Event};
        let mut session = ClientSession::new();
        for line in &lines {
            if let Ok(Some(Event::Moved(m))) = session.read(line) {
                proptest::prop_assert!(line.trim().starts_with(&m.text), "{}", line);
            }
        }
    }
}
