//! The lobby's part that holds its competitions: the scheduled rounds of each scheduled
//! game ([`super::rounds`]) with what pairing remembers between rounds, the rating list
//! they pair by, and the organised events ([`super::events`]).
//!
//! Each decides on its own, as lila's Swiss director does: it sees the lobby through a
//! [`super::field::Field`] and answers with steps that the lobby carries out.

use super::io::Config;
use super::{events, rounds};

/// The rounds, the events and what they keep.
#[derive(Debug)]
pub(super) struct Competitions {
    /// Scheduled games' rounds, and what pairing keeps between them.
    pub(super) schedules: rounds::Schedules,
    /// Organised events, by their game name.
    pub(super) events: events::Events,
}

impl Competitions {
    /// The schedules and events `config` names, none begun.
    pub(super) fn new(config: &Config) -> Competitions {
        let events = config
            .events
            .iter()
            .map(|e| (e.file.game.clone(), events::Live::new(e.clone())))
            .collect();
        Competitions {
            schedules: rounds::Schedules::new(config),
            events,
        }
    }

    /// Whether there is any: scheduled rounds or an event.
    pub(super) fn any(&self) -> bool {
        !self.schedules.rounds.is_empty() || !self.events.is_empty()
    }
}
