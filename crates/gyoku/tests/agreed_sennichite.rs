//! Issue 41, item 1: sennichite by agreement, pinned by a table. Each row plays a shuffle
//! some number of times under a preset, then both players agree, and names what the rules
//! make of it, with the text it follows.
//!
//! Sources:
//! - The JSA's 対局規定 as revised on 2019-10-01: "4回未満でも両者が合意すれば成立" (the
//!   Asahi, 2019-10-07, as the rules spec's R1 quotes it); ja.wikipedia's 千日手 page:
//!   "同一局面が4回現れなくても両対局者の合意があれば千日手が成立する". Neither gives a least
//!   count: Gyoku asks for a repetition (the position has stood twice), since an agreement
//!   on a position never repeated would be a draw by agreement, which no rule set has.
//! - General practice (将棋用語 glossaries: "両対局者の合意があれば、同一局面が4回に満たなくても
//!   千日手を成立させることはできる"): allowed under `jsa-amateur` and `friendly` too.
//! - The CSA rules (Floodgate, the computer events) have no agreement between engines: a
//!   sennichite is the fourth occurrence, as shogi-server decides it.

use gyoku::{Action, Color, Game, GameError, GameResult, Position, Preset};

/// Black's rook and White's rook step aside and back: the start position again after each
/// four plies.
const SHUFFLE: [&str; 4] = ["2h3h", "8b7b", "3h2h", "7b8b"];

/// What agreeing brings after `half` half-shuffles (two plies each): the result's code and
/// the reason, or the refusal's code.
fn agree(preset: Preset, half_shuffles: usize) -> String {
    let mut game = Game::new(Position::startpos(), preset.rules());
    for m in SHUFFLE.iter().cycle().take(half_shuffles * 2) {
        game.play(m.parse().expect("a move")).expect("legal");
    }
    match game.agree_sennichite() {
        Ok(()) => {
            let o = game.outcome().expect("ended");
            format!("{} {}", o.result.code(), o.reason.code())
        }
        Err(e) => e.code().to_string(),
    }
}

#[test]
fn agreed_sennichite_is_allowed_at_a_repetition_and_refused_before_it() {
    let rows: &[(Preset, usize, &str, &str)] = &[
        // The start position has stood once: nothing has repeated.
        (Preset::Jsa, 0, "not_repeated", "R1: a repetition first"),
        // After one rook move each, another position, standing once.
        (Preset::Jsa, 1, "not_repeated", "R1: a repetition first"),
        // The start position again (twice): the JSA lets the players agree; its
        // sennichite is a no contest, replayed.
        (
            Preset::Jsa,
            2,
            "no_contest agreed_sennichite",
            "JSA 対局規定 2019-10-01: 4回未満でも両者が合意すれば成立",
        ),
        // Three times: still before the fourth, still agreeable.
        (
            Preset::Jsa,
            4,
            "no_contest agreed_sennichite",
            "JSA 対局規定 2019-10-01",
        ),
        // Amateur events and friendly play: the preset's sennichite result, a draw.
        (
            Preset::JsaAmateur,
            2,
            "draw agreed_sennichite",
            "general practice (将棋用語)",
        ),
        (
            Preset::Friendly,
            2,
            "draw agreed_sennichite",
            "general practice (将棋用語)",
        ),
        // The CSA rules and the online sites: no agreement at all.
        (
            Preset::Csa,
            2,
            "no_sennichite_agreement",
            "CSA: the fourth occurrence only",
        ),
        (
            Preset::Floodgate,
            4,
            "no_sennichite_agreement",
            "CSA: the fourth occurrence only",
        ),
        (
            Preset::Lishogi,
            2,
            "no_sennichite_agreement",
            "lishogi: automatic repetition only",
        ),
    ];
    for &(preset, half_shuffles, want, source) in rows {
        assert_eq!(
            agree(preset, half_shuffles),
            want,
            "{preset} after {} plies ({source})",
            half_shuffles * 2
        );
    }
}

#[test]
fn the_fourth_occurrence_needs_no_agreement() {
    // Under the JSA's rules the fourth occurrence ends the game by itself: there is nothing
    // left to agree to.
    let mut game = Game::new(Position::startpos(), Preset::Jsa.rules());
    for m in SHUFFLE.iter().cycle().take(12) {
        game.play(m.parse().expect("a move")).expect("legal");
    }
    assert_eq!(game.outcome().expect("over").reason.code(), "sennichite");
    assert_eq!(game.agree_sennichite(), Err(GameError::GameOver));
}

#[test]
fn a_proposal_is_accepted_by_the_other_player_and_lapses_with_a_move() {
    let mut game = Game::new(Position::startpos(), Preset::Jsa.rules());
    for m in SHUFFLE {
        game.play(m.parse().expect("a move")).expect("legal");
    }
    // Nobody proposed: nothing to accept.
    assert_eq!(
        game.apply(Action::AcceptSennichite(Color::White)),
        Err(GameError::NoProposal)
    );
    game.apply(Action::ProposeSennichite(Color::Black))
        .expect("agreeable");
    // The proposer cannot accept its own proposal, and an impasse acceptance is not this.
    assert_eq!(
        game.apply(Action::AcceptSennichite(Color::Black)),
        Err(GameError::NoProposal)
    );
    assert_eq!(
        game.apply(Action::AcceptImpasse(Color::White)),
        Err(GameError::NoProposal)
    );
    // A move: the proposal lapses.
    game.play("2h3h".parse().expect("a move")).expect("legal");
    assert_eq!(game.proposal(), None);
    game.play("8b7b".parse().expect("a move")).expect("legal");
    game.play("3h2h".parse().expect("a move")).expect("legal");
    game.play("7b8b".parse().expect("a move")).expect("legal");
    game.apply(Action::ProposeSennichite(Color::White))
        .expect("agreeable");
    game.apply(Action::AcceptSennichite(Color::Black))
        .expect("accepted");
    let o = game.outcome().expect("over");
    assert_eq!(
        (o.result, o.reason.code(), o.ply),
        (GameResult::NoContest, "agreed_sennichite", 9)
    );
}
