//! Property tests of the referee: replaying a game gives the same outcome; points are
//! conserved; a refused action leaves the game unchanged.

use gyoku::{Action, Color, Game, Handicap, Position, Preset};
use proptest::prelude::*;

const PRESETS: [Preset; 16] = Preset::ALL;

/// Turns bytes into actions: mostly legal moves, sometimes a pseudo-random (often illegal)
/// move, a resignation, a declaration, an agreement, a proposal or a time-out.
fn actions_from(game: &Game, b: u8, c: u8) -> Action {
    let pos = game.position();
    let legal = pos.legal_moves();
    match b % 32 {
        0 => Action::Declare,
        1 => Action::AgreeImpasse,
        2 => Action::ProposeImpasse(pos.turn()),
        3 => Action::AcceptImpasse(pos.turn()),
        4 if c.is_multiple_of(8) => Action::Resign(pos.turn()),
        5 if c.is_multiple_of(8) => Action::TimeUp(!pos.turn()),
        9 if c.is_multiple_of(4) => Action::AgreeSennichite,
        10 => Action::ProposeSennichite(pos.turn()),
        11 => Action::AcceptSennichite(!pos.turn()),
        // A foul real pieces can make (played under `fouls = claim`), and its claim.
        12 if c.is_multiple_of(2) => {
            let fouls = pos.physical_fouls();
            match fouls.get(usize::from(c) % fouls.len().max(1)) {
                Some(&(m, _)) => Action::Move(m),
                None => Action::ClaimFoul(pos.turn()),
            }
        }
        13 => Action::ClaimFoul(pos.turn()),
        6..=8 => {
            let from = gyoku::Square::from_index(usize::from(c) % 81).unwrap();
            let to = gyoku::Square::from_index(usize::from(c.wrapping_mul(13)) % 81).unwrap();
            Action::Move(gyoku::Move::Normal {
                from,
                to,
                promote: b.is_multiple_of(2),
            })
        }
        _ if !legal.is_empty() => Action::Move(legal[usize::from(c) % legal.len()]),
        _ => Action::Declare,
    }
}

/// `rules`, with fouls that stand only when claimed if `claim`.
fn with_fouls(mut rules: gyoku::RuleSet, claim: bool) -> gyoku::RuleSet {
    if claim {
        rules.fouls = gyoku::rules::Fouls::Claim;
    }
    rules
}

fn start(index: u8) -> Position {
    match index % 4 {
        0 => Position::startpos(),
        1 => Handicap::ALL[usize::from(index) % Handicap::ALL.len()].position(),
        2 => Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b RB2G2S2N2L9Prb2g2s2n2l9p 1").unwrap(),
        _ => {
            Position::from_sfen("lnsgKgsnl/1r5b1/ppppppppp/9/4k4/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1")
                .unwrap()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn replaying_a_game_gives_the_same_outcome(
        preset in 0usize..10, start_index: u8, claim: bool,
        bytes in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..300),
    ) {
        let rules = with_fouls(PRESETS[preset].rules(), claim);
        let mut game = Game::new(start(start_index), rules);
        let mut taken = Vec::new();
        for (b, c) in bytes {
            if game.outcome().is_some() { break; }
            let action = actions_from(&game, b, c);
            if game.apply(action).is_ok() {
                taken.push(action);
            }
        }
        let mut again = Game::new(start(start_index), rules);
        for &action in &taken {
            prop_assert!(again.apply(action).is_ok());
        }
        prop_assert_eq!(again.outcome(), game.outcome());
        prop_assert_eq!(again.position().hash(), game.position().hash());
        prop_assert!(again == game);
    }

    #[test]
    fn total_points_are_conserved(
        start_index: u8,
        bytes in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..300),
    ) {
        // Every start here holds a full set, or is a handicap start whose missing pieces
        // are credited to White: both sides' totals always sum to 54.
        let mut game = Game::new(start(start_index), Preset::Jsa.rules());
        for (_, c) in bytes {
            let black = game.impasse_count(Color::Black).total_points;
            let white = game.impasse_count(Color::White).total_points;
            prop_assert_eq!(black + white, 54, "{}", game.position());
            if game.outcome().is_some() { break; }
            let legal = game.position().legal_moves();
            if legal.is_empty() { break; }
            game.play(legal[usize::from(c) % legal.len()]).unwrap();
        }
    }

    #[test]
    fn a_refused_action_leaves_the_game_unchanged(
        preset in 0usize..10, start_index: u8, claim: bool,
        bytes in proptest::collection::vec((any::<u8>(), any::<u8>()), 0..300),
    ) {
        let mut game = Game::new(start(start_index), with_fouls(PRESETS[preset].rules(), claim));
        for (b, c) in bytes {
            let action = actions_from(&game, b, c);
            let before = game.clone();
            if game.apply(action).is_err() {
                prop_assert!(game == before, "{:?} changed the game", action);
            }
        }
    }
}
