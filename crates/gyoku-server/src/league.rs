//! What the server publishes about its league for the web page: the latest rating lists,
//! the scheduled games (next round, who waits) and the organised events. Written by the rating task and the
//! driver, read by the HTTP API; each read is a copy of a snapshot.

use std::sync::{Arc, Mutex};

use gyoku_league::ratings::floodgate::Player;

use crate::ratings::PersonRating;

/// A scheduled game as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// The game name.
    pub game: String,
    /// The next round (`YYYY/MM/DD HH:MM:SS`), once known.
    pub next: Option<String>,
    /// Rounds played since the server started.
    pub rounds: u32,
    /// When the latest of them was paired (`YYYY/MM/DD HH:MM:SS`).
    pub paired_at: Option<String>,
    /// Who waits, by name.
    pub waiting: Vec<String>,
    /// Who plays one of its games now, by name.
    pub playing: Vec<String>,
    /// Who lost the connection to one of its games, within the grace to come back.
    pub away: Vec<String>,
}

/// The snapshots.
#[derive(Debug, Default)]
pub struct League {
    ratings: Mutex<Option<(String, Arc<Vec<Player>>)>>,
    scheduled: Mutex<Arc<Vec<Scheduled>>>,
    events: Mutex<Arc<Vec<serde_json::Value>>>,
    people: Mutex<Arc<Vec<PersonRating>>>,
}

impl League {
    /// The latest rating list (every player listed, rated or not) and when it was made.
    pub fn set_ratings(&self, at: String, players: Vec<Player>) {
        *self
            .ratings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((at, Arc::new(players)));
    }

    /// The latest rating list and when it was made, if there is one yet.
    pub fn ratings(&self) -> Option<(String, Arc<Vec<Player>>)> {
        self.ratings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The web accounts' Glicko-2 ratings, highest first.
    pub fn set_people(&self, people: Vec<PersonRating>) {
        *self
            .people
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(people);
    }

    /// The web accounts' ratings as last computed.
    pub fn people(&self) -> Arc<Vec<PersonRating>> {
        self.people
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The scheduled games now.
    pub fn set_scheduled(&self, scheduled: Vec<Scheduled>) {
        *self
            .scheduled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(scheduled);
    }

    /// The scheduled games as last published.
    pub fn scheduled(&self) -> Arc<Vec<Scheduled>> {
        self.scheduled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The events now ([`crate::event::view::to_json`] each).
    pub fn set_events(&self, events: Vec<serde_json::Value>) {
        *self
            .events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(events);
    }

    /// The events as last published.
    pub fn events(&self) -> Arc<Vec<serde_json::Value>> {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}
