//! `cargo bench -p gyoku-bench`: the quick cells of the side-by-side perft benchmark.
//! The full matrix is `cargo run --release -p gyoku-bench`.

use gyoku_bench::{Library, PERFT_CELLS, cshogi_available, markdown, perft_matrix};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let cells: Vec<_> = PERFT_CELLS
        .iter()
        .copied()
        .filter(|c| c.slow_peers)
        .collect();
    let mut libraries = Library::ALL.to_vec();
    if !cshogi_available() {
        libraries.retain(|&l| l != Library::Cshogi);
    }
    println!("{}", markdown(&perft_matrix(&cells, &libraries, 3, |_| {})));
}
