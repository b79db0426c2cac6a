//! # gyoku-proto: USI and CSA messages
//!
//! [`csa`] is the CSA server protocol (client messages, game names, end lines), as
//! shogi-server speaks it. The rest of this page is USI.
//!
//! The Universal Shogi Interface as data: [`Command`]s a GUI or referee sends an engine and
//! the [`EngineMessage`]s an engine answers, each parsed from and written as one line. No
//! I/O happens here; `gyoku-arena` runs engine processes with it, and `gyoku engine` is an
//! engine built on it.
//!
//! Parsing follows the protocol's leniency (runs of spaces, unknown tokens skipped, CR
//! stripped): a line that is not a known message is [`EngineMessage::Other`] or
//! [`Command::Unknown`], never an error — except a `bestmove` whose move cannot be read,
//! which the referee must see: [`EngineMessage::Malformed`].
//!
//! ```
//! use gyoku_proto::{BestMove, Command, EngineMessage, Go, PositionStart};
//! let cmd = Command::Position { start: PositionStart::Startpos, moves: vec!["7g7f".parse().unwrap()] };
//! assert_eq!(cmd.to_string(), "position startpos moves 7g7f");
//! let go = Command::Go(Go { btime: Some(1000), wtime: Some(2000), byoyomi: Some(500), ..Go::default() });
//! assert_eq!(go.to_string(), "go btime 1000 wtime 2000 byoyomi 500");
//! assert_eq!(EngineMessage::parse("bestmove win"), EngineMessage::BestMove { best: BestMove::Win, ponder: None });
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod command;
pub mod csa;
pub mod csa_client;
pub mod csa_line;
mod engine;

pub use command::{Command, GameOverResult, Go, PositionStart};
pub use engine::{BestMove, EngineMessage, Info, OptionDecl, OptionKind, Score};

/// The words of a line, split on any run of spaces, tabs or stray line-end characters.
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split([' ', '\t', '\r', '\n'])
        .filter(|w| !w.is_empty())
}

/// A line without its line end (`\n`, `\r\n` or a stray `\r`) and surrounding blanks.
fn trim_line(line: &str) -> &str {
    line.trim_matches(|c: char| c == '\r' || c == '\n' || c == ' ' || c == '\t')
}
