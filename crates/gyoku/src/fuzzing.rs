//! Invariants checked by the fuzz targets under `fuzz/`, kept here so that a stable
//! `cargo test` can replay the committed corpora through the very same code.
//!
//! Each function takes arbitrary bytes and panics if an invariant breaks.
#![doc(hidden)]

use crate::{Move, Position, Setup};

/// Any text either fails to parse as SFEN with an error, or parses to a setup whose SFEN
/// parses back to the same setup; a position that validates writes an SFEN that reads back
/// to an equal position with the same hash.
pub fn sfen_roundtrip(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(setup) = Setup::from_sfen(text) else {
        return;
    };
    let written = setup.to_sfen();
    let again = Setup::from_sfen(&written).expect("written SFEN reads back");
    assert_eq!(again, setup, "{written}");
    if let Ok(pos) = Position::from_setup(setup) {
        let back = Position::from_sfen(&pos.to_sfen()).expect("position reads back");
        assert_eq!(back.hash(), pos.hash());
        assert_eq!(back.hash(), back.compute_hash());
    }
}

/// Any text either fails to parse as a USI move or round-trips exactly.
pub fn usi_move(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = text.parse::<Move>() {
        assert_eq!(m.to_string(), text);
    }
}

/// Bytes drive a game from a position (the first line, if it is a legal SFEN; else the
/// start position): each byte picks a legal move. Every generated move passes
/// `check_move`, every listed count equals the bulk count, the incremental hash equals the
/// full one, and a move not in the list is refused.
pub fn legals_are_legal(data: &[u8]) {
    let (mut pos, moves) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => match std::str::from_utf8(&data[..i])
            .ok()
            .and_then(|s| Position::from_sfen(s).ok())
        {
            Some(pos) => (pos, &data[i + 1..]),
            None => (Position::startpos(), data),
        },
        None => (Position::startpos(), data),
    };
    for &b in moves.iter().take(512) {
        let legal = pos.legal_moves();
        assert_eq!(legal.len(), pos.count_legal_moves());
        assert_eq!(legal.is_empty(), !pos.has_legal_moves());
        for &m in &legal {
            assert_eq!(pos.check_move(m), Ok(()), "{m} in {pos}");
        }
        // A few moves built from the byte that the generator did not list are refused.
        let from = crate::Square::from_index(usize::from(b) % 81).expect("index < 81");
        let to = crate::Square::from_index(usize::from(b.wrapping_mul(7)) % 81).expect("< 81");
        for candidate in [
            Move::Normal {
                from,
                to,
                promote: false,
            },
            Move::Normal {
                from,
                to,
                promote: true,
            },
            Move::Drop {
                role: crate::Role::ALL[usize::from(b) % 14],
                to,
            },
        ] {
            assert_eq!(
                legal.contains(&candidate),
                pos.is_legal(candidate),
                "{candidate} in {pos}"
            );
        }
        if legal.is_empty() {
            return;
        }
        pos.play_unchecked(legal[usize::from(b) % legal.len()]);
        assert_eq!(pos.hash(), pos.compute_hash());
    }
}
