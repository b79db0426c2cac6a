//! The games being watched: after each stored change of a watched game its view is built
//! once and handed to every event stream that watches it (a broadcast per game). Changes
//! that come while a view is being built are taken into the next one, so views go out in
//! order and a burst of moves costs one or two replays, not one per stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::broadcast;

/// A game's view as its watchers receive it: the JSON text, whether the game is over, and
/// the stored state it shows (the event's id).
#[derive(Debug)]
pub(super) struct Shown {
    /// The view (as `GET /api/games/{id}` answers), written once.
    pub(super) json: String,
    /// The game is finished: the stream ends after this view.
    pub(super) finished: bool,
    /// The stored state shown, as the event's `id`: the moves stored and the status
    /// (`12-playing`). Everything stored of a game changes one of them, so a stream that
    /// connects again with `Last-Event-ID` is sent a view only when it has missed a change.
    pub(super) id: String,
}

impl Shown {
    /// A view written as `json`, showing `moves` stored moves and the game's `status`.
    pub(super) fn of(json: String, moves: usize, status: &str) -> Shown {
        Shown {
            json,
            finished: status == "finished",
            id: format!("{moves}-{status}"),
        }
    }
}

/// Views a slow stream may fall behind before it skips to the latest.
const BACKLOG: usize = 4;

/// Watched games kept at once before those no stream watches any more are swept.
const SWEEP_AT: usize = 4096;

#[derive(Debug)]
struct Watched {
    views: broadcast::Sender<Arc<Shown>>,
    /// A view is being built.
    building: bool,
    /// The game changed while it was: build again.
    stale: bool,
}

/// The watched games, by Game_ID.
#[derive(Debug, Default)]
pub(super) struct Watching {
    games: Mutex<HashMap<String, Watched>>,
}

impl Watching {
    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<String, Watched>> {
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The views of `id` from now on.
    pub(super) fn subscribe(&self, id: &str) -> broadcast::Receiver<Arc<Shown>> {
        let mut games = self.games();
        if games.len() >= SWEEP_AT && !games.contains_key(id) {
            games.retain(|_, w| w.building || w.views.receiver_count() > 0);
        }
        games
            .entry(id.to_string())
            .or_insert_with(|| Watched {
                views: broadcast::channel(BACKLOG).0,
                building: false,
                stale: false,
            })
            .views
            .subscribe()
    }

    /// `id` changed: whether a view must be built now (someone watches, and none is being
    /// built). A game no one watches any more is forgotten.
    pub(super) fn changed(&self, id: &str) -> bool {
        let mut games = self.games();
        let Some(w) = games.get_mut(id) else {
            return false;
        };
        if w.views.receiver_count() == 0 && !w.building {
            games.remove(id);
            return false;
        }
        if w.building {
            w.stale = true;
            return false;
        }
        w.building = true;
        true
    }

    /// A view of `id` was built (or could not be read): it goes to every stream; whether
    /// the game changed meanwhile (build again).
    pub(super) fn built(&self, id: &str, shown: Option<Arc<Shown>>) -> bool {
        let mut games = self.games();
        let Some(w) = games.get_mut(id) else {
            return false;
        };
        if let Some(shown) = shown {
            let _ = w.views.send(shown);
        }
        if w.stale {
            w.stale = false;
            return true;
        }
        w.building = false;
        false
    }

    /// Every watched game (after changes were missed).
    pub(super) fn ids(&self) -> Vec<String> {
        self.games().keys().cloned().collect()
    }
}
