//! The lobby's part that holds the games: each proposed or played game's room by its key,
//! the keys by Game_ID, and each game's deadline (an agreement's, a clock's) in a heap
//! read earliest first, never a scan of every game.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use super::io::Millis;
use super::room::Room;

/// The games and their deadlines.
#[derive(Debug, Default)]
pub(super) struct Rooms {
    /// Each game by its key.
    pub(super) games: HashMap<u64, Room>,
    /// Each game's key by its Game_ID.
    pub(super) by_id: BTreeMap<String, u64>,
    /// Each live game's deadline (agreement or clock), earliest first; entries a game
    /// has moved on from are dropped when they come up.
    deadlines: BinaryHeap<Reverse<(Millis, u64)>>,
}

impl Rooms {
    /// Remembers a game's current deadline (after its clock started or it was proposed).
    pub(super) fn schedule(&mut self, key: u64) {
        if let Some(at) = self.games.get(&key).and_then(Room::deadline) {
            self.deadlines.push(Reverse((at, key)));
        }
        // Old deadlines leave the heap as they come up; keep it near one per game.
        if self.deadlines.len() > 4 * self.games.len() + 1024 {
            self.deadlines = self
                .games
                .iter()
                .filter_map(|(&k, g)| Some(Reverse((g.deadline()?, k))))
                .collect();
        }
    }

    /// The earliest deadline a game still has; those the games moved on from are
    /// dropped on the way.
    pub(super) fn next_deadline(&mut self) -> Option<Millis> {
        while let Some(&Reverse((at, key))) = self.deadlines.peek() {
            if self.games.get(&key).and_then(Room::deadline) == Some(at) {
                return Some(at);
            }
            // A deadline the game has moved on from (a move was made), or a game that ended.
            self.deadlines.pop();
        }
        None
    }

    /// The next game whose deadline, as it was remembered, has come by `now` (taken off
    /// the heap; the game may have moved on from it since).
    pub(super) fn next_due(&mut self, now: Millis) -> Option<u64> {
        let &Reverse((at, key)) = self.deadlines.peek()?;
        if at > now {
            return None;
        }
        self.deadlines.pop();
        Some(key)
    }
}
