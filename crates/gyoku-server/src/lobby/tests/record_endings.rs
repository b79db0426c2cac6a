//! Every kind of ending a game can have on the server, played through the lobby (inputs in,
//! outputs out, a stepped clock, no sockets): the record the server stores for it, read
//! back and judged by `gyoku judge`'s own code, gives the stored result and reason, and
//! says how the game ended in a way the judge agrees with (issue 27, item 5).

use gyoku::{Color, Move, Position, Preset};
use gyoku_kifu::Format;
use gyoku_kifu::judge::judge;

use crate::identity::Identity;
use crate::lobby::change::Change;
use crate::lobby::{
    CLAIM_LINE, CheckedLogin, Config, GameSetup, IMPASSE_LINE, Input, Lobby, Now, Output,
    SENNICHITE_LINE,
};

/// One way a game ends: its name (rules and time), its start, what the players send
/// (USI moves, or a CSA line as it is), and the clock advanced at the end (ms).
struct Ending {
    what: &'static str,
    game: &'static str,
    sfen: Option<&'static str>,
    max_moves: Option<u32>,
    actions: &'static [&'static str],
    wait_ms: u64,
    result: &'static str,
    reason: &'static str,
}

const ENDINGS: &[Ending] = &[
    Ending {
        what: "resignation",
        game: "end-600-10",
        sfen: None,
        max_moves: None,
        actions: &["7g7f", "3c3d", "%TORYO"],
        wait_ms: 0,
        result: "white",
        reason: "resignation",
    },
    Ending {
        what: "checkmate (G*1b, the silver pinned)",
        game: "end-600-10",
        sfen: Some("R6sk/9/7G1/9/9/9/9/9/4K4 b G 1"),
        max_moves: None,
        actions: &["G*1b"],
        wait_ms: 0,
        result: "black",
        reason: "checkmate",
    },
    Ending {
        what: "nifu, lost",
        game: "end-600-10",
        sfen: Some("lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"),
        max_moves: None,
        actions: &["P*5e"],
        wait_ms: 0,
        result: "white",
        reason: "illegal_move",
    },
    Ending {
        what: "uchifuzume, lost",
        game: "end-600-10",
        sfen: Some("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1"),
        max_moves: None,
        actions: &["P*1b"],
        wait_ms: 0,
        result: "white",
        reason: "illegal_move",
    },
    Ending {
        what: "a move out of the rules by White, lost",
        game: "end-600-10",
        sfen: None,
        max_moves: None,
        actions: &["7g7f", "8b8i"],
        wait_ms: 0,
        result: "black",
        reason: "illegal_move",
    },
    Ending {
        what: "a line that is no move, lost",
        game: "end-600-10",
        sfen: None,
        max_moves: None,
        actions: &["7g7f", "-9999ZZ"],
        wait_ms: 0,
        result: "black",
        reason: "illegal_move",
    },
    Ending {
        what: "sennichite",
        game: "end-600-10",
        sfen: None,
        max_moves: None,
        actions: &[
            "2h3h", "8b7b", "3h2h", "7b8b", "2h3h", "8b7b", "3h2h", "7b8b", "2h3h", "8b7b", "3h2h",
            "7b8b",
        ],
        wait_ms: 0,
        result: "draw",
        reason: "sennichite",
    },
    Ending {
        what: "perpetual check",
        game: "end-600-10",
        sfen: Some("6k2/1+p7/9/9/9/9/9/1+P2R4/6K2 b - 1"),
        max_moves: None,
        actions: &[
            "5h3h", "3a2a", "3h2h", "2a3a", "2h3h", "3a2a", "3h2h", "2a3a", "2h3h", "3a2a", "3h2h",
            "2a3a", "2h3h",
        ],
        wait_ms: 0,
        result: "white",
        reason: "perpetual_check",
    },
    Ending {
        what: "a declaration that wins (csa, 28 points)",
        game: "end-600-10",
        sfen: Some("8R/4K3B/GGGGSSSS1/nnnn5/pppppppp1/llll5/9/r7b/4k4 b 10P 1"),
        max_moves: None,
        actions: &["%KACHI"],
        wait_ms: 0,
        result: "black",
        reason: "declaration",
    },
    Ending {
        what: "a declaration that fails (csa, no king entered)",
        game: "end-600-10",
        sfen: None,
        max_moves: None,
        actions: &["%KACHI"],
        wait_ms: 0,
        result: "white",
        reason: "failed_declaration",
    },
    Ending {
        what: "a declaration under jsa: no contest",
        game: "rules_jsa_end-600-10",
        sfen: Some("8R/4K3B/GGGGSSSS1/nnnn5/pppppppp1/llll5/9/r7b/4k4 b 10P 1"),
        max_moves: None,
        actions: &["%KACHI"],
        wait_ms: 0,
        result: "no_contest",
        reason: "declaration",
    },
    Ending {
        what: "an impasse counted by agreement (jsa, 27 each)",
        game: "rules_jsa_end-600-10",
        sfen: Some("K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1"),
        max_moves: None,
        actions: &[
            IMPASSE_LINE,
            "-", /* White's turn to speak */
            IMPASSE_LINE,
        ],
        wait_ms: 0,
        result: "no_contest",
        reason: "impasse_agreement",
    },
    Ending {
        what: "a sennichite agreed (jsa, the start position twice)",
        game: "rules_jsa_end-600-10",
        sfen: None,
        max_moves: None,
        actions: &[
            "2h3h",
            "8b7b",
            "3h2h",
            "7b8b",
            SENNICHITE_LINE,
            "-", /* White's turn to speak */
            SENNICHITE_LINE,
        ],
        wait_ms: 0,
        result: "no_contest",
        reason: "agreed_sennichite",
    },
    Ending {
        what: "a nifu claimed (jsa-amateur, fouls claimed)",
        game: "rules_jsa-amateur_claim_end-600-10",
        sfen: Some("lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"),
        max_moves: None,
        actions: &["P*5e", "-", /* White claims */ CLAIM_LINE],
        wait_ms: 0,
        result: "white",
        reason: "claimed_foul",
    },
    Ending {
        what: "a nifu, then a resignation before the claim (jsa-amateur, fouls claimed)",
        game: "rules_jsa-amateur_claim_end-600-10",
        sfen: Some("lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"),
        max_moves: None,
        actions: &["P*5e", "-", /* White resigns */ "%TORYO"],
        wait_ms: 0,
        result: "black",
        reason: "resignation",
    },
    Ending {
        what: "time up",
        game: "end-1-0",
        sfen: None,
        max_moves: None,
        actions: &["7g7f"],
        wait_ms: 5_000,
        result: "black",
        reason: "time_up",
    },
    Ending {
        what: "the move limit",
        game: "end-600-10",
        sfen: None,
        max_moves: Some(4),
        actions: &["7g7f", "3c3d", "2g2f", "8c8d"],
        wait_ms: 0,
        result: "draw",
        reason: "move_limit",
    },
];

fn at(mono: u64) -> Now {
    Now {
        mono,
        wall: chrono::NaiveDateTime::parse_from_str("2026-11-25 10:00:00", "%Y-%m-%d %H:%M:%S")
            .unwrap(),
        utc_ms: 0,
    }
}

/// Plays `e` through a lobby: the stored ending (result, reason, record).
fn play(e: &Ending) -> (Option<String>, String, String) {
    let mut lobby = Lobby::new(Config::default(), Vec::new(), Vec::new());
    let mut out = Vec::new();
    let mut now = 0;
    let input = |lobby: &mut Lobby, i: Input, now: u64, out: &mut Vec<Output>| {
        lobby.handle(i, at(now), out);
    };
    if e.sfen.is_some() || e.max_moves.is_some() {
        let setup = GameSetup {
            start: e.sfen.map(|s| Position::from_sfen(s).unwrap()),
            max_moves: e.max_moves,
            ..GameSetup::default()
        };
        input(
            &mut lobby,
            Input::Setup {
                game: e.game.into(),
                setup: Box::new(setup),
            },
            now,
            &mut out,
        );
    }
    for (id, name) in [(1, "sente"), (2, "gote")] {
        let login = CheckedLogin {
            who: Identity::csa(name),
            x1: true,
            game: None,
            address: None,
            reconnect: None,
        };
        input(&mut lobby, Input::LoggedIn(id, login), now, &mut out);
    }
    input(
        &mut lobby,
        Input::Line(1, format!("%%GAME {} +", e.game)),
        now,
        &mut out,
    );
    input(
        &mut lobby,
        Input::Line(2, format!("%%GAME {} -", e.game)),
        now,
        &mut out,
    );
    for id in [1, 2] {
        input(&mut lobby, Input::Line(id, "AGREE".into()), now, &mut out);
    }
    let mut pos = e
        .sfen
        .map_or_else(Position::startpos, |s| Position::from_sfen(s).unwrap());
    let mut speaker = None;
    for &action in e.actions {
        now += 100;
        if action == "-" {
            speaker = Some(Color::White);
            continue;
        }
        let color = speaker.take().unwrap_or(pos.turn());
        let id = if color == Color::Black { 1 } else { 2 };
        let line = match action.parse::<Move>() {
            Ok(mv) => {
                let text = gyoku_kifu::csa::move_text(&pos, mv, color);
                let _ = pos.play(mv);
                text
            }
            Err(_) => action.to_string(),
        };
        input(&mut lobby, Input::Line(id, line), now, &mut out);
    }
    if e.wait_ms > 0 {
        now += e.wait_ms;
        input(&mut lobby, Input::Tick, now, &mut out);
    }
    out.into_iter()
        .find_map(|o| match o {
            Output::Store(Change::GameEnded {
                result,
                reason,
                record,
                ..
            }) => Some((result, reason, record)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{}: the game did not end", e.what))
}

#[test]
fn every_ending_s_record_judges_to_its_stored_result() {
    for e in ENDINGS {
        let (result, reason, record) = play(e);
        assert_eq!(
            (result.as_deref(), reason.as_str()),
            (Some(e.result), e.reason),
            "{}: stored",
            e.what
        );
        let records = gyoku_kifu::read_str(&record, Format::Csa)
            .unwrap_or_else(|err| panic!("{}: {err}\n{record}", e.what));
        let named = crate::lobby::rules_of_name(e.game);
        let mut rules = named.preset.unwrap_or(Preset::Csa).rules();
        if let Some(fouls) = named.fouls {
            rules.fouls = fouls;
        }
        if let Some(n) = e.max_moves {
            rules.set_max_moves(n);
        }
        let judged = judge(&records[0], rules);
        // The server stores a forfeit (a line that is no move) as `illegal_move`.
        let reason_code = |r: &gyoku::EndReason| match r {
            gyoku::EndReason::Forfeit { .. } => "illegal_move",
            r => r.code(),
        };
        let outcome = judged.game.outcome();
        assert_eq!(
            (
                judged.result.map(gyoku::GameResult::code),
                outcome.map(|o| reason_code(&o.reason))
            ),
            (Some(e.result), Some(e.reason)),
            "{}: judged from the record\n{record}",
            e.what
        );
        assert!(
            records[0].end.is_some(),
            "{}: the record does not say how it ended\n{record}",
            e.what
        );
        assert!(
            judged.agrees,
            "{}: the record says {:?}, judged {:?}\n{record}",
            e.what, judged.recorded, judged.result
        );
    }
}
