//! Invariants checked by the `records` fuzz target, kept here so that a stable
//! `cargo test` replays its committed corpus through the same code.
#![doc(hidden)]

use crate::{Format, Record, read_bytes, read_str, write};

fn same_moves(a: &Record, b: &Record) -> bool {
    a.moves
        .iter()
        .map(|m| m.mv)
        .eq(b.moves.iter().map(|m| m.mv))
        && a.start.same_position(&b.start)
}

/// Any bytes, read as each format: no panic; whatever reads writes in every format and
/// reads back with the same start and moves.
pub fn records(data: &[u8]) {
    for format in [
        Format::Csa,
        Format::Kif,
        Format::Ki2,
        Format::Jkf,
        Format::Usi,
    ] {
        records_as(data, format);
    }
}

/// [`records`] for one reader (the per-format fuzz targets).
pub fn records_as(data: &[u8], format: Format) {
    {
        let Ok(records) = read_bytes(data, Some(format)) else {
            return;
        };
        for r in records.iter().take(4) {
            for out in [
                Format::Csa,
                Format::Kif,
                Format::Ki2,
                Format::Usi,
                Format::Jkf,
            ] {
                let text = write(r, out);
                let back = read_str(&text, out)
                    .unwrap_or_else(|e| panic!("written {out:?} does not read back: {e}\n{text}"));
                assert!(
                    same_moves(r, &back[0]),
                    "{out:?} changed the moves:\n{text}"
                );
            }
        }
    }
}
