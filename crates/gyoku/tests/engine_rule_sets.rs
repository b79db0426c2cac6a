//! Issue 41, item 5: the rule sets engines and events name, pinned by a table. Each row
//! declares in a position under a preset and names what the declaration brings, with the
//! text it follows.
//!
//! Sources:
//! - YaneuraOu, `source/types.h` (`enum EnteringKingRule`: `EKR_24_POINT` "24点法(31点以上で
//!   宣言勝ち)", `EKR_27_POINT` "27点法 = CSAルール(先手28点、後手27点)", the `_H` values
//!   "駒落ち対応") and `source/position.cpp` (`update_entering_point`: 31 for either side
//!   under the 24-point rules, 28/27 under the 27-point ones; with `_H`, White's needed
//!   points lowered by what the pieces in the game lack of 56; `DeclarationWin`: the CSA
//!   conditions (a)–(f), "以上1つでも条件を満たしていない場合、宣言した方が負けとなる").
//! - The rules spec, R12: WCSC 320 moves (WCSC32), Denryu-sen 512, Floodgate 256.

use gyoku::{EndReason, Game, GameResult, Position, Preset};

/// Black: king in the zone, two rooks, two bishops and six pawns there (10 pieces, 26
/// points); in hand, as many pawns as the row says.
fn black_declares(pawns_in_hand: u32) -> String {
    format!("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b {pawns_in_hand}P 1")
}

/// White: king in its zone with ten pieces there (10 points) and seven pawns in hand
/// (17 points). The game lacks ten points of the full set (two knights, four lances, four
/// pawns), which YaneuraOu's `_H` rules credit to White: 27.
const WHITE_LACKING_TEN: &str = "K8/RRBB5/9/PPPPPPP2/9/9/nnss5/gggg1ss2/4k4 w 7p 1";

/// What a declaration brings: `win`, `lose` or `no_contest`.
fn declaration(preset: Preset, sfen: &str) -> &'static str {
    let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
    let declarer = pos.turn();
    let mut game = Game::new(pos, preset.rules());
    game.declare()
        .unwrap_or_else(|e| panic!("{preset} {sfen}: {e}"));
    let outcome = game.outcome().expect("a declaration ends the game");
    match (outcome.result, &outcome.reason) {
        (GameResult::Win(w), EndReason::Declaration { .. }) if w == declarer => "win",
        (GameResult::Win(_), _) => "lose",
        (GameResult::NoContest, _) => "no_contest",
        (GameResult::Draw, _) => "draw",
    }
}

#[test]
fn each_engine_rule_set_declares_as_yaneuraou_says() {
    let thirty_one = black_declares(5);
    let thirty = black_declares(4);
    let twenty_eight = black_declares(2);
    let rows: &[(Preset, &str, &str, &str)] = &[
        // CSARule24: 31 points wins, for either side.
        (
            Preset::Csa24,
            &thirty_one,
            "win",
            "EKR_24_POINT: 31 or more",
        ),
        // CSARule24: 30 is not enough, and a declaration that fails loses (no 24-30 band).
        (
            Preset::Csa24,
            &thirty,
            "lose",
            "EKR_24_POINT: below 31, the declarer loses",
        ),
        // The JSA's own rule keeps its band: the same 30 points are a no contest.
        (
            Preset::Jsa,
            &thirty,
            "no_contest",
            "JSA 24-point: 24-30 replayed",
        ),
        // CSARule27: Black needs 28.
        (Preset::Csa, &twenty_eight, "win", "EKR_27_POINT: Black 28"),
        (
            Preset::Csa24,
            &twenty_eight,
            "lose",
            "EKR_24_POINT: 28 is not 31",
        ),
        // CSARule27H: White's 17 points with the ten the game lacks make 27.
        (
            Preset::Csa27H,
            WHITE_LACKING_TEN,
            "win",
            "EKR_27_POINT_H: 27 - 10 = 17 needed",
        ),
        (
            Preset::Csa,
            WHITE_LACKING_TEN,
            "lose",
            "EKR_27_POINT: 17 is not 27",
        ),
        // CSARule24H: 27 with the credit, short of 31.
        (
            Preset::Csa24H,
            WHITE_LACKING_TEN,
            "lose",
            "EKR_24_POINT_H: 31 - 10 = 21 needed",
        ),
        // 81Dojo credits only a recognised handicap start, which this is not.
        (
            Preset::Dojo81,
            WHITE_LACKING_TEN,
            "lose",
            "81Dojo: no recognised handicap",
        ),
        // The event presets play the CSA declaration.
        (Preset::Wcsc, &twenty_eight, "win", "WCSC: CSA rules"),
        (
            Preset::Denryu,
            &twenty_eight,
            "win",
            "Denryu-sen: CSA rules",
        ),
        (
            Preset::Floodgate,
            &twenty_eight,
            "win",
            "Floodgate: CSA rules",
        ),
    ];
    for &(preset, sfen, expected, source) in rows {
        assert_eq!(
            declaration(preset, sfen),
            expected,
            "{preset} at {sfen} ({source})"
        );
    }
}

#[test]
fn a_two_piece_handicap_credits_white_under_the_h_rules() {
    // The game's own start is a recognised handicap: both ways of crediting give 10.
    let two = Position::from_setup(gyoku::Handicap::TwoPiece.setup()).unwrap();
    for preset in [Preset::Csa24H, Preset::Csa27H, Preset::Jsa, Preset::Dojo81] {
        assert_eq!(
            Game::new(two.clone(), preset.rules()).handicap_credit(),
            10,
            "{preset}"
        );
    }
    for preset in [Preset::Csa, Preset::Csa24, Preset::Wcsc] {
        assert_eq!(
            Game::new(two.clone(), preset.rules()).handicap_credit(),
            0,
            "{preset}"
        );
    }
}

#[test]
fn event_presets_bundle_their_clock_and_move_limit() {
    let rows: &[(Preset, u32, (u64, u64, u64))] = &[
        (Preset::Wcsc, 320, (900_000, 0, 5_000)),
        (Preset::Denryu, 512, (600_000, 0, 2_000)),
        (Preset::Floodgate, 256, (300_000, 0, 10_000)),
    ];
    for &(preset, plies, (main, byoyomi, increment)) in rows {
        let limit = preset.rules().move_limit.expect("a move limit");
        assert_eq!(limit.plies, plies, "{preset}");
        assert!(
            !limit.check_extension,
            "{preset}: a mate on the last move counts"
        );
        let clock = preset.event().expect("an event").clock;
        assert_eq!(
            (clock.main, clock.byoyomi, clock.increment),
            (main, byoyomi, increment),
            "{preset}"
        );
    }
}
