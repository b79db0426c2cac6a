//! Zobrist keys.
//!
//! The hash of a position is a pure function of the board, both hands and the side to
//! move: the XOR of one key per (piece, square), the side key when White is to move, and
//! for each side and hand kind the kind's key times the count held (so a hand changes the
//! hash by one addition per piece taken or given).

use crate::{Color, Piece, Role, Square};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, k) = splitmix64(state);
        state = s;
        out[i] = k;
        i += 1;
    }
    out
}

static PIECE_SQUARE: [u64; 28 * 81] = keys(0x6779_6f6b_7520_0001);
static HAND: [u64; 14] = keys(0x6779_6f6b_7520_0002);

/// The key XORed in when White is to move.
pub const WHITE_TO_MOVE: u64 = 0x5a1f_19e8_3c4d_b7a3;

/// The key of `piece` standing on `sq`.
#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[piece.index() * 81 + sq.index()]
}

/// The key added once per piece of `role` in `color`'s hand.
#[inline]
pub fn hand(color: Color, role: Role) -> u64 {
    HAND[color.index() * 7 + role.index()]
}
