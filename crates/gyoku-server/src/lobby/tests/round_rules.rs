//! Scheduled rounds on a simulated clock: players waiting for `floodgate-300-10F` are
//! paired all at once at each `:00` and `:30`, by rating, none left out but an odd one.

use std::collections::{BTreeMap, BTreeSet};

use super::{Transcript, at, sent};
use crate::lobby::io::{Config, Input};
use crate::lobby::schedule::{Schedule, Waiting, total};

const GAME: &str = "floodgate-300-10F";

/// Who played whom in the proposals of a batch: (black, white) by name, with their conns.
fn proposals(out: &[(u64, String)]) -> BTreeMap<u64, (String, String)> {
    out.iter()
        .filter(|(_, text)| text.contains("BEGIN Game_Summary"))
        .map(|(conn, text)| {
            let field = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .expect("a summary names both players")
                    .to_string()
            };
            (*conn, (field("Name+:"), field("Name-:")))
        })
        .collect()
}

#[test]
fn forty_players_over_twelve_rounds_are_paired_by_rating() {
    let mut t = rounds_at_9_55();
    let names: Vec<String> = (0..40).map(|k| format!("eng{k:02}")).collect();
    // Ratings from 1000 to 2950, every 50: the best pairing is each with its neighbour.
    let ratings: BTreeMap<String, i64> = names
        .iter()
        .enumerate()
        .map(|(k, n)| (n.clone(), 1000 + 50 * k as i64))
        .collect();
    t.input(Input::Ratings(
        ratings.iter().map(|(k, v)| (k.clone(), *v)).collect(),
    ));
    for (k, n) in names.iter().enumerate() {
        t.login_x1(k as u64 + 1, n);
    }
    let mut met: BTreeSet<(String, String)> = BTreeSet::new();
    let mut colours: BTreeMap<String, Vec<bool>> = BTreeMap::new();
    let mut sat_out: Vec<String> = Vec::new();
    for round in 0..12u64 {
        // One player (a different one each round) stays away from every third round: 39
        // wait then, and one of them waits on.
        let away = (round % 3 == 2).then_some(round as usize % 40);
        let mut waiting = Vec::new();
        for (k, n) in names.iter().enumerate() {
            if Some(k) != away {
                let said = t.line(k as u64 + 1, &format!("%%GAME {GAME} *"));
                assert!(said.is_empty(), "{n} waits quietly for the round: {said:?}");
                waiting.push(n.clone());
            }
        }
        // `%%FLOODGATE` says who waits and when.
        let told = t.line(1, "%%FLOODGATE");
        assert!(
            told[0].1.contains(&format!("waiting {}:", waiting.len())),
            "{told:?}"
        );
        // Nothing before the round time; at it, everyone paired at once.
        let round_at =
            at("2026-11-26 10:00:00.000").wall + chrono::Duration::minutes(30 * round as i64);
        t.now.wall = round_at - chrono::Duration::seconds(1);
        t.now.mono += 1_000;
        assert!(proposals(&sent(t.input(Input::Tick))).is_empty());
        t.now.wall = round_at;
        t.now.mono += 1_000;
        let proposed = proposals(&sent(t.input(Input::Tick)));
        let games: BTreeSet<(String, String)> = proposed.values().cloned().collect();
        let playing: BTreeSet<&String> = games.iter().flat_map(|(b, w)| [b, w]).collect();
        assert_eq!(games.len(), waiting.len() / 2, "round {round}: {games:?}");
        // The organiser's view of the scheduled game: when the round was paired, who plays.
        let view = t.lobby.scheduled_view();
        let when = round_at.format("%Y/%m/%d %H:%M:%S").to_string();
        assert_eq!(view[0].paired_at.as_deref(), Some(when.as_str()));
        let shown: BTreeSet<&String> = view[0].playing.iter().collect();
        assert_eq!(shown, playing, "round {round}");
        let left: Vec<&String> = waiting.iter().filter(|n| !playing.contains(n)).collect();
        assert_eq!(left.len(), waiting.len() % 2, "round {round}");
        if let Some(l) = left.first() {
            assert!(
                !sat_out.contains(l),
                "{l} sat out twice while others had not"
            );
            sat_out.push((*l).clone());
        }
        // The pairing costs no more than the rating order's neighbours (the least total
        // difference when nobody met before).
        let field: Vec<Waiting> = waiting
            .iter()
            .filter(|n| playing.contains(n))
            .map(|n| Waiting {
                id: n.clone(),
                rating: ratings[n],
                estimated: false,
                last: None,
                since_sat_out: 0,
                balance: 0,
            })
            .collect();
        let index = |n: &String| field.iter().position(|w| w.id == *n).unwrap();
        let ours: Vec<(usize, usize)> = games.iter().map(|(b, w)| (index(b), index(w))).collect();
        let neighbours: Vec<(usize, usize)> =
            (0..field.len() / 2).map(|k| (2 * k, 2 * k + 1)).collect();
        let spread: i64 = ours
            .iter()
            .map(|&(b, w)| (field[b].rating - field[w].rating).abs())
            .sum();
        assert!(
            spread <= total(&field, &neighbours) + 400 * games.len() as i64,
            "round {round}: {spread}"
        );
        for (b, w) in &games {
            met.insert((b.min(w).clone(), b.max(w).clone()));
            colours.entry(b.clone()).or_default().push(true);
            colours.entry(w.clone()).or_default().push(false);
        }
        // Every game played out: AGREE, START, Black resigns.
        for &conn in proposed.keys() {
            t.line(conn, "AGREE");
        }
        for (&conn, (b, _)) in &proposed {
            if names[conn as usize - 1] == *b {
                let ended = t.line(conn, "%TORYO");
                assert!(
                    ended.iter().any(|(_, m)| m.contains("#RESIGN")),
                    "{ended:?}"
                );
            }
        }
    }
    // Colours alternate: nobody has Black (or White) three times running.
    for (n, c) in &colours {
        assert!(
            !c.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
            "{n}: {c:?}"
        );
    }
    println!(
        "12 rounds: {} distinct pairs, {} sat out once each",
        met.len(),
        sat_out.len()
    );
    assert!(
        met.len() > 40,
        "pairings vary with who met last: {}",
        met.len()
    );
}

/// After a restart the rounds remember who met whom: the last opponents are taken up
/// from the stored games, so the first round after it does not pair them again (without
/// them, four equal players pair as the first round did).
#[test]
fn the_pairing_history_is_taken_up_after_a_restart() {
    let round = |history: &[([&str; 2], [Option<&str>; 2])]| {
        let config = Config {
            schedules: vec![(GAME.into(), Schedule::parse(":00,:30").unwrap())],
            ..Config::default()
        };
        let mut t = Transcript::with(config);
        let games: Vec<crate::store::NamedGame> = history
            .iter()
            .map(|(n, r)| (n.map(String::from), r.map(|x| x.map(String::from))))
            .collect();
        t.lobby.remember_scheduled(&games);
        t.now = at("2026-11-26 09:55:00.000");
        for (k, n) in ["ann", "ben", "cat", "dan"].iter().enumerate() {
            t.login_x1(k as u64 + 1, n);
            t.line(k as u64 + 1, &format!("%%GAME {GAME} *"));
        }
        t.now.wall = at("2026-11-26 10:00:00.000").wall;
        t.now.mono += 1_000;
        let games: BTreeSet<(String, String)> = proposals(&sent(t.input(Input::Tick)))
            .into_values()
            .collect();
        games
    };
    let fresh = round(&[]);
    assert_eq!(fresh.len(), 2);
    // Those pairs met in the stored games before the restart (without passwords: their
    // names are their ids, as when they were paired).
    let history: Vec<([&str; 2], [Option<&str>; 2])> = fresh
        .iter()
        .map(|(b, w)| ([b.as_str(), w.as_str()], [Some(""), None]))
        .collect();
    let after = round(&history);
    assert_eq!(after.len(), 2);
    for (b, w) in &after {
        assert!(
            !fresh.contains(&(b.clone(), w.clone())) && !fresh.contains(&(w.clone(), b.clone())),
            "{b} v {w} met just before the restart: {fresh:?} then {after:?}"
        );
    }
}

/// A lobby whose `GAME` has rounds at `:00` and `:30`, at 09:55 on 2026-11-26.
fn rounds_at_9_55() -> Transcript {
    let mut t = Transcript::with(Config {
        schedules: vec![(GAME.into(), Schedule::parse(":00,:30").unwrap())],
        ..Config::default()
    });
    t.now = at("2026-11-26 09:55:00.000");
    t
}

/// Logs `name` in on `conn` in CSA mode, naming the scheduled game.
fn login_csa(t: &mut Transcript, conn: u64, name: &str) {
    t.input(Input::LoggedIn(
        conn,
        crate::lobby::io::CheckedLogin {
            who: crate::identity::Identity::csa(name),
            x1: false,
            game: Some((crate::identity::GameName::from(GAME), None)),
            address: None,
            reconnect: None,
        },
    ));
}

/// Whether the batch closes `conn`.
fn closes(out: &[crate::lobby::io::Output], conn: u64) -> bool {
    out.iter()
        .any(|o| matches!(o, crate::lobby::io::Output::Close(c) if *c == conn))
}

/// The round's time: the lobby's clock moved to `wall`, a second on.
fn tick_at(t: &mut Transcript, wall: &str) -> Vec<crate::lobby::io::Output> {
    t.now.wall = at(wall).wall;
    t.now.mono += 1_000;
    t.input(Input::Tick)
}

/// Issue 43: a player whose proposal the other side withdraws as the round is paired
/// (it leaves, or lets the agreement lapse) is not cut off to wait for the next round: in
/// CSA mode it is told `REJECT` and, at once, a game with the player the round left out;
/// with nobody of the round left to play it waits on, connected, for the next round. A
/// newcomer between rounds still waits for the next one.
#[test]
fn a_player_whose_partner_leaves_as_the_round_is_paired_plays_the_one_left_out() {
    let mut t = rounds_at_9_55();
    let names = ["ann", "ben", "cat", "dan", "eve"];
    for (k, n) in names.iter().enumerate() {
        login_csa(&mut t, k as u64 + 1, n);
    }
    let proposed = proposals(&sent(tick_at(&mut t, "2026-11-26 10:00:00.000")));
    assert_eq!(proposed.len(), 4, "two games: {proposed:?}");
    let conn_of = |n: &str| names.iter().position(|m| *m == n).unwrap() as u64 + 1;
    let mut games: Vec<(String, String)> = proposed.values().cloned().collect();
    games.dedup();
    let out_of_round = names
        .iter()
        .find(|n| !games.iter().any(|(b, w)| b == *n || w == *n))
        .expect("one sits out");
    // The first game's Black leaves before agreeing: White hears REJECT, is not cut off,
    // and is proposed a game with the one left out in the same batch.
    let (left, stranded) = games[0].clone();
    let out = t.input(Input::Closed(conn_of(&left)));
    let told = sent(out.clone());
    let to_stranded: String = told
        .iter()
        .filter(|(c, _)| *c == conn_of(&stranded))
        .map(|(_, m)| m.as_str())
        .collect();
    assert!(to_stranded.starts_with("REJECT:"), "{told:?}");
    assert!(!closes(&out, conn_of(&stranded)), "{stranded} was cut off");
    let again: Vec<(String, String)> = proposals(&told).into_values().collect();
    assert_eq!(again.len(), 2, "{told:?}");
    let mut pair = [again[0].0.clone(), again[0].1.clone()];
    pair.sort();
    let mut expected = [stranded.clone(), out_of_round.to_string()];
    expected.sort();
    assert_eq!(pair, expected);
    // The second game: its Black agrees, its White lets the agreement lapse. White goes
    // (CSA mode: the connection ends); Black, with nobody of the round left, waits on.
    let (agreed, lapsed) = games[1].clone();
    t.line(conn_of(&agreed), "AGREE");
    t.now.mono += crate::lobby::io::AGREE_TIMEOUT_MS;
    let out = t.input(Input::Tick);
    assert!(closes(&out, conn_of(&lapsed)));
    assert!(!closes(&out, conn_of(&agreed)), "{agreed} was cut off");
    assert!(proposals(&sent(out)).is_empty());
    // A newcomer between rounds is not paired with it: rounds pair at their time.
    login_csa(&mut t, 9, "fay");
    assert!(proposals(&sent(t.input(Input::Tick))).is_empty());
    // The next round pairs them.
    let next: Vec<(String, String)> = proposals(&sent(tick_at(&mut t, "2026-11-26 10:30:00.000")))
        .into_values()
        .collect();
    assert_eq!(next.len(), 2, "{next:?}");
    let mut pair = [next[0].0.clone(), next[0].1.clone()];
    pair.sort();
    let mut expected = [agreed.clone(), "fay".to_string()];
    expected.sort();
    assert_eq!(pair, expected);
}

/// In x1 mode the stranded player is released as after any game (it says `%%GAME` again
/// to wait): saying it pairs it at once with the one the round left out.
#[test]
fn an_x1_player_left_without_a_game_is_paired_when_it_waits_again() {
    let mut t = rounds_at_9_55();
    for (k, n) in ["ann", "ben", "cat"].iter().enumerate() {
        t.login_x1(k as u64 + 1, n);
        t.line(k as u64 + 1, &format!("%%GAME {GAME} *"));
    }
    let proposed = proposals(&sent(tick_at(&mut t, "2026-11-26 10:00:00.000")));
    assert_eq!(proposed.len(), 2);
    let (&rejecting, _) = proposed.iter().next().unwrap();
    let (&stranded, _) = proposed.iter().nth(1).unwrap();
    let left_out = (1..=3).find(|c| !proposed.contains_key(c)).unwrap();
    let told = t.line(rejecting, "REJECT");
    assert!(
        proposals(&told).is_empty(),
        "nothing unasked in x1 mode: {told:?}"
    );
    let again = t.line(stranded, &format!("%%GAME {GAME} *"));
    let paired: BTreeSet<u64> = proposals(&again).into_keys().collect();
    assert_eq!(paired, BTreeSet::from([stranded, left_out]), "{again:?}");
    // The one who rejected waits for the next round like anyone else.
    assert!(t.line(rejecting, &format!("%%GAME {GAME} *")).is_empty());
}
