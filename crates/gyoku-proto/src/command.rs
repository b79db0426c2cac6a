//! Commands from the GUI (or referee) to the engine.

use std::fmt;

use gyoku::Move;

use crate::{trim_line, words};

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    /// `startpos`.
    Startpos,
    /// `sfen <board> <side> <hand> <move number>` (the four fields, as one string).
    Sfen(String),
}

/// The result a `gameover` command tells the engine, from its own point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameOverResult {
    /// `win`.
    Win,
    /// `lose`.
    Lose,
    /// `draw` (also for a no-contest).
    Draw,
}

impl GameOverResult {
    /// The USI word.
    pub const fn word(self) -> &'static str {
        match self {
            GameOverResult::Win => "win",
            GameOverResult::Lose => "lose",
            GameOverResult::Draw => "draw",
        }
    }
}

/// The parameters of `go`: times in milliseconds. `byoyomi` and `binc`/`winc` should not
/// both be given (the protocol's users disagree on what that means); its `Display` writes
/// whatever is set, in the conventional order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `ponder`: think on the opponent's time.
    pub ponder: bool,
    /// Black's main time left.
    pub btime: Option<u64>,
    /// White's main time left.
    pub wtime: Option<u64>,
    /// The byoyomi period (both sides).
    pub byoyomi: Option<u64>,
    /// Black's increment.
    pub binc: Option<u64>,
    /// White's increment.
    pub winc: Option<u64>,
    /// Think exactly this long.
    pub movetime: Option<u64>,
    /// Search to this depth.
    pub depth: Option<u32>,
    /// Search this many nodes.
    pub nodes: Option<u64>,
    /// Think until `stop`.
    pub infinite: bool,
}

/// A command to a USI engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `usi`: identify yourself and list your options.
    Usi,
    /// `setoption name <name> [value <value>]` (no value for a button).
    SetOption {
        /// The option's name (no spaces in USI).
        name: String,
        /// Its value: everything after `value`.
        value: Option<String>,
    },
    /// `isready`.
    IsReady,
    /// `usinewgame`.
    UsiNewGame,
    /// `position (startpos | sfen ...) [moves ...]`: the whole game so far.
    Position {
        /// The start position.
        start: PositionStart,
        /// Every move since.
        moves: Vec<Move>,
    },
    /// `go ...`.
    Go(Go),
    /// `stop`.
    Stop,
    /// `ponderhit`, with the clocks when they are given (`ponderhit btime … wtime …`, as
    /// ShogiHome sends it after an early `go ponder` without them); only the times of the
    /// [`Go`] are written.
    PonderHit(Go),
    /// `gameover win|lose|draw`.
    GameOver(GameOverResult),
    /// `quit`.
    Quit,
    /// Anything else, kept as written (engines ignore unknown commands).
    Unknown(String),
}

impl fmt::Display for Go {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if self.ponder {
            f.write_str(" ponder")?;
        }
        self.write_params(f)
    }
}

impl Go {
    /// The parameters after `go` (and `ponder`): times, limits, `infinite`.
    fn write_params(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (word, value) in [
            ("btime", self.btime),
            ("wtime", self.wtime),
            ("byoyomi", self.byoyomi),
            ("binc", self.binc),
            ("winc", self.winc),
            ("movetime", self.movetime),
            ("nodes", self.nodes),
        ] {
            if let Some(v) = value {
                write!(f, " {word} {v}")?;
            }
        }
        if let Some(d) = self.depth {
            write!(f, " depth {d}")?;
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Usi => f.write_str("usi"),
            Command::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                if let Some(v) = value {
                    write!(f, " value {v}")?;
                }
                Ok(())
            }
            Command::IsReady => f.write_str("isready"),
            Command::UsiNewGame => f.write_str("usinewgame"),
            Command::Position { start, moves } => {
                match start {
                    PositionStart::Startpos => f.write_str("position startpos")?,
                    PositionStart::Sfen(s) => write!(f, "position sfen {s}")?,
                }
                if !moves.is_empty() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                }
                Ok(())
            }
            Command::Go(go) => go.fmt(f),
            Command::Stop => f.write_str("stop"),
            Command::PonderHit(times) => {
                f.write_str("ponderhit")?;
                times.write_params(f)
            }
            Command::GameOver(r) => write!(f, "gameover {}", r.word()),
            Command::Quit => f.write_str("quit"),
            Command::Unknown(s) => f.write_str(s),
        }
    }
}

impl Command {
    /// Parses a command line as an engine reads it. Malformed parts are skipped (an unknown
    /// `go` parameter, a bad number), as engines do; a `position` whose start or moves
    /// cannot be read is [`Command::Unknown`].
    ///
    /// ```
    /// use gyoku_proto::{Command, PositionStart};
    /// let c = Command::parse("position  sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1 moves G*5b\r");
    /// assert!(matches!(c, Command::Position { start: PositionStart::Sfen(_), ref moves } if moves.len() == 1));
    /// ```
    pub fn parse(line: &str) -> Command {
        let line = trim_line(line);
        let mut w = words(line);
        match w.next() {
            Some("usi") => Command::Usi,
            Some("isready") => Command::IsReady,
            Some("usinewgame") => Command::UsiNewGame,
            Some("stop") => Command::Stop,
            Some("ponderhit") => Command::PonderHit(Go {
                ponder: false,
                ..parse_go(w)
            }),
            Some("quit") => Command::Quit,
            Some("gameover") => match w.next() {
                Some("win") => Command::GameOver(GameOverResult::Win),
                Some("lose") => Command::GameOver(GameOverResult::Lose),
                Some("draw") => Command::GameOver(GameOverResult::Draw),
                _ => Command::Unknown(line.to_string()),
            },
            Some("setoption") => {
                parse_setoption(line).unwrap_or(Command::Unknown(line.to_string()))
            }
            Some("position") => parse_position(w).unwrap_or(Command::Unknown(line.to_string())),
            Some("go") => Command::Go(parse_go(w)),
            _ => Command::Unknown(line.to_string()),
        }
    }
}

fn parse_setoption(line: &str) -> Option<Command> {
    let rest = line.strip_prefix("setoption")?.trim_start();
    let rest = rest.strip_prefix("name")?.trim_start();
    let (name, value) = match rest.find(" value") {
        Some(i) => (
            rest[..i].trim(),
            Some(rest[i + " value".len()..].trim().to_string()),
        ),
        None => (rest.trim(), None),
    };
    (!name.is_empty()).then(|| Command::SetOption {
        name: name.to_string(),
        value,
    })
}

fn parse_position<'a>(mut w: impl Iterator<Item = &'a str>) -> Option<Command> {
    let start = match w.next()? {
        "startpos" => PositionStart::Startpos,
        "sfen" => {
            let fields: Vec<&str> = (&mut w).take_while(|t| *t != "moves").collect();
            if fields.len() < 2 || fields.len() > 4 {
                return None;
            }
            let moves = w.map(str::parse).collect::<Result<Vec<Move>, _>>().ok()?;
            return Some(Command::Position {
                start: PositionStart::Sfen(fields.join(" ")),
                moves,
            });
        }
        _ => return None,
    };
    match w.next() {
        None => Some(Command::Position {
            start,
            moves: Vec::new(),
        }),
        Some("moves") => {
            let moves = w.map(str::parse).collect::<Result<Vec<Move>, _>>().ok()?;
            Some(Command::Position { start, moves })
        }
        Some(_) => None,
    }
}

fn parse_go<'a>(w: impl Iterator<Item = &'a str>) -> Go {
    let mut go = Go::default();
    let mut w = w.peekable();
    while let Some(word) = w.next() {
        let mut number = || {
            w.next_if(|t| t.parse::<i64>().is_ok())
                .and_then(|t| t.parse::<i64>().ok())
        };
        match word {
            "ponder" => go.ponder = true,
            "infinite" => go.infinite = true,
            // Negative times are read as 0 (the protocol says they never are negative).
            "btime" => go.btime = number().map(|n| n.max(0) as u64),
            "wtime" => go.wtime = number().map(|n| n.max(0) as u64),
            "byoyomi" => go.byoyomi = number().map(|n| n.max(0) as u64),
            "binc" => go.binc = number().map(|n| n.max(0) as u64),
            "winc" => go.winc = number().map(|n| n.max(0) as u64),
            "movetime" => go.movetime = number().map(|n| n.max(0) as u64),
            "nodes" => go.nodes = number().map(|n| n.max(0) as u64),
            "depth" => go.depth = number().map(|n| n.clamp(0, i64::from(u32::MAX)) as u32),
            _ => {}
        }
    }
    go
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip() {
        for line in [
            "usi",
            "isready",
            "usinewgame",
            "setoption name USI_Hash value 256",
            "setoption name UCI_Variant value shogi",
            "setoption name BookFile value my book.db",
            "setoption name Clear_Hash",
            "position startpos",
            "position startpos moves 7g7f 3c3d 8h2b+",
            "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d",
            "go btime 1000 wtime 2000 byoyomi 300",
            "go btime 0 wtime 0 binc 1000 winc 1000",
            "go ponder btime 5 wtime 5 byoyomi 0",
            "go infinite",
            "stop",
            "ponderhit",
            "ponderhit btime 36000 wtime 34000 binc 5000 winc 5000",
            "gameover lose",
            "quit",
        ] {
            let c = Command::parse(line);
            assert!(!matches!(c, Command::Unknown(_)), "{line}");
            assert_eq!(c.to_string(), line);
        }
    }

    #[test]
    fn lenient_parsing() {
        assert_eq!(
            Command::parse("go  btime -5 wtime 10 byoyomi x mate 3\r\n"),
            Command::Go(Go {
                btime: Some(0),
                wtime: Some(10),
                ..Go::default()
            })
        );
        assert!(matches!(
            Command::parse("position startpos moves 7g7x"),
            Command::Unknown(_)
        ));
        assert!(matches!(
            Command::parse("register later"),
            Command::Unknown(_)
        ));
        assert_eq!(
            Command::parse("position startpos moves"),
            Command::Position {
                start: PositionStart::Startpos,
                moves: vec![]
            }
        );
    }
}
