#![no_main]

// Any line, read as a command and as an engine message: no panic, and what is understood
// writes back to a line that reads the same.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    let c = gyoku_proto::Command::parse(&line);
    if !matches!(c, gyoku_proto::Command::Unknown(_)) {
        assert_eq!(gyoku_proto::Command::parse(&c.to_string()), c);
    }
    let m = gyoku_proto::EngineMessage::parse(&line);
    if !matches!(
        m,
        gyoku_proto::EngineMessage::Other(_) | gyoku_proto::EngineMessage::Malformed { .. }
    ) {
        assert_eq!(gyoku_proto::EngineMessage::parse(&m.to_string()), m);
    }
});
