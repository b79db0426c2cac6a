//! Seeded differential test over random positions reached by random play.
//!
//! For every position: the generator agrees with `is_legal` on every pseudo-move and on
//! garbage moves, with the plain reference generator in `common/reference.rs`, and with
//! haitaka (a peer crate); illegal pseudo-moves are classified as the reference says; the
//! incremental hash equals a full recomputation; the SFEN reads back to the same position.
//!
//! Known peer bugs, documented here:
//! - haitaka 0.3.2's `is_legal` accepts an uchifuzume pawn drop (perf-anchors §5), so only
//!   its generator is compared;
//! - haitaka 0.3.2's generator also lists some uchifuzume drops, e.g. `P*1h` in
//!   `+P3k3+P/8L/4+P2+N1/5PPs1/1pp4p1/2+s1+r2P1/1l5g1/+p4p+p2/2g+n1+p2K w B5p 251`
//!   (Black's king on 1i, every escape covered by the gold on 2g and the tokin on 3h;
//!   cshogi 1.1.0 and the reference agree it is mate). A move haitaka adds is tolerated
//!   only when the reference says it is uchifuzume; the test counts them.
//!
//! Replay a failure with `GYOKU_SEED=<seed> cargo test --test differential`.

mod common;

use std::collections::BTreeSet;

use common::Rng;
use common::reference::Plain;
use gyoku::{Handicap, IllegalMoveKind, Move, Position, Role, Square};

const POSITIONS: usize = 100_000;
/// The slow reference and haitaka check one position in this many (all of them in a
/// release run with `GYOKU_FULL=1`).
const SAMPLE: usize = 4;

fn starts() -> Vec<Position> {
    let mut starts = vec![Position::startpos()];
    starts.extend(Handicap::ALL.iter().map(|h| h.position()));
    for sfen in [
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "4k4/9/p1ppppp1p/9/9/9/P1PPPPP1P/9/4K4 b RB2G2S2N2LPrb2g2s2n2lp 1",
        "R6sk/9/7G1/9/9/9/9/9/4K4 b P 1",
        "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
        "l2+R3nl/3s1kg2/3pppsp1/p1p3p1p/2lS3P1/P4PP1P/1PNPP1N2/2K1g1SR1/+b4G2L w BGN2p 46",
    ] {
        starts.push(Position::from_sfen(sfen).unwrap());
    }
    starts
}

fn usi_set(moves: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    moves.into_iter().collect()
}

fn haitaka_moves(sfen: &str) -> BTreeSet<String> {
    let board =
        haitaka::Board::from_sfen(sfen).unwrap_or_else(|e| panic!("haitaka: {sfen}: {e:?}"));
    let mut out = BTreeSet::new();
    board.generate_moves(|pm| {
        for m in pm {
            out.insert(m.to_string());
        }
        false
    });
    out
}

/// Moves that are not legal in any position: drops of kings and promoted pieces, moves
/// from empty squares, promotions of golds.
fn garbage(rng: &mut Rng) -> Vec<Move> {
    let mut out = Vec::new();
    for _ in 0..8 {
        let from = Square::from_index(rng.below(81)).unwrap();
        let to = Square::from_index(rng.below(81)).unwrap();
        out.push(Move::Normal {
            from,
            to,
            promote: rng.below(2) == 0,
        });
        out.push(Move::Drop {
            role: Role::ALL[rng.below(14)],
            to,
        });
    }
    out
}

/// Returns the number of haitaka's known uchifuzume false positives in this position.
fn check_position(pos: &Position, rng: &mut Rng, deep: bool, context: &str) -> usize {
    let legal = pos.legal_moves();
    let legal_set: BTreeSet<Move> = legal.iter().copied().collect();
    assert_eq!(legal_set.len(), legal.len(), "{context}: duplicate moves");
    assert_eq!(
        pos.count_legal_moves(),
        legal.len(),
        "{context}: bulk count"
    );
    assert_eq!(pos.has_legal_moves(), !legal.is_empty(), "{context}");
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "{context}: incremental hash"
    );
    let sfen = pos.to_sfen();
    let back = Position::from_sfen(&sfen).unwrap();
    assert!(
        back.same_position(pos) && back.hash() == pos.hash(),
        "{context}: sfen round trip"
    );

    let plain = Plain::from_position(pos);
    assert_eq!(plain.is_check(), pos.is_check(), "{context}: check");
    // Every pseudo-move: legal exactly when listed, and classified like the reference.
    for m in plain.pseudo_moves() {
        let verdict = pos.check_move(m);
        assert_eq!(
            verdict.is_ok(),
            legal_set.contains(&m),
            "{context}: {m}: {verdict:?}"
        );
        if let Err(kind) = verdict {
            let expected = if plain.leaves_king_in_check(m) {
                IllegalMoveKind::KingInCheck
            } else {
                assert!(plain.is_uchifuzume(m), "{context}: {m} refused as {kind:?}");
                IllegalMoveKind::Uchifuzume
            };
            assert_eq!(kind, expected, "{context}: {m}");
        }
    }
    for m in garbage(rng) {
        assert_eq!(
            pos.is_legal(m),
            legal_set.contains(&m),
            "{context}: garbage {m}"
        );
    }
    if deep {
        let reference = usi_set(plain.legal_moves().iter().map(|m| m.to_string()));
        let ours = usi_set(legal.iter().map(|m| m.to_string()));
        assert_eq!(ours, reference, "{context}: reference generator");
        let peer = haitaka_moves(&sfen);
        let missing: Vec<_> = ours.difference(&peer).collect();
        assert!(missing.is_empty(), "{context}: haitaka lacks {missing:?}");
        let extra: Vec<Move> = peer.difference(&ours).map(|m| m.parse().unwrap()).collect();
        for &m in &extra {
            assert!(plain.is_uchifuzume(m), "{context}: haitaka adds {m}");
        }
        return extra.len();
    }
    0
}

#[test]
fn random_positions_agree_with_reference_and_peer() {
    let seed = common::seed(0x6779_6f6b_752d_0002);
    let full = std::env::var_os("GYOKU_FULL").is_some();
    let mut rng = Rng(seed);
    let starts = starts();
    let (mut visited, mut games, mut checks, mut drops) = (0usize, 0usize, 0usize, 0usize);
    let mut haitaka_uchifuzume = 0;
    while visited < POSITIONS {
        let mut pos = starts[games % starts.len()].clone();
        games += 1;
        let mut history = String::new();
        for _ in 0..300 {
            let context = format!("seed {seed}, game {games}, {pos} (moves:{history})");
            let deep = full || visited % SAMPLE == 0;
            haitaka_uchifuzume += check_position(&pos, &mut rng, deep, &context);
            visited += 1;
            checks += usize::from(pos.is_check());
            let legal = pos.legal_moves();
            if legal.is_empty() || visited >= POSITIONS {
                break;
            }
            // Prefer captures and drops now and then, so hands fill and drops matter.
            let m = legal[rng.below(legal.len())];
            drops += usize::from(m.is_drop());
            history.push(' ');
            history.push_str(&m.to_string());
            pos.play(m).unwrap();
        }
    }
    eprintln!(
        "seed {seed}: {visited} positions in {games} games, {checks} in check, {drops} drops; \
         haitaka listed {haitaka_uchifuzume} uchifuzume drops"
    );
    assert!(
        checks > 1000 && drops > 1000,
        "the walk must reach checks and drops"
    );
}

#[test]
fn colors_are_symmetric() {
    // Mirroring a position (rotate 180°, swap colours) mirrors its legal moves.
    let mut rng = Rng(common::seed(7));
    for start in starts() {
        let mut pos = start;
        for _ in 0..60 {
            let setup = pos.to_setup();
            let mut mirrored = gyoku::Setup::empty();
            for (sq, p) in setup.board.iter() {
                let to = Square::new(10 - sq.file(), 10 - sq.rank()).unwrap();
                mirrored.put(to, gyoku::Piece::new(!p.color, p.role));
            }
            mirrored.hands = gyoku::ByColor::new(setup.hands.white, setup.hands.black);
            mirrored.turn = !setup.turn;
            let mirrored = Position::from_setup(mirrored).unwrap();
            assert_eq!(
                mirrored.count_legal_moves(),
                pos.count_legal_moves(),
                "{pos}"
            );
            assert_eq!(mirrored.is_check(), pos.is_check());
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos.play(legal[rng.below(legal.len())]).unwrap();
        }
    }
}
