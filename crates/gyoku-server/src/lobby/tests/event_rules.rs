//! Organised events on a simulated clock: round 1 is paired at the event's start and not
//! before, a board's game is proposed when both its players wait, the wait for a missing
//! player ends in a forfeit, the next round waits for its set time, and each step is
//! stored as the event's next entry with the batch that caused it.

use super::{Transcript, at, sent};
use crate::event::{Entry, Event, EventFile};
use crate::lobby::change::Change;
use crate::lobby::io::{Config, Input, Output};

const FILE: &str = r#"
name = "cup"
game = "cup-60-0"
format = "swiss"
rounds = 2
start = "2026-11-26 10:00:00"
round_times = ["2026-11-26 11:00:00"]
forfeit_after = 60
participants = ["ann", "ben", "cat", "dan"]
"#;

/// The event entries a batch stores.
fn entries(out: &[Output]) -> Vec<Entry> {
    out.iter()
        .filter_map(|o| match o {
            Output::Store(Change::EventEntry { entry, .. }) => serde_json::from_str(entry).ok(),
            _ => None,
        })
        .collect()
}

/// Players named in the Game_Summaries of a batch: (Black, White).
fn proposed(out: Vec<Output>) -> Vec<(String, String)> {
    let mut games: Vec<(String, String)> = sent(out)
        .iter()
        .filter(|(_, text)| text.contains("BEGIN Game_Summary"))
        .map(|(_, text)| {
            let field = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .unwrap_or_default()
                    .to_string()
            };
            (field("Name+:"), field("Name-:"))
        })
        .collect();
    games.sort();
    games.dedup();
    games
}

#[test]
fn rounds_start_at_their_times_and_a_missing_player_forfeits() {
    let file = EventFile::parse(FILE).unwrap();
    let config = Config {
        events: vec![Event::new(file)],
        ..Config::default()
    };
    let mut t = Transcript::with(config);
    t.now = at("2026-11-26 09:59:00.000");
    // The first input defines the event; nothing is paired before its start.
    let out = t.input(Input::Tick);
    assert!(matches!(entries(&out)[..], [Entry::Defined { .. }]));
    for (k, n) in ["ann", "ben", "cat"].iter().enumerate() {
        t.login_x1(k as u64 + 1, n);
        let said = t.line(k as u64 + 1, "%%GAME cup-60-0 *");
        assert!(said.is_empty(), "{n} waits quietly: {said:?}");
    }
    // eve is not a participant.
    t.login_x1(9, "eve");
    let said = t.line(9, "%%GAME cup-60-0 *");
    assert!(
        said[0]
            .1
            .contains("eve is not a participant of the event cup"),
        "{said:?}"
    );
    // The lobby asks to be woken at the start.
    let start = at("2026-11-26 10:00:00.000").wall;
    let woken = t.lobby.next_deadline().expect("the start is a deadline");
    assert_eq!(woken, t.now.mono + 60_000);
    t.now.wall = start;
    t.now.mono += 60_000;
    let out = t.input(Input::Tick);
    let paired = entries(&out);
    assert!(
        matches!(&paired[..], [Entry::Paired { round: 1, .. }]),
        "{paired:?}"
    );
    // The round says when it was paired (issue 46, item 5: the organiser's view).
    let when = start.format("%Y/%m/%d %H:%M:%S").to_string();
    assert!(
        matches!(&paired[..], [Entry::Paired { at: Some(at), .. }] if *at == when),
        "{paired:?}"
    );
    // ann v ben starts at once; cat waits for dan, who is not there.
    assert_eq!(proposed(out), [("ann".to_string(), "ben".to_string())]);
    // The organiser's view (issue 46): who plays, who waits, who is absent, and when the
    // wait for the absent ends.
    let view = &t.lobby.events_view()[0];
    let people: Vec<(&str, &str)> = view["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        people,
        [
            ("ann", "playing"),
            ("ben", "playing"),
            ("cat", "waiting"),
            ("dan", "absent")
        ]
    );
    assert_eq!(view["forfeit_at"], "2026/11/26 10:01:00", "{view}");
    // ann and ben agree; ann resigns.
    for id in [1, 2] {
        t.line(id, "AGREE");
    }
    let out = t.input(Input::Line(1, "%TORYO".into()));
    assert!(
        matches!(
            &entries(&out)[..],
            [Entry::Result {
                round: 1,
                board: 1,
                ..
            }]
        ),
        "{:?}",
        entries(&out)
    );
    // The wait ends 60 s after the pairing: dan forfeits to cat, and round 2 waits for
    // 11:00.
    t.now.wall = start + chrono::Duration::seconds(61);
    t.now.mono += 61_000;
    let out = t.input(Input::Tick);
    let forfeited = entries(&out);
    assert!(
        matches!(&forfeited[..], [Entry::Result { round: 1, board: 2, reason, .. }] if reason == "forfeit"),
        "{forfeited:?}"
    );
    // The round is over: no wait, and cat is no longer waiting for a board of it.
    let view = &t.lobby.events_view()[0];
    assert_eq!(view["forfeit_at"], serde_json::Value::Null, "{view}");
    let round_two = at("2026-11-26 11:00:00.000").wall;
    t.now.wall = round_two - chrono::Duration::seconds(1);
    t.now.mono += 1_000;
    assert!(entries(&t.input(Input::Tick)).is_empty());
    t.now.wall = round_two;
    t.now.mono += 1_000;
    let out = t.input(Input::Tick);
    assert!(
        matches!(&entries(&out)[..], [Entry::Paired { round: 2, .. }]),
        "{:?}",
        entries(&out)
    );
}

#[test]
fn an_operator_pauses_adjusts_and_is_answered_on_its_connection() {
    let file = EventFile::parse(&FILE.replace("start = \"2026-11-26 10:00:00\"\n", "")).unwrap();
    let config = Config {
        events: vec![Event::new(file)],
        ..Config::default()
    };
    let mut t = Transcript::with(config);
    t.now = at("2026-11-26 10:00:00.000");
    let out = t.input(Input::Tick);
    assert_eq!(entries(&out).len(), 2, "defined and round 1 paired at once");
    let admin = |t: &mut Transcript, action| {
        let out = t.input(Input::EventAdmin {
            reply: 77,
            event: "cup".into(),
            action,
        });
        assert!(out.contains(&Output::Close(77)));
        (entries(&out), reply(&out))
    };
    let (stored, said) = admin(&mut t, crate::lobby::EventAction::Pause);
    assert_eq!((stored, said), (vec![Entry::Paused], Ok("paused")));
    // Paused: players who wait are not given their games.
    t.login_x1(1, "ann");
    t.login_x1(2, "ben");
    t.line(1, "%%GAME cup-60-0 *");
    assert!(proposed(t.input(Input::Line(2, "%%GAME cup-60-0 *".into()))).is_empty());
    let (_, said) = admin(&mut t, crate::lobby::EventAction::Pause);
    assert!(
        said.clone().unwrap_err().contains("paused already"),
        "{said:?}"
    );
    let (_, said) = admin(
        &mut t,
        crate::lobby::EventAction::Adjust {
            round: 1,
            board: 1,
            result: crate::event::BoardResult::Draw,
            reason: "early".into(),
        },
    );
    assert!(
        said.clone().unwrap_err().contains("has not ended"),
        "{said:?}"
    );
    // Resumed: the waiting players' game starts.
    let out = t.input(Input::EventAdmin {
        reply: 78,
        event: "cup".into(),
        action: crate::lobby::EventAction::Resume,
    });
    assert_eq!(proposed(out), [("ann".to_string(), "ben".to_string())]);
    let (_, said) = admin(
        &mut t,
        crate::lobby::EventAction::Adjust {
            round: 9,
            board: 1,
            result: crate::event::BoardResult::Draw,
            reason: "no such".into(),
        },
    );
    assert!(
        said.clone().unwrap_err().contains("round 9 has no board 1"),
        "{said:?}"
    );
    let out = t.input(Input::EventAdmin {
        reply: 79,
        event: "nope".into(),
        action: crate::lobby::EventAction::Pause,
    });
    assert!(reply(&out).unwrap_err().contains("there is no event nope"));
}

/// The answer to an operator's action: a value, on the connection made for it.
fn reply(out: &[Output]) -> Result<&'static str, String> {
    out.iter()
        .find_map(|o| match o {
            Output::Reply(_, crate::lobby::Reply::EventAdmin(answer)) => Some(answer.clone()),
            _ => None,
        })
        .expect("an answer")
}

/// Issue 42, item 4: an event's own grace. The server gives none; the event file gives 45 s:
/// a participant whose connection drops is waited for that long, then loses the board as
/// a disconnection (`abnormal`), which its board and the standings show.
#[test]
fn an_events_own_grace_waits_for_a_dropped_participant_then_forfeits_the_board() {
    let file = EventFile::parse(&format!("{FILE}reconnect_grace = 45\n")).unwrap();
    let config = Config {
        events: vec![Event::new(file)],
        ..Config::default()
    };
    assert_eq!(config.reconnect_grace_ms, 0, "the server's own: none");
    let mut t = Transcript::with(config);
    t.now = at("2026-11-26 10:00:00.000");
    t.input(Input::Tick);
    for (k, n) in ["ann", "ben", "cat", "dan"].iter().enumerate() {
        t.login_x1(k as u64 + 1, n);
        t.line(k as u64 + 1, "%%GAME cup-60-0 *");
    }
    for k in 1..=4 {
        t.line(k, "AGREE");
    }
    // Each Game_Summary carried a token; ann's connection drops.
    let out = t.input(Input::Closed(1));
    let told: Vec<(u64, String)> = sent(out);
    assert!(
        told.iter().any(|(_, l)| l == "##[DISCONNECTED] ann 45\n"),
        "{told:?}"
    );
    t.now.mono += 44_999;
    assert!(entries(&t.input(Input::Tick)).is_empty());
    t.now.mono += 1;
    let out = t.input(Input::Tick);
    let result = entries(&out).into_iter().find_map(|e| match e {
        Entry::Result { reason, .. } => Some(reason),
        _ => None,
    });
    assert_eq!(result.as_deref(), Some("abnormal"), "{out:?}");
}
