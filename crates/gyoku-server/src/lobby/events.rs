//! Organised events in the lobby ([`crate::event`]): participants who name the event's
//! game wait for their board; each round is paired when the one before has ended (and its
//! set time has come), each board's game is proposed as soon as both its players wait, a
//! board whose player has not come within the wait is forfeited, and every result,
//! pairing and operator's action is stored as the event's next entry before anyone hears
//! of it.

use std::collections::BTreeMap;

use gyoku_proto::csa_line::ServerLine;

use super::Lobby;
use super::conns::Status;
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

/// An event being run.
#[derive(Clone, Debug)]
pub(super) struct Live {
    pub(super) event: Event,
    /// When the current round's missing players are forfeited.
    forfeit_at: Option<Millis>,
}

impl Live {
    pub(super) fn new(event: Event) -> Live {
        Live {
            event,
            forfeit_at: None,
        }
    }
}

/// The events by game name.
pub(super) type Events = BTreeMap<String, Live>;

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

    /// Stores `entry` as the event's next one and applies it.
    fn record(&mut self, game: &str, entry: Entry, now: Now, out: &mut Vec<Output>) {
        let live = self
            .competitions
            .events
            .get_mut(game)
            .expect("an event's game");
        debug_assert_eq!(live.event.check(&entry), Ok(()));
        out.push(Output::Store(super::change::Change::EventEntry {
            event: live.event.file.name.clone(),
            seq: live.event.entries,
            at: now.wall.format("%Y/%m/%d %H:%M:%S").to_string(),
            entry: serde_json::to_string(&entry).expect("entries are plain data"),
        }));
        live.event.apply(&entry);
        self.competitions.changed += 1;
    }

    /// Pairs every round that is due, forfeits boards whose wait is over, and starts what
    /// can start.
    pub(super) fn run_due_events(&mut self, now: Now, out: &mut Vec<Output>) {
        let games: Vec<String> = self.competitions.events.keys().cloned().collect();
        for game in games {
            self.advance_event(&game, now, out);
        }
    }

    /// Moves one event on as far as it goes at `now`.
    ///
    /// Called at every input: it costs a few comparisons unless something is due, and the
    /// games are looked at ([`Lobby::start_ready`]) only when the event changed.
    fn advance_event(&mut self, game: &str, now: Now, out: &mut Vec<Output>) {
        let live = &self.competitions.events[game];
        let before = live.event.entries;
        if live.event.entries == 0 {
            let file = live.event.file.clone();
            self.record(game, Entry::Defined { file }, now, out);
        }
        // A round at most per pass: forfeits may complete it, then the next is paired.
        for _ in 0..2 {
            let live = &self.competitions.events[game];
            let ev = &live.event;
            let round_open = ev.rounds.last().is_some_and(|r| !r.complete());
            if round_open && !ev.paused {
                match live.forfeit_at {
                    None => {
                        let at = now.mono + ev.file.forfeit_after * 1000;
                        self.competitions
                            .events
                            .get_mut(game)
                            .expect("listed")
                            .forfeit_at = Some(at);
                    }
                    Some(at) if at <= now.mono => self.forfeit(game, now, out),
                    Some(_) => {}
                }
            }
            let ev = &self.competitions.events[game].event;
            let due = ev
                .file
                .not_before(ev.round() + 1)
                .is_none_or(|t| t <= now.wall);
            let Some(paired) = due.then(|| ev.next_pairing()).flatten() else {
                break;
            };
            let wait = ev.file.forfeit_after * 1000;
            self.record(game, paired, now, out);
            self.competitions
                .events
                .get_mut(game)
                .expect("listed")
                .forfeit_at = Some(now.mono + wait);
        }
        if self.competitions.events[game].event.entries != before {
            self.start_ready(game, now, out);
        }
    }

    /// When an event next needs the lobby: a wait that ends, or a round's set time.
    pub(super) fn next_event_deadline(&self) -> Option<Millis> {
        let now = self.last_now?;
        self.competitions
            .events
            .values()
            .filter_map(|live| {
                let ev = &live.event;
                if ev.paused || ev.finished() {
                    return None;
                }
                if ev.rounds.last().is_some_and(|r| !r.complete()) {
                    return live.forfeit_at;
                }
                let next = ev.file.not_before(ev.round() + 1)?;
                let ahead = (next - now.wall).num_milliseconds().max(0);
                Some(now.mono + u64::try_from(ahead).unwrap_or(0))
            })
            .min()
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
        let ev = &self.competitions.events[game].event;
        let refused = if ev.file.seat(&name).is_none() {
            Some(format!(
                "{name} is not a participant of the event {}",
                ev.file.name
            ))
        } else if ev.finished() {
            Some(format!("the event {} is over", ev.file.name))
        } else {
            None
        };
        if let Some(why) = refused {
            tell(out, conn, ServerLine::Error(why));
            let c = self.people.conns.get_mut(&conn).expect("logged in");
            c.game_name.clear();
            c.sente = None;
            return;
        }
        self.people.set_status(conn, Status::GameWaiting);
        self.start_ready(game, now, out);
    }

    /// The game of `game` between these two names being agreed or played, if any.
    fn board_room(&self, game: &str, a: &str, b: &str) -> Option<&super::room::Room> {
        self.rooms.games.values().find(|r| {
            r.name == game
                && ((r.names[0] == a && r.names[1] == b) || (r.names[0] == b && r.names[1] == a))
        })
    }

    /// Whether a game of `game` between these two names is being agreed or played.
    fn board_in_play(&self, game: &str, a: &str, b: &str) -> bool {
        self.board_room(game, a, b).is_some()
    }

    /// The connection of `name` if it waits for `game`.
    fn waiting_for(&self, name: &str, game: &str) -> Option<ConnId> {
        let &conn = self.people.names.get(name)?;
        let c = self.people.conns.get(&conn)?;
        (c.status == Status::GameWaiting && c.game_name == game).then_some(conn)
    }

    /// Proposes the game of every open board whose two players wait.
    fn start_ready(&mut self, game: &str, now: Now, out: &mut Vec<Output>) {
        let ev = &self.competitions.events[game].event;
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
            .filter(|b| !self.board_in_play(game, &names[b.black], &names[b.white]))
            .filter_map(|b| {
                Some([
                    self.waiting_for(&names[b.black], game)?,
                    self.waiting_for(&names[b.white], game)?,
                ])
            })
            .collect();
        for players in ready {
            for conn in players {
                self.people.set_status(conn, Status::Connected);
            }
            self.propose(game, players, Vec::new(), None, now, out);
            // The page shows the games under way.
            self.competitions.changed += 1;
        }
    }

    /// The wait is over: each open board not under way is forfeited by whoever is not
    /// waiting for it (both: no game, no points).
    fn forfeit(&mut self, game: &str, now: Now, out: &mut Vec<Output>) {
        let ev = &self.competitions.events[game].event;
        let names = ev.file.participants.clone();
        let round = ev.round();
        let decided: Vec<(u32, BoardResult)> = ev.rounds[round as usize - 1]
            .boards
            .iter()
            .enumerate()
            .filter(|(_, b)| b.result.is_none())
            .filter(|(_, b)| !self.board_in_play(game, &names[b.black], &names[b.white]))
            .filter_map(|(k, b)| {
                let black = self.waiting_for(&names[b.black], game).is_some();
                let white = self.waiting_for(&names[b.white], game).is_some();
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
            self.record(game, entry, now, out);
        }
        if let Some(live) = self.competitions.events.get_mut(game) {
            live.forfeit_at = Some(now.mono + live.event.file.forfeit_after * 1000);
        }
    }

    /// A game of an event ended: its board's result is recorded (unless a no contest is
    /// replayed: the replay decides it), and the event moves on.
    pub(super) fn event_game_ended(
        &mut self,
        game: &str,
        game_id: &str,
        names: &[String; 2],
        (result, reason, replayed): (Option<&str>, &str, bool),
        now: Now,
        out: &mut Vec<Output>,
    ) {
        // Whatever it decides, the games under way changed.
        self.competitions.changed += 1;
        let Some(live) = self.competitions.events.get(game) else {
            return;
        };
        let ev = &live.event;
        let (Some((board, b)), Some(first)) =
            (ev.open_board_of(&names[0]), ev.file.seat(&names[0]))
        else {
            return;
        };
        let other = if b.black == first { b.white } else { b.black };
        if ev.file.participants[other] != names[1] || replayed {
            return;
        }
        let swapped = b.black != first;
        let result = match (result, swapped) {
            (Some("black"), false) | (Some("white"), true) => BoardResult::Black,
            (Some("white"), false) | (Some("black"), true) => BoardResult::White,
            _ => BoardResult::Draw,
        };
        let entry = Entry::Result {
            round: ev.round(),
            board,
            result,
            reason: reason.to_string(),
            game_id: Some(game_id.to_string()),
        };
        self.record(game, entry, now, out);
        self.advance_event(game, now, out);
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
        let answer = self
            .event_action(event, action, now, out)
            .map(crate::event::view::status);
        out.push(Output::Reply(reply, Reply::EventAdmin(answer)));
        out.push(Output::Close(reply));
    }

    fn event_action(
        &mut self,
        event: &str,
        action: EventAction,
        now: Now,
        out: &mut Vec<Output>,
    ) -> Result<&Event, String> {
        let game = self
            .competitions
            .events
            .iter()
            .find(|(_, l)| l.event.file.name == event)
            .map(|(g, _)| g.clone())
            .ok_or_else(|| format!("there is no event {event}"))?;
        let ev = &self.competitions.events[&game].event;
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
        self.record(&game, entry, now, out);
        if resumed {
            self.competitions
                .events
                .get_mut(&game)
                .expect("listed")
                .forfeit_at = None;
        }
        self.advance_event(&game, now, out);
        if resumed {
            // The players who waited while it was paused get their games.
            self.start_ready(&game, now, out);
        }
        Ok(&self.competitions.events[&game].event)
    }

    /// Whether any event is run.
    pub fn has_events(&self) -> bool {
        !self.competitions.events.is_empty()
    }

    /// A number that changes whenever an event does (the driver publishes the views then).
    pub fn events_changed(&self) -> u64 {
        self.competitions.changed
    }

    /// Every event as the web page shows it ([`crate::event::view::to_json`]), with the
    /// games under way of each current round.
    pub fn events_view(&self) -> Vec<serde_json::Value> {
        self.competitions
            .events
            .iter()
            .map(|(game, live)| {
                let ev = &live.event;
                let names = &ev.file.participants;
                let playing: Vec<(u32, String)> = ev
                    .rounds
                    .last()
                    .map(|r| {
                        r.boards
                            .iter()
                            .enumerate()
                            .filter(|(_, b)| b.result.is_none())
                            .filter_map(|(k, b)| {
                                let room =
                                    self.board_room(game, &names[b.black], &names[b.white])?;
                                Some((k as u32 + 1, room.id.clone()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                crate::event::view::to_json(ev, &playing)
            })
            .collect()
    }
}
