//! The `gyoku` command.

/// Prints to standard output like `print!`; a closed pipe (`gyoku ... | head`) ends the
/// program quietly instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::emit(&format!($($arg)*))
    };
}

/// `out!` with a newline, like `println!`.
macro_rules! outln {
    () => {
        $crate::emit("\n")
    };
    ($($arg:tt)*) => {
        $crate::emit(&format!("{}\n", format!($($arg)*)))
    };
}

mod arena;
mod args;
mod backup;
mod commands;
mod engine_tests;
mod event_keys;
mod mate;
mod private_file;
mod ratings;
mod records;
mod referee;
mod serve;
mod testing;
mod training;
mod tsume;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

/// How a command did not end in agreement: bad input (exit status 2), a failed run (1), or
/// an answer of "no" that it has printed already (1: an illegal move, a record that
/// differs from its judgement), as `diff` and `cmp` answer.
#[derive(Debug)]
pub enum Failure {
    /// Malformed or illegal input: exit status 2.
    Input(String),
    /// Anything else: exit status 1.
    Run(String),
    /// The answer is "no" (`check-move`: illegal; `judge`: a record differs from its
    /// judgement), printed already: exit status 1, nothing more said.
    No,
}

/// Writes `text` to standard output; exits with status 0 when the reader has gone away, and
/// with status 1 on any other write error.
pub fn emit(text: &str) {
    if let Err(e) = std::io::stdout().lock().write_all(text.as_bytes()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("gyoku: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// A message for the terminal: the control characters of any input it quotes escaped,
/// line by line.
fn shown(msg: &str) -> String {
    msg.split('\n')
        .map(gyoku_kifu::escape_controls)
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let result = commands::run(cli);
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("gyoku: {}", shown(&msg));
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("gyoku: {}", shown(&msg));
            ExitCode::from(1)
        }
        Err(Failure::No) => ExitCode::from(1),
    };
    let _ = std::io::stdout().flush();
    code
}
