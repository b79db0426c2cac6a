//! Openings: start positions with the moves played before the engines take over.

use std::path::Path;

use gyoku::{Move, Position};

/// A start position and an opening line from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start.
    pub start: Position,
    /// Moves played from it before the engines move (all legal).
    pub moves: Vec<Move>,
}

impl Opening {
    /// The even start, no moves.
    pub fn startpos() -> Opening {
        Opening {
            start: Position::startpos(),
            moves: Vec::new(),
        }
    }
}

/// Reads openings from a file: any record file Gyoku reads (each game's start and main
/// line is one opening: a USI file with one `sfen ...`/`position ...` line per opening,
/// KIF, KI2, CSA, JKF). A bare SFEN line (`<board> <side> <hand> <n>`) is read as
/// `sfen <line>`. `plies` keeps only the first moves of each line.
///
/// # Errors
/// A message with the file and what is wrong (an unreadable file, a record with an
/// illegal move, no opening at all).
pub fn load(path: &Path, plies: Option<usize>) -> Result<Vec<Opening>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (text, _) = gyoku_kifu::encoding::decode(&bytes);
    // Bare SFEN lines become USI lines.
    let looks_bare_sfen = |l: &str| {
        let fields: Vec<&str> = l.split_whitespace().collect();
        fields.len() >= 2 && fields[0].matches('/').count() == 8 && matches!(fields[1], "b" | "w")
    };
    let text: String = if text.lines().any(looks_bare_sfen) {
        text.lines()
            .map(|l| {
                if looks_bare_sfen(l) {
                    format!("sfen {l}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect()
    } else {
        text
    };
    let format = gyoku_kifu::Format::from_path(path)
        .or_else(|| gyoku_kifu::Format::sniff(&text))
        .ok_or_else(|| format!("{}: not a record or SFEN file", path.display()))?;
    let records =
        gyoku_kifu::read_str(&text, format).map_err(|e| format!("{}:{e}", path.display()))?;
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if let Some(f) = &r.foul {
            return Err(format!(
                "{}: opening {}: move {} ({}) is illegal: {}",
                path.display(),
                i + 1,
                f.ply,
                f.mv,
                f.kind
            ));
        }
        let mut moves: Vec<Move> = r.moves.iter().map(|m| m.mv).collect();
        if let Some(n) = plies {
            moves.truncate(n);
        }
        out.push(Opening {
            start: r.start.clone(),
            moves,
        });
    }
    if out.is_empty() {
        return Err(format!("{}: no opening in the file", path.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sfen_lines_usi_lines_and_records() {
        let dir = std::env::temp_dir().join(format!("gyoku-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("openings.txt");
        std::fs::write(
            &file,
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
             position startpos moves 7g7f 3c3d 2g2f\n\
             sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d\n",
        )
        .unwrap();
        let o = load(&file, None).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[1].moves.len(), 3);
        assert_eq!(o[2].start.turn(), gyoku::Color::White);
        assert_eq!(load(&file, Some(1)).unwrap()[1].moves.len(), 1);
        std::fs::write(&file, "position startpos moves 7g7f 7g7f\n").unwrap();
        assert!(
            load(&file, None)
                .unwrap_err()
                .contains("move 2 (7g7f) is illegal")
        );
        std::fs::write(&file, "").unwrap();
        assert!(load(&file, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
