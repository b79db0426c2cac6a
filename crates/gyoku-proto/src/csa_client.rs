//! The client's side of the CSA protocol, no I/O: a session that reads a server's lines
//! ([`ServerLine`], from [`crate::csa_line`]) in order and says what happened
//! ([`ClientSession`], [`Event`]): logged in, a game proposed (its `Game_Summary`),
//! started, each move with its time, a refusal, the game's end.

use crate::csa::{EndResult, GameEnd, GameSummary, MAX_SUMMARY_LINES, SummaryError};
pub use crate::csa_line::{EchoedMove, Reason, ServerLine, time_ms};

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
    /// The proposal was withdrawn (`REJECT:<Game_ID> by <who>`): who withdrew it.
    Rejected(String),
    /// `##[ERROR] …`: a command or move refused; the game goes on.
    Refused {
        /// What the server said, after `##[ERROR] `.
        what: String,
        /// The rules' refusal it is, when it is one ([`ServerLine::Refused`]): an illegal
        /// move's kind under refused fouls, a declaration refused …
        rule: Option<gyoku::GameError>,
    },
    /// `##[IMPASSE] proposed by …`: who proposed an impasse count.
    ImpasseProposed(gyoku::Color),
    /// `##[SENNICHITE] proposed by …`: who proposed a sennichite by agreement.
    SennichiteProposed(gyoku::Color),
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

    /// A `Game_Summary` received whole, as a value: the game it proposes (a block read
    /// halfway is dropped).
    pub fn read_summary(&mut self, summary: GameSummary) -> Event {
        self.summary = None;
        Event::Proposed(Box::new(summary))
    }

    /// Whether it is in the middle of a `Game_Summary` (its first line read, not its last).
    pub fn in_summary(&self) -> bool {
        self.summary.is_some()
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
        self.read_line(ServerLine::parse(line))
    }

    /// Reads the next line as a value (a server in the same process sends values, not
    /// text); what [`ClientSession::read`] does with its text.
    ///
    /// ```
    /// use gyoku_proto::csa_client::{ClientSession, Event, ServerLine};
    /// let mut session = ClientSession::new();
    /// let refusal = gyoku::GameError::IllegalMove(gyoku::IllegalMoveKind::Nifu);
    /// assert_eq!(
    ///     session.read_line(ServerLine::Refused(refusal)).unwrap(),
    ///     Some(Event::Refused {
    ///         what: refusal.to_string(),
    ///         rule: Some(refusal),
    ///     })
    /// );
    /// ```
    ///
    /// # Errors
    /// As [`ClientSession::read`], inside a `Game_Summary` read as text.
    pub fn read_line(&mut self, line: ServerLine) -> Result<Option<Event>, SummaryError> {
        if self.summary.is_some() {
            return self.read(&line.to_string());
        }
        Ok(match line {
            ServerLine::SummaryBegin => {
                self.summary = Some(vec!["BEGIN Game_Summary".into()]);
                None
            }
            ServerLine::LoginOk(_) => Some(Event::LoggedIn),
            ServerLine::LoginIncorrect | ServerLine::ReconnectRefused(_) => {
                Some(Event::LoginRefused)
            }
            ServerLine::LogoutCompleted => Some(Event::LoggedOut),
            ServerLine::Start(id) => Some(Event::Started(id)),
            ServerLine::Reject { by, .. } => Some(Event::Rejected(by)),
            ServerLine::Error(what) => Some(Event::Refused { what, rule: None }),
            ServerLine::Refused(why) => Some(Event::Refused {
                what: why.to_string(),
                rule: Some(why),
            }),
            ServerLine::ImpasseProposed(by) => Some(Event::ImpasseProposed(by)),
            ServerLine::SennichiteProposed(by) => Some(Event::SennichiteProposed(by)),
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
            other @ (ServerLine::LoginX1
            | ServerLine::LoginUsage
            | ServerLine::AlreadyConnected(_)
            | ServerLine::ChallengeAccepted
            | ServerLine::X1 { .. }
            | ServerLine::ForkName(_)
            | ServerLine::Monitor { .. }
            | ServerLine::Chat { .. }
            | ServerLine::Disconnected { .. }
            | ServerLine::Reconnected(_)
            | ServerLine::ReconnectState(_)
            | ServerLine::Other(_)) => Some(Event::Ignored(other.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
