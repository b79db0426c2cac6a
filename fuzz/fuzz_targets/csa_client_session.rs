#![no_main]

// Any bytes, read line by line as a CSA server's messages by the client session that
// `gyoku csa-client` runs on: no panic; an echoed move keeps its text as sent; a proposed
// game's summary gives its clocks and its position block reads (or fails cleanly) as the
// bridge reads it, a CSA record whose moves replay.
use gyoku::Color;
use gyoku_proto::csa_client::{ClientSession, Event};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut session = ClientSession::new();
    for line in text.split('\n') {
        match session.read(line) {
            Ok(Some(Event::Moved(m))) => assert!(line.trim().starts_with(&m.text), "{line}"),
            Ok(Some(Event::Proposed(s))) => {
                let _ = (s.your_turn(), s.to_move(), s.max_moves(), s.field("Game_ID"));
                for color in [Color::Black, Color::White] {
                    let t = s.time.of(color);
                    let _ = (t.ms(t.total_time), t.ms(t.byoyomi), t.ms(t.increment));
                }
                let csa = format!("V2.2\n{}\n", s.position.join("\n"));
                if let Ok(records) = gyoku_kifu::read_str(&csa, gyoku_kifu::Format::Csa) {
                    for r in records {
                        let mut pos = r.start.clone();
                        for m in &r.moves {
                            pos.play(m.mv).expect("a record's main line is legal");
                        }
                    }
                }
            }
            _ => {}
        }
    }
});
