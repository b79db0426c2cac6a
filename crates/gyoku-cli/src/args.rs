//! Command-line arguments, parsed by clap and then validated into positions and moves.

use clap::{Args, Parser, Subcommand};
use gyoku::{Move, Position};

use crate::Failure;

/// Gyoku: shogi rules engine and referee.
#[derive(Debug, Parser)]
#[command(name = "gyoku", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal-move tree to DEPTH (bulk counting at the last ply).
    Perft {
        /// The depth in plies.
        depth: u32,
        /// List the count under each legal first move.
        #[arg(long)]
        divide: bool,
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"nodes": N, "seconds": S, "nps": R}.
        #[arg(long)]
        json: bool,
    },
    /// List the legal moves in USI notation.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"moves": ["7g7f", ...]}.
        #[arg(long)]
        json: bool,
    },
    /// Say whether MOVE (USI) is legal, and if not, which kind of illegal move it is.
    CheckMove {
        /// The move in USI notation, e.g. 7g7f, 8h2b+, P*5e.
        #[arg(name = "MOVE", allow_hyphen_values = true)]
        mv: String,
        #[command(flatten)]
        position: PositionArgs,
        /// Print JSON: {"legal": false, "kind": "uchifuzume"}.
        #[arg(long)]
        json: bool,
    },
}

/// Where a command starts.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// The position as SFEN, or `startpos` (the default).
    #[arg(long, default_value = "startpos")]
    pub sfen: String,
    /// Moves (USI, separated by spaces) to play from the SFEN first.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Accept positions that break a rule but can be played through: a missing king (tsume
    /// problems), dead pieces, nifu, too many pieces.
    #[arg(long)]
    pub lenient: bool,
}

impl PositionArgs {
    /// The position the arguments describe.
    pub fn position(&self) -> Result<Position, Failure> {
        let setup =
            gyoku::Setup::from_sfen(&self.sfen).map_err(|e| Failure::Input(e.to_string()))?;
        let mut pos = match Position::from_setup(setup) {
            Ok(pos) => pos,
            Err(e) if self.lenient => e
                .ignore_all_safe()
                .map_err(|e| Failure::Input(format!("sfen: {e}")))?,
            Err(e) => {
                return Err(Failure::Input(format!(
                    "sfen: {e} (--lenient accepts a missing king, dead pieces, nifu and extra pieces)"
                )));
            }
        };
        for (i, text) in self.moves.split_whitespace().enumerate() {
            let m = parse_move(text)
                .map_err(|e| Failure::Input(format!("--moves: move {}: {e}", i + 1)))?;
            pos.play(m).map_err(|kind| {
                Failure::Input(format!(
                    "--moves: move {} '{text}' is illegal: {} ({kind})",
                    i + 1,
                    kind.code()
                ))
            })?;
        }
        Ok(pos)
    }
}

/// Parses a USI move, with the error as text.
pub fn parse_move(text: &str) -> Result<Move, String> {
    text.parse::<Move>().map_err(|e| e.to_string())
}
