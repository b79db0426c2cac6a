//! Plays long games in which both kings head for the far camp, to show the impasse rules
//! at work; the README's example game was made with this program.
//!
//! Each side plays a greedy policy on the impasse calculator's own figures for itself:
//! its king's progress toward the far camp, its pieces in the zone, its material. It never
//! allows a mate in one and never repeats a position. The side to move declares as soon as
//! the 27-point declaration would win.
//!
//! `cargo run --release -p gyoku --example entering_kings -- SEED` prints the moves in USI
//! (with `win` for the declaration) and, on standard error, how the game ended.

use std::collections::HashSet;

use gyoku::impasse::{DeclarationVerdict, judge_declaration};
use gyoku::rules::DeclarationRule;
use gyoku::{Color, Game, ImpasseCount, Position, Preset};

fn score(pos: &Position, color: Color) -> i64 {
    let own = ImpasseCount::of(pos, color, 0);
    let enemy = ImpasseCount::of(pos, !color, 0);
    let king = pos
        .king(color)
        .map_or(0, |k| i64::from(10 - k.relative_rank(color)));
    60 * king + 20 * i64::from(own.zone_count.min(12)) + 10 * i64::from(own.total_points)
        - 6 * i64::from(enemy.total_points)
        + 4 * i64::from(own.declaration_points)
}

fn allows_mate_in_one(pos: &Position) -> bool {
    pos.legal_moves().iter().any(|&m| {
        let mut p = pos.clone();
        p.play_unchecked(m);
        p.is_checkmate()
    })
}

fn main() {
    let mut rng: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let mut game = Game::new(Position::startpos(), Preset::Dojo81.rules());
    let mut seen = HashSet::new();
    seen.insert(game.position().hash());
    let mut moves: Vec<String> = Vec::new();
    while game.outcome().is_none() && moves.len() < 700 {
        let pos = game.position().clone();
        let us = pos.turn();
        let count = ImpasseCount::of(&pos, us, 0);
        if judge_declaration(DeclarationRule::Points27, &count, us) == DeclarationVerdict::Win {
            moves.push("win".into());
            game.declare().expect("a winning declaration");
            break;
        }
        let mut best = None;
        for m in pos.legal_moves() {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if seen.contains(&next.hash()) || allows_mate_in_one(&next) {
                continue;
            }
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let s = score(&next, us) * 16 + (rng >> 60) as i64;
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, m));
            }
        }
        let Some((_, m)) = best else { break };
        game.play(m).expect("a legal move");
        seen.insert(game.position().hash());
        moves.push(m.to_string());
    }
    println!("{}", moves.join(" "));
    eprintln!("{} plies; outcome: {:?}", moves.len(), game.outcome());
}
