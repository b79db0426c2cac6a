//! Gyoku's live referee: a CSA-protocol game server (protocol 1.2.1 as shogi-server speaks
//! it, x1 extensions included) whose games are decided by [`gyoku::Game`] under any of
//! Gyoku's rule sets and timed by [`gyoku::Clock`], with every echoed move stored first.
//!
//! A move goes down once and comes back up once: a transport ([`csa_port`] for CSA
//! clients, [`play`] for the web page's seats) hands it to the [`driver`], which lets the
//! [`lobby`] decide, commits what it decided to the [`store`], and only then sends the
//! answers; [`app`] starts and stops them all.
//!
//! - [`app`]: [`run`] the server, [`Options`], [`Started`]; one shutdown for every part
//!   (`supervisor`: each long-running task started with the one stop they heed and how it
//!   ends — played out, given a grace, or cut off).
//! - [`driver`]: the referee loop, group commits, and the [`driver::Handle`] every
//!   transport reaches it through.
//! - [`lobby`]: the server's logic, no I/O: logins, waiting players, proposals, games,
//!   deferred moves, endings and their words; [`lobby::record`], records in shogi-server's
//!   file layout; [`lobby::change`], what it asks storage to keep.
//! - [`csa_port`]: the CSA listener and each client's connection.
//! - [`store`]: storage behind small traits, in SQLite or PostgreSQL, each statement
//!   written once.
//! - [`accounts`]: names bound to argon2-hashed passwords.
//! - [`http`]: the HTTP API and the web page; [`play`]: the page's seats and games.
//! - `record_files`: the record writer and the restore at start.
//! - [`identity`]: who plays, as values ([`identity::Identity`]: a CSA client, a person at
//!   a web seat, the engine a page chose), never read out of a name.
//! - [`tickets`]: secrets kept as digests (a seat's [`tickets::SeatToken`]), and the
//!   tickets with which the engines the page puts on the CSA port log in as its players.

// Issue 40: no function over 120 lines (the threshold is in this crate's clippy.toml).
#![warn(clippy::too_many_lines)]
pub mod accounts;
pub mod app;
pub mod csa_port;
pub mod driver;
pub mod engine_levels;
pub mod engine_pool;
pub mod engine_tests;
mod error;
pub mod event;
pub mod http;
pub mod identity;
pub mod league;
pub mod lobby;
pub mod log;
pub mod metrics;
pub mod play;
pub mod ratings;
mod record_files;
pub mod store;
mod supervisor;
pub mod tickets;
mod wall;
pub mod web_accounts;
pub mod web_instance;

pub use app::{Options, Started, run};
pub use error::ServeError;
pub use web_instance::{WebOptions, run_web};
