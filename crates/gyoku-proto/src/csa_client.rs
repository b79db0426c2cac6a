//! The client's side of the CSA protocol, no I/O: what a server's lines mean to a player
//! ([`ServerLine`]), and a session that reads them in order and says what happened
//! ([`ClientSession`], [`Event`]): logged in, a game proposed (its `Game_Summary`),
//! started, each move with its time, the game's end.
//!
//! Every form clients meet is read: moves with `,T<seconds>` where the seconds may be
//! fractional (`T1.5`, `T1.` — CSA 3.0's milliseconds; `T` is seconds whatever
//! `Time_Unit` says), Floodgate's `,'` comments, reason lines this module has no name for
//! (`#ILLEGAL_ACTION`, kept as text), `#CHUDAN` alone, a result with no reason line.

use crate::csa::{EndResult, GameEnd, GameSummary, MAX_SUMMARY_LINES, SummaryError};

/// One line from a CSA server, as a player reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerLine {
    /// `LOGIN:<name> OK`.
    LoginOk(String),
    /// `LOGIN:incorrect`.
    LoginIncorrect,
    /// `LOGOUT:completed`.
    LogoutCompleted,
    /// `BEGIN Game_Summary`.
    SummaryBegin,
    /// `START:<Game_ID>`.
    Start(String),
    /// `REJECT:<Game_ID> by <name>`.
    Reject(String),
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
    /// An empty line (a keep-alive).
    Empty,
    /// Anything else (`##[…]` x1 lines, chat, unknown words), kept as it came.
    Other(String),
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
        if let Some(rest) = line.strip_prefix("LOGIN:") {
            return match rest.strip_suffix(" OK") {
                Some(name) => ServerLine::LoginOk(name.to_string()),
                None if rest == "incorrect" => ServerLine::LoginIncorrect,
                None => ServerLine::Other(line.to_string()),
            };
        }
        if line == "LOGOUT:completed" {
            return ServerLine::LogoutCompleted;
        }
        if line == "BEGIN Game_Summary" {
            return ServerLine::SummaryBegin;
        }
        if let Some(id) = line.strip_prefix("START:") {
            return ServerLine::Start(id.to_string());
        }
        if let Some(rest) = line.strip_prefix("REJECT:") {
            return ServerLine::Reject(rest.to_string());
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
}

/// What a [`ClientSession`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The server accepted the login.
    LoggedIn,
    /// The server refused it.
    LoginRefused,
    /// A game is proposed: answer `AGREE` or `REJECT`.
    Proposed(Box<GameSummary>),
    /// The game started.
    Started(String),
    /// The proposal was withdrawn (`REJECT:…`).
    Rejected(String),
    /// A move was echoed (one's own or the opponent's).
    Moved(EchoedMove),
    /// `%TORYO` or `%KACHI` was echoed.
    Special {
        /// `%TORYO` or `%KACHI`.
        text: String,
        /// Milliseconds, if a `T` was given.
        ms: Option<u64>,
    },
    /// The game ended: the reason line (if one came) and the result (none for
    /// `#CHUDAN`).
    Ended {
        /// The reason line.
        reason: Option<Reason>,
        /// The result line.
        result: Option<EndResult>,
    },
    /// `LOGOUT:completed`.
    LoggedOut,
    /// A line that means nothing here (kept for the log).
    Ignored(String),
}

/// Reads a server's lines in order and turns them into [`Event`]s: the `Game_Summary`
/// block is gathered and read whole, a reason line is held until its result.
#[derive(Debug, Default)]
pub struct ClientSession {
    summary: Option<Vec<String>>,
    reason: Option<Reason>,
}

impl ClientSession {
    /// A session that has read nothing.
    pub fn new() -> ClientSession {
        ClientSession::default()
    }

    /// Reads the next line; `Ok(None)` when it completes nothing yet (a summary line, a
    /// reason waiting for its result, a keep-alive).
    ///
    /// # Errors
    /// A `Game_Summary` that cannot be read, or longer than [`MAX_SUMMARY_LINES`].
    pub fn read(&mut self, line: &str) -> Result<Option<Event>, SummaryError> {
        if let Some(lines) = &mut self.summary {
            let line = line.trim_end_matches(['\r', '\n']);
            if lines.len() >= MAX_SUMMARY_LINES {
                self.summary = None;
                return Err(SummaryError {
                    line: MAX_SUMMARY_LINES,
                    message: "too many lines".into(),
                });
            }
            lines.push(line.to_string());
            if line != "END Game_Summary" {
                return Ok(None);
            }
            let lines = self.summary.take().unwrap_or_default();
            let summary = GameSummary::parse(lines.iter().map(String::as_str))?;
            return Ok(Some(Event::Proposed(Box::new(summary))));
        }
        Ok(match ServerLine::parse(line) {
            ServerLine::SummaryBegin => {
                self.summary = Some(vec!["BEGIN Game_Summary".into()]);
                None
            }
            ServerLine::LoginOk(_) => Some(Event::LoggedIn),
            ServerLine::LoginIncorrect => Some(Event::LoginRefused),
            ServerLine::LogoutCompleted => Some(Event::LoggedOut),
            ServerLine::Start(id) => Some(Event::Started(id)),
            ServerLine::Reject(r) => Some(Event::Rejected(r)),
            ServerLine::Move(m) => Some(Event::Moved(m)),
            ServerLine::Special { text, ms } => Some(Event::Special { text, ms }),
            ServerLine::Reason(Reason::Known(GameEnd::Chudan)) => Some(Event::Ended {
                reason: Some(Reason::Known(GameEnd::Chudan)),
                result: None,
            }),
            // After `#MAX_MOVES`, `#CENSORED` is the result (shogi-server's words).
            ServerLine::Reason(Reason::Known(GameEnd::Censored)) if self.reason.is_some() => {
                Some(Event::Ended {
                    reason: self.reason.take(),
                    result: Some(EndResult::Censored),
                })
            }
            ServerLine::Reason(r) => {
                self.reason = Some(r);
                None
            }
            ServerLine::Result(result) => Some(Event::Ended {
                reason: self.reason.take(),
                result: Some(result),
            }),
            ServerLine::Empty => None,
            ServerLine::Other(l) => Some(Event::Ignored(l)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_lines_are_read_in_every_form_clients_meet() {
        let cases: &[(&str, ServerLine)] = &[
            ("LOGIN:bridge OK", ServerLine::LoginOk("bridge".into())),
            ("LOGIN:incorrect", ServerLine::LoginIncorrect),
            ("START:g1", ServerLine::Start("g1".into())),
            ("REJECT:g1 by b", ServerLine::Reject("g1 by b".into())),
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
        ];
        for (line, want) in cases {
            assert_eq!(&ServerLine::parse(line), want, "{line}");
        }
    }

    /// Every ShogiHome bridge scenario's server side, read by a session: each game is
    /// proposed, started and ended (a reason and a result, or `#CHUDAN`).
    #[test]
    fn every_shogihome_scenario_reads_to_its_end() {
        let dir = gyoku_testdata::repo_data().join("csa-protocol/shogihome-bridge-scenarios");
        for n in 1..=34 {
            let text = std::fs::read_to_string(dir.join(format!("{n}/csa.log"))).unwrap();
            let mut session = ClientSession::new();
            let (mut proposed, mut started, mut ended) = (0, 0, 0);
            for line in text.lines().filter_map(|l| l.strip_prefix("send:")) {
                match session.read(line) {
                    Ok(Some(Event::Proposed(_))) => proposed += 1,
                    Ok(Some(Event::Started(_))) => started += 1,
                    Ok(Some(Event::Ended { .. })) => ended += 1,
                    Ok(Some(Event::Ignored(l))) => panic!("{n}: ignored {l:?}"),
                    Ok(_) => {}
                    Err(e) => panic!("{n}: {e}"),
                }
            }
            assert!(proposed >= 1, "{n}");
            assert_eq!(
                (proposed, started, ended),
                (proposed, proposed, proposed),
                "{n}"
            );
        }
    }
}
