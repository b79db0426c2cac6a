//! The endings conformance suite: every test position of the endings survey's §4
//! (`tests/data/endings/*.tsv`) under each relevant preset, every row of the spec's endings
//! table (§3), the move-limit fixtures no peer has (§4.5), and the order of precedence.

mod common;

use std::fs;

use gyoku::impasse::{DeclarationVerdict, judge_declaration};
use gyoku::rules::DeclarationRule;
use gyoku::{
    Action, Color, EndReason, Game, GameError, GameResult, Handicap, IllegalMoveKind, ImpasseCount,
    Move, Position, Preset, Setup,
};

/// Reads a position, accepting the faults test positions have (a missing king).
fn position(sfen: &str) -> Position {
    let sfen = if sfen == "S0" {
        gyoku::STARTPOS_SFEN
    } else {
        sfen
    };
    Position::from_setup(Setup::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}")))
        .or_else(|e| e.ignore_all_safe())
        .unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

/// Expands `(a b)x3` groups in a move list.
fn expand(moves: &str) -> Vec<Move> {
    let mut out = Vec::new();
    let mut rest = moves.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('(') {
            let close = after.find(')').expect("closing parenthesis");
            let group = &after[..close];
            let tail = &after[close + 1..];
            let (count, tail) = match tail.strip_prefix('x') {
                Some(t) => {
                    let end = t.find(' ').unwrap_or(t.len());
                    (t[..end].parse::<usize>().unwrap(), &t[end..])
                }
                None => (1, tail),
            };
            for _ in 0..count {
                out.extend(group.split_whitespace().map(|m| m.parse::<Move>().unwrap()));
            }
            rest = tail.trim_start();
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            out.push(rest[..end].parse().unwrap());
            rest = rest[end..].trim_start();
        }
    }
    out
}

fn rows(name: &str) -> Vec<Vec<String>> {
    let text = fs::read_to_string(common::data_dir().join("endings").join(name)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn game(sfen: &str, preset: Preset) -> Game {
    Game::new(position(sfen), preset.rules())
}

/// A preset without its move limit: for tables of positions taken from late in real games
/// (move 375 is past csa's 256), where the limit is not what is tested.
fn unlimited(sfen: &str, preset: Preset) -> Game {
    let mut rules = preset.rules();
    rules.set_max_moves(0);
    Game::new(position(sfen), rules)
}

/// Plays `moves`; every move but the last must leave the game running.
fn play_all(game: &mut Game, moves: &[Move]) {
    for (i, &m) in moves.iter().enumerate() {
        assert!(
            game.outcome().is_none(),
            "ended before move {} ({m}): {:?}",
            i + 1,
            game.outcome()
        );
        game.play(m)
            .unwrap_or_else(|e| panic!("move {} {m}: {e}", i + 1));
    }
}

fn ended(game: &Game) -> (&'static str, &'static str, u32) {
    let o = game.outcome().expect("the game has ended");
    (o.result.code(), o.reason.code(), o.ply)
}

#[test]
fn declarations_under_every_declaring_preset() {
    let rows = rows("declarations.tsv");
    assert!(rows.len() >= 35);
    for row in rows {
        let [sfen, zc, dp, check, r27, r24, source] = &row[..] else {
            panic!("{row:?}")
        };
        let pos = position(sfen);
        let turn = pos.turn();
        let count = ImpasseCount::of(&pos, turn, 0);
        assert_eq!(count.zone_count.to_string(), *zc, "{source}: zone count");
        assert_eq!(
            count.declaration_points.to_string(),
            *dp,
            "{source}: points"
        );
        assert_eq!(count.in_check, check == "yes", "{source}: check");
        let code = |v: DeclarationVerdict| match v {
            DeclarationVerdict::Win => "WIN",
            DeclarationVerdict::NoContest => "REPLAY",
            DeclarationVerdict::Fail(_) => "LOSE",
        };
        assert_eq!(
            code(judge_declaration(DeclarationRule::Points27, &count, turn)),
            r27,
            "{source}"
        );
        assert_eq!(
            code(judge_declaration(DeclarationRule::Jsa24, &count, turn)),
            r24,
            "{source}"
        );

        // The same through a game: a declaration under csa / 81dojo / jsa-amateur (27) and jsa (24).
        for (preset, expected) in [
            (Preset::Csa, r27),
            (Preset::Dojo81, r27),
            (Preset::JsaAmateur, r27),
            (Preset::Jsa, r24),
        ] {
            let mut g = unlimited(sfen, preset);
            g.declare().unwrap();
            let o = g.outcome().unwrap();
            let want = match expected.as_str() {
                "WIN" => (GameResult::Win(turn), "declaration"),
                "REPLAY" => (GameResult::NoContest, "declaration"),
                _ => (GameResult::Win(!turn), "failed_declaration"),
            };
            assert_eq!((o.result, o.reason.code()), want, "{source} under {preset}");
            assert_eq!(o.ply, 1);
        }
        // Automatic impasse (lishogi, Shogi Wars): decided at the start of the turn.
        for preset in [Preset::Lishogi, Preset::ShogiWars] {
            let g = game(sfen, preset);
            let automatic = g
                .outcome()
                .filter(|o| o.reason.code() == "automatic_impasse");
            assert_eq!(automatic.is_some(), r27 == "WIN", "{source} under {preset}");
        }
        // Friendly play has no declaration; a failed one under on_fail = refuse changes nothing.
        assert_eq!(
            game(sfen, Preset::Friendly).declare(),
            Err(GameError::NoDeclarationRule)
        );
        let mut rules = Preset::Csa.rules();
        rules.set_max_moves(0);
        rules.declaration.as_mut().unwrap().on_fail = gyoku::rules::OnFail::Refuse;
        let mut g = Game::new(pos.clone(), rules);
        let before = g.clone();
        match g.declare() {
            Ok(()) => assert_eq!(r27, "WIN"),
            Err(GameError::DeclarationRefused(_)) => {
                assert_eq!(r27, "LOSE");
                assert!(g == before, "a refused declaration changed the game");
            }
            Err(e) => panic!("{source}: {e}"),
        }
    }
}

#[test]
fn handicap_credit_comes_from_the_initial_position() {
    for row in rows("handicap.tsv") {
        let [sfen, initial, r27, r24, source] = &row[..] else {
            panic!("{row:?}")
        };
        let handicap = match initial.as_str() {
            "-" => None,
            name => name
                .parse::<Handicap>()
                .ok()
                .or_else(|| Handicap::from_sfen(name)),
        };
        let turn = position(sfen).turn();
        for (preset, expected) in [(Preset::Dojo81, r27), (Preset::Jsa, r24)] {
            let mut g = unlimited(sfen, preset).with_handicap(handicap);
            g.declare().unwrap();
            let o = g.outcome().unwrap();
            let got = match o.result {
                GameResult::Win(c) if c == turn => "WIN",
                GameResult::NoContest => "REPLAY",
                _ => "LOSE",
            };
            assert_eq!(got, expected, "{source} under {preset}");
        }
        // lishogi credits recognised handicap starts and wins automatically.
        let g = game(sfen, Preset::Lishogi).with_handicap(handicap);
        assert_eq!(
            g.outcome().is_some(),
            r27 == "WIN",
            "{source} under lishogi"
        );
        // csa gives no credit: never more than the even-game verdict.
        let mut g = unlimited(sfen, Preset::Csa).with_handicap(handicap);
        g.declare().unwrap();
        assert_eq!(
            g.outcome().unwrap().reason.code(),
            "failed_declaration",
            "{source} under csa"
        );
        // The calculator agrees when told the initial position.
        let setup = handicap.map(Handicap::setup);
        let report = gyoku::ImpasseReport::new(&position(sfen), setup.as_ref());
        let dojo = report
            .verdicts
            .iter()
            .find(|v| v.preset == Preset::Dojo81)
            .unwrap();
        assert_eq!(
            dojo.declaration_code(),
            if r27 == "WIN" { "win" } else { "lose" },
            "{source}"
        );
    }
    // Thresholds (YaneuraOu's unit test): hirate, 2-piece, 4-piece credits of 0, 10, 12.
    assert_eq!(
        [Handicap::TwoPiece, Handicap::FourPiece].map(Handicap::removed_points),
        [10, 12]
    );
}

#[test]
fn sennichite_and_perpetual_check_sequences() {
    let rows = rows("repetition.tsv");
    assert!(rows.len() >= 20);
    for row in rows {
        let [start, moves, preset, result, reason, ply, source] = &row[..] else {
            panic!("{row:?}")
        };
        let moves = expand(moves);
        assert_eq!(
            moves.len().to_string(),
            *ply,
            "{source}: the ply column counts the moves"
        );
        let mut g = game(start, preset.parse().unwrap());
        play_all(&mut g, &moves);
        match g.outcome() {
            None => assert_eq!(result, "none", "{source}: expected an ending"),
            Some(o) => {
                assert_eq!(
                    (o.result.code(), o.reason.code(), o.ply.to_string()),
                    (result.as_str(), reason.as_str(), ply.clone()),
                    "{source}"
                );
                match &o.reason {
                    EndReason::Sennichite { occurrences }
                    | EndReason::PerpetualCheck { occurrences, .. } => {
                        assert_eq!(occurrences[3], o.ply, "{source}");
                    }
                    other => panic!("{source}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn uchifuzume_under_lose_and_refuse() {
    for row in rows("uchifuzume.tsv") {
        let [sfen, usi, expected, source] = &row[..] else {
            panic!("{row:?}")
        };
        let m: Move = usi.parse().unwrap();
        let mover = position(sfen).turn();
        let mut g = game(sfen, Preset::Csa);
        g.play(m).unwrap();
        let mut friendly = game(sfen, Preset::Friendly);
        let before = friendly.clone();
        let refused = friendly.play(m);
        if expected == "legal" {
            assert!(g.outcome().is_none(), "{source}: {:?}", g.outcome());
            assert!(refused.is_ok(), "{source}");
        } else {
            let o = g.outcome().unwrap();
            assert_eq!(o.result, GameResult::Win(!mover), "{source}");
            assert_eq!(
                o.reason,
                EndReason::IllegalMove {
                    mv: m,
                    kind: IllegalMoveKind::Uchifuzume
                },
                "{source}"
            );
            assert_eq!(
                refused,
                Err(GameError::IllegalMove(IllegalMoveKind::Uchifuzume))
            );
            assert!(
                friendly == before,
                "{source}: a refused move changed the game"
            );
        }
    }
}

// --- The spec's endings table (§3), row by row. ---

/// Black mates with G*5b (the pawn on 5c guards the gold).
const MATE_IN_ONE: &str = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";

#[test]
fn row_checkmate() {
    let mut g = game(MATE_IN_ONE, Preset::Csa);
    g.play("G*5b".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "checkmate", 1));
    assert_eq!(g.play("5a4a".parse().unwrap()), Err(GameError::GameOver));
}

#[test]
fn row_no_legal_move() {
    let g = game(
        "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
        Preset::Csa,
    );
    assert_eq!(ended(&g), ("white", "no_legal_move", 0));
}

#[test]
fn row_resignation_and_time() {
    let mut g = game("S0", Preset::Jsa);
    g.play("7g7f".parse().unwrap()).unwrap();
    g.apply(Action::Resign(Color::White)).unwrap();
    assert_eq!(ended(&g), ("black", "resignation", 2));
    let mut g = game("S0", Preset::Csa);
    g.apply(Action::TimeUp(Color::Black)).unwrap();
    assert_eq!(ended(&g), ("white", "time_up", 1));
    assert_eq!(
        g.apply(Action::Resign(Color::White)),
        Err(GameError::GameOver)
    );
}

#[test]
fn row_illegal_move_lose_or_refuse() {
    let nifu = "4k4/9/p1ppppp1p/9/9/9/P1PPPPP1P/9/4K4 b RB2G2S2N2LPrb2g2s2n2lp 1";
    let m: Move = "P*5e".parse().unwrap();
    for preset in [
        Preset::Jsa,
        Preset::Csa,
        Preset::Dojo81,
        Preset::Try,
        Preset::Plain,
    ] {
        let mut g = game(nifu, preset);
        g.play(m).unwrap();
        assert_eq!(ended(&g), ("white", "illegal_move", 1), "{preset}");
    }
    for preset in [Preset::Lishogi, Preset::Friendly] {
        let mut g = game(nifu, preset);
        assert_eq!(
            g.play(m),
            Err(GameError::IllegalMove(IllegalMoveKind::Nifu)),
            "{preset}"
        );
        assert!(g.outcome().is_none() && g.plies().is_empty());
    }
}

#[test]
fn row_sennichite_result_per_preset() {
    let moves = expand("(2h3h 8b7b 3h2h 7b8b)x3");
    for (preset, result) in [
        (Preset::Jsa, "no_contest"),
        (Preset::JsaAmateur, "draw"),
        (Preset::Csa, "draw"),
        (Preset::Dojo81, "draw"),
        (Preset::Lishogi, "draw"),
        (Preset::ShogiWars, "draw"),
        (Preset::Try, "draw"),
        (Preset::Saw, "draw"),
        (Preset::Friendly, "draw"),
        (Preset::Plain, "draw"),
    ] {
        let mut g = game("S0", preset);
        play_all(&mut g, &moves);
        assert_eq!(ended(&g), (result, "sennichite", 12), "{preset}");
    }
}

/// Neither king has entered.
const NO_KING_ENTERED: &str = "lnsg1gsnl/1r2k2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2K2R1/LNSG1GSNL b - 1";

#[test]
fn row_impasse_agreement() {
    // No king entered: no count.
    assert_eq!(
        game(NO_KING_ENTERED, Preset::Jsa).agree_impasse(),
        Err(GameError::AgreementNotAllowed)
    );
    // Black's king in its zone (on 5a, in check from both golds), 27 points each: both
    // reach 24.
    let sfen = "lnsgKgsnl/1r5b1/ppppppppp/9/4k4/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1";
    let mut g = game(sfen, Preset::Jsa);
    g.agree_impasse().unwrap();
    assert_eq!(ended(&g), ("no_contest", "impasse_agreement", 1));
    let mut g = game(sfen, Preset::Friendly);
    g.agree_impasse().unwrap();
    assert_eq!(ended(&g), ("draw", "impasse_agreement", 1));
    // The amateur 27-point count needs both kings entered; 27-27 goes to White.
    assert_eq!(
        game(sfen, Preset::JsaAmateur).agree_impasse(),
        Err(GameError::AgreementNotAllowed)
    );
    let both = "lnsgKgsnl/1r5b1/ppppppppp/9/9/9/PPPPkPPPP/1B5R1/LNSG1GSNL b P 1";
    let mut g = game(both, Preset::JsaAmateur);
    g.agree_impasse().unwrap();
    assert_eq!(ended(&g), ("white", "impasse_agreement", 1));
    // A side under 24 loses: Black 21 (gave up a rook and a pawn), White 33.
    let short = "lnsgKgsnl/1r5b1/ppppppppp/9/4k4/9/PPPPPPPP1/1B7/LNSG1GSNL b rp 1";
    let mut g = game(short, Preset::Jsa);
    assert_eq!(g.impasse_count(Color::Black).total_points, 21);
    g.agree_impasse().unwrap();
    assert_eq!(ended(&g), ("white", "impasse_agreement", 1));
    // Proposal and acceptance: only the other player can accept, and a move withdraws it.
    let mut g = game(sfen, Preset::Jsa);
    g.propose_impasse(Color::Black).unwrap();
    assert_eq!(g.accept_impasse(Color::Black), Err(GameError::NoProposal));
    g.play("5a4a".parse().unwrap()).unwrap();
    assert_eq!(g.accept_impasse(Color::White), Err(GameError::NoProposal));
    g.propose_impasse(Color::White).unwrap();
    g.accept_impasse(Color::Black).unwrap();
    assert_eq!(ended(&g), ("no_contest", "impasse_agreement", 2));
    // Rule sets without agreement refuse it.
    assert_eq!(
        game(sfen, Preset::Csa).agree_impasse(),
        Err(GameError::NoAgreementRule)
    );
}

#[test]
fn row_try_rule() {
    // Both kings entered: Black's king on 5b, White's on 5h.
    let both = "9/4K4/9/9/9/9/9/4k4/9 b - 1";
    let mut g = game(both, Preset::Try);
    g.play("5b5a".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "try", 1));
    // White's king not entered: no try under the seed rule, a try under YaneuraOu's flavour.
    let one = "9/4K4/9/9/9/4k4/9/9/9 b - 1";
    let mut g = game(one, Preset::Try);
    g.play("5b5a".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
    let mut rules = Preset::Try.rules();
    rules.try_rule = Some(gyoku::rules::TryRule {
        require_both_entered: false,
    });
    let mut g = Game::new(position(one), rules);
    g.play("5b5a".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "try", 1));
    // An escape from check onto the square: only the lenient flavour counts it.
    let check = "9/4Kr3/9/9/9/9/9/4k4/9 b - 1";
    let mut g = Game::new(position(check), rules);
    g.play("5b5a".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "try", 1));
    let mut g = game(check, Preset::Try);
    g.play("5b5a".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
    // A White try onto 5i.
    let mut g = game("9/4K4/9/9/9/9/9/4k4/9 w - 1", Preset::Try);
    g.play("5h5i".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("white", "try", 1));
}

#[test]
fn row_move_limit() {
    let at = |n: u32| gyoku::STARTPOS_SFEN.replace(" 1", &format!(" {n}"));
    let mut g = game(&at(256), Preset::Csa);
    g.play("7g7f".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("draw", "move_limit", 1));
    let mut g = game(&at(255), Preset::Csa);
    g.play("7g7f".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
    let mut g = game(&at(500), Preset::Jsa);
    g.play("7g7f".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("no_contest", "move_limit", 1));
    let mut g = game(&at(700), Preset::Lishogi);
    g.play("7g7f".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("draw", "move_limit", 1));
    // Overrides: --max-moves.
    let mut rules = Preset::Csa.rules();
    rules.set_max_moves(320);
    let mut g = Game::new(position(&at(300)), rules);
    g.play("7g7f".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
}

// --- The fixtures no peer has (survey §4.5) and the order of precedence (spec §3). ---

#[test]
fn mate_on_the_last_allowed_move_is_a_mate() {
    let sfen = MATE_IN_ONE.replace(" 1", " 256");
    let mut g = game(&sfen, Preset::Csa);
    g.play("G*5b".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "checkmate", 1));
    let mut g = game(&MATE_IN_ONE.replace(" 1", " 500"), Preset::Jsa);
    g.play("G*5b".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "checkmate", 1));
    // shogi-server never looks for mate: #MAX_MOVES.
    let mut rules = Preset::Csa.rules();
    rules.move_limit.as_mut().unwrap().strict_csa_server = true;
    let mut g = Game::new(position(&sfen), rules);
    g.play("G*5b".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("draw", "move_limit", 1));
}

#[test]
fn sennichite_on_the_last_move_is_sennichite() {
    // Twelve moves from move 245: the twelfth is move 256 and completes the fourfold.
    let sfen = gyoku::STARTPOS_SFEN.replace(" 1", " 245");
    let mut g = game(&sfen, Preset::Csa);
    play_all(&mut g, &expand("(2h3h 8b7b 3h2h 7b8b)x3"));
    assert_eq!(ended(&g), ("draw", "sennichite", 12));
    // Perpetual check completed on the last move is perpetual check.
    let sfen = "k2K5/2R6/9/9/9/9/9/9/9 b - 245";
    let mut g = game(sfen, Preset::Csa);
    play_all(&mut g, &expand("(7b7a 9a9b 7a7b 9b9a)x3"));
    assert_eq!(ended(&g), ("white", "perpetual_check", 12));
}

/// Move 500 is Black's: the rook checks from 9h, the king escapes, and so on.
const CHECKS_AT_500: &str = "k8/9/9/9/9/9/9/1R7/8K b - 500";

#[test]
fn jsa_500_with_check_extension() {
    let mut g = game(CHECKS_AT_500, Preset::Jsa);
    g.play("8h9h".parse().unwrap()).unwrap();
    // Move 500 was a check: play goes on, through the escapes, while the checks continue.
    assert_eq!(g.moves_counted(), 500);
    play_all(&mut g, &expand("9a8a 9h8h 8a9a"));
    assert!(g.outcome().is_none());
    // Move 504 is no check, and neither was the escape before it: no contest.
    g.play("8h7h".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("no_contest", "move_limit", 5));
    // A quiet move 500 ends the game at once.
    let mut g = game(CHECKS_AT_500, Preset::Jsa);
    g.play("8h7h".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("no_contest", "move_limit", 1));
    // Move 500 an escape from the check of move 499: the position is no check, so it ends.
    let mut g = game(&CHECKS_AT_500.replace(" 500", " 499"), Preset::Jsa);
    play_all(&mut g, &expand("8h9h"));
    g.play("9a8a".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("no_contest", "move_limit", 2));
    // Without the extension (a fixed limit of 500), move 500 ends it even with a check.
    let mut rules = Preset::Jsa.rules();
    rules.move_limit.as_mut().unwrap().check_extension = false;
    let mut g = Game::new(position(CHECKS_AT_500), rules);
    g.play("8h9h".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("no_contest", "move_limit", 1));
}

#[test]
fn declaration_after_the_limit_fails() {
    // In the JSA extension (move 500 gave check) White declares: after the limit (and in
    // check anyway), the declaration fails and loses.
    let mut g = game(CHECKS_AT_500, Preset::Jsa);
    g.play("8h9h".parse().unwrap()).unwrap();
    g.declare().unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result, o.reason.code()),
        (GameResult::Win(Color::Black), "failed_declaration")
    );
    assert!(matches!(
        o.reason,
        EndReason::FailedDeclaration {
            failure: gyoku::impasse::DeclarationFailure::AfterMoveLimit,
            ..
        }
    ));
    // Under a fixed limit the game is over at the limit: a declaration is refused. Before
    // it, the same declaration wins.
    let winning = "G3+R3S/GG2P2SS/GLPBKBPLS/9/9/7+p+p/7+pk/7+p+p/9 w - 256";
    let mut g = game(winning, Preset::Csa);
    g.play("2h3h".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("draw", "move_limit", 1));
    assert_eq!(g.declare(), Err(GameError::GameOver));
    let mut g = game(&winning.replace(" 256", " 255"), Preset::Csa);
    g.play("2h3h".parse().unwrap()).unwrap();
    g.declare().unwrap();
    assert_eq!(ended(&g), ("black", "declaration", 2));
}

#[test]
fn precedence_foul_before_everything_after_it() {
    // An illegal move where the fourfold repetition would have come: the foul decides.
    let mut g = game("S0", Preset::Csa);
    play_all(&mut g, &expand("(2h3h 8b7b 3h2h 7b8b)x2 2h3h 8b7b 3h2h"));
    g.play("7b7c".parse().unwrap()).unwrap(); // no piece on 7b
    assert_eq!(ended(&g), ("black", "illegal_move", 12));
    // An illegal move on the last allowed move: the foul, not the limit.
    let mut g = game(&gyoku::STARTPOS_SFEN.replace(" 1", " 256"), Preset::Csa);
    g.play("7g7e".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("white", "illegal_move", 1));
    // After a mate nothing more is played: mate comes before any later foul.
    let mut g = game(MATE_IN_ONE, Preset::Csa);
    g.play("G*5b".parse().unwrap()).unwrap();
    assert_eq!(g.play("5a5b".parse().unwrap()), Err(GameError::GameOver));
    assert_eq!(g.declare(), Err(GameError::GameOver));
}

#[test]
fn precedence_perpetual_before_sennichite() {
    // Every perpetual row of repetition.tsv is a fourfold repetition judged as perpetual
    // check; the same cycle with a quiet move inside is sennichite.
    let mut g = game("k2K5/2R6/9/9/9/9/9/9/9 b - 1", Preset::Jsa);
    play_all(&mut g, &expand("(7b7a 9a9b 7a7b 9b9a)x3"));
    assert_eq!(ended(&g), ("white", "perpetual_check", 12));
    // The same cycle with a quiet move (7a7d) inside the span: plain sennichite.
    let mut g = game("k2K5/2R6/9/9/9/9/9/9/9 b - 1", Preset::Jsa);
    play_all(
        &mut g,
        &expand("7b7a 9a9b 7a7b 9b9a 7b7a 9a9b 7a7d 9b9a 7d7a 9a9b 7a7b 9b9a 7b7a"),
    );
    assert_eq!(ended(&g), ("no_contest", "sennichite", 13));
}

#[test]
fn precedence_impasse_before_the_move_limit() {
    // lishogi, move 700 is White's quiet move; at the start of Black's turn the automatic
    // impasse holds: it wins over the limit.
    let sfen = "G3+R3S/GG2P2SS/GLPBKBPLS/9/9/7+p+p/7+pk/7+p+p/9 w - 700";
    let mut g = game(sfen, Preset::Lishogi);
    assert!(
        g.outcome().is_none(),
        "White to move: no automatic impasse for Black yet"
    );
    g.play("2h3h".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "automatic_impasse", 1));
    // The automatic impasse waits for the start of the side's own turn (lishogi since 2021).
    let one_move_away = "2SGS4/+B1GKGLLRB/3G5/9/1+R5pp/8k/9/9/9 b - 1";
    let mut g = game(one_move_away, Preset::Lishogi);
    g.play("8e8b".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
    g.play("2e2f".parse().unwrap()).unwrap();
    assert_eq!(ended(&g), ("black", "automatic_impasse", 2));
    // ... and the opponent can prevent it with a check.
    let mut g = game(
        "2SGS4/+B1GKGLLRB/3G5/9/1+R5pp/8k/6b2/9/9 b - 1",
        Preset::Lishogi,
    );
    play_all(&mut g, &expand("8e8b 3g2f"));
    assert!(g.outcome().is_none());
}

// Pairs of the order that cannot coincide, and why they need no fixture:
// - mate and a repetition: a repeated position had legal moves the first time, so it has
//   them again;
// - mate and the automatic impasse: the impasse needs the side not to be in check;
// - a foul and the endings after it: an illegal move is never played, so it cannot complete
//   a repetition or reach a limit (tested above: the foul decides instead);
// - the automatic impasse and a repetition: the impasse would have ended the game at the
//   first occurrence.

#[test]
fn fairbairn_count_when_a_side_is_all_in_its_zone() {
    // SAW: after 5d5c Black's king and gold are both in its zone: counted at once.
    let sfen = "9/4K4/9/4G4/8k/9/9/9/9 b RBrb3g4s4n4l18p 1";
    let mut g = game(sfen, Preset::Saw);
    assert!(g.outcome().is_none());
    g.play("5d5c".parse().unwrap()).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(
        (o.result.code(), o.reason.code(), o.ply),
        ("white", "impasse_count", 1)
    );
    assert_eq!(
        o.reason,
        EndReason::ImpasseCount {
            points: gyoku::ByColor::new(11, 43)
        }
    );
    // Other presets do not count.
    let mut g = game(sfen, Preset::Jsa);
    g.play("5d5c".parse().unwrap()).unwrap();
    assert!(g.outcome().is_none());
}

/// `move-limits.tsv`: games that start at or past a move limit, and the calculator's
/// declaration verdict and handicap credit for the start position, row by row.
#[test]
fn games_starting_at_or_past_a_move_limit() {
    let rows = rows("move-limits.tsv");
    assert!(rows.len() >= 20);
    for row in rows {
        let [
            sfen,
            preset,
            actions,
            result,
            reason,
            ply,
            calc,
            credit,
            source,
        ] = &row[..]
        else {
            panic!("{row:?}")
        };
        let preset: Preset = preset.parse().unwrap();
        let start = position(sfen);
        let mut g = Game::new(start.clone(), preset.rules());
        for token in actions.split_whitespace().filter(|t| *t != "-") {
            let action = match token {
                "win" => Action::Declare,
                "agree" => Action::AgreeImpasse,
                usi => Action::Move(usi.parse().unwrap()),
            };
            let over = g.outcome().is_some();
            match g.apply(action) {
                Ok(()) => assert!(!over, "{source}: {token} accepted after the end"),
                Err(GameError::GameOver) => assert!(over, "{source}: {token}"),
                Err(e) => assert_eq!(result, "-", "{source}: {token} refused: {e}"),
            }
        }
        match g.outcome() {
            None => assert_eq!((result.as_str(), reason.as_str()), ("-", "-"), "{source}"),
            Some(o) => assert_eq!(
                (o.result.code(), o.reason.code(), o.ply.to_string()),
                (result.as_str(), reason.as_str(), ply.clone()),
                "{source}"
            ),
        }
        let report = gyoku::ImpasseReport::new(&start, None);
        let verdict = report.verdicts.iter().find(|v| v.preset == preset).unwrap();
        assert_eq!(verdict.declaration_code(), calc, "{source}: calculator");
        let game_credit = Game::new(start.clone(), preset.rules()).handicap_credit();
        assert_eq!(game_credit.to_string(), *credit, "{source}: game credit");
        if preset.rules().handicap_credit {
            assert_eq!(
                report.credit.to_string(),
                *credit,
                "{source}: calculator credit"
            );
        }
    }
}
