//! The API's follower of the server's changes: when each game last changed (for the
//! clocks), and, for a watched game, one view built per change and handed to its streams
//! ([`super::watched`]).

use std::sync::{Arc, PoisonError, Weak};
use std::time::Instant;

use tokio::sync::broadcast;

use super::state::{Api, MAX_REMEMBERED};
use super::view::view_of;
use super::watched::Shown;
use crate::store::notices::EVERYTHING_MAY_HAVE_CHANGED;

/// Follows the server's changes for as long as the API lives: remembers when each game
/// last changed (for the clocks), and starts one view of each watched game that changed.
pub(super) async fn follow(api: Weak<Api>, mut changes: broadcast::Receiver<String>) {
    loop {
        let changed = match changes.recv().await {
            Ok(id) if id == EVERYTHING_MAY_HAVE_CHANGED => match api.upgrade() {
                Some(api) => api.watching.ids(),
                None => return,
            },
            Ok(id) => vec![id],
            // Changes were missed: every watched game may have changed.
            Err(broadcast::error::RecvError::Lagged(_)) => match api.upgrade() {
                Some(api) => api.watching.ids(),
                None => return,
            },
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(api) = api.upgrade() else {
            return;
        };
        for id in changed {
            remember_change(&api, &id);
            if api.watching.changed(&id) {
                tokio::spawn(build(Arc::clone(&api), id));
            }
        }
    }
}

/// When `id` last changed (its clock started then, for the countdown).
fn remember_change(api: &Api, id: &str) {
    let mut m = api
        .changed_at
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if m.len() >= MAX_REMEMBERED && !m.contains_key(id) {
        m.clear();
    }
    m.insert(id.to_string(), Instant::now());
}

/// Builds `id`'s view for its watchers, again while it keeps changing.
async fn build(api: Arc<Api>, id: String) {
    loop {
        let shown = view_of(&api, &id)
            .await
            .ok()
            .map(|v| Arc::new(Shown::of(&v)));
        if !api.watching.built(&id, shown) {
            return;
        }
    }
}
