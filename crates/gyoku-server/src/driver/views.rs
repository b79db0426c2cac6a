//! The page's view of the scheduled rounds and the events, built from the lobby and
//! published to the league ([`crate::league::League`]) for the HTTP API: at most every
//! [`PUBLISH_EVERY`], and only when it changed.

use std::time::Duration;

use tokio::time::Instant;

use crate::lobby::Lobby;

/// How often at most the scheduled rounds' view is published for the web page.
pub(super) const PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// How often the events' view is built again though no event changed.
pub(super) const EVENTS_REFRESH: Duration = Duration::from_secs(5);

/// The page's view of the rounds and events, published to the league: at most every
/// [`PUBLISH_EVERY`], and only when it changed.
pub(super) struct Views {
    /// When it was last published.
    at: Option<Instant>,
    /// A view left unpublished by the rate limit: published when the limit allows.
    pub(super) again: Option<Instant>,
    /// The events' version last published, and when.
    events: (u64, Instant),
}

impl Default for Views {
    fn default() -> Views {
        Views {
            at: None,
            again: None,
            events: (u64::MAX, Instant::now()),
        }
    }
}

impl Views {
    pub(super) fn publish(&mut self, lobby: &Lobby, league: &crate::league::League) {
        if !lobby.has_schedules() && !lobby.has_events() {
            return;
        }
        let now = Instant::now();
        match self.at {
            Some(t) if now.duration_since(t) < PUBLISH_EVERY => {
                self.again.get_or_insert(t + PUBLISH_EVERY);
            }
            _ => self.again = None,
        }
        if self
            .at
            .is_some_and(|t| now.duration_since(t) < PUBLISH_EVERY)
        {
            return;
        }
        self.at = Some(now);
        let view = lobby.scheduled_view();
        if *league.scheduled() != view {
            league.set_scheduled(view);
        }
        // Built only when an event changed (standings cost a rating fit), or every few
        // seconds for what the version does not see (a game resumed).
        if lobby.has_events()
            && (lobby.events_changed() != self.events.0
                || now.duration_since(self.events.1) >= EVENTS_REFRESH)
        {
            self.events = (lobby.events_changed(), now);
            let view = lobby.events_view();
            if *league.events() != view {
                league.set_events(view);
            }
        }
    }
}
