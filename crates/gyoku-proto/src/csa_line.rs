//! The lines a CSA server sends, as values: the server writes each with `Display` (its
//! wire text, without the line end) and a client reads it back with [`ServerLine::parse`].
//! The `Game_Summary` block is [`crate::csa::GameSummary`], written and read the same way.
//!
//! Every form clients meet is read: moves with `,T<seconds>` where the seconds may be
//! fractional (`T1.5`, `T1.` — CSA 3.0's milliseconds; `T` is seconds whatever
//! `Time_Unit` says), Floodgate's `,'` comments, reason lines with no name here
//! (`#ILLEGAL_ACTION`, kept as text), `#CHUDAN` alone, a result with no reason line.

use std::fmt;

use gyoku::Color;

use crate::csa::{EndResult, GameEnd};

/// One line from a CSA server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerLine {
    /// `LOGIN:<name> OK`.
    LoginOk(String),
    /// `LOGIN:incorrect`.
    LoginIncorrect,
    /// `##[LOGIN] +OK x1`: the login is in x1 mode.
    LoginX1,
    /// `type 'LOGIN name password' or 'LOGIN name password x1'` (after a login line that
    /// is none).
    LoginUsage,
    /// `username <name> is already connected` (after `LOGIN:incorrect`, in x1 mode).
    AlreadyConnected(String),
    /// `LOGOUT:completed`.
    LogoutCompleted,
    /// `CHALLENGE ACCEPTED` (the answer to CSA's test server's `CHALLENGE`).
    ChallengeAccepted,
    /// `BEGIN Game_Summary`.
    SummaryBegin,
    /// `START:<Game_ID>`.
    Start(String),
    /// `REJECT:<Game_ID> by <name>`.
    Reject {
        /// The game proposed.
        game_id: String,
        /// Who rejected it (a name, or `the Server (timed out)`).
        by: String,
    },
    /// A move as the server echoes it: `+7776FU,T12` (with an optional `,'` comment).
    Move(EchoedMove),
    /// `%TORYO,T3` or `%KACHI,T8` echoed.
    Special {
        /// `%TORYO` or `%KACHI`.
        text: String,
        /// Milliseconds, if a `T` was given.
        ms: Option<u64>,
    },
    /// A reason line (`#RESIGN` …), known or not.
    Reason(Reason),
    /// `#WIN`, `#LOSE`, `#DRAW` (`#CENSORED` reads as a [`ServerLine::Reason`]; a session
    /// takes it as the result when it follows another reason, as after `#MAX_MOVES`).
    Result(EndResult),
    /// `##[ERROR] <what>`: a command or move refused, the game going on.
    Error(String),
    /// `##[ERROR] illegal move refused: nifu (two pawns on a file)`: a move or action the
    /// rules refuse (an illegal move under refused fouls, a failed declaration that is
    /// refused, an impasse count not yet allowed), the game going on. Its text is the
    /// refusal's own, so a client reads the kind back exactly.
    Refused(gyoku::GameError),
    /// `##[IMPASSE] proposed by +` (or `-`): Gyoku's impasse count proposed in a game.
    ImpasseProposed(Color),
    /// `##[SENNICHITE] proposed by +` (or `-`): a sennichite by agreement proposed.
    SennichiteProposed(Color),
    /// An x1 command's answer line, `##[WHO] …`; a reply ends with `+OK`.
    X1 {
        /// Which command answers.
        tag: X1Tag,
        /// The rest of the line.
        text: String,
    },
    /// `##[FORK]: new buoy game name: <name>`.
    ForkName(String),
    /// `##[MONITOR2][<Game_ID>] <line>`: a monitored game's line.
    Monitor {
        /// The game.
        game_id: String,
        /// Its line (a summary line, a move, `T3`, an end line, `+OK`).
        text: String,
    },
    /// `##[CHAT][<from>] <message>`.
    Chat {
        /// Who said it.
        from: String,
        /// What (control bytes escaped by the server): shared, so that a server that sends
        /// one message to every listener keeps one copy of it however many queues hold it.
        message: std::sync::Arc<str>,
    },
    /// `LOGIN:incorrect reconnect_rejected` (or `reconnect_already_resumed`,
    /// `reconnect_aborted`): a reconnection refused, in rshogi's words.
    ReconnectRefused(ReconnectRefusal),
    /// `##[DISCONNECTED] <name> <seconds>`: the opponent's connection dropped; they have
    /// this many seconds to come back before they lose the game.
    Disconnected {
        /// Who left.
        name: String,
        /// The grace left, whole seconds.
        seconds: u64,
    },
    /// `##[RECONNECTED] <name>`: the opponent came back.
    Reconnected(String),
    /// The `BEGIN Reconnect_State` … `END Reconnect_State` block after a resumed player's
    /// `Game_Summary` (several lines: its text holds their line ends but the last).
    ReconnectState(ReconnectState),
    /// An empty line (a keep-alive).
    Empty,
    /// Anything else a server may send (unknown words), kept as it came. Gyoku's server
    /// sends none.
    Other(String),
}

/// Why a reconnection (`LOGIN … reconnect:<game_id>+<token>`) was refused. One answer for
/// a wrong token, another player's, and a game that does not exist, so that it says
/// nothing of which games exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReconnectRefusal {
    /// `reconnect_rejected`: no game of this player's with this token is waiting.
    Rejected,
    /// `reconnect_already_resumed`: the token was used already (a new one came with it).
    AlreadyResumed,
    /// `reconnect_aborted`: the game ended while the player was away.
    Aborted,
}

impl ReconnectRefusal {
    /// Every refusal.
    pub const ALL: [ReconnectRefusal; 3] = [
        ReconnectRefusal::Rejected,
        ReconnectRefusal::AlreadyResumed,
        ReconnectRefusal::Aborted,
    ];

    /// Its word after `LOGIN:incorrect `.
    pub const fn word(self) -> &'static str {
        match self {
            ReconnectRefusal::Rejected => "reconnect_rejected",
            ReconnectRefusal::AlreadyResumed => "reconnect_already_resumed",
            ReconnectRefusal::Aborted => "reconnect_aborted",
        }
    }
}

/// Where a resumed game stands (rshogi's `Reconnect_State` block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReconnectState {
    /// The side to move.
    pub turn: Color,
    /// Black's time left, ms (the running side's as of the resumption).
    pub black_ms: u64,
    /// White's time left, ms.
    pub white_ms: u64,
    /// The last move played (`+7776FU`), if any.
    pub last_move: Option<String>,
}

/// The x1 commands whose answers are tagged lines (`##[WHO] …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum X1Tag {
    /// `%%WHO`.
    Who,
    /// `%%LIST`.
    List,
    /// `%%SHOW`.
    Show,
    /// `%%HELP`.
    Help,
    /// `%%VERSION`.
    Version,
    /// `%%RATING`.
    Rating,
    /// `%%FLOODGATE`.
    Floodgate,
    /// `%%SETBUOY`.
    SetBuoy,
    /// `%%DELETEBUOY`.
    DeleteBuoy,
    /// `%%GETBUOYCOUNT`.
    GetBuoyCount,
    /// `%%FORK`.
    Fork,
}

impl X1Tag {
    /// Every tag.
    pub const ALL: [X1Tag; 11] = [
        X1Tag::Who,
        X1Tag::List,
        X1Tag::Show,
        X1Tag::Help,
        X1Tag::Version,
        X1Tag::Rating,
        X1Tag::Floodgate,
        X1Tag::SetBuoy,
        X1Tag::DeleteBuoy,
        X1Tag::GetBuoyCount,
        X1Tag::Fork,
    ];

    /// The word in brackets (`WHO`).
    pub const fn word(self) -> &'static str {
        match self {
            X1Tag::Who => "WHO",
            X1Tag::List => "LIST",
            X1Tag::Show => "SHOW",
            X1Tag::Help => "HELP",
            X1Tag::Version => "VERSION",
            X1Tag::Rating => "RATING",
            X1Tag::Floodgate => "FLOODGATE",
            X1Tag::SetBuoy => "SETBUOY",
            X1Tag::DeleteBuoy => "DELETEBUOY",
            X1Tag::GetBuoyCount => "GETBUOYCOUNT",
            X1Tag::Fork => "FORK",
        }
    }
}

/// A move the server echoed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EchoedMove {
    /// `+7776FU`.
    pub text: String,
    /// Milliseconds charged (`T` is in seconds, fractions allowed), if given.
    pub ms: Option<u64>,
    /// The `'` comment after the time, without its `'`.
    pub comment: Option<String>,
}

/// A reason line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// One of the protocol's.
    Known(GameEnd),
    /// Another (`#ILLEGAL_ACTION`, a server's own), with its `#`.
    Unknown(String),
}

impl Reason {
    /// The line as the server sent it (`#RESIGN`, `#ILLEGAL_ACTION`).
    pub fn line(&self) -> &str {
        match self {
            Reason::Known(e) => e.line(),
            Reason::Unknown(l) => l,
        }
    }
}

/// Reads `T<seconds>` (`T12`, `T1.5`, `T1.`) as milliseconds; `None` if it is not one.
///
/// ```
/// use gyoku_proto::csa_client::time_ms;
/// assert_eq!(time_ms("T12"), Some(12_000));
/// assert_eq!(time_ms("T2.25"), Some(2_250));
/// assert_eq!(time_ms("T1."), Some(1_000));
/// assert_eq!(time_ms("T1.2345"), Some(1_234));
/// assert_eq!(time_ms("T"), None);
/// ```
pub fn time_ms(field: &str) -> Option<u64> {
    let digits = field.strip_prefix('T')?;
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || whole.len() > 12
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut ms: u64 = whole.parse::<u64>().ok()?.checked_mul(1000)?;
    for (place, b) in [100, 10, 1].into_iter().zip(frac.bytes()) {
        ms += place * u64::from(b - b'0');
    }
    Some(ms)
}

/// `,T<seconds>` as a server writes it: whole seconds, or with the milliseconds.
fn write_time(f: &mut fmt::Formatter<'_>, ms: Option<u64>) -> fmt::Result {
    match ms {
        None => Ok(()),
        Some(ms) if ms % 1000 == 0 => write!(f, ",T{}", ms / 1000),
        Some(ms) => write!(f, ",T{}.{:03}", ms / 1000, ms % 1000),
    }
}

const LOGIN_USAGE: &str = "type 'LOGIN name password' or 'LOGIN name password x1'";

const fn sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

impl fmt::Display for ServerLine {
    /// The wire text, without the line end.
    ///
    /// ```
    /// use gyoku_proto::csa_client::{EchoedMove, ServerLine};
    /// let echo = ServerLine::Move(EchoedMove {
    ///     text: "+7776FU".into(),
    ///     ms: Some(12_000),
    ///     comment: None,
    /// });
    /// assert_eq!(echo.to_string(), "+7776FU,T12");
    /// assert_eq!(ServerLine::parse(&echo.to_string()), echo);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerLine::LoginOk(name) => write!(f, "LOGIN:{name} OK"),
            ServerLine::LoginIncorrect => f.write_str("LOGIN:incorrect"),
            ServerLine::LoginX1 => f.write_str("##[LOGIN] +OK x1"),
            ServerLine::LoginUsage => f.write_str(LOGIN_USAGE),
            ServerLine::AlreadyConnected(name) => {
                write!(f, "username {name} is already connected")
            }
            ServerLine::LogoutCompleted => f.write_str("LOGOUT:completed"),
            ServerLine::ChallengeAccepted => f.write_str("CHALLENGE ACCEPTED"),
            ServerLine::SummaryBegin => f.write_str("BEGIN Game_Summary"),
            ServerLine::Start(id) => write!(f, "START:{id}"),
            ServerLine::Reject { game_id, by } => write!(f, "REJECT:{game_id} by {by}"),
            ServerLine::Move(m) => {
                f.write_str(&m.text)?;
                write_time(f, m.ms)?;
                match &m.comment {
                    Some(c) => write!(f, ",'{c}"),
                    None => Ok(()),
                }
            }
            ServerLine::Special { text, ms } => {
                f.write_str(text)?;
                write_time(f, *ms)
            }
            ServerLine::Reason(r) => f.write_str(r.line()),
            ServerLine::Result(r) => f.write_str(r.line()),
            ServerLine::Error(what) => write!(f, "##[ERROR] {what}"),
            ServerLine::Refused(why) => write!(f, "##[ERROR] {why}"),
            ServerLine::ImpasseProposed(by) => write!(f, "##[IMPASSE] proposed by {}", sign(*by)),
            ServerLine::SennichiteProposed(by) => {
                write!(f, "##[SENNICHITE] proposed by {}", sign(*by))
            }
            ServerLine::X1 { tag, text } => write!(f, "##[{}] {text}", tag.word()),
            ServerLine::ForkName(name) => write!(f, "##[FORK]: new buoy game name: {name}"),
            ServerLine::Monitor { game_id, text } => write!(f, "##[MONITOR2][{game_id}] {text}"),
            ServerLine::Chat { from, message } => write!(f, "##[CHAT][{from}] {message}"),
            ServerLine::ReconnectRefused(why) => write!(f, "LOGIN:incorrect {}", why.word()),
            ServerLine::Disconnected { name, seconds } => {
                write!(f, "##[DISCONNECTED] {name} {seconds}")
            }
            ServerLine::Reconnected(name) => write!(f, "##[RECONNECTED] {name}"),
            ServerLine::ReconnectState(s) => {
                writeln!(f, "BEGIN Reconnect_State")?;
                writeln!(f, "Current_Turn:{}", sign(s.turn))?;
                writeln!(f, "Black_Time_Remaining_Ms:{}", s.black_ms)?;
                writeln!(f, "White_Time_Remaining_Ms:{}", s.white_ms)?;
                if let Some(m) = &s.last_move {
                    writeln!(f, "Last_Move:{m}")?;
                }
                f.write_str("END Reconnect_State")
            }
            ServerLine::Empty => Ok(()),
            ServerLine::Other(line) => f.write_str(line),
        }
    }
}

impl ServerLine {
    /// Reads one line (its line end and surrounding blanks ignored).
    ///
    /// ```
    /// use gyoku_proto::csa_client::{EchoedMove, ServerLine};
    /// assert_eq!(
    ///     ServerLine::parse("-3334FU,T1.5,'* 120 +2726FU"),
    ///     ServerLine::Move(EchoedMove {
    ///         text: "-3334FU".into(),
    ///         ms: Some(1_500),
    ///         comment: Some("* 120 +2726FU".into()),
    ///     })
    /// );
    /// ```
    pub fn parse(line: &str) -> ServerLine {
        let line = crate::trim_line(line);
        if line.is_empty() {
            return ServerLine::Empty;
        }
        if let Some(rest) = line.strip_prefix("##[") {
            return Self::bracketed(rest).unwrap_or_else(|| ServerLine::Other(line.to_string()));
        }
        if let Some(rest) = line.strip_prefix("LOGIN:") {
            return match rest.strip_suffix(" OK") {
                Some(name) => ServerLine::LoginOk(name.to_string()),
                None if rest == "incorrect" => ServerLine::LoginIncorrect,
                None => match ReconnectRefusal::ALL
                    .into_iter()
                    .find(|r| rest.strip_prefix("incorrect ") == Some(r.word()))
                {
                    Some(why) => ServerLine::ReconnectRefused(why),
                    None => ServerLine::Other(line.to_string()),
                },
            };
        }
        if let Some(name) = line
            .strip_prefix("username ")
            .and_then(|r| r.strip_suffix(" is already connected"))
        {
            return ServerLine::AlreadyConnected(name.to_string());
        }
        match line {
            LOGIN_USAGE => return ServerLine::LoginUsage,
            "LOGOUT:completed" => return ServerLine::LogoutCompleted,
            "CHALLENGE ACCEPTED" => return ServerLine::ChallengeAccepted,
            "BEGIN Game_Summary" => return ServerLine::SummaryBegin,
            _ => {}
        }
        if let Some(id) = line.strip_prefix("START:") {
            return ServerLine::Start(id.to_string());
        }
        if let Some(rest) = line.strip_prefix("REJECT:") {
            let (game_id, by) = rest.split_once(" by ").unwrap_or((rest, ""));
            return ServerLine::Reject {
                game_id: game_id.to_string(),
                by: by.to_string(),
            };
        }
        if let Some(r) = EndResult::parse(line)
            && line != "#CENSORED"
        {
            return ServerLine::Result(r);
        }
        if line.starts_with('#') && !line.starts_with("##") {
            return ServerLine::Reason(match GameEnd::parse(line) {
                Some(e) => Reason::Known(e),
                None => Reason::Unknown(line.to_string()),
            });
        }
        let (head, rest) = line.split_once(',').unwrap_or((line, ""));
        let (time, comment) = match rest.split_once(",'") {
            Some((t, c)) => (t, Some(c.to_string())),
            None => match rest.strip_prefix('\'') {
                Some(c) => ("", Some(c.to_string())),
                None => (rest, None),
            },
        };
        let ms = time_ms(time);
        if !time.is_empty() && ms.is_none() {
            return ServerLine::Other(line.to_string());
        }
        if head == "%TORYO" || head == "%KACHI" {
            return ServerLine::Special {
                text: head.to_string(),
                ms,
            };
        }
        if crate::csa::move_shaped(head) {
            return ServerLine::Move(EchoedMove {
                text: head.to_string(),
                ms,
                comment,
            });
        }
        ServerLine::Other(line.to_string())
    }

    /// A `##[…]` line, after its `##[`.
    fn bracketed(rest: &str) -> Option<ServerLine> {
        if let Some(what) = rest.strip_prefix("ERROR] ") {
            // A refusal's text, exactly: read back as its value.
            if let Some(why) = gyoku::GameError::all().find(|e| e.to_string() == what) {
                return Some(ServerLine::Refused(why));
            }
            return Some(ServerLine::Error(what.to_string()));
        }
        if let Some(rest) = rest.strip_prefix("DISCONNECTED] ") {
            let (name, seconds) = rest.rsplit_once(' ')?;
            return Some(ServerLine::Disconnected {
                name: name.to_string(),
                seconds: seconds.parse().ok()?,
            });
        }
        if let Some(name) = rest.strip_prefix("RECONNECTED] ") {
            return Some(ServerLine::Reconnected(name.to_string()));
        }
        if rest == "LOGIN] +OK x1" {
            return Some(ServerLine::LoginX1);
        }
        if let Some(by) = rest.strip_prefix("IMPASSE] proposed by ") {
            return match by {
                "+" => Some(ServerLine::ImpasseProposed(Color::Black)),
                "-" => Some(ServerLine::ImpasseProposed(Color::White)),
                _ => None,
            };
        }
        if let Some(by) = rest.strip_prefix("SENNICHITE] proposed by ") {
            return match by {
                "+" => Some(ServerLine::SennichiteProposed(Color::Black)),
                "-" => Some(ServerLine::SennichiteProposed(Color::White)),
                _ => None,
            };
        }
        if let Some(name) = rest.strip_prefix("FORK]: new buoy game name: ") {
            return Some(ServerLine::ForkName(name.to_string()));
        }
        if let Some(rest) = rest.strip_prefix("MONITOR2][") {
            let (game_id, text) = rest.split_once("] ")?;
            return Some(ServerLine::Monitor {
                game_id: game_id.to_string(),
                text: text.to_string(),
            });
        }
        if let Some(rest) = rest.strip_prefix("CHAT][") {
            let (from, message) = rest.split_once("] ")?;
            return Some(ServerLine::Chat {
                from: from.to_string(),
                message: message.into(),
            });
        }
        let (word, text) = rest.split_once("] ")?;
        let tag = X1Tag::ALL.into_iter().find(|t| t.word() == word)?;
        Some(ServerLine::X1 {
            tag,
            text: text.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Text a field may hold: printable, no line end, no blanks at its ends (a line's ends
    /// are trimmed), none of the separators its own form uses.
    fn text() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_@+.\\-]([A-Za-z0-9 _@+.:\\-]{0,20}[A-Za-z0-9_@+.\\-])?"
    }

    fn word() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_@+.\\-]{1,24}"
    }

    fn game_end() -> impl Strategy<Value = GameEnd> {
        prop::sample::select(GameEnd::ALL.to_vec())
    }

    fn server_line() -> impl Strategy<Value = ServerLine> {
        let csa_move = "[+-][0-9][0-9][1-9][1-9](FU|KY|KE|GI|KI|KA|HI|OU|TO|NY|NK|NG|UM|RY)";
        let ms = prop::option::of(0u64..10_000_000);
        prop_oneof![
            word().prop_map(ServerLine::LoginOk),
            Just(ServerLine::LoginIncorrect),
            Just(ServerLine::LoginX1),
            Just(ServerLine::LoginUsage),
            word().prop_map(ServerLine::AlreadyConnected),
            Just(ServerLine::LogoutCompleted),
            Just(ServerLine::ChallengeAccepted),
            Just(ServerLine::SummaryBegin),
            word().prop_map(ServerLine::Start),
            (word(), text()).prop_map(|(game_id, by)| ServerLine::Reject { game_id, by }),
            (csa_move, ms.clone(), prop::option::of(text())).prop_map(|(text, ms, comment)| {
                ServerLine::Move(EchoedMove { text, ms, comment })
            }),
            (prop::sample::select(vec!["%TORYO", "%KACHI"]), ms).prop_map(|(t, ms)| {
                ServerLine::Special {
                    text: t.to_string(),
                    ms,
                }
            }),
            game_end().prop_map(|e| ServerLine::Reason(Reason::Known(e))),
            "#[A-Z_]{1,16}"
                .prop_filter("not a known reason or result", |l| GameEnd::parse(l)
                    .is_none()
                    && EndResult::parse(l).is_none())
                .prop_map(|l| ServerLine::Reason(Reason::Unknown(l))),
            prop::sample::select(vec![EndResult::Win, EndResult::Lose, EndResult::Draw])
                .prop_map(ServerLine::Result),
            text()
                .prop_filter("not a refusal's text", |t| gyoku::GameError::all()
                    .all(|e| e.to_string() != *t))
                .prop_map(ServerLine::Error),
            prop::sample::select(gyoku::GameError::all().collect::<Vec<_>>())
                .prop_map(ServerLine::Refused),
            prop::sample::select(vec![Color::Black, Color::White])
                .prop_map(ServerLine::ImpasseProposed),
            prop::sample::select(vec![Color::Black, Color::White])
                .prop_map(ServerLine::SennichiteProposed),
            (prop::sample::select(X1Tag::ALL.to_vec()), text())
                .prop_map(|(tag, text)| ServerLine::X1 { tag, text }),
            word().prop_map(ServerLine::ForkName),
            (word(), text()).prop_map(|(game_id, text)| ServerLine::Monitor { game_id, text }),
            (word(), text()).prop_map(|(from, message)| ServerLine::Chat {
                from,
                message: message.into()
            }),
            prop::sample::select(ReconnectRefusal::ALL.to_vec())
                .prop_map(ServerLine::ReconnectRefused),
            (word(), 0u64..100_000)
                .prop_map(|(name, seconds)| ServerLine::Disconnected { name, seconds }),
            word().prop_map(ServerLine::Reconnected),
            Just(ServerLine::Empty),
        ]
    }

    /// Issue 42: the block after a resumed player's Game_Summary, as rshogi writes it.
    #[test]
    fn a_reconnect_state_is_written_as_rshogi_writes_it() {
        let state = ServerLine::ReconnectState(ReconnectState {
            turn: Color::White,
            black_ms: 59_000,
            white_ms: 42_500,
            last_move: Some("+7776FU".into()),
        });
        assert_eq!(
            state.to_string(),
            "BEGIN Reconnect_State\nCurrent_Turn:-\nBlack_Time_Remaining_Ms:59000\n\
             White_Time_Remaining_Ms:42500\nLast_Move:+7776FU\nEND Reconnect_State"
        );
    }

    proptest! {
        /// Issue 26: what the server writes, a client reads back as the same value.
        #[test]
        fn every_server_line_reads_back_as_written(line in server_line()) {
            let wire = line.to_string();
            prop_assert!(!wire.contains('\n'), "{wire:?}");
            prop_assert_eq!(ServerLine::parse(&wire), line);
        }
    }

    #[test]
    fn server_lines_are_read_in_every_form_clients_meet() {
        let cases: &[(&str, ServerLine)] = &[
            ("LOGIN:bridge OK", ServerLine::LoginOk("bridge".into())),
            ("LOGIN:incorrect", ServerLine::LoginIncorrect),
            ("START:g1", ServerLine::Start("g1".into())),
            (
                "REJECT:g1 by the Server (timed out)",
                ServerLine::Reject {
                    game_id: "g1".into(),
                    by: "the Server (timed out)".into(),
                },
            ),
            (
                "+7776FU,T12",
                ServerLine::Move(EchoedMove {
                    text: "+7776FU".into(),
                    ms: Some(12_000),
                    comment: None,
                }),
            ),
            (
                "+7776FU",
                ServerLine::Move(EchoedMove {
                    text: "+7776FU".into(),
                    ms: None,
                    comment: None,
                }),
            ),
            (
                "%TORYO,T2.5",
                ServerLine::Special {
                    text: "%TORYO".into(),
                    ms: Some(2_500),
                },
            ),
            (
                "#RESIGN",
                ServerLine::Reason(Reason::Known(GameEnd::Resign)),
            ),
            (
                "#CENSORED",
                ServerLine::Reason(Reason::Known(GameEnd::Censored)),
            ),
            (
                "#ILLEGAL_ACTION",
                ServerLine::Reason(Reason::Unknown("#ILLEGAL_ACTION".into())),
            ),
            ("#WIN", ServerLine::Result(EndResult::Win)),
            ("", ServerLine::Empty),
            ("+7776FU,Tx", ServerLine::Other("+7776FU,Tx".into())),
            ("##[CHAT] hi", ServerLine::Other("##[CHAT] hi".into())),
            ("##[NEWS] hi", ServerLine::Other("##[NEWS] hi".into())),
            (
                "##[ERROR] illegal move refused: nifu",
                ServerLine::Error("illegal move refused: nifu".into()),
            ),
            (
                "##[ERROR] illegal move refused: nifu (a pawn dropped on a file with the mover's \
                 unpromoted pawn)",
                ServerLine::Refused(gyoku::GameError::IllegalMove(gyoku::IllegalMoveKind::Nifu)),
            ),
            (
                "##[ERROR] declaration refused: condition 'points' not met",
                ServerLine::Refused(gyoku::GameError::DeclarationRefused(
                    gyoku::impasse::DeclarationFailure::Points,
                )),
            ),
            (
                "##[IMPASSE] proposed by -",
                ServerLine::ImpasseProposed(Color::White),
            ),
            (
                "##[SENNICHITE] proposed by +",
                ServerLine::SennichiteProposed(Color::Black),
            ),
            (
                "##[WHO] +OK",
                ServerLine::X1 {
                    tag: X1Tag::Who,
                    text: "+OK".into(),
                },
            ),
        ];
        for (line, want) in cases {
            assert_eq!(&ServerLine::parse(line), want, "{line}");
        }
    }
}
