//! An event decides on its own: shown a field (who waits, which boards are being played)
//! and told the time and its games' endings, it answers with steps — entries to store,
//! games to propose — and touches nothing of the lobby's.

use std::collections::HashMap;

use super::at;
use crate::event::{BoardResult, Entry, Event, EventFile};
use crate::lobby::change::Change;
use crate::lobby::events::{Ended, EventAction, Live};
use crate::lobby::field::{Field, Step, Waiter};
use crate::lobby::io::{ConnId, Now};

const FILE: &str = r#"
name = "club"
game = "club-60-0"
format = "round-robin"
forfeit_after = 60
participants = ["ann", "ben", "cat", "dan"]
"#;

/// A field made up by the test.
#[derive(Default)]
struct Made {
    waiting: HashMap<String, ConnId>,
    playing: Vec<[String; 2]>,
}

impl Field for Made {
    fn waiting(&self, name: &str) -> Option<ConnId> {
        self.waiting.get(name).copied()
    }

    fn in_play(&self, a: &str, b: &str) -> bool {
        self.playing
            .iter()
            .any(|[x, y]| (x == a && y == b) || (x == b && y == a))
    }

    fn queue(&self) -> Vec<Waiter> {
        // An event pairs by its own table, never by who came first.
        panic!("an event asked for the queue")
    }
}

/// The entries the steps store, and the games they propose, in order.
fn read(steps: &[Step]) -> (Vec<Entry>, Vec<[ConnId; 2]>) {
    let mut entries = Vec::new();
    let mut games = Vec::new();
    for step in steps {
        match step {
            Step::Store(Change::EventEntry { entry, .. }) => {
                entries.push(serde_json::from_str(entry).unwrap());
            }
            Step::Store(other) => panic!("an event stores only its entries: {other:?}"),
            Step::Propose(players) => games.push(*players),
        }
    }
    (entries, games)
}

fn later(now: Now, ms: u64) -> Now {
    Now {
        mono: now.mono + ms,
        ..now
    }
}

#[test]
fn shown_a_field_an_event_stores_and_proposes_and_forfeits_the_absent() {
    let mut live = Live::new(Event::new(EventFile::parse(FILE).unwrap()));
    let now = at("2026-11-28 10:00:00.000");
    let mut field = Made::default();

    // Nobody waits: the event is defined and round 1 paired, no game proposed.
    let mut steps = Vec::new();
    live.advance(&field, now, false, &mut steps);
    let (entries, games) = read(&steps);
    assert!(
        matches!(entries[..], [Entry::Defined { .. }, Entry::Paired { .. }]),
        "{entries:?}"
    );
    assert!(games.is_empty());
    assert_eq!(live.deadline(now), Some(now.mono + 60_000));

    // Ann and her opponent wait: their board is proposed, Black first; asked again while
    // it is being played, nothing more.
    let round = &live.event.rounds[0];
    let names = &live.event.file.participants;
    let board = round
        .boards
        .iter()
        .find(|b| names[b.black] == "ann" || names[b.white] == "ann")
        .unwrap();
    let [black, white] = [board.black, board.white];
    let names = [names[black].clone(), names[white].clone()];
    let [black, white] = [black as ConnId, white as ConnId];
    field.waiting.insert(names[0].clone(), black);
    field.waiting.insert(names[1].clone(), white);
    let mut steps = Vec::new();
    live.start_ready(&field, &mut steps);
    assert_eq!(read(&steps), (vec![], vec![[black, white]]));
    field.waiting.clear();
    field.playing.push(names.clone());
    let mut steps = Vec::new();
    live.start_ready(&field, &mut steps);
    assert_eq!(steps, []);

    // The wait ends: the other board, nobody there, is forfeited by both; the board
    // being played is not.
    let mut steps = Vec::new();
    live.advance(&field, later(now, 60_000), false, &mut steps);
    let (entries, _) = read(&steps);
    assert!(
        matches!(
            &entries[..],
            [Entry::Result { round: 1, result: BoardResult::BothAbsent, reason, .. }] if reason == "forfeit"
        ),
        "{entries:?}"
    );

    // The game ends: its result is stored with its Game_ID, and round 2 is paired.
    field.playing.clear();
    let ended = Ended {
        game_id: "club+1",
        names: &names,
        result: Some("white"),
        reason: "resign",
        replayed: false,
    };
    let mut steps = Vec::new();
    live.game_ended(ended, &field, later(now, 61_000), &mut steps);
    let (entries, _) = read(&steps);
    assert!(
        matches!(
            &entries[..],
            [Entry::Result { round: 1, result: BoardResult::White, game_id: Some(id), .. }, Entry::Paired { .. }]
                if id == "club+1"
        ),
        "{entries:?}"
    );

    // The operator pauses it: stored, and a pause twice is refused with nothing stored.
    let mut steps = Vec::new();
    assert!(
        live.act(EventAction::Pause, &field, now, &mut steps)
            .is_ok()
    );
    assert_eq!(read(&steps).0, [Entry::Paused]);
    let mut steps = Vec::new();
    let refused = live.act(EventAction::Pause, &field, now, &mut steps);
    assert_eq!(
        refused.err().as_deref(),
        Some("the event is paused already")
    );
    assert_eq!(steps, []);
}
