//! Scheduled rounds decide as an event does: shown a queue, they ask for games in steps,
//! keep each player's colour balance, and give a player whose game was withdrawn a stand-in
//! from the same round — and only from it.

use super::at;
use crate::identity::Identity;
use crate::lobby::field::{Field, Step, Waiter};
use crate::lobby::io::{Config, ConnId};
use crate::lobby::rounds::Schedules;
use crate::lobby::schedule::Schedule;

const GAME: &str = "floodgate-300-10F";

/// A queue made up by the test.
struct Queue(Vec<Waiter>);

impl Field for Queue {
    fn waiting(&self, name: &str) -> Option<ConnId> {
        self.0.iter().find(|w| w.id == name).map(|w| w.conn)
    }

    fn in_play(&self, _: &str, _: &str) -> bool {
        false
    }

    fn queue(&self) -> Vec<Waiter> {
        self.0.clone()
    }
}

fn waiter(conn: ConnId, name: &str) -> Waiter {
    Waiter {
        conn,
        id: name.into(),
        who: Identity::csa(name),
    }
}

fn proposed(steps: &[Step]) -> Vec<[ConnId; 2]> {
    steps
        .iter()
        .map(|s| match s {
            Step::Propose(players) => *players,
            Step::Store(other) => panic!("rounds store nothing themselves: {other:?}"),
        })
        .collect()
}

#[test]
fn a_round_pairs_its_queue_and_a_withdrawn_game_finds_a_stand_in_of_the_round() {
    let config = Config {
        schedules: vec![(GAME.into(), Schedule::parse(":00,:30").unwrap())],
        ..Config::default()
    };
    let mut schedules = Schedules::new(&config);
    let now = at("2026-11-28 10:00:00.000");
    // The first look sets the next round's time; at it, the round is due.
    assert!(schedules.due(now).is_empty());
    assert_eq!(schedules.deadline(now), Some(30 * 60 * 1000));
    let round = at("2026-11-28 10:30:00.000");
    assert_eq!(schedules.due(round), [GAME]);

    // Three wait: one game, one player left out of the round.
    let queue = Queue(vec![waiter(1, "ann"), waiter(2, "ben"), waiter(3, "cat")]);
    let mut steps = Vec::new();
    schedules.run_round(GAME, &queue, &mut steps);
    let games = proposed(&steps);
    assert_eq!(games.len(), 1, "{steps:?}");
    let [black, white] = games[0];
    let left_out = 6 - black - white;

    // Black's opponent withdraws: Black is stranded, and a newcomer who was not in the
    // round is no stand-in; the one the round left out is. The withdrawn game was never
    // one, so their balances are even, and the one who waited longer has Black.
    let name = |conn: ConnId| ["", "ann", "ben", "cat"][conn as usize];
    schedules.withdrawn(GAME, [name(black).to_string(), name(white).to_string()]);
    schedules.strand(GAME, name(black).to_string());
    let me = waiter(black, name(black));
    let newcomer = Queue(vec![me.clone(), waiter(4, "dan")]);
    let mut steps = Vec::new();
    schedules.stand_in(GAME, &me, &newcomer, &mut steps);
    assert_eq!(steps, []);
    let of_the_round = Queue(vec![me.clone(), waiter(left_out, name(left_out))]);
    let mut steps = Vec::new();
    schedules.stand_in(GAME, &me, &of_the_round, &mut steps);
    assert_eq!(proposed(&steps), [[left_out, black]]);
}
