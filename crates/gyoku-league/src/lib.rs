//! # gyoku-league: competition math, with no I/O
//!
//! What a match, a tournament, a server's league or a rating list computes from finished
//! games, apart from the processes and sockets that play them: the engine-match runner
//! (`gyoku-arena`), the server's events and ratings (`gyoku-server`), the command line and
//! the benches share it.
//!
//! - [`tally`]: one player's results, game by game and pair by pair;
//! - [`elo`]: the Elo a score implies, with its error bar and the likelihood of superiority;
//! - [`sprt`]: the sequential probability ratio test that stops a match when it has
//!   decided;
//! - [`ratings`]: rating lists, by maximum likelihood ([`ratings::mle`]) and by Floodgate's
//!   own method ([`ratings::floodgate`]);
//! - [`schedule`], [`swiss`] and [`standings`]: who plays whom in a round-robin, gauntlet,
//!   Swiss or knockout event, and the standings and crosstable of its finished games;
//! - [`rules_digest`]: the digest that pins the exact rules games ran under, so that only
//!   games under one set of rules are compared.
//!
//! ```
//! use gyoku_league::tally::Tally;
//! let mut t = Tally::default();
//! t.add_pair(2, 1); // a win and a draw
//! t.add_pair(1, 1); // two draws
//! t.add_pair(2, 2); // two wins
//! assert_eq!((t.wins(), t.draws(), t.losses()), (3, 3, 0));
//! let (elo, error, los) = t.elo().unwrap();
//! assert!(elo > 0.0 && error > 0.0 && los > 0.5);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod elo;
pub mod ratings;
pub mod rules_digest;
pub mod schedule;
pub mod sprt;
pub mod standings;
pub mod swiss;
pub mod tally;
