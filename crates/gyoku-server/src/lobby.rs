//! The server's logic with no I/O: who is logged in, who waits for which game, the games
//! being agreed and played, and what each line a client sends does.
//!
//! The driver ([`crate::driver`]) feeds it [`Input`]s stamped with the time and carries out
//! the [`Output`]s in order — with one rule that makes storage safe: every
//! [`Output::Store`] of a batch is committed before any [`Output::Send`] of the same batch
//! goes out. Each game is refereed by [`gyoku::Game`] under its rules and timed by
//! [`gyoku::Clock`]; the lobby only says who may do what, when, and in which words.
//!
//! Protocol behaviour follows shogi-server (spec §2): x1 and CSA modes, deferred
//! out-of-turn moves, ignored duplicates, `REJECT` when a player leaves before the start,
//! the end lines of each ending. Where Gyoku differs (mate ends the game, `%CHUDAN`
//! suspends it, a player who leaves mid-game loses at once), it is said where it happens.

use std::collections::VecDeque;

use change::StoredBuoy;

mod away;
mod buoys;
pub mod change;
mod clock_extras;
mod competitions;
mod conns;
mod ending;
pub(super) mod events;
pub(super) mod field;
mod games;
mod ids;
mod index;
mod io;
mod matching;
mod names;
mod people;
pub mod record;
mod room;
mod rooms;
pub(super) mod rounds;
pub mod schedule;
mod spec;
#[cfg(test)]
mod tests;
mod x1;
pub use x1::LISTING_INTERVAL_MS;

pub use clock_extras::ClockExtras;
pub use events::EventAction;
pub use io::{
    AGREE_TIMEOUT_MS, CLAIM_LINE, CheckedLogin, Config, ConnId, GameSetup, IMPASSE_LINE, Input,
    MAX_BUOYS, MAX_BUOYS_PER_PLAYER, MAX_DEFERRED, MAX_SETUPS, Millis, Now, Output, Reply,
    SENNICHITE_LINE,
};
pub use names::{NamedRules, rules_of_name};
pub(crate) use room::charge;
pub use rounds::{Ratings, UNRATED};
pub use schedule::Schedule;
pub use spec::{GameSpec, split_moves, start_position};

/// The lobby.
#[derive(Debug)]
pub struct Lobby {
    config: Config,
    /// Who is here: the connections, their names, who waits for which game.
    people: people::People,
    /// The games proposed and played, and their deadlines.
    rooms: rooms::Rooms,
    /// Buoy games, and how many each address has set.
    buoys: buoys::Buoys,
    /// Suspended games, waiting for both players.
    suspended: index::Suspended,
    /// Games' keys, Game_IDs and the coin of random colours.
    ids: ids::Ids,
    /// Set-up game names ([`Input::Setup`]), oldest first.
    setups: VecDeque<(String, GameSetup)>,
    /// Storage fails: the games' clocks are stopped ([`Input::StorageFailing`]).
    storage_failing: bool,
    /// The scheduled rounds and the organised events.
    competitions: competitions::Competitions,
    /// The latest input's time (for the next round's deadline).
    last_now: Option<Now>,
    /// Games that ended while a player was away (for `reconnect_aborted`).
    ended_away: away::EndedAways,
}

impl Lobby {
    /// A lobby with no one in it, knowing the stored buoys and suspended games.
    pub fn new(config: Config, buoys: Vec<StoredBuoy>, suspended: Vec<GameSpec>) -> Lobby {
        Lobby {
            ids: ids::Ids::new(config.seed),
            competitions: competitions::Competitions::new(&config),
            config,
            people: people::People::default(),
            rooms: rooms::Rooms::default(),
            buoys: buoys::Buoys::new(buoys),
            suspended: index::Suspended::new(suspended),
            setups: VecDeque::new(),
            storage_failing: false,
            ended_away: away::EndedAways::new(),
            last_now: None,
        }
    }

    /// The earliest instant at which a [`Input::Tick`] has something to do.
    pub fn next_deadline(&mut self) -> Option<Millis> {
        if self.last_now.is_none() && self.competitions.any() {
            // Never handled an input yet: at once, so that the rounds' times and the events
            // are set (and shown) before anyone connects.
            return Some(0);
        }
        let round = match (self.next_round_deadline(), self.next_event_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match (self.rooms.next_deadline(), round) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Remembers a game's current deadline (after its clock started or it was proposed).
    pub(super) fn schedule(&mut self, key: u64) {
        self.rooms.schedule(key);
    }

    /// Handles one input, appending what to do to `out`.
    pub fn handle(&mut self, input: Input, now: Now, out: &mut Vec<Output>) {
        self.last_now = Some(now);
        if !self.competitions.schedules.rounds.is_empty() {
            self.run_due_rounds(now, out);
        }
        if !self.competitions.events.is_empty() {
            self.run_due_events(now, out);
        }
        match input {
            Input::EventAdmin {
                reply,
                event,
                action,
            } => self.event_admin(reply, &event, action, now, out),
            Input::Ratings(ratings) => self.competitions.schedules.ratings = ratings,
            Input::LoggedIn(conn, login) => self.logged_in(conn, login, now, out),
            Input::Line(conn, line) => self.line(conn, &line, now, out),
            Input::Message(conn, message) => self.message(conn, message, now, out),
            Input::Play(conn, mv) => self.play_value(conn, mv, now, out),
            Input::Closed(conn) => self.closed(conn, now, out),
            Input::Tick => self.tick(now, out),
            Input::StorageFailing => self.storage_failing(now, out),
            Input::StorageWorks => self.storage_works(now),
            Input::Setup { game, setup } => {
                self.setups.retain(|(name, _)| *name != game);
                if self.setups.len() >= MAX_SETUPS {
                    self.setups.pop_front();
                }
                self.setups.push_back((game, *setup));
            }
        }
    }
}
