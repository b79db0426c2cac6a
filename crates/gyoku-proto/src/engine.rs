//! Messages from the engine to the GUI (or referee).

use std::fmt;

use gyoku::Move;

use crate::{trim_line, words};

/// What an engine answers to `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BestMove {
    /// A move (not yet checked against the position: that is the referee's job).
    Move(Move),
    /// `resign`.
    Resign,
    /// `win`: the engine declares an entering-king win, a claim the referee judges.
    Win,
}

impl fmt::Display for BestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BestMove::Move(m) => m.fmt(f),
            BestMove::Resign => f.write_str("resign"),
            BestMove::Win => f.write_str("win"),
        }
    }
}

/// The type of an engine option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptionKind {
    /// `check`: true or false.
    Check,
    /// `spin`: an integer in a range.
    Spin,
    /// `combo`: one of `var` values.
    Combo,
    /// `button`: no value.
    Button,
    /// `string`.
    String,
    /// `filename`.
    Filename,
}

/// An `option` line: an engine setting the GUI may change with `setoption`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The option's name.
    pub name: String,
    /// Its type.
    pub kind: OptionKind,
    /// Its default (`<empty>` is read as an empty string).
    pub default: Option<String>,
    /// A spin's minimum.
    pub min: Option<i64>,
    /// A spin's maximum.
    pub max: Option<i64>,
    /// A combo's values.
    pub vars: Vec<String>,
}

/// A search score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// `score cp <n>`: centipawns from the side to move's view.
    Cp(i64),
    /// `score mate <n>`: mate in `n` plies (negative: being mated); `mate +`/`mate -`
    /// without a number are ±0.
    Mate(i64),
}

/// The parts of an `info` line a referee uses; the line itself is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// The whole line as written.
    pub raw: String,
    /// `depth`.
    pub depth: Option<u32>,
    /// `score`.
    pub score: Option<Score>,
    /// `nodes`.
    pub nodes: Option<u64>,
}

/// A line from a USI engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineMessage {
    /// `id name <name>`.
    IdName(String),
    /// `id author <author>`.
    IdAuthor(String),
    /// `option name ... type ...`.
    Option(OptionDecl),
    /// `usiok`.
    UsiOk,
    /// `readyok`.
    ReadyOk,
    /// `bestmove <move> [ponder <move>]`, `bestmove resign`, `bestmove win`.
    BestMove {
        /// The move, resignation or declaration.
        best: BestMove,
        /// The move it expects in reply, if it says (kept as written).
        ponder: Option<String>,
    },
    /// `info ...`.
    Info(Info),
    /// `checkmate ...` (the answer to `go mate`), kept as written.
    Checkmate(String),
    /// A `bestmove` line whose move cannot be read.
    Malformed {
        /// The line.
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Any other line (banners, blank lines, error messages), which a GUI ignores.
    Other(String),
}

impl EngineMessage {
    /// Parses one line from an engine.
    ///
    /// ```
    /// use gyoku_proto::{BestMove, EngineMessage};
    /// assert_eq!(EngineMessage::parse("usiok\r\n"), EngineMessage::UsiOk);
    /// assert!(matches!(EngineMessage::parse("bestmove 7g7f ponder 3c3d"),
    ///     EngineMessage::BestMove { best: BestMove::Move(_), ponder: Some(_) }));
    /// assert!(matches!(EngineMessage::parse("bestmove (none)"), EngineMessage::Malformed { .. }));
    /// ```
    pub fn parse(line: &str) -> EngineMessage {
        let line = trim_line(line);
        let mut w = words(line);
        match w.next() {
            Some("usiok") => EngineMessage::UsiOk,
            Some("readyok") => EngineMessage::ReadyOk,
            Some("id") => match w.next() {
                Some("name") => EngineMessage::IdName(rest_after(line, "name")),
                Some("author") => EngineMessage::IdAuthor(rest_after(line, "author")),
                _ => EngineMessage::Other(line.to_string()),
            },
            Some("option") => parse_option(line).map_or_else(
                || EngineMessage::Other(line.to_string()),
                EngineMessage::Option,
            ),
            Some("bestmove") => parse_bestmove(line, w),
            Some("info") => EngineMessage::Info(parse_info(line, w)),
            Some("checkmate") => EngineMessage::Checkmate(line.to_string()),
            _ => EngineMessage::Other(line.to_string()),
        }
    }
}

/// Everything after the first `word` in `line`, trimmed.
fn rest_after(line: &str, word: &str) -> String {
    line.find(word)
        .map(|i| line[i + word.len()..].trim().to_string())
        .unwrap_or_default()
}

fn parse_bestmove<'a>(line: &str, mut w: impl Iterator<Item = &'a str>) -> EngineMessage {
    let malformed = |reason: String| EngineMessage::Malformed {
        line: line.to_string(),
        reason,
    };
    let best = match w.next() {
        None => return malformed("no move after 'bestmove'".to_string()),
        Some("resign") => BestMove::Resign,
        Some("win") => BestMove::Win,
        Some(token) => match token.parse::<Move>() {
            Ok(m) => BestMove::Move(m),
            Err(e) => return malformed(format!("'{token}' is not a USI move: {e}")),
        },
    };
    let ponder = match (w.next(), w.next()) {
        (Some("ponder"), Some(p)) => Some(p.to_string()),
        _ => None,
    };
    EngineMessage::BestMove { best, ponder }
}

fn parse_option(line: &str) -> Option<OptionDecl> {
    // option name <name> type <type> [default <x>] [min <a>] [max <b>] [var <v>]...
    let rest = line
        .strip_prefix("option")?
        .trim_start()
        .strip_prefix("name")?;
    // The name is at least one word, and ends at the next word `type`; words are split by
    // the blanks `words` splits by (a tab too), so that the name written back reads the same.
    const BLANKS: [char; 4] = [' ', '\t', '\r', '\n'];
    let rest = rest.trim_start_matches(BLANKS);
    let mut word_start = None;
    let mut first = true;
    let mut boundary = None;
    for (i, c) in rest
        .char_indices()
        .chain(std::iter::once((rest.len(), ' ')))
    {
        if BLANKS.contains(&c) {
            if let Some(start) = word_start.take() {
                if !first && &rest[start..i] == "type" {
                    boundary = Some((start, i));
                    break;
                }
                first = false;
            }
        } else if word_start.is_none() {
            word_start = Some(i);
        }
    }
    let (type_at, type_end) = boundary?;
    let name = rest[..type_at].trim_matches(BLANKS).to_string();
    let mut w = words(&rest[type_end..]).peekable();
    let kind = match w.next()? {
        "check" => OptionKind::Check,
        "spin" => OptionKind::Spin,
        "combo" => OptionKind::Combo,
        "button" => OptionKind::Button,
        "string" => OptionKind::String,
        "filename" => OptionKind::Filename,
        _ => return None,
    };
    let mut decl = OptionDecl {
        name,
        kind,
        default: None,
        min: None,
        max: None,
        vars: Vec::new(),
    };
    while let Some(key) = w.next() {
        let Some(value) = w.next() else { break };
        match key {
            "default" => {
                decl.default = Some(if value == "<empty>" {
                    String::new()
                } else {
                    value.to_string()
                });
            }
            "min" => decl.min = value.parse().ok(),
            "max" => decl.max = value.parse().ok(),
            "var" => decl.vars.push(value.to_string()),
            _ => {}
        }
    }
    (!decl.name.is_empty()).then_some(decl)
}

fn parse_info<'a>(line: &str, w: impl Iterator<Item = &'a str>) -> Info {
    let mut info = Info {
        raw: line.to_string(),
        depth: None,
        score: None,
        nodes: None,
    };
    let mut w = w.peekable();
    while let Some(word) = w.next() {
        match word {
            "depth" => info.depth = w.next().and_then(|t| t.parse().ok()),
            "nodes" => info.nodes = w.next().and_then(|t| t.parse().ok()),
            "score" => {
                info.score = match (w.next(), w.next()) {
                    (Some("cp"), Some(n)) => n.parse().ok().map(Score::Cp),
                    (Some("mate"), Some("+" | "-")) => Some(Score::Mate(0)),
                    (Some("mate"), Some(n)) => n.parse().ok().map(Score::Mate),
                    _ => None,
                }
            }
            // The rest of the line is free text.
            "string" => break,
            _ => {}
        }
    }
    info
}

impl fmt::Display for EngineMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineMessage::IdName(n) => write!(f, "id name {n}"),
            EngineMessage::IdAuthor(a) => write!(f, "id author {a}"),
            EngineMessage::Option(o) => {
                let kind = match o.kind {
                    OptionKind::Check => "check",
                    OptionKind::Spin => "spin",
                    OptionKind::Combo => "combo",
                    OptionKind::Button => "button",
                    OptionKind::String => "string",
                    OptionKind::Filename => "filename",
                };
                write!(f, "option name {} type {kind}", o.name)?;
                if let Some(d) = &o.default {
                    write!(f, " default {}", if d.is_empty() { "<empty>" } else { d })?;
                }
                if let Some(m) = o.min {
                    write!(f, " min {m}")?;
                }
                if let Some(m) = o.max {
                    write!(f, " max {m}")?;
                }
                for v in &o.vars {
                    write!(f, " var {v}")?;
                }
                Ok(())
            }
            EngineMessage::UsiOk => f.write_str("usiok"),
            EngineMessage::ReadyOk => f.write_str("readyok"),
            EngineMessage::BestMove { best, ponder } => {
                write!(f, "bestmove {best}")?;
                if let Some(p) = ponder {
                    write!(f, " ponder {p}")?;
                }
                Ok(())
            }
            EngineMessage::Info(i) => f.write_str(&i.raw),
            EngineMessage::Checkmate(s) | EngineMessage::Other(s) => f.write_str(s),
            EngineMessage::Malformed { line, .. } => f.write_str(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `usi_messages` fuzz target: a name followed by tabs and the word `type`
    /// read as the name `am\t\t\t\t type` (only ` type ` with spaces ended a name), which
    /// written back read as another message. The name ends at the first word `type`,
    /// whatever blanks surround it.
    #[test]
    fn an_option_name_ends_at_the_first_word_type() {
        let line = "option name am\t\t\t\t type\t\t\t type spin 2\u{fffd}\u{fffd}";
        let m = EngineMessage::parse(line);
        assert_eq!(EngineMessage::parse(&m.to_string()), m, "{m:?}");
        let EngineMessage::Option(o) =
            EngineMessage::parse("option name Hash\ttype spin default 16")
        else {
            panic!()
        };
        assert_eq!(
            (o.name.as_str(), o.kind, o.default.as_deref()),
            ("Hash", OptionKind::Spin, Some("16"))
        );
        let EngineMessage::Option(o) = EngineMessage::parse("option name type type check") else {
            panic!()
        };
        assert_eq!((o.name.as_str(), o.kind), ("type", OptionKind::Check));
        let EngineMessage::Option(o) =
            EngineMessage::parse("option name Book File type filename default book.db")
        else {
            panic!()
        };
        assert_eq!(o.name, "Book File");
    }

    #[test]
    fn real_engine_lines() {
        // From ../shared/data/usi/transcript_*.txt.
        assert_eq!(
            EngineMessage::parse("id name gpsshogi (smp) vm r3033 wordsize 64 gcc 12.2.0"),
            EngineMessage::IdName("gpsshogi (smp) vm r3033 wordsize 64 gcc 12.2.0".into())
        );
        let EngineMessage::Option(o) =
            EngineMessage::parse("option name LimitDepth type spin default 10 min 4 max 10")
        else {
            panic!()
        };
        assert_eq!(
            (o.kind, o.min, o.max),
            (OptionKind::Spin, Some(4), Some(10))
        );
        let EngineMessage::Option(o) =
            EngineMessage::parse("option name CSAFile type string default <empty>")
        else {
            panic!()
        };
        assert_eq!(o.default.as_deref(), Some(""));
        let EngineMessage::Option(o) = EngineMessage::parse(
            "option name UCI_Variant type combo default shogi var shogi var minishogi",
        ) else {
            panic!()
        };
        assert_eq!(o.vars, ["shogi", "minishogi"]);
        assert!(matches!(
            EngineMessage::parse("Fairy-Stockfish 11.1 LB 64 by Fabian Fichter"),
            EngineMessage::Other(_)
        ));
        assert_eq!(
            EngineMessage::parse(""),
            EngineMessage::Other(String::new())
        );
        let EngineMessage::Info(i) = EngineMessage::parse(
            "info depth 10 seldepth 1 time 2 score cp -1148897 nodes 22 nps 9124 pv resign",
        ) else {
            panic!()
        };
        assert_eq!(
            (i.depth, i.score, i.nodes),
            (Some(10), Some(Score::Cp(-1148897)), Some(22))
        );
        assert_eq!(
            EngineMessage::parse("bestmove resign"),
            EngineMessage::BestMove {
                best: BestMove::Resign,
                ponder: None
            }
        );
        assert!(matches!(
            EngineMessage::parse("bestmove"),
            EngineMessage::Malformed { .. }
        ));
    }

    #[test]
    fn messages_round_trip() {
        for line in [
            "id name Gyoku",
            "id author the Gyoku team",
            "option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule27",
            "option name Style type string default <empty>",
            "usiok",
            "readyok",
            "bestmove 7g7f ponder 3c3d",
            "bestmove P*5e",
            "bestmove win",
            "info depth 3 score mate -2 pv 5a4b",
        ] {
            let m = EngineMessage::parse(line);
            assert!(
                !matches!(m, EngineMessage::Other(_) | EngineMessage::Malformed { .. }),
                "{line}"
            );
            assert_eq!(m.to_string(), line);
        }
    }
}
