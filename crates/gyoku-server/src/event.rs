//! Organised events on the server (`gyoku serve --event-file wcsc.toml`): a Swiss or
//! round-robin tournament among named participants who log in for one game name. The
//! lobby pairs each round when the one before has ended (or at its set time), proposes
//! each board's game as soon as both players wait, forfeits a board whose player has not
//! come within the wait, and records every result; an operator pauses, resumes, adjusts a
//! result (with a reason) or ends it through the admin endpoint. Everything here is pure:
//! the state changes only by [`Entry`]s, which storage keeps in order.

pub mod file;
pub mod round_robin;
pub mod seats;
pub mod state;
pub mod view;

pub use file::{EventFile, EventFormat};
pub use state::{Board, BoardResult, Entry, Event, Round};
