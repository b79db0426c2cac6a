//! What a competition sees of the lobby and what it asks of it. A competition (an
//! organised event, the scheduled rounds) decides on its own, as lila's Swiss director
//! does: it sees the lobby through a [`Field`] (who waits for its game, which of its boards
//! are being played), is told of the time and of what happened to its games, and answers
//! with [`Step`]s — an entry to store, a game to propose — that the lobby carries out
//! ([`Lobby::carry_out`]).

use super::Lobby;
use super::change::Change;
use super::conns::Status;
use super::io::{ConnId, Now, Output};
use super::people::People;
use super::rooms::Rooms;
use crate::identity::Identity;

/// What a competition sees of the lobby, for its game: read only.
pub(super) trait Field {
    /// The connection of the player `name` if it waits for the game.
    fn waiting(&self, name: &str) -> Option<ConnId>;
    /// Whether a game between `a` and `b` (either colour) is being agreed or played.
    fn in_play(&self, a: &str, b: &str) -> bool;
    /// Everyone waiting for the game, in the order they came.
    fn queue(&self) -> Vec<Waiter>;
}

/// A player waiting for a competition's game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Waiter {
    /// Its connection.
    pub(super) conn: ConnId,
    /// Its id for ratings and pairing: its rating id, else its name.
    pub(super) id: String,
    /// Who it is.
    pub(super) who: Identity,
}

/// What a competition asks the lobby to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Store this change (an event's next entry) before anyone hears what it decided.
    Store(Change),
    /// Propose a game to these two waiting players (Black, White).
    Propose([ConnId; 2]),
}

/// The lobby's own [`Field`] for the game `game`: its people and its rooms.
pub(super) struct LobbyField<'a> {
    pub(super) people: &'a People,
    pub(super) rooms: &'a Rooms,
    pub(super) game: &'a str,
}

impl LobbyField<'_> {
    /// Where the participant `name` is, as an event's organiser sees it: `playing` (a game
    /// of this event's being agreed or played), `away` (its connection lost in such a
    /// game, within the grace to come back), `waiting` (for its board), `connected` (logged
    /// in, not waiting for this game) or `absent`.
    pub(super) fn presence(&self, name: &str) -> &'static str {
        let game = self
            .rooms
            .games
            .values()
            .find(|r| r.name == self.game && r.names.iter().any(|n| n == name));
        if let Some(room) = game {
            let away = room
                .names
                .iter()
                .zip(&room.seats)
                .any(|(n, seat)| n == name && seat.away_until.is_some());
            return if away { "away" } else { "playing" };
        }
        if self.waiting(name).is_some() {
            "waiting"
        } else if self.people.names.contains_key(name) {
            "connected"
        } else {
            "absent"
        }
    }

    /// The game of `game` between these two names being agreed or played, if any.
    pub(super) fn room(&self, a: &str, b: &str) -> Option<&super::room::Room> {
        self.rooms.games.values().find(|r| {
            r.name == self.game
                && ((r.names[0] == a && r.names[1] == b) || (r.names[0] == b && r.names[1] == a))
        })
    }
}

impl Field for LobbyField<'_> {
    fn waiting(&self, name: &str) -> Option<ConnId> {
        let &conn = self.people.names.get(name)?;
        let c = self.people.conns.get(&conn)?;
        (c.status == Status::GameWaiting && c.game_name == self.game).then_some(conn)
    }

    fn in_play(&self, a: &str, b: &str) -> bool {
        self.room(a, b).is_some()
    }

    fn queue(&self) -> Vec<Waiter> {
        self.people
            .waiting
            .for_game(self.game)
            .filter_map(|conn| {
                let c = self.people.conns.get(&conn)?;
                (c.status == Status::GameWaiting).then(|| Waiter {
                    conn,
                    id: c.pairing_id(),
                    who: c.who.clone(),
                })
            })
            .collect()
    }
}

impl Lobby {
    /// Carries out what a competition of `game` asked for, in order: changes stored, and
    /// games proposed to players who wait for it.
    pub(super) fn carry_out(
        &mut self,
        game: &str,
        steps: Vec<Step>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        for step in steps {
            match step {
                Step::Store(change) => out.push(Output::Store(change)),
                Step::Propose(players) => {
                    for conn in players {
                        // Out of the queue: the proposal opens the game.
                        self.people.set_status(conn, Status::Connected);
                        let c = self
                            .people
                            .conns
                            .get_mut(&conn)
                            .expect("waiting players are logged in");
                        c.game_name = game.to_string();
                    }
                    self.propose(game, players, Vec::new(), None, now, out);
                }
            }
        }
    }
}
