//! Levels of the server's engines (`gyoku serve --engine-level NAME:LEVEL=SPEC`): each a
//! fixed search sent in place of the game's clock (`go nodes`, `go depth`, `go movetime`)
//! and the options that weaken the engine (Fairy-Stockfish's `Skill Level`), so that a
//! person's ten-minute game against level 1 is answered in a moment, whatever the clock.

use gyoku_proto::Go;

/// The longest a level may think on a move, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 60_000;

/// The most levels one engine has.
pub const MAX_LEVELS: usize = 20;

/// One level of an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineLevel {
    /// Its number, as the page shows it (1 upwards).
    pub level: u32,
    /// `go nodes`.
    pub nodes: Option<u64>,
    /// `go depth`.
    pub depth: Option<u32>,
    /// `go movetime`, in milliseconds.
    pub movetime_ms: Option<u64>,
    /// `setoption` names and values sent after `usiok`.
    pub options: Vec<(String, String)>,
}

impl EngineLevel {
    /// Reads `SPEC`, `;`-separated `KEY=VALUE`s: `nodes`, `depth` and `movetime` (ms) make
    /// the search, anything else is a USI option. At least one of the three is needed
    /// (a level with the game's clock would not be one).
    ///
    /// ```
    /// use gyoku_server::engine_levels::EngineLevel;
    /// let l = EngineLevel::parse(1, "movetime=200; Skill Level=0").unwrap();
    /// assert_eq!((l.movetime_ms, l.nodes), (Some(200), None));
    /// assert_eq!(l.options, [("Skill Level".to_string(), "0".to_string())]);
    /// assert!(EngineLevel::parse(2, "Skill Level=3").is_err());
    /// ```
    ///
    /// # Errors
    /// What is wrong and where, in words.
    pub fn parse(level: u32, spec: &str) -> Result<EngineLevel, String> {
        let mut l = EngineLevel {
            level,
            nodes: None,
            depth: None,
            movetime_ms: None,
            options: Vec::new(),
        };
        for part in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!("'{part}' is not KEY=VALUE"));
            };
            let (key, value) = (key.trim(), value.trim());
            let number = |what: &str| {
                value
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{what} '{value}' is not a whole number above 0"))
            };
            match key {
                "nodes" => l.nodes = Some(number("nodes")?),
                "depth" => {
                    l.depth = Some(
                        u32::try_from(number("depth")?)
                            .ok()
                            .filter(|d| *d <= 100)
                            .ok_or("depth is at most 100")?,
                    );
                }
                "movetime" => {
                    let ms = number("movetime")?;
                    if ms > MAX_MOVETIME_MS {
                        return Err(format!("movetime is at most {MAX_MOVETIME_MS} ms"));
                    }
                    l.movetime_ms = Some(ms);
                }
                "" => return Err(format!("'{part}' has no name")),
                name => l.options.push((name.to_string(), value.to_string())),
            }
        }
        if l.nodes.is_none() && l.depth.is_none() && l.movetime_ms.is_none() {
            return Err("a level needs nodes, depth or movetime".into());
        }
        Ok(l)
    }

    /// The `go` the engine is sent on each of its moves.
    pub fn go(&self) -> Go {
        Go {
            nodes: self.nodes,
            depth: self.depth,
            movetime: self.movetime_ms,
            ..Go::default()
        }
    }

    /// The level in words for the page's form: `level 2 (200 ms)`, `level 1 (depth 1,
    /// 1000 nodes)`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("{ms} ms"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        format!("level {} ({})", self.level, parts.join(", "))
    }
}

/// Reads `NAME:LEVEL=SPEC` (`fsf:1=movetime=100;Skill Level=0`): the engine's name and its
/// level.
///
/// # Errors
/// What is wrong, in words.
pub fn parse_engine_level(text: &str) -> Result<(String, EngineLevel), String> {
    let (head, spec) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}' is not NAME:LEVEL=SPEC"))?;
    let (name, level) = head
        .split_once(':')
        .ok_or_else(|| format!("'{head}' is not NAME:LEVEL"))?;
    let level: u32 = level
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=u32::try_from(MAX_LEVELS).unwrap_or(20)).contains(n))
        .ok_or_else(|| format!("level '{level}' is not 1 to {MAX_LEVELS}"))?;
    let parsed = EngineLevel::parse(level, spec).map_err(|e| format!("{head}: {e}"))?;
    Ok((name.trim().to_string(), parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_written_or_say_what_is_wrong() {
        let (name, l) = parse_engine_level("fsf:3=depth=4;nodes=50000;Skill Level=10").unwrap();
        assert_eq!(name, "fsf");
        assert_eq!(
            (l.level, l.depth, l.nodes, l.movetime_ms),
            (3, Some(4), Some(50_000), None)
        );
        assert_eq!(l.go().to_string(), "go nodes 50000 depth 4");
        assert_eq!(l.describe(), "level 3 (depth 4, 50000 nodes)");
        for (bad, says) in [
            ("fsf=movetime=1", "NAME:LEVEL"),
            ("fsf:0=movetime=1", "1 to"),
            ("fsf:1=movetime=0", "above 0"),
            ("fsf:1=movetime=999999", "at most"),
            ("fsf:1=Skill Level=1", "nodes, depth or movetime"),
            ("fsf:1=movetime", "KEY=VALUE"),
            ("fsf:1=depth=x", "whole number"),
        ] {
            let e = parse_engine_level(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
