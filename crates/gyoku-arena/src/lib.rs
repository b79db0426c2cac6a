//! # gyoku-arena: refereed USI engine matches
//!
//! Runs USI engines as child processes ([`engine`]), plays games between them with the
//! rules core's [`gyoku::Game`] and [`gyoku::Clock`] as the referee ([`referee`]), plays
//! many games at once with one pool of workers ([`executor`]) for matches of many games
//! with openings, records and a summary ([`runner`]) and for tournaments
//! ([`tournament`]), and writes results as fastchess does for the tools that read it
//! ([`fastchess`]).
//! [`builtin`] is a small USI engine (random or one-ply greedy, declaring when it can) for
//! demos and tests that need nothing installed.
//!
//! The math of competitions (Elo, SPRT, rating lists, schedules, Swiss pairings,
//! standings, the rules digest) is `gyoku-league`'s, with no processes or I/O.
//!
//! The referee trusts nothing an engine says: time is taken from the referee's own clock
//! (from writing `go` to reading `bestmove`), an illegal `bestmove` is a foul, `bestmove
//! win` is judged under the rule set, and an engine that crashes, hangs, floods its output
//! or answers garbage loses that game and is restarted for the next.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod adjudication;
pub mod builtin;
pub mod csa_bridge;
pub mod engine;
pub mod executor;
pub mod fastchess;
pub mod openings;
pub mod referee;
pub mod runner;
pub mod timecontrol;
pub mod tournament;
pub mod transcript;
