//! The lobby's clock rules as transcripts: inputs at stepped instants in, what is sent out.
//! No sockets and no sleeps; `tests/csa_server.rs` plays a few of them over real sockets
//! end to end.

use super::{Transcript, sent};
use crate::identity::Identity;
use crate::lobby::io::{AGREE_TIMEOUT_MS, CheckedLogin, Config, ConnId, Input, Millis};

/// Two x1 players (connections 1, Black, and 2, White) agree to `game` at instant 0; the
/// Game_ID.
fn started(t: &mut Transcript, game: &str) -> String {
    t.login_x1(1, "b");
    t.login_x1(2, "w");
    t.line(1, &format!("%%GAME {game} +"));
    t.line(2, &format!("%%GAME {game} -"));
    t.line(1, "AGREE");
    let start = t.line(2, "AGREE");
    let id = start[0].1.trim().strip_prefix("START:").expect("started");
    id.to_string()
}

/// What a tick at `mono` sends.
fn tick(t: &mut Transcript, mono: Millis) -> Vec<(ConnId, String)> {
    t.now.mono = mono;
    sent(t.input(Input::Tick))
}

/// What `line` from `conn` at `mono` sends.
fn line_at(t: &mut Transcript, mono: Millis, conn: ConnId, line: &str) -> Vec<(ConnId, String)> {
    t.now.mono = mono;
    t.line(conn, line)
}

fn time_up(loser: ConnId, winner: ConnId) -> Vec<(ConnId, String)> {
    vec![
        (loser, "#TIME_UP\n#LOSE\n".into()),
        (winner, "#TIME_UP\n#WIN\n".into()),
    ]
}

fn echo(text: &str) -> Vec<(ConnId, String)> {
    vec![(1, format!("{text}\n")), (2, format!("{text}\n"))]
}

/// Sudden death: the server flags the side to move at the tick of its deadline, with no
/// message from the player, and not a millisecond before.
#[test]
fn time_runs_out_at_the_tick_of_its_deadline() {
    let mut t = Transcript::new();
    started(&mut t, "blitz-1-0");
    assert_eq!(t.lobby.next_deadline(), Some(1_000));
    assert_eq!(tick(&mut t, 999), []);
    let mut ended = tick(&mut t, 1_000);
    ended.retain(|(_, text)| text.starts_with('#'));
    assert_eq!(ended, time_up(1, 2));
    assert_eq!(t.lobby.next_deadline(), None);
}

/// A move that arrives after the deadline, before any tick, loses on time: it is not
/// echoed.
#[test]
fn a_move_after_the_deadline_is_a_time_up() {
    let mut t = Transcript::new();
    started(&mut t, "blitz-1-0");
    let mut ended = line_at(&mut t, 1_500, 1, "+7776FU");
    ended.retain(|(_, text)| text.starts_with('#'));
    assert_eq!(ended, time_up(1, 2));
}

/// Byoyomi, as shogi-server: each move is charged whole seconds, floored (1.2 s is 1 s),
/// and the side to move is flagged once its floored time reaches the byoyomi.
#[test]
fn byoyomi_charges_whole_seconds() {
    let mut t = Transcript::new();
    started(&mut t, "byo-0-2");
    assert_eq!(line_at(&mut t, 1_200, 1, "+7776FU"), echo("+7776FU,T1"));
    assert_eq!(line_at(&mut t, 3_199, 2, "-3334FU"), echo("-3334FU,T1"));
    assert_eq!(t.lobby.next_deadline(), Some(5_199));
    assert_eq!(tick(&mut t, 5_198), []);
    let mut ended = tick(&mut t, 5_199);
    ended.retain(|(_, text)| text.starts_with('#'));
    assert_eq!(ended, time_up(1, 2));
}

/// Fischer: the increment is added after each move, on top of what is left, and is
/// usable during the move itself, as on CSA servers (`my - t + increment <= 0` flags).
#[test]
fn an_increment_is_added_after_each_move() {
    let mut t = Transcript::new();
    started(&mut t, "inc-10-5F");
    assert_eq!(line_at(&mut t, 3_000, 1, "+7776FU"), echo("+7776FU,T3"));
    assert_eq!(line_at(&mut t, 4_000, 2, "-3334FU"), echo("-3334FU,T1"));
    // Black: 10 - 3 + 5 = 12 s left, and this move's 5 s, running from 4 s.
    assert_eq!(t.lobby.next_deadline(), Some(21_000));
    assert_eq!(tick(&mut t, 20_999), []);
    let mut ended = tick(&mut t, 21_000);
    ended.retain(|(_, text)| text.starts_with('#'));
    assert_eq!(ended, time_up(1, 2));
}

/// `--least-time-per-move`: a quick move is charged the least time.
#[test]
fn a_quick_move_is_charged_the_least_time_per_move() {
    let mut t = Transcript::with(Config {
        least_time_per_move: 1,
        ..Config::default()
    });
    started(&mut t, "least-600-10");
    assert_eq!(line_at(&mut t, 200, 1, "+7776FU"), echo("+7776FU,T1"));
    assert_eq!(line_at(&mut t, 2_700, 2, "-3334FU"), echo("-3334FU,T2"));
}

/// A proposal not agreed in 120 s is withdrawn by the server.
#[test]
fn a_proposal_lapses_after_two_minutes() {
    let mut t = Transcript::new();
    t.login_x1(1, "b");
    t.login_x1(2, "w");
    t.line(1, "%%GAME lapse-600-10 +");
    let proposed = t.line(2, "%%GAME lapse-600-10 -");
    let id = proposed[0]
        .1
        .lines()
        .find_map(|l| l.strip_prefix("Game_ID:"))
        .expect("a Game_ID")
        .to_string();
    t.line(1, "AGREE");
    assert_eq!(t.lobby.next_deadline(), Some(AGREE_TIMEOUT_MS));
    assert_eq!(tick(&mut t, AGREE_TIMEOUT_MS - 1), []);
    let lapsed = format!("REJECT:{id} by the Server (timed out)\n");
    assert_eq!(
        tick(&mut t, AGREE_TIMEOUT_MS),
        [(1, lapsed.clone()), (2, lapsed)]
    );
}

/// A suspended game is proposed again with each side's own time left, its moves, and the
/// clock running from where it stopped.
#[test]
fn a_resumed_game_keeps_each_sides_time() {
    let mut t = Transcript::new();
    started(&mut t, "susp-600-10");
    assert_eq!(line_at(&mut t, 2_100, 1, "+7776FU"), echo("+7776FU,T2"));
    assert_eq!(line_at(&mut t, 2_100, 2, "-3334FU"), echo("-3334FU,T0"));
    let suspended = line_at(&mut t, 2_500, 1, "%CHUDAN");
    assert_eq!(
        suspended[..2],
        [(1, "#CHUDAN\n".into()), (2, "#CHUDAN\n".into())]
    );
    t.now.mono = 10_000;
    t.line(2, "%%GAME susp-600-10 -");
    let proposed = t.line(1, "%%GAME susp-600-10 +");
    let summary = &proposed[0].1;
    for part in [
        "BEGIN Time+\nTime_Unit:1sec\nTotal_Time:598\n",
        "BEGIN Time-\nTime_Unit:1sec\nTotal_Time:600\n",
        "+7776FU,T2\n-3334FU,T0\nEND Position\n",
    ] {
        assert!(summary.contains(part), "{part:?} in {summary}");
    }
    t.line(1, "AGREE");
    t.line(2, "AGREE");
    // Black has 598 s and a 10 s byoyomi from 10 s on.
    assert_eq!(t.lobby.next_deadline(), Some(10_000 + 608_000));
}

/// Issue 43: the storage notice reached CSA-mode players too, and python-shogi's client,
/// which knows no `##[` line, stopped at it. Only x1 players are told; a CSA-mode player's
/// clock stands still all the same.
#[test]
fn a_csa_mode_player_is_not_sent_the_storage_notice() {
    let mut t = Transcript::new();
    t.login_x1(1, "b");
    t.input(Input::LoggedIn(
        2,
        CheckedLogin {
            who: Identity::csa("w"),
            x1: false,
            game: Some(("plain-600-10".into(), Some(gyoku::Color::White))),
            address: None,
            reconnect: None,
        },
    ));
    t.line(1, "%%GAME plain-600-10 +");
    t.line(1, "AGREE");
    let start = t.line(2, "AGREE");
    assert!(
        start.iter().any(|(_, l)| l.starts_with("START:")),
        "{start:?}"
    );
    t.now.mono = 4_000;
    let told = sent(t.input(Input::StorageFailing));
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].0, 1, "the x1 player alone: {told:?}");
    assert_eq!(t.lobby.next_deadline(), None, "every clock stands still");
}

/// Storage fails (issue 28, item 17): every running clock stops and the players are told;
/// a move made meanwhile is still decided (the driver keeps its echo until it is stored)
/// and starts no clock; when storage works again each clock goes on from where it stood.
#[test]
fn clocks_stand_still_while_storage_fails() {
    let mut t = Transcript::new();
    started(&mut t, "blitz-10-0");
    t.now.mono = 4_000;
    let told = sent(t.input(Input::StorageFailing));
    assert_eq!(told.len(), 2, "{told:?}");
    assert!(
        told.iter()
            .all(|(_, l)| l.starts_with("##[ERROR] storage is failing"))
    );
    assert_eq!(t.lobby.next_deadline(), None);
    assert_eq!(tick(&mut t, 100_000), []);
    // Black's move, long after: charged the 4 s it had used, and White's clock stays still.
    assert_eq!(line_at(&mut t, 200_000, 1, "+7776FU"), echo("+7776FU,T4"));
    assert_eq!(t.lobby.next_deadline(), None);
    t.now.mono = 300_000;
    assert_eq!(sent(t.input(Input::StorageWorks)), []);
    // White's 10 s run from the moment storage works.
    assert_eq!(t.lobby.next_deadline(), Some(310_000));
    let mut ended = tick(&mut t, 310_000);
    ended.retain(|(_, text)| text.starts_with('#'));
    ended.sort();
    assert_eq!(
        ended,
        [
            (1, "#TIME_UP\n#WIN\n".to_string()),
            (2, "#TIME_UP\n#LOSE\n".to_string())
        ]
    );
}

/// Issue 41, item 3: a no contest under the JSA's rules is replayed with each player's own
/// time left, both given the same addition so that the shorter has one hour, never past the
/// initial time (対局規定 第6条, as ja.wikipedia's 千日手 page quotes it). A 3-hour game:
/// Black keeps 2:59:00, White 0:40:00; both get 20 minutes, Black's capped at 3:00:00. The
/// replay swaps colours: its Black (the first game's White) has 1:00:00, its White 3:00:00.
#[test]
fn a_jsa_replay_keeps_each_players_time_topped_up_to_an_hour() {
    let mut t = Transcript::new();
    started(&mut t, "rules_jsa_long-10800-60");
    // Black thinks a minute, White 2 h 20 min; then the rooks go to and fro.
    assert_eq!(line_at(&mut t, 60_000, 1, "+2838HI"), echo("+2838HI,T60"));
    let mut now = 60_000 + 8_400_000;
    assert_eq!(line_at(&mut t, now, 2, "-8272HI"), echo("-8272HI,T8400"));
    let cycle = ["+3828HI", "-7282HI", "+2838HI", "-8272HI"];
    let mut last = Vec::new();
    for (i, m) in cycle.iter().cycle().take(10).enumerate() {
        now += 100;
        last = line_at(&mut t, now, if i % 2 == 0 { 1 } else { 2 }, m);
    }
    let summary = last
        .iter()
        .find(|(conn, text)| *conn == 2 && text.contains("BEGIN Game_Summary"))
        .map(|(_, text)| text.clone())
        .unwrap_or_else(|| panic!("a replay proposed to the first game's White: {last:?}"));
    for part in [
        "Your_Turn:+\n",
        "BEGIN Time+\nTime_Unit:1sec\nTotal_Time:3600\nByoyomi:60\n",
        "BEGIN Time-\nTime_Unit:1sec\nTotal_Time:10800\nByoyomi:60\n",
    ] {
        assert!(summary.contains(part), "{part:?} in {summary}");
    }
    // Agreed, the replay's Black (connection 2) has its hour and the byoyomi.
    now += 1_000;
    t.now.mono = now;
    t.line(2, "AGREE");
    t.line(1, "AGREE");
    assert_eq!(t.lobby.next_deadline(), Some(now + 3_600_000 + 60_000));
}

/// Two x1 players agree at instant 0 to `game`, set up (as the web page sets its games)
/// with `periods` and thinking `units` beside its byoyomi.
fn with_clock(t: &mut Transcript, game: &str, periods: u32, units: gyoku::ThinkingUnits) {
    let setup = crate::lobby::GameSetup {
        clock: crate::lobby::ClockExtras { periods, units },
        ..crate::lobby::GameSetup::default()
    };
    t.input(Input::Setup {
        game: game.into(),
        setup: Box::new(setup),
    });
    started(t, game);
}

/// Issue 41, item 4: a game set up with byoyomi periods and thinking units (a web page's)
/// runs its clock with them: three 10 s periods give a move 30 s, a move of 25 s uses two
/// of them (the third then the move's whole time), and ten 60 s units beside a 30 s
/// byoyomi give a move 30 s + 10 min.
#[test]
fn periods_and_thinking_units_extend_the_byoyomi() {
    let mut t = Transcript::new();
    with_clock(&mut t, "p-0-10", 3, gyoku::ThinkingUnits::default());
    assert_eq!(t.lobby.next_deadline(), Some(30_000));
    assert_eq!(line_at(&mut t, 25_000, 1, "+7776FU"), echo("+7776FU,T25"));
    assert_eq!(line_at(&mut t, 26_000, 2, "-3334FU"), echo("-3334FU,T1"));
    // Black has one period left: 10 s.
    assert_eq!(t.lobby.next_deadline(), Some(36_000));

    let mut t = Transcript::new();
    let units = gyoku::ThinkingUnits {
        count: 10,
        unit: 60_000,
    };
    with_clock(&mut t, "nhk-0-30", 1, units);
    assert_eq!(t.lobby.next_deadline(), Some(30_000 + 600_000));
}

/// A suspended game with byoyomi periods resumes with the periods each side had left: the
/// stored moves' times are run through the clock again.
#[test]
fn a_resumed_game_keeps_each_sides_periods() {
    let mut t = Transcript::new();
    with_clock(&mut t, "susp-0-10", 3, gyoku::ThinkingUnits::default());
    // Black uses two of its three periods; White none.
    assert_eq!(line_at(&mut t, 25_000, 1, "+7776FU"), echo("+7776FU,T25"));
    assert_eq!(line_at(&mut t, 26_000, 2, "-3334FU"), echo("-3334FU,T1"));
    line_at(&mut t, 27_000, 1, "%CHUDAN");
    t.now.mono = 100_000;
    t.line(2, "%%GAME susp-0-10 -");
    t.line(1, "%%GAME susp-0-10 +");
    t.line(1, "AGREE");
    t.line(2, "AGREE");
    // One period of 10 s left to Black.
    assert_eq!(t.lobby.next_deadline(), Some(110_000));
}
