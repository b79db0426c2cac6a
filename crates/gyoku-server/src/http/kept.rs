//! Games being played, kept replayed: a game's next view appends the moves stored since its
//! last one instead of playing the game again from its start (a long game's view cost a
//! replay of every move; now of the moves since). Ended games are replayed from their
//! record, as before.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::error::ApiError;
use super::replay::{Replayed, replay_stored};
use crate::store::GameDetail;

/// Games kept replayed at once; past it the kept ones are dropped and kept again as they
/// are shown.
pub(super) const MAX_KEPT: usize = 512;

/// The replays kept, by Game_ID: shared with the views being made of them, never copied
/// but when a view plays on a replay another view still reads.
#[derive(Default)]
pub(super) struct KeptReplays {
    games: Mutex<HashMap<String, Arc<Replayed>>>,
}

/// How a view's game was brought to where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Brought {
    /// Played again from its start (or from its record).
    Replayed,
    /// The moves stored since its last view played on from the replay kept.
    Appended,
}

impl KeptReplays {
    fn games(&self) -> MutexGuard<'_, HashMap<String, Arc<Replayed>>> {
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `d` played to where it stands: the replay kept when it stands there already (the
    /// same one, shared), played on from it when `d` has more moves, else replayed from
    /// its start; kept for the next view while it is played.
    pub(super) fn bring(&self, d: &GameDetail) -> Result<(Arc<Replayed>, Brought), ApiError> {
        let id = &d.game.id;
        if d.record.is_some() {
            // Ended: its record is what is shown; nothing more is appended to it.
            self.games().remove(id);
            return Ok((Arc::new(replay_stored(d)?), Brought::Replayed));
        }
        let kept = {
            let mut games = self.games();
            match games.get(id) {
                Some(r) if continues_into(r, d) && r.spec.moves.len() == d.moves.len() => {
                    return Ok((Arc::clone(r), Brought::Appended));
                }
                // Taken out while it is played on: the lock is not held meanwhile, and the
                // replay is copied only if another view still reads it.
                Some(r) if continues_into(r, d) => games.remove(id),
                _ => None,
            }
        };
        let (replayed, brought) = match kept {
            Some(r) => {
                let mut r = Arc::unwrap_or_clone(r);
                r.append(d)?;
                (Arc::new(r), Brought::Appended)
            }
            None => (Arc::new(replay_stored(d)?), Brought::Replayed),
        };
        let mut games = self.games();
        if games.len() >= MAX_KEPT && !games.contains_key(id) {
            games.clear();
        }
        games.insert(id.clone(), Arc::clone(&replayed));
        Ok((replayed, brought))
    }
}

/// Whether `d` is the game `kept` replayed, with the moves kept as its first ones.
fn continues_into(kept: &Replayed, d: &GameDetail) -> bool {
    let moves = &kept.spec.moves;
    kept.spec.started_at == d.game.started_at
        && d.moves.get(..moves.len()) == Some(moves.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game being played, with `moves` stored.
    fn game(moves: &[&str]) -> GameDetail {
        let moves: Vec<_> = moves.iter().map(|m| (*m, 1, None)).collect();
        crate::http::replay::tests::stored("kept", "csa", "playing", &moves, None)
    }

    #[test]
    fn a_game_played_on_is_appended_to_and_the_same_as_replayed() {
        let kept = KeptReplays::default();
        let line = ["+7776FU", "-3334FU", "+8822UM", "-3122GI", "+0045KA"];
        for n in 0..=line.len() {
            let d = game(&line[..n]);
            let (r, brought) = kept.bring(&d).unwrap();
            let want = if n == 0 {
                Brought::Replayed
            } else {
                Brought::Appended
            };
            assert_eq!(brought, want, "after {n} moves");
            let fresh = replay_stored(&d).unwrap();
            assert_eq!(r.game, fresh.game, "after {n} moves");
            assert_eq!(r.played, fresh.played);
            assert_eq!(r.outcome, fresh.outcome);
            assert_eq!(
                serde_json::to_value(&r.moves).unwrap(),
                serde_json::to_value(&fresh.moves).unwrap()
            );
        }
        // Other moves than those kept (another game under the same id): replayed whole.
        let (r, brought) = kept.bring(&game(&["+2726FU"])).unwrap();
        assert_eq!(brought, Brought::Replayed);
        assert_eq!(r.played.len(), 1);
        // Shown again where it stands: the same replay, shared, not a copy; played on while
        // a view still reads the kept one: that one is left as it was.
        let d = game(&line[..2]);
        let (first, _) = kept.bring(&d).unwrap();
        let (again, brought) = kept.bring(&d).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(brought, Brought::Appended);
        let (on, _) = kept.bring(&game(&line[..3])).unwrap();
        assert_eq!((first.played.len(), on.played.len()), (2, 3));
        // A move that is not one is stored: an error, not a panic.
        let broken = kept.bring(&game(&["+2726FU", "-0099XX"]));
        assert!(broken.is_err());
    }
}
