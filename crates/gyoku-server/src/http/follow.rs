//! The API's follower of the server's changes: for a watched game, one view built per
//! change and handed to its streams ([`super::watched`]). (The clocks need no following:
//! a view counts the running clock from the start the referee stored.)

use std::sync::{Arc, Weak};

use tokio::sync::broadcast;

use super::state::Stored;
use super::view::view_of;
use crate::store::notices::Changed;

/// Follows the server's changes for as long as the API lives: starts one view of each
/// watched game that changed.
pub(super) async fn follow(api: Weak<Stored>, mut changes: broadcast::Receiver<Changed>) {
    loop {
        let changed = match changes.recv().await {
            Ok(Changed::MayHaveMissed) => match api.upgrade() {
                Some(api) => api.watching.ids(),
                None => return,
            },
            Ok(Changed::Game(id)) => vec![id],
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
            if api.watching.changed(&id) {
                tokio::spawn(build(Arc::clone(&api), id));
            }
        }
    }
}

/// Builds `id`'s view for its watchers, again while it keeps changing.
async fn build(api: Arc<Stored>, id: String) {
    loop {
        let shown = view_of(&api, &id).await.ok().map(|v| Arc::new(v.shown()));
        if !api.watching.built(&id, shown) {
            return;
        }
    }
}
