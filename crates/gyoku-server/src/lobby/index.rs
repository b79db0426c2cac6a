//! The lobby's lookups that must not scan everyone: who is waiting for which game, and
//! which suspended game a player has under a game name. With 20,000 players logged in,
//! a login that scans them all is 20,000 logins × 20,000 players.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{ConnId, GameSpec};

/// Connections waiting for a game, by game name, in connection order (the order a scan
/// of all connections would find them in, so pairing is as before).
#[derive(Debug, Default)]
pub(super) struct Waiting {
    by_game: HashMap<String, BTreeSet<ConnId>>,
}

impl Waiting {
    /// `conn` waits for `game`.
    pub(super) fn insert(&mut self, game: &str, conn: ConnId) {
        self.by_game
            .entry(game.to_string())
            .or_default()
            .insert(conn);
    }

    /// `conn` no longer waits for `game`.
    pub(super) fn remove(&mut self, game: &str, conn: ConnId) {
        if let Some(set) = self.by_game.get_mut(game) {
            set.remove(&conn);
            if set.is_empty() {
                self.by_game.remove(game);
            }
        }
    }

    /// Who waits for `game`, first come first.
    pub(super) fn for_game(&self, game: &str) -> impl Iterator<Item = ConnId> + '_ {
        self.by_game.get(game).into_iter().flatten().copied()
    }
}

/// Suspended games by Game_ID, and by (game name, player) for the login that resumes one.
#[derive(Debug, Default)]
pub(super) struct Suspended {
    by_id: BTreeMap<String, GameSpec>,
    by_seat: HashMap<(String, String), BTreeSet<String>>,
}

impl Suspended {
    pub(super) fn new(games: Vec<GameSpec>) -> Suspended {
        let mut s = Suspended::default();
        for g in games {
            s.insert(g);
        }
        s
    }

    pub(super) fn insert(&mut self, spec: GameSpec) {
        for name in &spec.names {
            self.by_seat
                .entry((spec.name.clone(), name.clone()))
                .or_default()
                .insert(spec.id.clone());
        }
        if let Some(old) = self.by_id.insert(spec.id.clone(), spec) {
            // The same Game_ID again (never, as IDs are unique): forget the old seats.
            self.unseat(&old);
        }
    }

    pub(super) fn remove(&mut self, id: &str) -> Option<GameSpec> {
        let spec = self.by_id.remove(id)?;
        self.unseat(&spec);
        Some(spec)
    }

    fn unseat(&mut self, spec: &GameSpec) {
        for name in &spec.names {
            let key = (spec.name.clone(), name.clone());
            if let Some(ids) = self.by_seat.get_mut(&key) {
                ids.remove(&spec.id);
                if ids.is_empty() {
                    self.by_seat.remove(&key);
                }
            }
        }
    }

    pub(super) fn get(&self, id: &str) -> Option<&GameSpec> {
        self.by_id.get(id)
    }

    /// The first (by Game_ID) suspended game named `game` that `player` plays in.
    pub(super) fn find(&self, game: &str, player: &str) -> Option<&str> {
        self.by_seat
            .get(&(game.to_string(), player.to_string()))
            .and_then(|ids| ids.first())
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str, game: &str, black: &str, white: &str) -> GameSpec {
        GameSpec {
            id: id.into(),
            name: game.into(),
            preset: gyoku::Preset::Csa,
            fouls: None,
            names: [black.into(), white.into()],
            max_moves: 0,
            total: 600,
            byoyomi: 10,
            increment: 0,
            start: gyoku::Position::startpos(),
            initial_moves: Vec::new(),
            moves: Vec::new(),
            started_at: String::new(),
            replay_of: None,
            rating_ids: [None, None],
            kinds: [crate::identity::PlayerKind::Csa; 2],
            main_times: None,
            clock: Default::default(),
            resume_keys: [None, None],
        }
    }

    #[test]
    fn a_suspended_game_is_found_by_either_seat_until_removed() {
        let mut s = Suspended::new(vec![
            spec("g2", "x-600-10", "a", "b"),
            spec("g1", "x-600-10", "a", "c"),
        ]);
        assert_eq!(s.find("x-600-10", "a"), Some("g1"));
        assert_eq!(s.find("x-600-10", "b"), Some("g2"));
        assert_eq!(s.find("y-600-10", "a"), None);
        assert!(s.remove("g1").is_some());
        assert_eq!(s.find("x-600-10", "a"), Some("g2"));
        assert_eq!(s.find("x-600-10", "c"), None);
        assert!(s.remove("g2").is_some());
        assert!(s.by_seat.is_empty() && s.by_id.is_empty());
    }

    #[test]
    fn waiting_players_come_in_connection_order_and_leave_no_trace() {
        let mut w = Waiting::default();
        w.insert("g-1-0", 9);
        w.insert("g-1-0", 3);
        w.insert("g-1-0", 3);
        assert_eq!(w.for_game("g-1-0").collect::<Vec<_>>(), [3, 9]);
        w.remove("g-1-0", 3);
        w.remove("g-1-0", 9);
        assert!(w.by_game.is_empty());
    }
}
