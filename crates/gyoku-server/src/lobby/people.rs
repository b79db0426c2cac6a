//! The lobby's part that holds who is here: every connection's state by its id, the
//! logged-in names, who waits for which game, and the connections that showed a
//! suspended game's reconnect token.

use std::collections::{BTreeMap, HashMap};

use super::conns::{Conn, Status};
use super::index;
use super::io::ConnId;

/// The connections and what they are doing.
#[derive(Debug, Default)]
pub(super) struct People {
    /// Every connection, by its id.
    pub(super) conns: BTreeMap<ConnId, Conn>,
    /// Logged-in connections by name (a name is logged in once).
    pub(super) names: HashMap<String, ConnId>,
    /// Connections in `game_waiting`, by the game they wait for.
    pub(super) waiting: index::Waiting,
    /// Connections that logged in with a suspended game's reconnect token: the game (id)
    /// each may take up though its side played without a password.
    pub(super) resume_proofs: HashMap<ConnId, String>,
}

impl People {
    /// Sets a connection's status, keeping the waiting index in step: its game name must
    /// already be the game waited for when the status is `GameWaiting`, and must not
    /// change while it is.
    pub(super) fn set_status(&mut self, conn: ConnId, status: Status) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.status == Status::GameWaiting {
            self.waiting.remove(&c.game_name, conn);
        }
        c.status = status;
        if status == Status::GameWaiting {
            self.waiting.insert(&c.game_name, conn);
        }
    }

    /// Forgets a connection: its name, its place in a queue, its reconnect proof.
    pub(super) fn remove(&mut self, conn: ConnId) -> Option<Conn> {
        self.resume_proofs.remove(&conn);
        let c = self.conns.remove(&conn)?;
        if c.status == Status::GameWaiting {
            self.waiting.remove(&c.game_name, conn);
        }
        if self.names.get(c.name()) == Some(&conn) {
            self.names.remove(c.name());
        }
        Some(c)
    }
}
