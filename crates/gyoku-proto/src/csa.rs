//! The CSA server protocol 1.2.1 as shogi-server (Floodgate) speaks it, as data: what a
//! client sends ([`ClientMessage`]), the game names that carry a time control
//! ([`GameName`]), the `LOGIN` password forms ([`Login`]), and the end-of-game lines
//! ([`GameEnd`], [`EndResult`]). No I/O happens here; the server (`gyoku-server`) and the
//! bridge drive connections with it.
//!
//! ```
//! use gyoku_proto::csa::{ClientMessage, GameName, Login};
//! let login = ClientMessage::parse("LOGIN engine floodgate-300-10F,secret").unwrap();
//! let ClientMessage::Login(Login { name, game, password, x1, .. }) = login else { panic!() };
//! assert_eq!((name.as_str(), password.as_str(), x1), ("engine", "secret", false));
//! let game = game.unwrap();
//! assert_eq!((game.total_seconds, game.increment_seconds), (300, 10));
//! assert_eq!(ClientMessage::parse("%TORYO").unwrap(), ClientMessage::Resign);
//! ```

use std::fmt;

use gyoku::{Color, Handicap};

use crate::trim_line;

/// The longest name or game name shogi-server accepts (its `--max-identifier` default).
pub const MAX_IDENTIFIER: usize = 32;

/// Whether `s` is a player or game identifier shogi-server accepts: 1 to 32 of
/// `[A-Za-z0-9_@.-]`.
pub fn good_identifier(s: &str) -> bool {
    (1..=MAX_IDENTIFIER).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'@' | b'-' | b'.'))
}

/// A game name that carries its time control, as shogi-server reads it:
/// `<base>-<total seconds>-<byoyomi seconds>` or `…-<increment>F` (Fischer); a byoyomi
/// written with a leading zero (`-060`) is a stop-watch game (minutes). A `hc2p_`, `hc4p_`,
/// … prefix names a handicap game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameName {
    /// The whole name, without a turn preference suffix.
    pub name: String,
    /// The main time, in seconds (minutes for a stop-watch game).
    pub total_seconds: u32,
    /// The byoyomi, in seconds (0 with an increment).
    pub byoyomi_seconds: u32,
    /// The Fischer increment, in seconds.
    pub increment_seconds: u32,
    /// A stop-watch game (`-060`: times in whole minutes).
    pub stop_watch: bool,
    /// The colour asked for with a `-B`/`-W` suffix (`None`: either).
    pub turn: Option<Color>,
    /// The handicap the name's prefix asks for.
    pub handicap: Option<Handicap>,
}

/// shogi-server's handicap prefixes, the giver (White) moving first.
const HANDICAP_PREFIXES: [(&str, Handicap); 9] = [
    ("hcrooklance_", Handicap::RookLance),
    ("hclance_", Handicap::Lance),
    ("hcbishop_", Handicap::Bishop),
    ("hcrook_", Handicap::Rook),
    ("hc2p_", Handicap::TwoPiece),
    ("hc4p_", Handicap::FourPiece),
    ("hc6p_", Handicap::SixPiece),
    ("hc8p_", Handicap::EightPiece),
    ("hc10p_", Handicap::TenPiece),
];

impl GameName {
    /// Reads a game name; `None` when it carries no time control or its base is not an
    /// identifier (shogi-server then falls back to `default-1500-0`).
    ///
    /// ```
    /// use gyoku_proto::csa::GameName;
    /// let g = GameName::parse("floodgate-600-10-B").unwrap();
    /// assert_eq!((g.name.as_str(), g.total_seconds, g.byoyomi_seconds), ("floodgate-600-10", 600, 10));
    /// assert_eq!(g.turn, Some(gyoku::Color::Black));
    /// assert_eq!(GameName::parse("hc2p_test-900-0").unwrap().handicap, Some(gyoku::Handicap::TwoPiece));
    /// assert!(GameName::parse("no-time").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<GameName> {
        let (name, turn) = match text.rsplit_once('-') {
            Some((rest, "b" | "B")) if Self::timed(rest).is_some() => (rest, Some(Color::Black)),
            Some((rest, "w" | "W")) if Self::timed(rest).is_some() => (rest, Some(Color::White)),
            _ => (text, None),
        };
        let (total, second) = Self::timed(name)?;
        let (byoyomi, increment) = match second.strip_suffix('F') {
            Some(inc) => (0, inc.parse().ok()?),
            None => (second.parse().ok()?, 0),
        };
        let handicap = HANDICAP_PREFIXES
            .iter()
            .find(|(p, _)| name.starts_with(p))
            .map(|&(_, h)| h);
        Some(GameName {
            name: name.to_string(),
            total_seconds: total.parse().ok()?,
            byoyomi_seconds: byoyomi,
            increment_seconds: increment,
            stop_watch: second.len() > 1 && second.starts_with('0'),
            turn,
            handicap,
        })
    }

    /// `(total, second field)` of `<base>-<digits>-<digits>[F]` whose base is an identifier.
    fn timed(name: &str) -> Option<(&str, &str)> {
        let (rest, second) = name.rsplit_once('-')?;
        let (base, total) = rest.rsplit_once('-')?;
        let digits = second.strip_suffix('F').unwrap_or(second);
        let numeric =
            |s: &str| !s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit());
        (good_identifier(base) && numeric(total) && numeric(digits)).then_some((total, second))
    }
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A `LOGIN` line: `LOGIN <name> <password>` (CSA mode, where the password field carries
/// the game to join: `<game>` or `<game>,<password>`) or `LOGIN <name> <password> x1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Login {
    /// The player's name.
    pub name: String,
    /// The game to join, in CSA mode (`None`: shogi-server's `default-1500-0`).
    pub game: Option<GameName>,
    /// The password proper.
    pub password: String,
    /// x1 (extended) mode.
    pub x1: bool,
    /// `reconnect:<game_id>+<token>`: a player who lost the connection takes up its game
    /// again (rshogi's form; the password field is the password proper then).
    pub reconnect: Option<Reconnect>,
}

/// What a reconnecting `LOGIN` names: the game it was playing and the token its
/// Game_Summary gave (`Reconnect_Token:`).
#[derive(Clone, PartialEq, Eq)]
pub struct Reconnect {
    /// The Game_ID.
    pub game_id: String,
    /// The token: 32 hex digits.
    pub token: String,
}

impl fmt::Debug for Reconnect {
    // A token is a secret: not written to logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Reconnect {{ game_id: {:?}, token: … }}", self.game_id)
    }
}

impl Reconnect {
    /// `<game_id>+<token>` (a Game_ID has `+` in it: the token is after the last).
    fn parse(field: &str) -> Option<Reconnect> {
        let (game_id, token) = field.rsplit_once('+')?;
        let hex = token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit());
        (hex && !game_id.is_empty() && game_id.len() <= 256).then(|| Reconnect {
            game_id: game_id.to_string(),
            token: token.to_string(),
        })
    }
}

/// The forms of a `LOGIN` line, as a refusal names them.
const LOGIN_FORMS: &str = "LOGIN <name> <password> [x1 | reconnect:<game_id>+<token>]";

impl Login {
    fn parse(words: &[&str]) -> Result<Login, CsaError> {
        let (name, field, x1, reconnect) = match words {
            [_, name, field] => (*name, *field, false, None),
            [_, name, field, "x1"] => (*name, *field, true, None),
            [_, name, field, last] => match last.strip_prefix("reconnect:") {
                Some(r) => (
                    *name,
                    *field,
                    false,
                    Some(Reconnect::parse(r).ok_or(CsaError::Malformed(LOGIN_FORMS))?),
                ),
                None => return Err(CsaError::Malformed(LOGIN_FORMS)),
            },
            _ => return Err(CsaError::Malformed(LOGIN_FORMS)),
        };
        // rshogi's reconnecting login names `<handle>+<game_name>+<color>`: the handle is
        // the name.
        let name = match reconnect {
            Some(_) => name.split_once('+').map_or(name, |(handle, _)| handle),
            None => name,
        };
        if !good_identifier(name) {
            return Err(CsaError::BadName(name.to_string()));
        }
        if x1 || reconnect.is_some() {
            return Ok(Login {
                name: name.to_string(),
                game: None,
                password: field.to_string(),
                x1,
                reconnect,
            });
        }
        // As shogi-server: the whole field a game name; else `<game>,<password>`; else a
        // plain password.
        let (game, password) = match GameName::parse(field) {
            Some(g) => (Some(g), String::new()),
            None => match field.split_once(',') {
                Some((g, pass)) => (GameName::parse(g), pass.to_string()),
                None => (None, field.to_string()),
            },
        };
        Ok(Login {
            name: name.to_string(),
            game,
            password,
            x1,
            reconnect: None,
        })
    }
}

/// An x1-mode command (`%%…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum X1Command {
    /// `%%GAME <game> <+|-|*>`: wait for an opponent (no game name: leave the waiting list).
    Game {
        /// The game.
        game: Option<String>,
        /// `+`, `-` or `*`.
        turn: Option<char>,
    },
    /// `%%CHALLENGE <game> <+|-|*>`.
    Challenge {
        /// The game.
        game: String,
        /// `+`, `-` or `*`.
        turn: Option<char>,
    },
    /// `%%WHO`.
    Who,
    /// `%%LIST`.
    List,
    /// `%%SHOW <game id>`.
    Show(String),
    /// `%%MONITORON <game id>` (`v2` for `%%MONITOR2ON`).
    MonitorOn {
        /// The game.
        game_id: String,
        /// Version 2.
        v2: bool,
    },
    /// `%%MONITOROFF <game id>` (`v2` for `%%MONITOR2OFF`).
    MonitorOff {
        /// The game.
        game_id: String,
        /// Version 2.
        v2: bool,
    },
    /// `%%CHAT <message>`.
    Chat(String),
    /// `%%VERSION`.
    Version,
    /// `%%HELP`.
    Help,
    /// `%%RATING`.
    Rating,
    /// `%%FLOODGATE`: the scheduled games, when each next round starts and who waits
    /// (Gyoku's).
    Floodgate,
    /// `%%FORK <source game> [<new buoy game>] [<nth move>]`.
    Fork {
        /// The game to fork from.
        source: String,
        /// The new game's name.
        new_game: Option<String>,
        /// How many moves of the source to keep.
        nth_move: Option<u32>,
    },
    /// `%%SETBUOY <game> <moves> [<count>]`.
    SetBuoy {
        /// The buoy game.
        game: String,
        /// Its moves (`+7776FU-3334FU…`).
        moves: String,
        /// How many games it may start.
        count: Option<u32>,
    },
    /// `%%DELETEBUOY <game>`.
    DeleteBuoy(String),
    /// `%%GETBUOYCOUNT <game>`.
    GetBuoyCount(String),
    /// Any other `%%` word.
    Unknown(String),
}

/// What a client sends, one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    /// `LOGIN …`.
    Login(Login),
    /// `LOGOUT`.
    Logout,
    /// `AGREE [<game id>]`.
    Agree(Option<String>),
    /// `REJECT [<game id>]`.
    Reject(Option<String>),
    /// A move, `+7776FU`, with an optional `,'` comment (Floodgate's evaluation and PV);
    /// a client `,T` is read and ignored.
    Move {
        /// The move as sent: checked against the position by the referee.
        text: String,
        /// The comment after `,'`.
        comment: Option<String>,
    },
    /// `%TORYO`: resign.
    Resign,
    /// `%KACHI`: declare an entering-king win.
    Declare,
    /// `%CHUDAN`: ask to suspend.
    Chudan,
    /// `CHALLENGE`: CSA's official test server's command (answered `CHALLENGE ACCEPTED`).
    Challenge,
    /// `%%IMPASSE`: Gyoku's word in a game, on either turn: propose an impasse count
    /// (持将棋), or accept the opponent's proposal.
    Impasse,
    /// `%%SENNICHITE`: Gyoku's word in a game, on either turn: propose a sennichite by
    /// agreement before the fourth occurrence (the JSA's rule since 2019-10-01), or accept
    /// the opponent's proposal.
    Sennichite,
    /// `%%CLAIM`: Gyoku's word in a game, under fouls that stand only when claimed: the
    /// foul the opponent has just made is claimed (before one's own next move).
    Claim,
    /// An empty line (or shogi-server's single space): keep-alive.
    KeepAlive,
    /// An x1 command.
    X1(X1Command),
    /// A `%%%` line (81Dojo), ignored.
    Ignored,
}

/// Why a client line is not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsaError {
    /// Nothing the protocol knows.
    Unknown(String),
    /// A known message of the wrong shape; the text says the right one.
    Malformed(&'static str),
    /// A name that is not 1–32 of `[A-Za-z0-9_@.-]`.
    BadName(String),
}

impl fmt::Display for CsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsaError::Unknown(line) => write!(f, "unknown message '{line}'"),
            CsaError::Malformed(form) => write!(f, "malformed message (expected {form})"),
            CsaError::BadName(name) => {
                write!(
                    f,
                    "bad name '{name}' (1 to {MAX_IDENTIFIER} of A-Z a-z 0-9 _ @ . -)"
                )
            }
        }
    }
}

impl std::error::Error for CsaError {}

/// Whether `text` has the shape of a CSA move (`^[+-]\d{4}[A-Z]{2}$`, as shogi-server
/// checks before anything else).
pub fn move_shaped(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 7
        && matches!(b[0], b'+' | b'-')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5..7].iter().all(u8::is_ascii_uppercase)
}

impl ClientMessage {
    /// Reads one line (its line end and surrounding blanks ignored).
    ///
    /// # Errors
    /// [`CsaError`] for a line the protocol does not know or a known one of the wrong shape.
    pub fn parse(line: &str) -> Result<ClientMessage, CsaError> {
        let raw = line.trim_end_matches(['\r', '\n']);
        if raw.is_empty() || raw == " " {
            return Ok(ClientMessage::KeepAlive);
        }
        let line = trim_line(raw);
        if line.is_empty() {
            // Blanks only: shogi-server answers nothing, as to its single-space keep-alive.
            return Ok(ClientMessage::KeepAlive);
        }
        if line.starts_with("%%%") {
            return Ok(ClientMessage::Ignored);
        }
        if matches!(line.as_bytes().first(), Some(b'+' | b'-')) {
            let mut parts = line.split(',');
            let text = parts.next().unwrap_or_default();
            if !move_shaped(text) {
                return Err(CsaError::Unknown(line.to_string()));
            }
            let comment = parts.find_map(|p| p.strip_prefix('\'')).map(str::to_string);
            return Ok(ClientMessage::Move {
                text: text.to_string(),
                comment,
            });
        }
        let words: Vec<&str> = line.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
        let arg = |i: usize| words.get(i).map(|s| s.to_string());
        Ok(match words[0] {
            "LOGIN" => {
                // Fields are separated by one blank each: `LOGIN  pw x1` has an empty name,
                // it is not `LOGIN pw x1`.
                let fields: Vec<&str> = line.split([' ', '\t']).collect();
                if fields.iter().any(|f| f.is_empty()) {
                    return Err(CsaError::Malformed(LOGIN_FORMS));
                }
                ClientMessage::Login(Login::parse(&fields)?)
            }
            "LOGOUT" => ClientMessage::Logout,
            "AGREE" => ClientMessage::Agree(arg(1)),
            "REJECT" => ClientMessage::Reject(arg(1)),
            "%TORYO" => ClientMessage::Resign,
            "%KACHI" => ClientMessage::Declare,
            "%CHUDAN" => ClientMessage::Chudan,
            "CHALLENGE" if words.len() == 1 => ClientMessage::Challenge,
            "%%IMPASSE" if words.len() == 1 => ClientMessage::Impasse,
            "%%SENNICHITE" if words.len() == 1 => ClientMessage::Sennichite,
            "%%CLAIM" if words.len() == 1 => ClientMessage::Claim,
            w if w.starts_with("%%") => ClientMessage::X1(Self::x1(&words, line)?),
            _ => return Err(CsaError::Unknown(line.to_string())),
        })
    }

    fn x1(words: &[&str], line: &str) -> Result<X1Command, CsaError> {
        let arg = |i: usize| words.get(i).map(|s| s.to_string());
        let need = |i: usize, form: &'static str| arg(i).ok_or(CsaError::Malformed(form));
        let turn = |i: usize| words.get(i).and_then(|t| t.chars().next());
        let rest = |i: usize| {
            line.splitn(i + 1, [' ', '\t'])
                .nth(i)
                .unwrap_or_default()
                .to_string()
        };
        Ok(match words[0] {
            "%%GAME" => X1Command::Game {
                game: arg(1),
                turn: turn(2),
            },
            "%%CHALLENGE" => X1Command::Challenge {
                game: need(1, "%%CHALLENGE <game> <+|-|*>")?,
                turn: turn(2),
            },
            "%%WHO" => X1Command::Who,
            "%%LIST" => X1Command::List,
            "%%SHOW" => X1Command::Show(need(1, "%%SHOW <game id>")?),
            "%%MONITORON" | "%%MONITOR2ON" => X1Command::MonitorOn {
                game_id: need(1, "%%MONITOR2ON <game id>")?,
                v2: words[0] == "%%MONITOR2ON",
            },
            "%%MONITOROFF" | "%%MONITOR2OFF" => X1Command::MonitorOff {
                game_id: need(1, "%%MONITOR2OFF <game id>")?,
                v2: words[0] == "%%MONITOR2OFF",
            },
            "%%CHAT" => X1Command::Chat(rest(1)),
            "%%VERSION" => X1Command::Version,
            "%%HELP" => X1Command::Help,
            "%%RATING" => X1Command::Rating,
            "%%FLOODGATE" => X1Command::Floodgate,
            "%%FORK" => X1Command::Fork {
                source: need(1, "%%FORK <source game> [<new game>] [<nth move>]")?,
                new_game: arg(2),
                nth_move: words.get(3).and_then(|n| n.parse().ok()),
            },
            "%%SETBUOY" => X1Command::SetBuoy {
                game: need(1, "%%SETBUOY <game> <moves> [<count>]")?,
                moves: need(2, "%%SETBUOY <game> <moves> [<count>]")?,
                count: words.get(3).and_then(|n| n.parse().ok()),
            },
            "%%DELETEBUOY" => X1Command::DeleteBuoy(need(1, "%%DELETEBUOY <game>")?),
            "%%GETBUOYCOUNT" => X1Command::GetBuoyCount(need(1, "%%GETBUOYCOUNT <game>")?),
            other => X1Command::Unknown(other.to_string()),
        })
    }
}

impl fmt::Display for ClientMessage {
    /// The line a client writes (without its line end).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientMessage::Login(l) => {
                write!(f, "LOGIN {} ", l.name)?;
                if let Some(r) = &l.reconnect {
                    return write!(f, "{} reconnect:{}+{}", l.password, r.game_id, r.token);
                }
                match (&l.game, l.x1) {
                    (_, true) => write!(f, "{} x1", l.password),
                    (Some(g), false) if l.password.is_empty() => write!(f, "{g}"),
                    (Some(g), false) => write!(f, "{g},{}", l.password),
                    (None, false) => f.write_str(&l.password),
                }
            }
            ClientMessage::Logout => f.write_str("LOGOUT"),
            ClientMessage::Agree(id) => match id {
                Some(id) => write!(f, "AGREE {id}"),
                None => f.write_str("AGREE"),
            },
            ClientMessage::Reject(id) => match id {
                Some(id) => write!(f, "REJECT {id}"),
                None => f.write_str("REJECT"),
            },
            ClientMessage::Move { text, comment } => match comment {
                Some(c) => write!(f, "{text},'{c}"),
                None => f.write_str(text),
            },
            ClientMessage::Resign => f.write_str("%TORYO"),
            ClientMessage::Declare => f.write_str("%KACHI"),
            ClientMessage::Chudan => f.write_str("%CHUDAN"),
            ClientMessage::Challenge => f.write_str("CHALLENGE"),
            ClientMessage::Impasse => f.write_str("%%IMPASSE"),
            ClientMessage::Sennichite => f.write_str("%%SENNICHITE"),
            ClientMessage::Claim => f.write_str("%%CLAIM"),
            ClientMessage::KeepAlive | ClientMessage::Ignored => Ok(()),
            ClientMessage::X1(c) => write!(f, "{c}"),
        }
    }
}

impl fmt::Display for X1Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |t: &Option<char>| t.map(|c| format!(" {c}")).unwrap_or_default();
        match self {
            X1Command::Game { game, turn } => match game {
                Some(g) => write!(f, "%%GAME {g}{}", opt(turn)),
                None => f.write_str("%%GAME"),
            },
            X1Command::Challenge { game, turn } => write!(f, "%%CHALLENGE {game}{}", opt(turn)),
            X1Command::Who => f.write_str("%%WHO"),
            X1Command::List => f.write_str("%%LIST"),
            X1Command::Show(id) => write!(f, "%%SHOW {id}"),
            X1Command::MonitorOn { game_id, v2 } => {
                write!(f, "%%MONITOR{}ON {game_id}", if *v2 { "2" } else { "" })
            }
            X1Command::MonitorOff { game_id, v2 } => {
                write!(f, "%%MONITOR{}OFF {game_id}", if *v2 { "2" } else { "" })
            }
            X1Command::Chat(m) => write!(f, "%%CHAT {m}"),
            X1Command::Version => f.write_str("%%VERSION"),
            X1Command::Help => f.write_str("%%HELP"),
            X1Command::Rating => f.write_str("%%RATING"),
            X1Command::Floodgate => f.write_str("%%FLOODGATE"),
            X1Command::Fork {
                source,
                new_game,
                nth_move,
            } => {
                write!(f, "%%FORK {source}")?;
                if let Some(g) = new_game {
                    write!(f, " {g}")?;
                }
                if let Some(n) = nth_move {
                    write!(f, " {n}")?;
                }
                Ok(())
            }
            X1Command::SetBuoy { game, moves, count } => {
                write!(f, "%%SETBUOY {game} {moves}")?;
                if let Some(n) = count {
                    write!(f, " {n}")?;
                }
                Ok(())
            }
            X1Command::DeleteBuoy(g) => write!(f, "%%DELETEBUOY {g}"),
            X1Command::GetBuoyCount(g) => write!(f, "%%GETBUOYCOUNT {g}"),
            X1Command::Unknown(w) => f.write_str(w),
        }
    }
}

/// How a game ended, as the server's reason line says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// `#RESIGN`.
    Resign,
    /// `#TIME_UP`.
    TimeUp,
    /// `#ILLEGAL_MOVE` (an illegal move or a failed declaration).
    IllegalMove,
    /// `#SENNICHITE`.
    Sennichite,
    /// `#OUTE_SENNICHITE` (perpetual check).
    OuteSennichite,
    /// `#JISHOGI` (a successful declaration, or an impasse).
    Jishogi,
    /// `#MAX_MOVES`.
    MaxMoves,
    /// `#CENSORED`.
    Censored,
    /// `#CHUDAN` (suspended; no result line follows).
    Chudan,
}

impl GameEnd {
    /// The line, with its `#`.
    pub const fn line(self) -> &'static str {
        match self {
            GameEnd::Resign => "#RESIGN",
            GameEnd::TimeUp => "#TIME_UP",
            GameEnd::IllegalMove => "#ILLEGAL_MOVE",
            GameEnd::Sennichite => "#SENNICHITE",
            GameEnd::OuteSennichite => "#OUTE_SENNICHITE",
            GameEnd::Jishogi => "#JISHOGI",
            GameEnd::MaxMoves => "#MAX_MOVES",
            GameEnd::Censored => "#CENSORED",
            GameEnd::Chudan => "#CHUDAN",
        }
    }

    /// Every reason line the protocol names.
    pub const ALL: [GameEnd; 9] = [
        GameEnd::Resign,
        GameEnd::TimeUp,
        GameEnd::IllegalMove,
        GameEnd::Sennichite,
        GameEnd::OuteSennichite,
        GameEnd::Jishogi,
        GameEnd::MaxMoves,
        GameEnd::Censored,
        GameEnd::Chudan,
    ];

    /// Reads a reason line.
    pub fn parse(line: &str) -> Option<GameEnd> {
        let line = trim_line(line);
        GameEnd::ALL.into_iter().find(|e| e.line() == line)
    }
}

/// The result line a player receives after the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndResult {
    /// `#WIN`.
    Win,
    /// `#LOSE`.
    Lose,
    /// `#DRAW`.
    Draw,
    /// `#CENSORED` as a result (shogi-server's for a game neither side finished).
    Censored,
}

impl EndResult {
    /// The line, with its `#`.
    pub const fn line(self) -> &'static str {
        match self {
            EndResult::Win => "#WIN",
            EndResult::Lose => "#LOSE",
            EndResult::Draw => "#DRAW",
            EndResult::Censored => "#CENSORED",
        }
    }

    /// Reads a result line.
    pub fn parse(line: &str) -> Option<EndResult> {
        match trim_line(line) {
            "#WIN" => Some(EndResult::Win),
            "#LOSE" => Some(EndResult::Lose),
            "#DRAW" => Some(EndResult::Draw),
            "#CENSORED" => Some(EndResult::Censored),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        for line in [
            "LOGIN engine floodgate-300-10F,secret",
            "LOGIN engine floodgate-300-10F",
            "LOGIN engine secret",
            "LOGIN engine pass x1",
            "LOGOUT",
            "AGREE",
            "AGREE game+id",
            "REJECT",
            "+7776FU",
            "-3334FU,'* 30 -3334FU +2625FU",
            "%TORYO",
            "%KACHI",
            "%CHUDAN",
            "%%GAME test-600-10 +",
            "%%GAME",
            "%%CHALLENGE test-600-10 *",
            "%%WHO",
            "%%LIST",
            "%%SHOW id",
            "%%MONITORON id",
            "%%MONITOR2ON id",
            "%%MONITOR2OFF id",
            "%%CHAT hello there",
            "%%VERSION",
            "%%HELP",
            "%%RATING",
            "%%FLOODGATE",
            "%%FORK src-600-10 new-600-10 12",
            "%%SETBUOY buoy-600-10 +7776FU-3334FU 3",
            "%%DELETEBUOY buoy-600-10",
            "%%GETBUOYCOUNT buoy-600-10",
        ] {
            let m = ClientMessage::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(m.to_string(), line);
        }
    }

    /// Issue 28, item 25: a doubled blank made `LOGIN  pw x1` log in as `pw` with the
    /// password `x1`. An empty field is refused.
    #[test]
    fn a_login_with_an_empty_field_is_refused() {
        for line in [
            "LOGIN  pw x1",
            "LOGIN alice  secret",
            "LOGIN alice secret  x1",
            "LOGIN\talice\t\tsecret",
        ] {
            assert_eq!(
                ClientMessage::parse(line),
                Err(CsaError::Malformed(
                    "LOGIN <name> <password> [x1 | reconnect:<game_id>+<token>]"
                )),
                "{line:?}"
            );
        }
        assert!(matches!(
            ClientMessage::parse("LOGIN alice secret x1"),
            Ok(ClientMessage::Login(Login { ref name, ref password, x1: true, .. }))
                if name == "alice" && password == "secret"
        ));
    }

    /// Issue 42: rshogi's reconnecting login, in both forms of the name; the token is
    /// after the Game_ID's last `+`.
    #[test]
    fn a_reconnecting_login_names_its_game_and_token() {
        let token = "0123456789abcdef0123456789abcdef";
        let id = "gyoku+floodgate-300-10F+alice+bob+20261127100000";
        for name in ["alice", "alice+floodgate-300-10F+black"] {
            let line = format!("LOGIN {name} secret reconnect:{id}+{token}");
            let Ok(ClientMessage::Login(login)) = ClientMessage::parse(&line) else {
                panic!("{line}");
            };
            assert_eq!(
                (login.name.as_str(), login.password.as_str()),
                ("alice", "secret")
            );
            let r = login.reconnect.clone().unwrap();
            assert_eq!((r.game_id.as_str(), r.token.as_str()), (id, token));
            assert!(!format!("{r:?}").contains(token));
            assert_eq!(
                ClientMessage::Login(login).to_string(),
                format!("LOGIN alice secret reconnect:{id}+{token}")
            );
        }
        for bad in [
            format!("LOGIN alice secret reconnect:{id}"),
            format!("LOGIN alice secret reconnect:{id}+XYZ"),
            format!("LOGIN alice secret reconnect:+{token}"),
            format!("LOGIN alice secret reconnects:{id}+{token}"),
        ] {
            assert!(ClientMessage::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn shapes_and_refusals() {
        assert_eq!(ClientMessage::parse("").unwrap(), ClientMessage::KeepAlive);
        assert_eq!(ClientMessage::parse(" ").unwrap(), ClientMessage::KeepAlive);
        assert_eq!(
            ClientMessage::parse("\r\n").unwrap(),
            ClientMessage::KeepAlive
        );
        assert_eq!(
            ClientMessage::parse("%%%81dojo").unwrap(),
            ClientMessage::Ignored
        );
        // A client's ,T is read and ignored.
        assert_eq!(
            ClientMessage::parse("+7776FU,T3").unwrap(),
            ClientMessage::Move {
                text: "+7776FU".into(),
                comment: None
            }
        );
        for bad in ["+776FU", "+7776fu", "*7776FU", "HELLO", "+7776FUX"] {
            assert!(ClientMessage::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            ClientMessage::parse("LOGIN bad/name pass"),
            Err(CsaError::BadName(_))
        ));
        assert!(matches!(
            ClientMessage::parse("LOGIN onlyname"),
            Err(CsaError::Malformed(_))
        ));
        assert_eq!(
            GameEnd::parse("#OUTE_SENNICHITE"),
            Some(GameEnd::OuteSennichite)
        );
        assert_eq!(EndResult::parse("#DRAW\r"), Some(EndResult::Draw));
    }

    /// shogi-server's rules: `-B`/`-W` turn suffixes, `F` for Fischer, a leading zero for a
    /// stop-watch game, handicap prefixes, and names without a time control refused.
    #[test]
    fn game_names_as_shogi_server_reads_them() {
        let g = GameName::parse("floodgate-300-10F").unwrap();
        assert_eq!(
            (
                g.total_seconds,
                g.byoyomi_seconds,
                g.increment_seconds,
                g.stop_watch
            ),
            (300, 0, 10, false)
        );
        let g = GameName::parse("sw-30-060").unwrap();
        assert!(g.stop_watch);
        let g = GameName::parse("test-1500-0-w").unwrap();
        assert_eq!(
            (g.name.as_str(), g.turn),
            ("test-1500-0", Some(Color::White))
        );
        // "-x" is not a turn: the name has no time control then.
        assert!(GameName::parse("test-1500-0-x").is_none());
        for (name, h) in [
            ("hclance_a-600-10", Handicap::Lance),
            ("hcrooklance_a-600-10", Handicap::RookLance),
            ("hc10p_a-600-10", Handicap::TenPiece),
        ] {
            assert_eq!(GameName::parse(name).unwrap().handicap, Some(h), "{name}");
        }
        for bad in [
            "test",
            "test-600",
            "te st-600-10",
            "-600-10",
            "test-600-10G",
        ] {
            assert!(GameName::parse(bad).is_none(), "{bad}");
        }
        let long = format!("{}-600-10", "a".repeat(33));
        assert!(GameName::parse(&long).is_none());
    }
}

/// One side's clock as a `Game_Summary` gives it (the `BEGIN Time` block, or `BEGIN Time+`
/// / `BEGIN Time-` when the sides differ). Missing keys are `None` (read as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryTime {
    /// `Time_Unit`: `1sec`, `1min`, `1msec`, `<n>sec`, …
    pub time_unit: Option<String>,
    /// `Total_Time`, in units.
    pub total_time: Option<u64>,
    /// `Byoyomi`, in units.
    pub byoyomi: Option<u64>,
    /// `Increment` (Fischer), in units.
    pub increment: Option<u64>,
    /// `Least_Time_Per_Move`, in units.
    pub least_time_per_move: Option<u64>,
    /// `Time_Roundup`: `YES` rounds a move's time up, `NO` (the default) truncates.
    pub time_roundup: Option<bool>,
    /// `Delay` (US delay), in units.
    pub delay: Option<u64>,
    /// The first time line whose value is not a whole number (`Total_Time:-5`), as given.
    pub unreadable: Option<String>,
}

/// The longest time a `Game_Summary` may give (one side's main time, byoyomi, increment or
/// least time per move): 30 days. Past it the summary is not read as a clock.
pub const MAX_SUMMARY_TIME_MS: u64 = 30 * 24 * 3_600_000;

impl SummaryTime {
    /// The length of one unit in milliseconds (`1sec` = 1,000; `1min` = 60,000; `1msec` =
    /// 1); `None` for a unit the protocol does not know. A missing unit is a second.
    pub fn unit_ms(&self) -> Option<u64> {
        let Some(unit) = self.time_unit.as_deref() else {
            return Some(1000);
        };
        let digits = unit.bytes().take_while(u8::is_ascii_digit).count();
        let n: u64 = if digits == 0 {
            1
        } else {
            unit[..digits].parse().ok()?
        };
        let scale = match &unit[digits..] {
            "sec" => 1000,
            "min" => 60_000,
            "msec" => 1,
            _ => return None,
        };
        n.checked_mul(scale)
    }

    /// `value` units in milliseconds.
    pub fn ms(&self, value: Option<u64>) -> Option<u64> {
        value.unwrap_or(0).checked_mul(self.unit_ms()?)
    }

    /// Each value in milliseconds: main time, byoyomi, increment; or why they do not
    /// read as a clock (a unit the protocol does not know, a value that is not a whole
    /// number, or one over [`MAX_SUMMARY_TIME_MS`]).
    ///
    /// ```
    /// use gyoku_proto::csa::SummaryTime;
    /// let t = SummaryTime { time_unit: Some("7parsecs".into()), ..SummaryTime::default() };
    /// assert_eq!(t.clock_ms().unwrap_err(), "Time_Unit:7parsecs is no unit of time");
    /// ```
    ///
    /// # Errors
    /// The reason, naming the line.
    pub fn clock_ms(&self) -> Result<(u64, u64, u64), String> {
        if let Some(line) = &self.unreadable {
            return Err(format!("{line} is not a whole number"));
        }
        let unit = self.unit_ms().ok_or_else(|| {
            format!(
                "Time_Unit:{} is no unit of time",
                self.time_unit.as_deref().unwrap_or_default()
            )
        })?;
        let ms = |key: &str, value: Option<u64>| {
            value
                .unwrap_or(0)
                .checked_mul(unit)
                .filter(|&ms| ms <= MAX_SUMMARY_TIME_MS)
                .ok_or_else(|| {
                    format!("{key}:{} is longer than 30 days", value.unwrap_or_default())
                })
        };
        ms("Least_Time_Per_Move", self.least_time_per_move)?;
        ms("Delay", self.delay)?;
        Ok((
            ms("Total_Time", self.total_time)?,
            ms("Byoyomi", self.byoyomi)?,
            ms("Increment", self.increment)?,
        ))
    }

    fn set(&mut self, key: &str, value: &str) -> bool {
        let num = value.trim().parse::<u64>().ok();
        let slot = match key {
            "Time_Unit" => {
                self.time_unit = Some(value.to_string());
                return true;
            }
            "Time_Roundup" => {
                self.time_roundup = Some(value == "YES");
                return true;
            }
            "Total_Time" => &mut self.total_time,
            "Byoyomi" => &mut self.byoyomi,
            "Increment" => &mut self.increment,
            "Least_Time_Per_Move" => &mut self.least_time_per_move,
            "Delay" => &mut self.delay,
            _ => return false,
        };
        *slot = num;
        if num.is_none() && self.unreadable.is_none() {
            self.unreadable = Some(format!("{key}:{value}"));
        }
        true
    }

    fn write(&self, out: &mut String) {
        let mut line = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push_str(&format!("{k}:{v}\n"));
            }
        };
        line("Time_Unit", self.time_unit.clone());
        line("Total_Time", self.total_time.map(|v| v.to_string()));
        line("Byoyomi", self.byoyomi.map(|v| v.to_string()));
        line("Increment", self.increment.map(|v| v.to_string()));
        line(
            "Least_Time_Per_Move",
            self.least_time_per_move.map(|v| v.to_string()),
        );
        line(
            "Time_Roundup",
            self.time_roundup
                .map(|y| if y { "YES" } else { "NO" }.to_string()),
        );
        line("Delay", self.delay.map(|v| v.to_string()));
    }
}

/// The `Game_Summary` a server sends each player before a game: written here exactly as
/// shogi-server writes it (keys in its order, only those present), and read in every form
/// clients meet (per-side `Time+`/`Time-` blocks, `Time_Unit` in sec/min/msec, optional
/// keys missing, unknown keys kept, moves already played in the position).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameSummary {
    /// The keys before the time block, in order, as `(key, value)`: `Protocol_Version`,
    /// `Protocol_Mode`, `Format`, `Declaration`, `Game_ID`, `Name+`, `Name-`, `Your_Turn`,
    /// `Rematch_On_Draw`, `To_Move`, `Max_Moves`, and any other.
    pub fields: Vec<(String, String)>,
    /// The clock of both sides (a plain `BEGIN Time` block), or of Black and White.
    pub time: SummaryTimes,
    /// The lines of the `BEGIN Position` block: the board (`P1…`/`PI`), hands, the side to
    /// move, and moves already played (`+7776FU,T12`).
    pub position: Vec<String>,
    /// Keys after the position block (rshogi's extensions), in order.
    pub trailer: Vec<(String, String)>,
}

/// The time blocks of a [`GameSummary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummaryTimes {
    /// One `BEGIN Time` block for both sides.
    Both(SummaryTime),
    /// `BEGIN Time+` and `BEGIN Time-`.
    PerSide(gyoku::ByColor<SummaryTime>),
}

impl Default for SummaryTimes {
    fn default() -> SummaryTimes {
        SummaryTimes::Both(SummaryTime::default())
    }
}

impl SummaryTimes {
    /// `color`'s clock.
    pub fn of(&self, color: Color) -> &SummaryTime {
        match self {
            SummaryTimes::Both(t) => t,
            SummaryTimes::PerSide(t) => t.get(color),
        }
    }
}

/// A `Game_Summary` that cannot be read: the line (1-based, within the block) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryError {
    /// The line within the block.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SummaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Game_Summary line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SummaryError {}

/// The most lines a `Game_Summary` may have (a position with 10,000 moves already played
/// fits; a server that sends more is refused, not followed).
pub const MAX_SUMMARY_LINES: usize = 10_100;

impl GameSummary {
    /// The value of `key` among the fields before the time block.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .chain(&self.trailer)
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `Your_Turn`.
    pub fn your_turn(&self) -> Option<Color> {
        sign(self.field("Your_Turn")?)
    }

    /// How many moves the position block has already played (a resumed game's).
    ///
    /// ```
    /// use gyoku_proto::csa::GameSummary;
    /// let summary = GameSummary {
    ///     position: vec!["PI".into(), "+".into(), "+7776FU,T3".into(), "-3334FU".into()],
    ///     ..GameSummary::default()
    /// };
    /// assert_eq!(summary.moves_played(), 2);
    /// ```
    pub fn moves_played(&self) -> usize {
        self.position
            .iter()
            .filter(|line| move_shaped(line.split(',').next().unwrap_or_default()))
            .count()
    }

    /// `To_Move`: the side to move at the start of the position block (before the moves
    /// it has already played).
    pub fn to_move(&self) -> Option<Color> {
        sign(self.field("To_Move")?)
    }

    /// `Max_Moves` (`None` when absent or 0: no limit).
    pub fn max_moves(&self) -> Option<u32> {
        self.field("Max_Moves")?
            .trim()
            .parse()
            .ok()
            .filter(|&n| n > 0)
    }

    /// Reads a `Game_Summary` from its lines, `BEGIN Game_Summary` to `END Game_Summary`
    /// (line ends and a trailing CR ignored).
    ///
    /// ```
    /// use gyoku_proto::csa::GameSummary;
    /// let text = "BEGIN Game_Summary\nProtocol_Version:1.2\nGame_ID:g\nName+:a\nName-:b\n\
    ///             Your_Turn:-\nTo_Move:+\nBEGIN Time\nTime_Unit:1msec\nTotal_Time:30000\n\
    ///             Byoyomi:5000\nEND Time\nBEGIN Position\nPI\n+\n+7776FU,T3\nEND Position\n\
    ///             END Game_Summary\n";
    /// let s = GameSummary::parse(text.lines()).unwrap();
    /// assert_eq!(s.your_turn(), Some(gyoku::Color::White));
    /// let t = s.time.of(gyoku::Color::Black);
    /// assert_eq!((t.ms(t.total_time), t.ms(t.byoyomi)), (Some(30_000), Some(5_000)));
    /// assert_eq!(s.position.last().unwrap(), "+7776FU,T3");
    /// assert_eq!(s.to_string(), text);
    /// ```
    ///
    /// # Errors
    /// [`SummaryError`] for a block that is not closed, a line that is not `key:value`, a
    /// time block inside another, or more than [`MAX_SUMMARY_LINES`] lines.
    pub fn parse<'a>(
        lines: impl IntoIterator<Item = &'a str>,
    ) -> Result<GameSummary, SummaryError> {
        #[derive(PartialEq)]
        enum In {
            Start,
            Fields,
            Time(Option<Color>),
            Position,
            Done,
        }
        let mut s = GameSummary::default();
        let mut per_side = gyoku::ByColor::new(SummaryTime::default(), SummaryTime::default());
        let mut both = SummaryTime::default();
        let mut split = false;
        let mut state = In::Start;
        let mut after_position = false;
        for (i, raw) in lines.into_iter().enumerate() {
            let n = i + 1;
            let err = |message: &str| SummaryError {
                line: n,
                message: message.to_string(),
            };
            if n > MAX_SUMMARY_LINES {
                return Err(err("too many lines"));
            }
            let line = raw.trim_end_matches(['\r', '\n']);
            state = match (state, line) {
                (In::Start, "BEGIN Game_Summary") => In::Fields,
                (In::Start, _) => return Err(err("expected BEGIN Game_Summary")),
                (In::Fields, "BEGIN Time") => In::Time(None),
                (In::Fields, "BEGIN Time+") => In::Time(Some(Color::Black)),
                (In::Fields, "BEGIN Time-") => In::Time(Some(Color::White)),
                (In::Fields, "BEGIN Position") => In::Position,
                (In::Fields, "END Game_Summary") => In::Done,
                (In::Fields, l) => {
                    let (k, v) = l.split_once(':').ok_or_else(|| err("expected key:value"))?;
                    let target = if after_position {
                        &mut s.trailer
                    } else {
                        &mut s.fields
                    };
                    target.push((k.to_string(), v.to_string()));
                    In::Fields
                }
                (In::Time(side), l) if l.starts_with("END Time") => {
                    split |= side.is_some();
                    In::Fields
                }
                (In::Time(side), l) => {
                    let (k, v) = l.split_once(':').ok_or_else(|| err("expected key:value"))?;
                    let t = match side {
                        Some(c) => per_side.get_mut(c),
                        None => &mut both,
                    };
                    if !t.set(k, v) {
                        return Err(err(&format!("unknown time key '{k}'")));
                    }
                    In::Time(side)
                }
                (In::Position, "END Position") => {
                    after_position = true;
                    In::Fields
                }
                (In::Position, l) => {
                    s.position.push(l.to_string());
                    In::Position
                }
                (In::Done, _) => return Err(err("a line after END Game_Summary")),
            };
            if state == In::Done {
                break;
            }
        }
        if state != In::Done {
            return Err(SummaryError {
                line: 0,
                message: "no END Game_Summary".to_string(),
            });
        }
        s.time = if split {
            SummaryTimes::PerSide(per_side)
        } else {
            SummaryTimes::Both(both)
        };
        Ok(s)
    }
}

fn sign(v: &str) -> Option<Color> {
    match v.trim() {
        "+" => Some(Color::Black),
        "-" => Some(Color::White),
        _ => None,
    }
}

impl fmt::Display for GameSummary {
    /// The block as shogi-server writes it, one line each, ending with a line end.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::from("BEGIN Game_Summary\n");
        for (k, v) in &self.fields {
            out.push_str(&format!("{k}:{v}\n"));
        }
        match &self.time {
            SummaryTimes::Both(t) => {
                out.push_str("BEGIN Time\n");
                t.write(&mut out);
                out.push_str("END Time\n");
            }
            SummaryTimes::PerSide(t) => {
                for (c, sign) in [(Color::Black, '+'), (Color::White, '-')] {
                    out.push_str(&format!("BEGIN Time{sign}\n"));
                    t.get(c).write(&mut out);
                    out.push_str(&format!("END Time{sign}\n"));
                }
            }
        }
        out.push_str("BEGIN Position\n");
        for l in &self.position {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("END Position\n");
        for (k, v) in &self.trailer {
            out.push_str(&format!("{k}:{v}\n"));
        }
        out.push_str("END Game_Summary\n");
        f.write_str(&out)
    }
}
