//! Gyoku's live referee: a CSA-protocol game server (protocol 1.2.1 as shogi-server speaks
//! it, x1 extensions included) whose games are decided by [`gyoku::Game`] under any of
//! Gyoku's rule sets and timed by [`gyoku::Clock`], with every echoed move stored first.
//!
//! - [`lobby`]: the server's logic, no I/O: logins, waiting players, proposals, games,
//!   deferred moves, endings and their words; [`lobby::record`], records in shogi-server's
//!   file layout.
//! - [`server`]: the tokio driver: connections, the referee loop, group commits.
//! - [`store`]: SQLite storage and its migrations; [`pg`]: the same in PostgreSQL.
//! - [`accounts`]: names bound to argon2-hashed passwords.
//! - [`http`]: the HTTP API beside the CSA port.

pub mod accounts;
pub mod http;
pub mod lobby;
pub mod pg;
pub mod play;
pub mod server;
pub mod store;
