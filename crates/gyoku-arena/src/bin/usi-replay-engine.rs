//! A USI engine that replays a transcript (`usi-replay-engine SESSION.log`): it expects
//! each `recv:` line from the GUI in order and answers with the `send:` lines, as
//! ShogiHome's bridge scenarios record a session. The first line the GUI sends that the
//! transcript does not have ends it with exit status 3 and the step on standard error;
//! the transcript played to its end exits 0.

use std::io::{self, BufReader};

use gyoku_arena::transcript::{Transcript, replay};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: usi-replay-engine SESSION.log");
        std::process::exit(2);
    };
    let transcript = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| Transcript::parse(&t));
    let transcript = match transcript {
        Ok(t) => t,
        Err(e) => {
            eprintln!("usi-replay-engine: {path}: {e}");
            std::process::exit(2);
        }
    };
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    let mut output = io::stdout().lock();
    if let Err(d) = replay(&transcript, &mut input, &mut output, |l| {
        l.trim().is_empty()
    }) {
        eprintln!("usi-replay-engine: {path}: {d}");
        std::process::exit(3);
    }
}
