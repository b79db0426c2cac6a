//! `gyoku-bench`: Gyoku against its peers, side by side in one run.
//!
//! ```text
//! cargo run --release -p gyoku-bench -- [--rounds N] [--quick] [--no-cshogi]
//! ```
//! `--quick` runs only the cells every library can do in seconds.

use gyoku_bench::{Library, PERFT_CELLS, cshogi_available, markdown, perft_matrix};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3;
    let mut quick = false;
    let mut cshogi = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rounds" => rounds = it.next().and_then(|n| n.parse().ok()).unwrap_or(3),
            "--quick" => quick = true,
            "--no-cshogi" => cshogi = false,
            other => {
                eprintln!("gyoku-bench: unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let cells: Vec<_> = PERFT_CELLS
        .iter()
        .copied()
        .filter(|c| !quick || c.slow_peers)
        .collect();
    let mut libraries: Vec<Library> = Library::ALL.to_vec();
    if !cshogi || !cshogi_available() {
        eprintln!("gyoku-bench: cshogi not used (pip install cshogi to include it)");
        libraries.retain(|&l| l != Library::Cshogi);
    }
    let rows = perft_matrix(&cells, &libraries, rounds, |line| eprintln!("{line}"));
    println!("{}", markdown(&rows));
}
