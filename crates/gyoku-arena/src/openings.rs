//! Openings: start positions with the moves played before the engines take over.

use std::path::Path;

use gyoku::{Game, Handicap, Move, Position, RuleSet};

/// A start position and an opening line from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start.
    pub start: Position,
    /// Moves played from it before the engines move (all legal).
    pub moves: Vec<Move>,
}

impl Opening {
    /// The game under `rules` after the opening's moves, as a match starts it (handicap
    /// credit from a recognised handicap start). A move the game refuses, or one after the
    /// end, is not played: [`load`] refuses such openings, so a match never meets one.
    pub fn game(&self, rules: RuleSet) -> Game {
        let mut game = Game::new(self.start.clone(), rules)
            .with_handicap(Handicap::from_setup(&self.start.to_setup()));
        for &m in &self.moves {
            if game.outcome().is_some() || game.play(m).is_err() {
                break;
            }
        }
        game
    }

    /// The opening as one USI line: `sfen <SFEN>`, then ` moves …` when it has moves.
    ///
    /// ```
    /// use gyoku_arena::openings::Opening;
    /// let o = Opening::parse_line("startpos moves 7g7f 3c3d", &gyoku::Preset::Csa.rules()).unwrap();
    /// assert!(o.usi_line().starts_with("sfen lnsgkgsnl/") && o.usi_line().ends_with(" moves 7g7f 3c3d"));
    /// assert_eq!(Opening::parse_line(&o.usi_line(), &gyoku::Preset::Csa.rules()), Ok(o));
    /// ```
    pub fn usi_line(&self) -> String {
        let mut s = format!("sfen {}", self.start.to_sfen());
        if !self.moves.is_empty() {
            s.push_str(" moves");
            for m in &self.moves {
                s.push(' ');
                s.push_str(&m.to_string());
            }
        }
        s
    }

    /// Reads one USI line (`startpos`/`sfen …`, optionally after `position`, then `moves
    /// …`) as an opening, played under `rules`: an illegal move, or an opening that ends
    /// the game, is refused.
    ///
    /// # Errors
    /// What is wrong with the line.
    pub fn parse_line(line: &str, rules: &RuleSet) -> Result<Opening, String> {
        let line = line.trim();
        if line.len() > 16 * 1024 || line.contains('\n') {
            return Err("an opening is one line of at most 16 KiB".into());
        }
        let text = if line.starts_with("position ") {
            line.to_string()
        } else {
            format!("position {line}")
        };
        let mut records = gyoku_kifu::read_str(&text, gyoku_kifu::Format::Usi)
            .map_err(|e| format!("not a USI position line: {e}"))?;
        if records.len() != 1 {
            return Err("not one USI position line".into());
        }
        let r = records.remove(0);
        if let Some(f) = &r.foul {
            return Err(format!("move {} ({}) is illegal: {}", f.ply, f.mv, f.kind));
        }
        let opening = Opening {
            start: r.start.clone(),
            moves: r.moves.iter().map(|m| m.mv).collect(),
        };
        if let Some(o) = opening.game(*rules).outcome() {
            return Err(format!(
                "the game is over at ply {} of the opening ({o})",
                o.ply
            ));
        }
        Ok(opening)
    }

    /// The even start, no moves.
    pub fn startpos() -> Opening {
        Opening {
            start: Position::startpos(),
            moves: Vec::new(),
        }
    }
}

/// Shuffles openings into an order fixed by `seed` (a Fisher–Yates shuffle driven by
/// SplitMix64): the same seed, the same order, on every machine.
///
/// ```
/// use gyoku_arena::openings::{Opening, shuffle};
/// let mut a: Vec<u32> = (0..10).collect();
/// let mut b = a.clone();
/// shuffle(&mut a, 7);
/// shuffle(&mut b, 7);
/// assert_eq!(a, b);
/// assert_ne!(a, (0..10).collect::<Vec<_>>());
/// ```
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        // The bias of a modulo is below 2^-50 for any list held in memory.
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// Reads openings from a file: any record file Gyoku reads (each game's start and main
/// line is one opening: a USI file with one `sfen ...`/`position ...` line per opening,
/// KIF, KI2, CSA, JKF). A bare SFEN line (`<board> <side> <hand> <n>`) is read as
/// `sfen <line>`. `plies` keeps only the first moves of each line; a file larger than
/// `max_bytes`, or not a regular file, is refused. Each opening is played
/// under `rules` as a game would be: one that ends the game (a mate, a sennichite, the move
/// limit, an impasse) before the engines take over is refused.
///
/// # Errors
/// A message with the file, the line and what is wrong (an unreadable file, a record with
/// an illegal move, an opening that ends the game and at which ply, no opening at all).
pub fn load(
    path: &Path,
    plies: Option<usize>,
    rules: &RuleSet,
    max_bytes: u64,
) -> Result<Vec<Opening>, String> {
    let bytes = gyoku_kifu::files::read_regular(path, max_bytes)?;
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
    let lines = start_lines(&text, format);
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let at = format!(
            "{}:{}: opening {}",
            path.display(),
            lines.get(i).copied().unwrap_or(1),
            i + 1
        );
        if let Some(f) = &r.foul {
            return Err(format!(
                "{at}: move {} ({}) is illegal: {}",
                f.ply, f.mv, f.kind
            ));
        }
        let mut moves: Vec<Move> = r.moves.iter().map(|m| m.mv).collect();
        if let Some(n) = plies {
            moves.truncate(n);
        }
        let opening = Opening {
            start: r.start.clone(),
            moves,
        };
        if let Some(o) = opening.game(*rules).outcome() {
            return Err(format!(
                "{at}: the game is over at ply {} of the opening ({o}); an opening must leave \
                 the engines a game to play (shorten it with --opening-plies, or check the rules)",
                o.ply
            ));
        }
        out.push(opening);
    }
    if out.is_empty() {
        return Err(format!("{}: no opening in the file", path.display()));
    }
    Ok(out)
}

/// The line on which each record of `text` starts, where the format says it: one line per
/// USI record; CSA games after each `/` line; any other format holds one game (line 1).
fn start_lines(text: &str, format: gyoku_kifu::Format) -> Vec<usize> {
    let numbered = text.lines().enumerate().map(|(n, l)| (n + 1, l.trim()));
    match format {
        gyoku_kifu::Format::Usi => numbered
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
            .map(|(n, _)| n)
            .collect(),
        gyoku_kifu::Format::Csa => std::iter::once(1)
            .chain(numbered.filter(|(_, l)| *l == "/").map(|(n, _)| n + 1))
            .collect(),
        _ => vec![1],
    }
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
        let rules = gyoku::Preset::Csa.rules();
        let o = load(&file, None, &rules, 1 << 20).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[1].moves.len(), 3);
        assert_eq!(o[2].start.turn(), gyoku::Color::White);
        assert_eq!(
            load(&file, Some(1), &rules, 1 << 20).unwrap()[1]
                .moves
                .len(),
            1
        );
        std::fs::write(&file, "position startpos moves 7g7f 7g7f\n").unwrap();
        assert!(
            load(&file, None, &rules, 1 << 20)
                .unwrap_err()
                .contains("move 2 (7g7f) is illegal")
        );
        std::fs::write(&file, "").unwrap();
        assert!(load(&file, None, &rules, 1 << 20).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
