//! Protocol transcripts: a session as the lines one side receives and sends, in order, as
//! ShogiHome's bridge scenarios write them (`recv:` what the scripted side receives,
//! `send:` what it sends, `disconnect:` where a server closes the connection and the
//! client connects again, `#` comments). A scripted engine or server replays one and
//! says where the other side first strayed from it.
//!
//! ```
//! use gyoku_arena::transcript::{Step, Transcript};
//! let t = Transcript::parse("# a comment\nrecv:usi\nsend:usiok\n").unwrap();
//! assert_eq!(t.steps, [Step::Expect("usi".into()), Step::Say("usiok".into())]);
//! ```

/// One line of a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The scripted side must receive this line next.
    Expect(String),
    /// The scripted side sends this line.
    Say(String),
    /// The scripted side closes the connection (a server: the client connects again).
    Disconnect,
}

/// A whole transcript.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript {
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// Lines a transcript may have (a bound on outside input).
pub const MAX_STEPS: usize = 100_000;

impl Transcript {
    /// Reads a transcript: `recv:LINE`, `send:LINE`, `#` comments and blank lines.
    ///
    /// # Errors
    /// `line N: …` for any other line, or past [`MAX_STEPS`].
    pub fn parse(text: &str) -> Result<Transcript, String> {
        let mut steps = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let step = if let Some(l) = line.strip_prefix("recv:") {
                Step::Expect(l.to_string())
            } else if let Some(l) = line.strip_prefix("send:") {
                Step::Say(l.to_string())
            } else if line == "disconnect:" {
                Step::Disconnect
            } else {
                return Err(format!(
                    "line {}: expected recv:, send: or a # comment: {line:?}",
                    i + 1
                ));
            };
            if steps.len() == MAX_STEPS {
                return Err(format!("line {}: more than {MAX_STEPS} steps", i + 1));
            }
            steps.push(step);
        }
        Ok(Transcript { steps })
    }
}

/// Where a replay stood, and what went wrong, if anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deviation {
    /// The other side sent a line the transcript does not have at this step.
    Unexpected {
        /// The step's index.
        step: usize,
        /// What the transcript expected.
        expected: String,
        /// What came.
        got: String,
    },
    /// The other side stopped (end of input) while the transcript expected a line.
    Ended {
        /// The step's index.
        step: usize,
        /// What the transcript expected.
        expected: String,
    },
}

impl std::fmt::Display for Deviation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Deviation::Unexpected {
                step,
                expected,
                got,
            } => write!(f, "step {step}: expected {expected:?}, got {got:?}"),
            Deviation::Ended { step, expected } => {
                write!(f, "step {step}: expected {expected:?}, the input ended")
            }
        }
    }
}

/// Replays `transcript` over a line reader and writer: each expected line is read and
/// compared, each line to say is written (with `\n`, flushed). Lines for which `ignore`
/// is true (keep-alives, say) are skipped when read.
///
/// # Errors
/// The first [`Deviation`]; an I/O error as [`Deviation::Ended`].
pub fn replay(
    transcript: &Transcript,
    input: &mut impl std::io::BufRead,
    output: &mut impl std::io::Write,
    ignore: impl Fn(&str) -> bool,
) -> Result<(), Deviation> {
    replay_from(transcript, 0, input, output, ignore).map(|_| ())
}

/// [`replay`] from step `start` up to the next [`Step::Disconnect`] (or the end); returns
/// the step to go on from on the next connection (`steps.len()` at the end).
///
/// # Errors
/// As [`replay`].
pub fn replay_from(
    transcript: &Transcript,
    start: usize,
    input: &mut impl std::io::BufRead,
    output: &mut impl std::io::Write,
    ignore: impl Fn(&str) -> bool,
) -> Result<usize, Deviation> {
    let mut line = String::new();
    for (step, s) in transcript.steps.iter().enumerate().skip(start) {
        match s {
            Step::Disconnect => return Ok(step + 1),
            Step::Say(l) => {
                let ok = writeln!(output, "{l}").and_then(|()| output.flush());
                if ok.is_err() {
                    return Err(Deviation::Ended {
                        step,
                        expected: String::new(),
                    });
                }
            }
            Step::Expect(expected) => loop {
                line.clear();
                match input.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        return Err(Deviation::Ended {
                            step,
                            expected: expected.clone(),
                        });
                    }
                    Ok(_) => {}
                }
                let got = line.trim_end_matches(['\r', '\n']);
                if ignore(got) {
                    continue;
                }
                if got != expected {
                    return Err(Deviation::Unexpected {
                        step,
                        expected: expected.clone(),
                        got: got.to_string(),
                    });
                }
                break;
            },
        }
    }
    Ok(transcript.steps.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of ShogiHome's bridge scenarios (MIT, in the repository's `tests/data`).
    fn scenario(n: u32, file: &str) -> String {
        let p = gyoku_testdata::repo_data().join(format!(
            "csa-protocol/shogihome-bridge-scenarios/{n}/{file}"
        ));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn every_shogihome_scenario_parses() {
        for n in 1..=34 {
            for file in ["csa.log", "usi.log"] {
                let text = scenario(n, file);
                let t = Transcript::parse(&text).unwrap_or_else(|e| panic!("{n}/{file}: {e}"));
                assert!(!t.steps.is_empty(), "{n}/{file}");
            }
        }
    }

    #[test]
    fn a_replay_answers_as_scripted_and_names_the_first_stray_line() {
        let t = Transcript::parse("recv:usi\nsend:usiok\nrecv:isready\nsend:readyok\n").unwrap();
        let mut out = Vec::new();
        replay(
            &t,
            &mut "usi\n\nisready\n".as_bytes(),
            &mut out,
            str::is_empty,
        )
        .unwrap();
        assert_eq!(out, b"usiok\nreadyok\n");
        let err = replay(&t, &mut "usi\nquit\n".as_bytes(), &mut Vec::new(), |_| {
            false
        });
        assert_eq!(
            err,
            Err(Deviation::Unexpected {
                step: 2,
                expected: "isready".into(),
                got: "quit".into()
            })
        );
        let err = replay(&t, &mut "usi\n".as_bytes(), &mut Vec::new(), |_| false);
        assert!(matches!(err, Err(Deviation::Ended { step: 2, .. })));
    }

    #[test]
    fn a_server_transcript_goes_on_after_a_disconnect_on_the_next_connection() {
        let t =
            Transcript::parse("recv:LOGIN a b\nsend:#WIN\ndisconnect:\nrecv:LOGIN a b\n").unwrap();
        let mut out = Vec::new();
        let next = replay_from(&t, 0, &mut "LOGIN a b\n".as_bytes(), &mut out, |_| false);
        assert_eq!((next, out.as_slice()), (Ok(3), b"#WIN\n".as_slice()));
        let end = replay_from(&t, 3, &mut "LOGIN a b\n".as_bytes(), &mut out, |_| false);
        assert_eq!(end, Ok(4));
    }

    #[test]
    fn a_stray_line_is_an_error_with_its_line_number() {
        let e = Transcript::parse("recv:usi\nhello\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
    }
}
