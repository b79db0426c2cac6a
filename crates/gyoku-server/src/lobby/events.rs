//! Organised events ([`crate::event`]): participants who name the event's game wait for
//! their board; each round is paired when the one before has ended (and its set time has
//! come), each board's game is proposed as soon as both its players wait, a board whose
//! player has not come within the wait is forfeited, and every result, pairing and
//! operator's action is stored as the event's next entry before anyone hears of it.
//!
//! [`Live`] decides all of it from what it is shown ([`Field`]) and asks for it in
//! [`Step`]s; the lobby's part (the end of this file) shows it the lobby and carries the
//! steps out.

use std::collections::BTreeMap;

use gyoku_proto::csa_line::ServerLine;

use super::Lobby;
use super::change::Change;
use super::conns::Status;
use super::field::{Field, LobbyField, Step};
use super::io::{ConnId, Millis, Now, Output, Reply, tell};
use crate::event::{BoardResult, Entry, Event};

/// An operator's action on an event (the admin endpoint).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventAction {
    /// No new game starts (games under way go on); the wait for missing players stops.
    Pause,
    /// Games start again; the wait for missing players starts again.
    Resume,
    /// A board's result is changed, with a reason (kept with the event).
    Adjust {
        /// The round, from 1.
        round: u32,
        /// The board, from 1.
        board: u32,
        /// `black`, `white` or `draw`: the board's first player (Black) wins, …
        result: BoardResult,
        /// Why.
        reason: String,
    },
    /// No further round is paired; games under way are played out.
    End {
        /// Why.
        reason: String,
    },
}

/// An event being run: the event its entries have made, and when its current round's
/// missing players are forfeited.
#[derive(Clone, Debug)]
pub(super) struct Live {
    pub(super) event: Event,
    /// When the current round's missing players are forfeited.
    forfeit_at: Option<Millis>,
    /// The same, in wall time as the organiser's view says it (`YYYY/MM/DD HH:MM:SS`).
    forfeit_wall: Option<String>,
    /// Counts every change to the event or to its games under way (the page's view is
    /// made again when it moves).
    pub(super) changed: u64,
}

/// The events by game name.
pub(super) type Events = BTreeMap<String, Live>;

/// A game of an event ended, as the event hears of it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ended<'a> {
    /// Its Game_ID.
    pub(super) game_id: &'a str,
    /// Black's and White's names.
    pub(super) names: &'a [String; 2],
    /// `black`, `white`, else a draw or no result.
    pub(super) result: Option<&'a str>,
    /// Why it ended.
    pub(super) reason: &'a str,
    /// Whether it is replayed (a no contest): the replay decides the board.
    pub(super) replayed: bool,
}

impl Live {
    pub(super) fn new(event: Event) -> Live {
        Live {
            event,
            forfeit_at: None,
            forfeit_wall: None,
            changed: 0,
        }
    }

    /// Asks for `entry` to be stored as the event's next one, and applies it.
    fn record(&mut self, mut entry: Entry, now: Now, steps: &mut Vec<Step>) {
        debug_assert_eq!(self.event.check(&entry), Ok(()));
        let at = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
        // A round says when it was paired (the organiser's view shows it).
        if let Entry::Paired { at: paired, .. } = &mut entry {
            *paired = Some(at.clone());
        }
        steps.push(Step::Store(Change::EventEntry {
            event: self.event.file.name.clone(),
            seq: self.event.entries,
            at,
            entry: serde_json::to_string(&entry).expect("entries are plain data"),
        }));
        self.event.apply(&entry);
        self.changed += 1;
    }

    /// Moves the event on as far as it goes at `now`: defined first, a wait that ends
    /// forfeits, a round that is due is paired, and the games that can start are asked
    /// for when anything changed (or `start` asks it).
    ///
    /// Called at every input: it costs a few comparisons unless something is due.
    pub(super) fn advance(
        &mut self,
        field: &dyn Field,
        now: Now,
        start: bool,
        steps: &mut Vec<Step>,
    ) {
        let before = self.event.entries;
        if self.event.entries == 0 {
            let file = self.event.file.clone();
            self.record(Entry::Defined { file }, now, steps);
        }
        // A round at most per pass: forfeits may complete it, then the next is paired.
        for _ in 0..2 {
            let ev = &self.event;
            let round_open = ev.rounds.last().is_some_and(|r| !r.complete());
            if round_open && !ev.paused {
                match self.forfeit_at {
                    None => self.wait_from(now),
                    Some(at) if at <= now.mono => self.forfeit(field, now, steps),
                    Some(_) => {}
                }
            }
            let ev = &self.event;
            let due = ev
                .file
                .not_before(ev.round() + 1)
                .is_none_or(|t| t <= now.wall);
            let Some(paired) = due.then(|| ev.next_pairing()).flatten() else {
                break;
            };
            self.record(paired, now, steps);
            self.wait_from(now);
        }
        if start || self.event.entries != before {
            self.start_ready(field, steps);
        }
    }

    /// When the event next needs the lobby: a wait that ends, or a round's set time.
    pub(super) fn deadline(&self, now: Now) -> Option<Millis> {
        let ev = &self.event;
        if ev.paused || ev.finished() {
            return None;
        }
        if ev.rounds.last().is_some_and(|r| !r.complete()) {
            return self.forfeit_at;
        }
        let next = ev.file.not_before(ev.round() + 1)?;
        let ahead = (next - now.wall).num_milliseconds().max(0);
        Some(now.mono + u64::try_from(ahead).unwrap_or(0))
    }

    /// Whether `name` may wait for its board: a participant, and the event not over.
    pub(super) fn admits(&self, name: &str) -> Result<(), String> {
        let ev = &self.event;
        if ev.file.seat(name).is_none() {
            Err(format!(
                "{name} is not a participant of the event {}",
                ev.file.name
            ))
        } else if ev.finished() {
            Err(format!("the event {} is over", ev.file.name))
        } else {
            Ok(())
        }
    }

    /// Asks for the game of every open board whose two players wait and that is not
    /// under way already.
    pub(super) fn start_ready(&mut self, field: &dyn Field, steps: &mut Vec<Step>) {
        let ev = &self.event;
        if ev.paused {
            return;
        }
        let Some(round) = ev.rounds.last() else {
            return;
        };
        let names = &ev.file.participants;
        let ready: Vec<[ConnId; 2]> = round
            .boards
            .iter()
            .filter(|b| b.result.is_none())
            .filter(|b| !field.in_play(&names[b.black], &names[b.white]))
            .filter_map(|b| {
                Some([
                    field.waiting(&names[b.black])?,
                    field.waiting(&names[b.white])?,
                ])
            })
            .collect();
        for players in ready {
            steps.push(Step::Propose(players));
            // The page shows the games under way.
            self.changed += 1;
        }
    }

    /// The wait is over: each open board not under way is forfeited by whoever is not
    /// waiting for it (both: no game, no points).
    fn forfeit(&mut self, field: &dyn Field, now: Now, steps: &mut Vec<Step>) {
        let ev = &self.event;
        let names = &ev.file.participants;
        let round = ev.round();
        let decided: Vec<(u32, BoardResult)> = ev.rounds[round as usize - 1]
            .boards
            .iter()
            .enumerate()
            .filter(|(_, b)| b.result.is_none())
            .filter(|(_, b)| !field.in_play(&names[b.black], &names[b.white]))
            .filter_map(|(k, b)| {
                let black = field.waiting(&names[b.black]).is_some();
                let white = field.waiting(&names[b.white]).is_some();
                let result = match (black, white) {
                    // Both here: the game starts (it had not: paused, or refused).
                    (true, true) => return None,
                    (true, false) => BoardResult::Black,
                    (false, true) => BoardResult::White,
                    (false, false) => BoardResult::BothAbsent,
                };
                Some((k as u32 + 1, result))
            })
            .collect();
        for (board, result) in decided {
            let entry = Entry::Result {
                round,
                board,
                result,
                reason: "forfeit".into(),
                game_id: None,
            };
            self.record(entry, now, steps);
        }
        self.wait_from(now);
    }

    /// The wait for the current round's missing players starts at `now`.
    fn wait_from(&mut self, now: Now) {
        let wait = self.event.file.forfeit_after;
        self.forfeit_at = Some(now.mono + wait * 1000);
        let seconds = i64::try_from(wait).unwrap_or(i64::MAX / 1000);
        self.forfeit_wall = now
            .wall
            .checked_add_signed(chrono::TimeDelta::seconds(seconds))
            .map(|t| t.format("%Y/%m/%d %H:%M:%S").to_string());
    }

    /// When the current round's missing players are forfeited, in wall time, while the
    /// wait runs (a round open, the event not paused).
    fn forfeit_time(&self) -> Option<&str> {
        let ev = &self.event;
        let waiting = !ev.paused && ev.rounds.last().is_some_and(|r| !r.complete());
        waiting.then_some(self.forfeit_wall.as_deref()).flatten()
    }

    /// A game of the event ended: its board's result is recorded (unless a no contest is
    /// replayed: the replay decides it), and the event moves on.
    pub(super) fn game_ended(
        &mut self,
        ended: Ended<'_>,
        field: &dyn Field,
        now: Now,
        steps: &mut Vec<Step>,
    ) {
        // Whatever it decides, the games under way changed.
        self.changed += 1;
        let ev = &self.event;
        let names = ended.names;
        let (Some((board, b)), Some(first)) =
            (ev.open_board_of(&names[0]), ev.file.seat(&names[0]))
        else {
            return;
        };
        let other = if b.black == first { b.white } else { b.black };
        if ev.file.participants[other] != names[1] || ended.replayed {
            return;
        }
        let swapped = b.black != first;
        let result = match (ended.result, swapped) {
            (Some("black"), false) | (Some("white"), true) => BoardResult::Black,
            (Some("white"), false) | (Some("black"), true) => BoardResult::White,
            _ => BoardResult::Draw,
        };
        let entry = Entry::Result {
            round: ev.round(),
            board,
            result,
            reason: ended.reason.to_string(),
            game_id: Some(ended.game_id.to_string()),
        };
        self.record(entry, now, steps);
        self.advance(field, now, false, steps);
    }

    /// An operator's action, and the event after it; refused with why.
    pub(super) fn act(
        &mut self,
        action: EventAction,
        field: &dyn Field,
        now: Now,
        steps: &mut Vec<Step>,
    ) -> Result<&Event, String> {
        let ev = &self.event;
        let over = ev.finished() || ev.ended.is_some();
        let entry = match action {
            EventAction::Pause | EventAction::Resume | EventAction::End { .. } if over => {
                return Err("the event is over (a result may still be adjusted)".into());
            }
            EventAction::Pause if ev.paused => return Err("the event is paused already".into()),
            EventAction::Resume if !ev.paused => return Err("the event is not paused".into()),
            EventAction::Pause => Entry::Paused,
            EventAction::Resume => Entry::Resumed,
            EventAction::End { reason } => Entry::Ended { reason },
            EventAction::Adjust {
                round,
                board,
                result,
                reason,
            } => {
                let open = ev
                    .rounds
                    .get((round as usize).wrapping_sub(1))
                    .and_then(|r| r.boards.get((board as usize).wrapping_sub(1)))
                    .map(|b| b.result.is_none());
                match open {
                    None => return Err(format!("round {round} has no board {board}")),
                    Some(true) => {
                        return Err(format!(
                            "round {round} board {board} has not ended: adjust it once it has"
                        ));
                    }
                    Some(false) => {}
                }
                Entry::Adjusted {
                    round,
                    board,
                    result,
                    reason,
                }
            }
        };
        let resumed = entry == Entry::Resumed;
        self.record(entry, now, steps);
        if resumed {
            // The wait for missing players starts again.
            self.forfeit_at = None;
            self.forfeit_wall = None;
        }
        // The players who waited while it was paused get their games.
        self.advance(field, now, resumed, steps);
        Ok(&self.event)
    }

    /// The current round's boards not ended yet: each one's number (from 1) and its
    /// players' names (Black, White).
    pub(super) fn open_boards(&self) -> Vec<(u32, [&str; 2])> {
        let names = &self.event.file.participants;
        self.event
            .rounds
            .last()
            .map(|r| {
                r.boards
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.result.is_none())
                    .map(|(k, b)| (k as u32 + 1, [&*names[b.black], &*names[b.white]]))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The lobby's side: it shows each event the lobby (a `LobbyField`) and carries out the
/// steps it asks for.
impl Lobby {
    /// How long a player of a game named `game` may take to come back after its
    /// connection drops: its event's own grace, else the server's (ms).
    pub(super) fn reconnect_grace(&self, game: &str) -> super::io::Millis {
        self.competitions
            .events
            .get(game)
            .and_then(|live| live.event.file.reconnect_grace)
            .map_or(self.config.reconnect_grace_ms, |s| s * 1000)
    }

    /// Whether `game` is an event's game.
    pub(super) fn is_event_game(&self, game: &str) -> bool {
        self.competitions.events.contains_key(game)
    }

    /// Runs `decide` on the event of `game`, shown the lobby, and carries out the steps it
    /// asks for: entries stored, games proposed. What `decide` returns, or `None` when
    /// `game` is no event's.
    fn direct<T>(
        &mut self,
        game: &str,
        now: Now,
        out: &mut Vec<Output>,
        decide: impl FnOnce(&mut Live, &dyn Field, &mut Vec<Step>) -> T,
    ) -> Option<T> {
        let mut steps = Vec::new();
        let live = self.competitions.events.get_mut(game)?;
        let field = LobbyField {
            people: &self.people,
            rooms: &self.rooms,
            game,
        };
        let decided = decide(live, &field, &mut steps);
        self.carry_out(game, steps, now, out);
        Some(decided)
    }

    /// Moves every event on as far as it goes at `now`.
    pub(super) fn run_due_events(&mut self, now: Now, out: &mut Vec<Output>) {
        let games: Vec<String> = self.competitions.events.keys().cloned().collect();
        for game in games {
            self.direct(&game, now, out, |live, field, steps| {
                live.advance(field, now, false, steps);
            });
        }
    }

    /// When an event next needs the lobby.
    pub(super) fn next_event_deadline(&self) -> Option<Millis> {
        let now = self.last_now?;
        let events = self.competitions.events.values();
        events.filter_map(|live| live.deadline(now)).min()
    }

    /// A participant names the event's game: it waits for its board.
    pub(super) fn event_waits(
        &mut self,
        conn: ConnId,
        game: &str,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let name = self.people.conns[&conn].name().to_string();
        if let Err(why) = self.competitions.events[game].admits(&name) {
            tell(out, conn, ServerLine::Error(why));
            let c = self.people.conns.get_mut(&conn).expect("logged in");
            c.game_name.clear();
            c.sente = None;
            return;
        }
        self.people.set_status(conn, Status::GameWaiting);
        self.direct(game, now, out, |live, field, steps| {
            live.start_ready(field, steps);
        });
    }

    /// A game of an event ended: the event hears of it.
    pub(super) fn event_game_ended(
        &mut self,
        game: &str,
        ended: Ended<'_>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        self.direct(game, now, out, |live, field, steps| {
            live.game_ended(ended, field, now, steps);
        });
    }

    /// An operator's action: answered on `reply` (a JSON line), which then closes.
    pub(super) fn event_admin(
        &mut self,
        reply: ConnId,
        event: &str,
        action: EventAction,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let game = self
            .competitions
            .events
            .iter()
            .find(|(_, l)| l.event.file.name == event)
            .map(|(g, _)| g.clone());
        let answer = match game {
            None => Err(format!("there is no event {event}")),
            Some(game) => self
                .direct(&game, now, out, |live, field, steps| {
                    live.act(action, field, now, steps)
                        .map(crate::event::view::status)
                })
                .expect("an event's game"),
        };
        out.push(Output::Reply(reply, Reply::EventAdmin(answer)));
        out.push(Output::Close(reply));
    }

    /// Whether any event is run.
    pub fn has_events(&self) -> bool {
        !self.competitions.events.is_empty()
    }

    /// A number that changes whenever an event does (the driver publishes the views then).
    pub fn events_changed(&self) -> u64 {
        let events = self.competitions.events.values();
        events.map(|live| live.changed).fold(0, u64::wrapping_add)
    }

    /// Every event as the web page shows it ([`crate::event::view::to_json`]), with the
    /// games under way of each current round.
    pub fn events_view(&self) -> Vec<serde_json::Value> {
        self.competitions
            .events
            .iter()
            .map(|(game, live)| {
                let field = LobbyField {
                    people: &self.people,
                    rooms: &self.rooms,
                    game,
                };
                let playing: Vec<(u32, String)> = live
                    .open_boards()
                    .into_iter()
                    .filter_map(|(board, [b, w])| Some((board, field.room(b, w)?.id.clone())))
                    .collect();
                let mut view = crate::event::view::to_json(&live.event, &playing);
                // The organiser's view: where each participant is, and when the wait ends.
                view["people"] = live
                    .event
                    .file
                    .participants
                    .iter()
                    .map(|name| serde_json::json!({ "name": name, "state": field.presence(name) }))
                    .collect();
                view["forfeit_at"] = serde_json::json!(live.forfeit_time());
                view
            })
            .collect()
    }
}
