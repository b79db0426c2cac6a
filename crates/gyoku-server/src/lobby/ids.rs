//! The lobby's part that names games: each game's key in the lobby, each Game_ID (unique,
//! and following the clock), and the coin a random colour is tossed with.

use std::collections::HashMap;

use chrono::{NaiveDateTime, Timelike};

/// Keys, Game_IDs and the coin.
#[derive(Debug)]
pub(super) struct Ids {
    next_key: u64,
    /// The second of the latest Game_ID, and the time each Game_ID prefix (event, game,
    /// players) was last given from it on: a prefix given twice in one second has its
    /// time moved a second on, so Game_IDs are unique and otherwise follow the clock.
    second: NaiveDateTime,
    pub(super) issued: HashMap<String, NaiveDateTime>,
    /// xorshift64's state (never 0).
    rng: u64,
}

impl Ids {
    /// Ids from 1, the coin seeded with `seed` (a random one when `None`).
    pub(super) fn new(seed: Option<u64>) -> Ids {
        let seed = seed.unwrap_or_else(|| {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(0x9e37_79b9);
            h.finish()
        });
        Ids {
            next_key: 1,
            second: NaiveDateTime::MIN,
            issued: HashMap::new(),
            rng: seed | 1,
        }
    }

    /// A new game's key.
    pub(super) fn key(&mut self) -> u64 {
        let key = self.next_key;
        self.next_key += 1;
        key
    }

    /// A coin toss.
    pub(super) fn coin(&mut self) -> bool {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng & 1 == 0
    }

    /// Game_IDs already issued (by this server before a restart): none is issued again.
    /// Each is `<event>+<game>+<black>+<white>+YYYYMMDDhhmmss`; others are ignored.
    pub(super) fn remember(&mut self, ids: impl IntoIterator<Item = String>) {
        for id in ids {
            let Some((prefix, time)) = id.rsplit_once('+') else {
                continue;
            };
            let Ok(t) = NaiveDateTime::parse_from_str(time, "%Y%m%d%H%M%S") else {
                continue;
            };
            let last = self.issued.entry(format!("{prefix}+")).or_insert(t);
            *last = (*last).max(t);
        }
    }

    /// The Game_ID of a game of `event` named `game` between `black` and `white` at
    /// `wall`: its second, or the second after the last one given to the same prefix.
    pub(super) fn game_id(
        &mut self,
        event: &str,
        [game, black, white]: [&str; 3],
        wall: NaiveDateTime,
    ) -> String {
        let second = wall.with_nanosecond(0).unwrap_or(wall);
        if second != self.second {
            self.issued.retain(|_, t| *t >= second);
            self.second = second;
        }
        let prefix = format!("{event}+{game}+{black}+{white}+");
        let t = match self.issued.get(&prefix) {
            Some(&last) if last >= second => last + chrono::Duration::seconds(1),
            _ => second,
        };
        self.issued.insert(prefix.clone(), t);
        format!("{prefix}{}", t.format("%Y%m%d%H%M%S"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seeded_coin_falls_the_same_way_and_ids_stay_unique() {
        let toss = |seed| {
            let mut ids = Ids::new(Some(seed));
            (0..64).map(|_| ids.coin()).collect::<Vec<_>>()
        };
        assert_eq!(toss(7), toss(7));
        assert_ne!(toss(7), toss(8));
        let mut ids = Ids::new(Some(1));
        let at = NaiveDateTime::parse_from_str("2026-11-27 10:00:00", "%Y-%m-%d %H:%M:%S").unwrap();
        ids.remember(["ev+g+a+b+20261127100000".to_string()]);
        let id = ids.game_id("ev", ["g", "a", "b"], at);
        assert_eq!(id, "ev+g+a+b+20261127100001");
        assert_eq!(
            ids.game_id("ev", ["g", "a", "b"], at),
            "ev+g+a+b+20261127100002"
        );
        assert_eq!(
            ids.game_id("ev", ["g", "b", "a"], at),
            "ev+g+b+a+20261127100000"
        );
        assert_eq!((ids.key(), ids.key()), (1, 2));
    }
}
