//! The lobby's part that holds its competitions: the scheduled rounds of each scheduled
//! game ([`super::rounds`]) with what pairing remembers between rounds, the rating list
//! they pair by, and the organised events ([`super::events`]).
//!
//! An event decides on its own, as lila's Swiss director does: it sees the lobby through
//! a [`super::field::Field`] and answers with steps that the lobby carries out.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::io::Config;
use super::{events, rounds};

/// The rounds, the events and what they keep.
#[derive(Debug)]
pub(super) struct Competitions {
    /// Scheduled games, by name.
    pub(super) rounds: BTreeMap<String, rounds::Rounds>,
    /// Each player's (id) last scheduled opponent (id), whether it had Black, and its
    /// Blacks less its Whites in scheduled games.
    pub(super) last_scheduled: HashMap<String, rounds::LastScheduled>,
    /// The latest rating list ([`super::Input::Ratings`]).
    pub(super) ratings: rounds::Ratings,
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
        let rounds = config
            .schedules
            .iter()
            .map(|(game, schedule)| {
                let r = rounds::Rounds {
                    schedule: schedule.clone(),
                    next: None,
                    played: 0,
                    sat_out: HashMap::new(),
                    stranded: HashSet::new(),
                    before: HashMap::new(),
                };
                (game.clone(), r)
            })
            .collect();
        Competitions {
            rounds,
            last_scheduled: HashMap::new(),
            ratings: rounds::Ratings::new(),
            events,
        }
    }

    /// Whether there is any: scheduled rounds or an event.
    pub(super) fn any(&self) -> bool {
        !self.rounds.is_empty() || !self.events.is_empty()
    }
}
