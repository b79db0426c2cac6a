//! An event's state: the rounds paired, each board's result, adjustments, paused or
//! ended. It changes only by [`Entry`]s, which storage keeps in order: the state after a
//! restart is the stored entries applied again, so a kill during a round loses nothing.

use serde::{Deserialize, Serialize};

use gyoku_league::swiss::{self, Entrant};

use super::file::{EventFile, EventFormat};
use super::round_robin::berger;

/// How a board ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardResult {
    /// The board's first player (Black in its game) won.
    Black,
    /// The second won.
    White,
    /// Drawn (or a no contest that was not replayed).
    Draw,
    /// Neither came: no game, no points.
    BothAbsent,
}

impl BoardResult {
    /// `black`, `white`, `draw` or `both_absent`.
    pub fn name(self) -> &'static str {
        match self {
            BoardResult::Black => "black",
            BoardResult::White => "white",
            BoardResult::Draw => "draw",
            BoardResult::BothAbsent => "both_absent",
        }
    }

    /// The first player's points and the second's.
    pub fn points(self) -> (f64, f64) {
        match self {
            BoardResult::Black => (1.0, 0.0),
            BoardResult::White => (0.0, 1.0),
            BoardResult::Draw => (0.5, 0.5),
            BoardResult::BothAbsent => (0.0, 0.0),
        }
    }

    /// Reads `black`, `white` or `draw` (what an operator may adjust a result to).
    pub fn adjustable(text: &str) -> Option<BoardResult> {
        match text {
            "black" => Some(BoardResult::Black),
            "white" => Some(BoardResult::White),
            "draw" => Some(BoardResult::Draw),
            _ => None,
        }
    }
}

/// One change to an event, as storage keeps it (JSON, one row each, in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub enum Entry {
    /// The event as its file defined it when it began (the first entry).
    Defined {
        /// The definition.
        file: EventFile,
    },
    /// A round was paired: `(black, white)` by seat, and who sits out.
    Paired {
        /// The round, from 1.
        round: u32,
        /// Each board's players, Black first.
        pairs: Vec<(usize, usize)>,
        /// The seat with a bye.
        bye: Option<usize>,
        /// When it was paired (`YYYY/MM/DD HH:MM:SS`; none in entries stored before it was
        /// kept).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
    /// A board ended.
    Result {
        /// The round.
        round: u32,
        /// The board, from 1.
        board: u32,
        /// How.
        result: BoardResult,
        /// The reason (`resign`, `time_up`, `forfeit`, …).
        reason: String,
        /// The game played, if one was.
        game_id: Option<String>,
    },
    /// An operator changed a board's result.
    Adjusted {
        /// The round.
        round: u32,
        /// The board.
        board: u32,
        /// The result it has now.
        result: BoardResult,
        /// Why, in the operator's words.
        reason: String,
    },
    /// No new game starts until resumed (games under way go on).
    Paused,
    /// Games start again.
    Resumed,
    /// The event ends: no further round is paired.
    Ended {
        /// Why, in the operator's words.
        reason: String,
    },
}

/// One board of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Black's seat.
    pub black: usize,
    /// White's seat.
    pub white: usize,
    /// How it ended, once it has.
    pub result: Option<BoardResult>,
    /// The end's reason.
    pub reason: String,
    /// The game played.
    pub game_id: Option<String>,
    /// Adjustments, in order: the result each set and why.
    pub adjustments: Vec<(BoardResult, String)>,
}

impl Board {
    /// The result that counts: the last adjustment's, else the game's.
    pub fn counted(&self) -> Option<BoardResult> {
        self.adjustments.last().map(|a| a.0).or(self.result)
    }
}

/// A round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// Its boards, board 1 first.
    pub boards: Vec<Board>,
    /// Who sits out.
    pub bye: Option<usize>,
    /// When it was paired.
    pub paired_at: Option<String>,
}

impl Round {
    /// Whether every board has ended.
    pub fn complete(&self) -> bool {
        self.boards.iter().all(|b| b.result.is_some())
    }
}

/// An event's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Its definition.
    pub file: EventFile,
    /// The rounds paired so far.
    pub rounds: Vec<Round>,
    /// Paused by an operator.
    pub paused: bool,
    /// Ended by an operator, and why.
    pub ended: Option<String>,
    /// Entries applied (the next entry's number).
    pub entries: u32,
}

impl Event {
    /// An event not yet begun (its first entry is [`Entry::Defined`]).
    pub fn new(file: EventFile) -> Event {
        Event {
            file,
            rounds: Vec::new(),
            paused: false,
            ended: None,
            entries: 0,
        }
    }

    /// The event from its stored entries, in order.
    ///
    /// # Errors
    /// When an entry does not fit the state before it (storage holds another event's
    /// entries, or was changed by hand).
    pub fn replay(file: EventFile, entries: &[Entry]) -> Result<Event, String> {
        let mut event = Event::new(file);
        for (k, e) in entries.iter().enumerate() {
            event
                .check(e)
                .map_err(|why| format!("stored entry {k}: {why}"))?;
            event.apply(e);
        }
        Ok(event)
    }

    /// Whether `entry` may follow the state as it is.
    ///
    /// # Errors
    /// Why not.
    pub fn check(&self, entry: &Entry) -> Result<(), String> {
        let n = self.file.participants.len();
        let board = |round: u32, board: u32| {
            self.rounds
                .get((round as usize).wrapping_sub(1))
                .and_then(|r| r.boards.get((board as usize).wrapping_sub(1)))
                .ok_or_else(|| format!("round {round} has no board {board}"))
        };
        match entry {
            Entry::Defined { file } if self.entries == 0 => {
                if file.same_event(&self.file) {
                    Ok(())
                } else {
                    Err("the event file differs from the one the event began with".into())
                }
            }
            Entry::Defined { .. } => Err("defined twice".into()),
            _ if self.entries == 0 => Err("not defined first".into()),
            Entry::Paired {
                round, pairs, bye, ..
            } => {
                if *round as usize != self.rounds.len() + 1 {
                    return Err(format!("round {round} paired after {}", self.rounds.len()));
                }
                let mut seen = vec![false; n];
                for &s in pairs.iter().flat_map(|(b, w)| [b, w]).chain(bye) {
                    if s >= n || std::mem::replace(&mut seen[s], true) {
                        return Err(format!("round {round}: seat {s} paired wrongly"));
                    }
                }
                Ok(())
            }
            Entry::Result {
                round, board: b, ..
            } => match board(*round, *b)? {
                x if x.result.is_some() => Err(format!("round {round} board {b} ended twice")),
                _ => Ok(()),
            },
            Entry::Adjusted {
                round,
                board: b,
                result,
                ..
            } => {
                board(*round, *b)?;
                if *result == BoardResult::BothAbsent {
                    return Err("a result is adjusted to black, white or draw".into());
                }
                Ok(())
            }
            Entry::Paused | Entry::Resumed | Entry::Ended { .. } => Ok(()),
        }
    }

    /// Applies a checked entry.
    pub fn apply(&mut self, entry: &Entry) {
        self.entries += 1;
        match entry {
            Entry::Defined { .. } => {}
            Entry::Paired { pairs, bye, at, .. } => self.rounds.push(Round {
                paired_at: at.clone(),
                boards: pairs
                    .iter()
                    .map(|&(black, white)| Board {
                        black,
                        white,
                        result: None,
                        reason: String::new(),
                        game_id: None,
                        adjustments: Vec::new(),
                    })
                    .collect(),
                bye: *bye,
            }),
            Entry::Result {
                round,
                board,
                result,
                reason,
                game_id,
            } => {
                let b = &mut self.rounds[*round as usize - 1].boards[*board as usize - 1];
                b.result = Some(*result);
                b.reason.clone_from(reason);
                b.game_id.clone_from(game_id);
            }
            Entry::Adjusted {
                round,
                board,
                result,
                reason,
            } => {
                let b = &mut self.rounds[*round as usize - 1].boards[*board as usize - 1];
                b.adjustments.push((*result, reason.clone()));
            }
            Entry::Paused => self.paused = true,
            Entry::Resumed => self.paused = false,
            Entry::Ended { reason } => self.ended = Some(reason.clone()),
        }
    }

    /// The round being played (from 1), 0 before the first.
    pub fn round(&self) -> u32 {
        self.rounds.len() as u32
    }

    /// Whether the event is over: ended by an operator, or every round played.
    pub fn finished(&self) -> bool {
        let all_played =
            self.round() == self.file.rounds && self.rounds.last().is_some_and(Round::complete);
        all_played || (self.ended.is_some() && self.rounds.iter().all(Round::complete))
    }

    /// The next round's pairing, when it is due: the event is not paused or ended, the
    /// round before is complete, and rounds remain. (The time a round may start is the
    /// caller's to check.)
    pub fn next_pairing(&self) -> Option<Entry> {
        if self.entries == 0 || self.paused || self.ended.is_some() {
            return None;
        }
        if self.round() >= self.file.rounds || !self.rounds.last().is_none_or(Round::complete) {
            return None;
        }
        let round = self.round() + 1;
        let n = self.file.participants.len();
        let (pairs, bye) = match self.file.format {
            EventFormat::RoundRobin => {
                let table = berger(n);
                let pairs = &table[round as usize - 1];
                let mut seated = vec![false; n];
                for &(b, w) in pairs {
                    seated[b] = true;
                    seated[w] = true;
                }
                (pairs.clone(), seated.iter().position(|s| !s))
            }
            EventFormat::Swiss => {
                let paired = swiss::pair(&self.entrants());
                (paired.pairs, paired.bye)
            }
        };
        Some(Entry::Paired {
            round,
            pairs,
            bye,
            at: None,
        })
    }

    /// Each seat as the Swiss pairing sees it, from the rounds so far (their counted
    /// results, adjustments included).
    pub fn entrants(&self) -> Vec<Entrant> {
        let mut field = vec![Entrant::default(); self.file.participants.len()];
        for round in &self.rounds {
            for b in &round.boards {
                let (pb, pw) = b.counted().map_or((0.0, 0.0), BoardResult::points);
                field[b.black].score += pb;
                field[b.white].score += pw;
                field[b.black].met.push(b.white);
                field[b.white].met.push(b.black);
                field[b.black].colour_balance += 1;
                field[b.white].colour_balance -= 1;
                field[b.black].last_black = Some(true);
                field[b.white].last_black = Some(false);
            }
            if let Some(s) = round.bye {
                if self.file.format == EventFormat::Swiss {
                    field[s].score += 1.0;
                }
                field[s].had_bye = true;
            }
        }
        field
    }

    /// The board `name` plays in the current round, if it has one that has not ended:
    /// (board number from 1, its seats).
    pub fn open_board_of(&self, name: &str) -> Option<(u32, &Board)> {
        let seat = self.file.seat(name)?;
        let round = self.rounds.last()?;
        round
            .boards
            .iter()
            .enumerate()
            .find(|(_, b)| b.result.is_none() && (b.black == seat || b.white == seat))
            .map(|(k, b)| (k as u32 + 1, b))
    }
}

#[cfg(test)]
mod tests {
    /// A round paired before the time was kept reads as ever, with no time.
    #[test]
    fn a_paired_entry_without_its_time_still_reads() {
        let old = r#"{"entry":"paired","round":1,"pairs":[[0,1]],"bye":null}"#;
        let entry: Entry = serde_json::from_str(old).unwrap();
        assert!(matches!(entry, Entry::Paired { at: None, .. }), "{entry:?}");
        assert_eq!(serde_json::to_string(&entry).unwrap(), old);
    }

    use super::*;

    fn file(format: &str, n: usize, rounds: Option<u32>) -> EventFile {
        let names: Vec<String> = (0..n).map(|i| format!("\"p{i}\"")).collect();
        let rounds = rounds.map_or(String::new(), |r| format!("rounds = {r}\n"));
        EventFile::parse(&format!(
            "name = \"e\"\ngame = \"e-60-0\"\nformat = \"{format}\"\n{rounds}participants = [{}]\n",
            names.join(", ")
        ))
        .unwrap()
    }

    /// Plays every board of each round as `result` says, until the event is over.
    fn run(event: &mut Event, result: impl Fn(usize, usize) -> BoardResult) -> Vec<Entry> {
        let mut log = vec![Entry::Defined {
            file: event.file.clone(),
        }];
        event.apply(&log[0]);
        while let Some(paired) = event.next_pairing() {
            event.check(&paired).unwrap();
            event.apply(&paired);
            log.push(paired);
            let round = event.round();
            let boards = event.rounds.last().unwrap().boards.clone();
            for (k, b) in boards.iter().enumerate() {
                let e = Entry::Result {
                    round,
                    board: k as u32 + 1,
                    result: result(b.black, b.white),
                    reason: "resign".into(),
                    game_id: None,
                };
                event.check(&e).unwrap();
                event.apply(&e);
                log.push(e);
            }
        }
        log
    }

    #[test]
    fn a_swiss_event_of_twelve_plays_five_rounds_without_a_repeat() {
        let mut e = Event::new(file("swiss", 12, Some(5)));
        let log = run(&mut e, |b, w| {
            if b < w {
                BoardResult::Black
            } else {
                BoardResult::White
            }
        });
        assert!(e.finished());
        assert_eq!(e.rounds.len(), 5);
        let mut met = std::collections::HashSet::new();
        for r in &e.rounds {
            assert_eq!(r.boards.len(), 6);
            for b in &r.boards {
                assert!(met.insert((b.black.min(b.white), b.black.max(b.white))));
            }
        }
        // Seat 0 wins every game: 5 points.
        assert_eq!(e.entrants()[0].score, 5.0);
        // The stored entries make the same event again.
        let again = Event::replay(e.file.clone(), &log).unwrap();
        assert_eq!(again, e);
        // An entry out of place is refused, and says where.
        let mut bad = log.clone();
        bad.swap(1, 2);
        assert!(
            Event::replay(e.file.clone(), &bad)
                .unwrap_err()
                .contains("entry 1")
        );
    }

    #[test]
    fn a_round_robin_of_five_meets_everyone_once_with_a_bye_each_round() {
        let mut e = Event::new(file("round-robin", 5, None));
        run(&mut e, |_, _| BoardResult::Draw);
        assert_eq!(e.rounds.len(), 5);
        let mut met = std::collections::HashSet::new();
        let mut byes = Vec::new();
        for r in &e.rounds {
            byes.push(r.bye.unwrap());
            for b in &r.boards {
                assert!(met.insert((b.black.min(b.white), b.black.max(b.white))));
            }
        }
        assert_eq!(met.len(), 10);
        byes.sort_unstable();
        assert_eq!(byes, [0, 1, 2, 3, 4]);
        // No bye points in a round-robin: 4 draws each.
        assert!(e.entrants().iter().all(|x| x.score == 2.0));
    }

    #[test]
    fn paused_or_ended_events_pair_nothing_and_adjustments_count() {
        let mut e = Event::new(file("swiss", 4, Some(3)));
        e.apply(&Entry::Defined {
            file: e.file.clone(),
        });
        let p = e.next_pairing().unwrap();
        e.apply(&p);
        assert_eq!(e.next_pairing(), None, "round 1 is under way");
        for board in [1, 2] {
            e.apply(&Entry::Result {
                round: 1,
                board,
                result: BoardResult::Black,
                reason: "resign".into(),
                game_id: None,
            });
        }
        e.apply(&Entry::Paused);
        assert_eq!(e.next_pairing(), None);
        e.apply(&Entry::Resumed);
        assert!(e.next_pairing().is_some());
        let adjust = Entry::Adjusted {
            round: 1,
            board: 1,
            result: BoardResult::White,
            reason: "an illegal move the referee missed".into(),
        };
        e.check(&adjust).unwrap();
        e.apply(&adjust);
        let b = &e.rounds[0].boards[0];
        assert_eq!(e.entrants()[b.white].score, 1.0);
        assert_eq!(e.entrants()[b.black].score, 0.0);
        let no_board = Entry::Adjusted {
            round: 2,
            board: 1,
            result: BoardResult::Draw,
            reason: String::new(),
        };
        assert!(e.check(&no_board).unwrap_err().contains("no board"));
        e.apply(&Entry::Ended {
            reason: "the hall closes".into(),
        });
        assert_eq!(e.next_pairing(), None);
        assert!(e.finished());
    }
}
