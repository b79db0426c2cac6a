//! A USI engine that replays a transcript (`usi-replay-engine SESSION.log [VERDICT]`): it
//! expects each `recv:` line from the GUI in order and answers with the `send:` lines, as
//! ShogiHome's bridge scenarios record a session. The first line the GUI sends that the
//! transcript does not have ends it with exit status 3 and the step on standard error;
//! the transcript played to its end exits 0. With VERDICT, it also writes `ok` or the
//! deviation to that file (a GUI may hide an engine's standard error). A transcript of
//! several engine processes in a row (each ending with `quit`) is played one process at
//! a time: the VERDICT file says `next <step>` between them.

use std::io::{self, BufReader};

use gyoku_arena::transcript::{Step, Transcript, replay};

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
    let verdict = std::env::args().nth(2);
    // Where the previous process of the same transcript stopped, if one did.
    let start = verdict
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|t| t.trim().strip_prefix("next ")?.parse::<usize>().ok())
        .unwrap_or(0);
    // This process's part: up to its `quit`.
    let end = transcript
        .steps
        .iter()
        .enumerate()
        .skip(start)
        .find(|(_, s)| matches!(s, Step::Expect(l) if l == "quit"))
        .map_or(transcript.steps.len(), |(i, _)| i + 1);
    let part = Transcript {
        steps: transcript
            .steps
            .get(start..end)
            .unwrap_or_default()
            .to_vec(),
    };
    let result = replay(&part, &mut input, &mut output, |l| l.trim().is_empty());
    if let Some(file) = verdict {
        let text = match &result {
            Ok(()) if end < transcript.steps.len() => format!("next {end}\n"),
            Ok(()) => "ok\n".to_string(),
            Err(d) => format!("{d}\n"),
        };
        let _ = std::fs::write(file, text);
    }
    if let Err(d) = result {
        eprintln!("usi-replay-engine: {path}: {d}");
        std::process::exit(3);
    }
}
