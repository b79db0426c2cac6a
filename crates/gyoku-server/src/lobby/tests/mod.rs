//! The lobby's unit tests: its inputs in, its outputs read back.

use gyoku::Preset;
use gyoku::rules::Fouls;

use super::Lobby;
use super::change::Change;
use super::io::{
    CheckedLogin, Config, ConnId, GameSetup, Input, MAX_BUOYS_PER_ADDRESS, MAX_BUOYS_PER_PLAYER,
    Now, Output,
};
use crate::identity::Identity;

mod clock_rules;
mod event_director;
mod event_rules;
mod record_endings;
mod round_director;
mod round_rules;

pub(super) fn at(s: &str) -> Now {
    Now {
        mono: 0,
        wall: chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap(),
        utc_ms: 0,
    }
}

/// A lobby driven by inputs, as the driver would, with what it answers read back.
pub(super) struct Transcript {
    pub(super) lobby: Lobby,
    pub(super) now: Now,
}

impl Transcript {
    pub(super) fn new() -> Transcript {
        Transcript::with(Config::default())
    }

    pub(super) fn with(config: Config) -> Transcript {
        Transcript {
            lobby: Lobby::new(config, Vec::new(), Vec::new()),
            now: at("2026-11-23 10:00:00.000"),
        }
    }

    pub(super) fn input(&mut self, input: Input) -> Vec<Output> {
        let mut out = Vec::new();
        self.lobby.handle(input, self.now, &mut out);
        out
    }

    pub(super) fn login_x1(&mut self, id: ConnId, name: &str) {
        self.input(Input::LoggedIn(
            id,
            CheckedLogin {
                who: Identity::csa(name),
                x1: true,
                game: None,
                address: None,
                reconnect: None,
            },
        ));
    }

    /// What `line` from `id` makes the lobby send, to whom.
    pub(super) fn line(&mut self, id: ConnId, line: &str) -> Vec<(ConnId, String)> {
        let out = self.input(Input::Line(id, line.into()));
        sent(out)
    }
}

/// The `Send`s of a batch: to whom, what.
pub(super) fn sent(out: Vec<Output>) -> Vec<(ConnId, String)> {
    out.into_iter()
        .filter_map(|o| match o {
            Output::Send(to, lines) => Some((to, lines.iter().map(|l| format!("{l}\n")).collect())),
            Output::Summary(to, summary) => Some((to, summary.to_string())),
            _ => None,
        })
        .collect()
}

/// Issue 26: a game's rules are data. A game set up under a plain name plays its
/// set-up rules and fouls, and stores them as such; nothing reads them from the name.
#[test]
fn a_set_up_games_rules_are_data_not_its_name() {
    let mut t = Transcript::new();
    let setup = GameSetup {
        preset: Some(Preset::Jsa),
        fouls: Some(Fouls::Refuse),
        ..GameSetup::default()
    };
    t.input(Input::Setup {
        game: "plain-600-10".into(),
        setup: Box::new(setup),
    });
    t.login_x1(1, "a");
    t.login_x1(2, "b");
    t.line(1, "%%GAME plain-600-10 +");
    let proposed = t.line(2, "%%GAME plain-600-10 -");
    assert!(
        proposed[0].1.contains("Declaration:Gyoku jsa"),
        "{proposed:?}"
    );
    t.line(1, "AGREE");
    let started = t.input(Input::Line(2, "AGREE".into()));
    let stored = started.iter().find_map(|o| match o {
        Output::Store(Change::GameStarted(g)) => Some(g),
        _ => None,
    });
    let stored = stored.expect("the start is stored");
    assert_eq!(
        (stored.rules.as_str(), stored.fouls.as_deref()),
        ("jsa", Some("refuse"))
    );
    let refused = t.line(1, "+7775FU");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].1.starts_with("##[ERROR] illegal move refused"),
        "{refused:?}"
    );
    let echoed = t.line(1, "+7776FU");
    assert_eq!(echoed[0].1, "+7776FU,T0\n");
}

/// Issue 26: `--max-moves` made a limit of its own, dropping the JSA check extension
/// and its no contest; every limit now goes through the core's `set_max_moves`.
#[test]
fn a_server_move_limit_keeps_the_presets_way_at_the_limit() {
    use gyoku::rules::Resolution;
    let lobby = Lobby::new(
        Config {
            max_moves: Some(600),
            ..Config::default()
        },
        Vec::new(),
        Vec::new(),
    );
    let (rules, plies) = lobby.rules_for(Preset::Jsa);
    let limit = rules.move_limit.unwrap();
    assert_eq!(plies, 600);
    assert_eq!(
        (limit.plies, limit.check_extension, limit.result),
        (600, true, Resolution::NoContest)
    );
    let (rules, plies) = lobby.rules_for(Preset::Csa);
    assert_eq!(
        (plies, rules.move_limit.unwrap().result),
        (600, Resolution::Draw)
    );
    let none = Lobby::new(
        Config {
            max_moves: Some(0),
            ..Config::default()
        },
        Vec::new(),
        Vec::new(),
    );
    let (rules, plies) = none.rules_for(Preset::Jsa);
    assert_eq!((rules.move_limit, plies), (None, 0));
}

/// Issue 28, item 7: `%%CHAT` relayed ESC, BEL, BS and NUL to every x1 client.
#[test]
fn chat_control_bytes_are_shown_escaped_never_sent() {
    let mut t = Transcript::new();
    t.login_x1(1, "alice");
    t.login_x1(2, "bob");
    let sent = t.line(1, "%%CHAT hi \x1b[2J\x07\x08\0 there");
    assert_eq!(sent.len(), 2, "{sent:?}");
    for (_, text) in &sent {
        assert_eq!(text, "##[CHAT][alice] hi \\x1b[2J\\x07\\x08\\x00 there\n");
        assert!(
            !text.contains(|c: char| c.is_control() && c != '\n'),
            "{text:?}"
        );
    }
}

/// Issue 28, item 16: `%%SETBUOY` had no bound (20,000 buoys in 1.9 s, 168 MB).
#[test]
fn buoys_are_bounded_per_player() {
    let mut t = Transcript::new();
    t.login_x1(1, "alice");
    t.login_x1(2, "bob");
    for i in 0..MAX_BUOYS_PER_PLAYER {
        let sent = t.line(1, &format!("%%SETBUOY buoy_{i}-600-10 +7776FU 1"));
        assert_eq!(sent, [(1, "##[SETBUOY] +OK\n".to_string())], "{i}");
    }
    let sent = t.line(1, "%%SETBUOY buoy_more-600-10 +7776FU 1");
    assert!(
        sent[0].1.starts_with("##[ERROR] too many buoy games"),
        "{sent:?}"
    );
    assert_eq!(t.lobby.buoys.len(), MAX_BUOYS_PER_PLAYER);
    // Another player may still set one.
    let sent = t.line(2, "%%SETBUOY buoy_bob-600-10 +7776FU 1");
    assert_eq!(sent, [(2, "##[SETBUOY] +OK\n".to_string())]);
}

/// Issue 43: one person with 100 names from one address filled the server's 10,000 buoys
/// in 4.3 s. An address sets at most `MAX_BUOYS_PER_ADDRESS`, whatever names it uses;
/// another address still may.
#[test]
fn buoys_are_bounded_per_address() {
    let mut t = Transcript::new();
    let home: std::net::IpAddr = [192, 0, 2, 7].into();
    let names = MAX_BUOYS_PER_ADDRESS.div_ceil(MAX_BUOYS_PER_PLAYER) + 1;
    for n in 0..names {
        let login = CheckedLogin {
            who: Identity::csa(&format!("name{n}")),
            x1: true,
            game: None,
            address: Some(home),
            reconnect: None,
        };
        t.input(Input::LoggedIn(n as ConnId + 1, login));
    }
    let mut set = 0;
    'names: for n in 0..names {
        for i in 0..MAX_BUOYS_PER_PLAYER {
            let sent = t.line(
                n as ConnId + 1,
                &format!("%%SETBUOY buoy_{n}_{i}-600-10 +7776FU 1"),
            );
            if sent[0].1 != "##[SETBUOY] +OK\n" {
                assert!(
                    sent[0]
                        .1
                        .contains(&format!("{MAX_BUOYS_PER_ADDRESS} from one address")),
                    "{sent:?}"
                );
                break 'names;
            }
            set += 1;
        }
    }
    assert_eq!(set, MAX_BUOYS_PER_ADDRESS);
    let other = CheckedLogin {
        who: Identity::csa("elsewhere"),
        x1: true,
        game: None,
        address: Some([198, 51, 100, 1].into()),
        reconnect: None,
    };
    t.input(Input::LoggedIn(1000, other));
    let sent = t.line(1000, "%%SETBUOY buoy_else-600-10 +7776FU 1");
    assert_eq!(sent, [(1000, "##[SETBUOY] +OK\n".to_string())]);
}

#[test]
fn game_ids_follow_the_clock_and_never_repeat() {
    let mut lobby = Lobby::new(Config::default(), Vec::new(), Vec::new());
    let t = at("2026-11-23 10:00:00.250");
    // Many games in one second: each keeps the second (their names differ).
    for i in 0..1000 {
        let id = lobby.next_game_id("g-600-10", &format!("b{i}"), &format!("w{i}"), t);
        assert!(id.ends_with("+20261123100000"), "{id}");
    }
    // The same game and players twice in one second: the second one a second on.
    let a = lobby.next_game_id("g-600-10", "b", "w", t);
    let b = lobby.next_game_id("g-600-10", "b", "w", at("2026-11-23 10:00:00.900"));
    assert_eq!(a, "gyoku+g-600-10+b+w+20261123100000");
    assert_eq!(b, "gyoku+g-600-10+b+w+20261123100001");
    // Later, the clock again; what a past second gave is forgotten.
    let c = lobby.next_game_id("g-600-10", "b", "w", at("2026-11-23 10:00:05.000"));
    assert_eq!(c, "gyoku+g-600-10+b+w+20261123100005");
    assert_eq!(lobby.ids.issued.len(), 1);
}

/// A server started again in the second its last game started issued that Game_ID
/// again, and the store's refusal stopped the server. The IDs it issued are remembered.
#[test]
fn game_ids_issued_before_a_restart_are_not_issued_again() {
    let mut lobby = Lobby::new(Config::default(), Vec::new(), Vec::new());
    lobby.remember_game_ids([
        "gyoku+g-600-10+b+w+20261123100000".to_string(),
        "gyoku+g-600-10+b+w+20261123100001".to_string(),
        "not an id".to_string(),
    ]);
    let t = at("2026-11-23 10:00:00.500");
    assert_eq!(
        lobby.next_game_id("g-600-10", "b", "w", t),
        "gyoku+g-600-10+b+w+20261123100002"
    );
    assert_eq!(
        lobby.next_game_id("g-600-10", "x", "y", t),
        "gyoku+g-600-10+x+y+20261123100000"
    );
}

/// Issue 28, item 11: a burst of `%%WHO` (each a line for every connection) stalled every
/// game. A listing of everyone is answered once a second per connection; sooner, a short
/// refusal.
#[test]
fn listings_of_everyone_are_paced() {
    let mut t = Transcript::new();
    t.login_x1(1, "a");
    t.login_x1(2, "b");
    let who = t.line(1, "%%WHO");
    assert!(who[0].1.ends_with("##[WHO] +OK\n"), "{who:?}");
    for line in ["%%WHO", "%%LIST", "%%RATING", "%%FLOODGATE"] {
        let refused = t.line(1, line);
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(refused[0].1.starts_with("##[ERROR] %%"), "{refused:?}");
    }
    // Another connection is not paced by this one's listings.
    assert!(t.line(2, "%%LIST")[0].1.ends_with("##[LIST] +OK\n"));
    t.now.mono += crate::lobby::LISTING_INTERVAL_MS;
    assert!(t.line(1, "%%LIST")[0].1.ends_with("##[LIST] +OK\n"));
}

/// Issue 40, step 1: the lobby speaks values. A refusal leaves it as the rules' refusal
/// (its kind a value, its text written only by a socket's writer); the summary as a
/// `GameSummary`; a move sent as a value is played on its player's turn and refused out
/// of it; `CHALLENGE` and `%%IMPASSE` are messages, read once.
#[test]
fn the_lobby_sends_values_and_takes_them() {
    use gyoku::{GameError, IllegalMoveKind, Move};
    use gyoku_proto::csa::ClientMessage;
    use gyoku_proto::csa_line::ServerLine;
    let mut t = Transcript::new();
    t.input(Input::Setup {
        game: "values-600-10".into(),
        setup: Box::new(GameSetup {
            preset: Some(Preset::Jsa),
            fouls: Some(Fouls::Refuse),
            ..GameSetup::default()
        }),
    });
    t.login_x1(1, "a");
    t.login_x1(2, "b");
    t.line(1, "%%GAME values-600-10 +");
    let proposed = t.input(Input::Line(2, "%%GAME values-600-10 -".into()));
    let summaries: Vec<_> = proposed
        .iter()
        .filter_map(|o| match o {
            Output::Summary(to, s) => Some((*to, s.your_turn())),
            _ => None,
        })
        .collect();
    assert_eq!(
        summaries,
        [
            (1, Some(gyoku::Color::Black)),
            (2, Some(gyoku::Color::White))
        ]
    );
    t.line(1, "AGREE");
    t.line(2, "AGREE");
    let lines = |out: Vec<Output>| -> Vec<(ConnId, Vec<ServerLine>)> {
        out.into_iter()
            .filter_map(|o| match o {
                Output::Send(to, lines) => Some((to, lines)),
                _ => None,
            })
            .collect()
    };
    // Out of turn, a value is refused, not kept for later.
    let early = t.input(Input::Play(2, "3c3d".parse::<Move>().unwrap()));
    assert_eq!(
        lines(early),
        [(2, vec![ServerLine::Error("not your turn".into())])]
    );
    // An illegal move under refused fouls: its kind travels as a value.
    let refused = t.input(Input::Play(1, "7g7e".parse::<Move>().unwrap()));
    let kind = IllegalMoveKind::BadMovement;
    assert_eq!(
        lines(refused),
        [(1, vec![ServerLine::Refused(GameError::IllegalMove(kind))])]
    );
    // On its turn, a value is played and echoed to both as the CSA move it is.
    let played = lines(t.input(Input::Play(1, "7g7f".parse::<Move>().unwrap())));
    assert_eq!(played.len(), 2, "{played:?}");
    assert!(
        played.iter().all(|(_, l)| l[0].to_string() == "+7776FU,T0"),
        "{played:?}"
    );
    // CHALLENGE and %%IMPASSE are messages, whether read from a line or sent as values.
    let challenge = t.input(Input::Message(1, ClientMessage::Challenge));
    assert_eq!(lines(challenge), [(1, vec![ServerLine::ChallengeAccepted])]);
    assert_eq!(
        t.line(1, "CHALLENGE"),
        [(1, "CHALLENGE ACCEPTED\n".to_string())]
    );
    let impasse = t.input(Input::Message(2, ClientMessage::Impasse));
    assert_eq!(
        lines(impasse),
        [(2, vec![ServerLine::Refused(GameError::AgreementNotAllowed)])]
    );
}

/// Issue 43: a chat line goes to every x1 listener as one shared copy, so a flood of long
/// lines to many listeners that never read costs one copy per line, not one per listener
/// (a batch of such lines to 200 listeners took gigabytes before).
#[test]
fn a_chat_line_is_one_copy_for_every_listener() {
    use gyoku_proto::csa_line::ServerLine;
    let mut t = Transcript::new();
    for (id, name) in [(1, "talker"), (2, "a"), (3, "b"), (4, "c")] {
        t.login_x1(id, name);
    }
    let long = "x".repeat(16_000);
    let out = t.input(Input::Line(1, format!("%%CHAT {long}")));
    let shared: Vec<std::sync::Arc<str>> = out
        .iter()
        .filter_map(|o| match o {
            Output::Send(_, lines) => match &lines[..] {
                [ServerLine::Chat { message, .. }] => Some(std::sync::Arc::clone(message)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(shared.len(), 4, "every x1 connection hears it");
    assert!(shared.iter().all(|m| std::sync::Arc::ptr_eq(m, &shared[0])));
    assert_eq!(&*shared[0], long.as_str());
}
