//! The `gyoku` command.

mod args;
mod chart;
mod commands;
mod records;
mod referee;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

/// A failure the user can act on: bad input (exit status 2) or a failed run (1).
#[derive(Debug)]
pub enum Failure {
    /// Malformed or illegal input: exit status 2.
    Input(String),
    /// Anything else: exit status 1.
    Run(String),
}

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let result = commands::run(cli);
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("gyoku: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("gyoku: {msg}");
            ExitCode::from(1)
        }
    };
    let _ = std::io::stdout().flush();
    code
}
