//! Gyoku's live referee: a CSA-protocol game server (protocol 1.2.1 as shogi-server speaks
//! it, x1 extensions included) whose games are decided by [`gyoku::Game`] under any of
//! Gyoku's rule sets and timed by [`gyoku::Clock`], with every echoed move stored first.
//!
//! - [`lobby`]: the server's logic, no I/O: logins, waiting players, proposals, games,
//!   deferred moves, endings and their words; [`lobby::record`], records in shogi-server's
//!   file layout.
//! - [`server`]: the tokio driver: connections, the referee loop, group commits.
//! - [`store`]: storage behind small traits, in SQLite or PostgreSQL, each statement
//!   written once.
//! - [`accounts`]: names bound to argon2-hashed passwords.
//! - [`http`]: the HTTP API beside the CSA port.

pub mod accounts;
pub mod http;
pub mod lobby;
pub mod play;
pub mod server;
pub mod store;
