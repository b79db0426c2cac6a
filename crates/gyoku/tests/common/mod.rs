//! Helpers shared by the integration tests: data paths, a seeded RNG and a slow,
//! plainly written reference move generator.
#![allow(dead_code)]

pub mod reference;

use std::path::PathBuf;

/// `tests/data` at the workspace root.
pub fn data_dir() -> PathBuf {
    gyoku_testdata::repo_data()
}

/// A small seeded generator (SplitMix64), so that failures can be replayed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The seed from `GYOKU_SEED`, or `default`.
pub fn seed(default: u64) -> u64 {
    std::env::var("GYOKU_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
