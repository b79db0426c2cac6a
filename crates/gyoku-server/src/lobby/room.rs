//! A room: one game between two connections, from its proposal to its end. It owns the
//! referee ([`gyoku::Game`]) and the clock ([`gyoku::Clock`]), and each of its methods
//! appends what to send its players and monitors and what to store to the batch's
//! outputs, and says what became of the game ([`Step`]). The lobby ([`super::games`])
//! brings it each player's line on that player's turn and looks after the connections.

use gyoku::rules::Fouls;
use gyoku::{
    Clock, Color, EndReason, Game, GameResult, IllegalMoveKind, Outcome, Position, Preset,
};
use gyoku_proto::csa::{ClientMessage, GameSummary, SummaryTime, SummaryTimes};
use gyoku_proto::csa_line::{EchoedMove, ServerLine};

use super::change::{Change, StartedGame};
use super::ending::{Ending, end_lines};
use super::io::{AGREE_TIMEOUT_MS, Config, ConnId, Millis, Now, Output, monitor, tell, tell_lines};
use super::record;
use super::spec::{GameSpec, login_proof};
use crate::identity::PlayerKind;

/// Where a game stands.
#[derive(Debug)]
pub(super) enum Phase {
    /// Proposed: waiting for both `AGREE`s until `expires`.
    Agreeing { expires: Millis },
    /// Started.
    Playing,
}

/// A player's line in a game, read once where it came in (and kept so while it waits
/// for the player's turn).
#[derive(Clone, Debug)]
pub(super) enum GameLine {
    /// A move, `%TORYO`, `%KACHI` or `%CHUDAN`.
    Said(ClientMessage),
    /// A line shaped like a move that is none (`+77`): a foul on the player's turn.
    Garbage(String),
    /// A move sent as a value (a web seat's): resolved by nothing but the referee.
    Play(gyoku::Move),
}

impl GameLine {
    /// The line as the player sent it (a foul's text in the record).
    fn text(&self) -> String {
        match self {
            GameLine::Said(m) => m.to_string(),
            GameLine::Garbage(raw) => raw.clone(),
            GameLine::Play(mv) => mv.to_string(),
        }
    }
}

/// Who withdrew a proposal.
#[derive(Clone, Copy, Debug)]
pub(super) enum Withdrawn {
    /// A player: it rejected the game or left.
    By(ConnId),
    /// Nobody: the agreement's time ran out.
    Lapsed,
}

/// What a player's line did to a room.
#[derive(Debug)]
pub(super) enum Step {
    /// Nothing the lobby must act on: a refusal, an impasse proposal, a line after the end.
    Unchanged,
    /// A move was played: the other side's clock runs (a new deadline).
    Moved,
    /// The game ends so.
    Ends(Ending),
}

/// One side's reconnection state in a game.
#[derive(Clone, Debug, Default)]
pub(super) struct ReconnectSeat {
    /// The digest of the token that takes the game up again (none without a grace).
    pub(super) token: Option<crate::tickets::SecretDigest>,
    /// The digests of tokens already used (each gives way to a new one).
    pub(super) spent: Vec<crate::tickets::SecretDigest>,
    /// Away until then (monotonic ms): the connection dropped.
    pub(super) away_until: Option<Millis>,
}

/// One game being agreed or played.
#[derive(Debug)]
pub(super) struct Room {
    pub(super) id: String,
    pub(super) name: String,
    preset: Preset,
    fouls: Option<Fouls>,
    /// Black's and White's connections.
    pub(super) players: [ConnId; 2],
    pub(super) names: [String; 2],
    rating_ids: [Option<String>; 2],
    /// How Black and White came to the board.
    kinds: [PlayerKind; 2],
    pub(super) referee: Game,
    clock: Clock,
    pub(super) phase: Phase,
    start: Position,
    pub(super) initial_moves: Vec<(String, u32)>,
    /// Played after the initial moves: CSA text, seconds, comment.
    pub(super) moves: Vec<(String, u64, Option<String>)>,
    /// The last echoed move without its time (`+7776FU`), for duplicates.
    pub(super) last_move: String,
    /// The foul's text (`'ILLEGAL_MOVE(…)` in the record).
    foul_text: Option<String>,
    started_at: String,
    total: u32,
    byoyomi: u32,
    increment: u32,
    max_moves: u32,
    least_time_per_move: u32,
    /// `--strict-csa-server`.
    strict: bool,
    /// Connections monitoring the game (`%%MONITOR2ON`).
    pub(super) monitors: Vec<ConnId>,
    /// A suspended game taken up again: stored already, its clock as it was.
    pub(super) resumed: bool,
    /// The no-contest game this one replays.
    replay_of: Option<String>,
    /// `--strict-csa-server`: the referee saw mate, the game goes on as on shogi-server.
    mated: bool,
    /// Each side's reconnection: its token's digest, and whether it is away (issue 42).
    pub(super) seats: [ReconnectSeat; 2],
    /// The clock is stopped while storage fails ([`Room::hold_clock`]).
    clock_held: bool,
    /// Each side's main time where they differ from `total` (a replay's).
    main_times: Option<[u32; 2]>,
    /// Byoyomi periods and thinking-time units.
    clock_extras: super::clock_extras::ClockExtras,
}

/// Charges the side to move `ms`, as a move that took that long: the clock replayed over a
/// stored game's moves (periods and units used as then).
pub(crate) fn charge(clock: &mut Clock, ms: u64) {
    let _ = clock.start(0);
    let _ = clock.stop(ms);
}

impl Room {
    /// The game `spec` proposed at `now` to `players` (Black's and White's connections,
    /// with their rating ids): its moves so far replayed, each side's clock as they left
    /// it.
    pub(super) fn new(
        spec: GameSpec,
        players: [ConnId; 2],
        rating_ids: [Option<String>; 2],
        resumed: bool,
        config: &Config,
        now: Now,
    ) -> Room {
        let rules = spec.rules(config.strict_csa_server);
        let mut referee = Game::new(spec.start.clone(), rules);
        // Buoy moves cost nothing.
        for (m, _) in &spec.initial_moves {
            let Ok((_, mv)) = gyoku_kifu::csa::parse_move(m, referee.position()) else {
                break;
            };
            if referee.play(mv).is_err() || referee.outcome().is_some() {
                break;
            }
        }
        let mut clock = spec.start_clock(config.least_time_per_move, referee.turn());
        // A resumed game's moves cost what they were charged, periods and units included.
        for (m, charged) in &spec.moves {
            let Ok((_, mv)) = gyoku_kifu::csa::parse_move(m, referee.position()) else {
                break;
            };
            if referee.play(mv).is_err() || referee.outcome().is_some() {
                break;
            }
            charge(&mut clock, *charged * 1000);
        }
        let last_move = spec
            .moves
            .last()
            .map(|(m, _)| m.clone())
            .or_else(|| spec.initial_moves.last().map(|(m, _)| m.clone()))
            .unwrap_or_default();
        Room {
            id: spec.id,
            name: spec.name,
            preset: spec.preset,
            fouls: spec.fouls,
            players,
            names: spec.names,
            rating_ids,
            kinds: spec.kinds,
            clock,
            referee,
            phase: Phase::Agreeing {
                expires: now.mono + AGREE_TIMEOUT_MS,
            },
            start: spec.start,
            initial_moves: spec.initial_moves,
            moves: spec.moves.into_iter().map(|(m, t)| (m, t, None)).collect(),
            last_move,
            foul_text: None,
            started_at: spec.started_at,
            total: spec.total,
            byoyomi: spec.byoyomi,
            increment: spec.increment,
            max_moves: spec.max_moves,
            least_time_per_move: config.least_time_per_move,
            strict: config.strict_csa_server,
            monitors: Vec::new(),
            resumed,
            replay_of: spec.replay_of,
            mated: false,
            clock_held: false,
            seats: Default::default(),
            main_times: spec.main_times,
            clock_extras: spec.clock,
        }
    }

    /// Proposes the game: each player's `Game_Summary`.
    /// With `tokens`, each player's reconnection token ends its summary
    /// (`Reconnect_Token:`, rshogi's extension).
    pub(super) fn propose(&self, tokens: Option<&[String; 2]>, out: &mut Vec<Output>) {
        for (color, conn) in [
            (Color::Black, self.players[0]),
            (Color::White, self.players[1]),
        ] {
            // The Game_Summary block, as its own type.
            let mut summary = self.summary(Some(color));
            if let Some(tokens) = tokens {
                summary
                    .trailer
                    .push(("Reconnect_Token".into(), tokens[color.index()].clone()));
            }
            out.push(Output::Summary(conn, Box::new(summary)));
        }
    }

    /// Both agreed: the game is stored as started (or resumed), both hear `START`, and the
    /// side to move's clock runs from `now`.
    pub(super) fn start(&mut self, now: Now, out: &mut Vec<Output>) {
        self.phase = Phase::Playing;
        if self.resumed {
            out.push(Output::Store(Change::GameResumed {
                game_id: self.id.clone(),
                at_ms: now.utc_ms,
            }));
        } else {
            self.started_at = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
            out.push(Output::Store(Change::GameStarted(Box::new(StartedGame {
                id: self.id.clone(),
                name: self.name.clone(),
                black: self.names[0].clone(),
                white: self.names[1].clone(),
                rules: self.preset.name().to_string(),
                fouls: self.fouls.map(|f| f.code().to_string()),
                max_moves: self.max_moves,
                least_time_per_move: self.least_time_per_move,
                total_time: self.total,
                byoyomi: self.byoyomi,
                increment: self.increment,
                start_sfen: self.start.to_sfen(),
                initial_moves: self
                    .initial_moves
                    .iter()
                    .map(|(m, t)| format!("{m},T{t}\n"))
                    .collect(),
                started_at: self.started_at.clone(),
                replay_of: self.replay_of.clone(),
                rating_ids: self.rating_ids.each_ref().map(|r| login_proof(r.as_ref())),
                rules_digest: Some(self.rules_digest()),
                kinds: self.kinds,
                main_times: self.main_times,
                clock: self.clock_extras,
                started_ms: Some(now.utc_ms),
            }))));
        }
        for p in self.players {
            tell(out, p, ServerLine::Start(self.id.clone()));
        }
        let _ = self.clock.start(now.mono);
    }

    /// The proposal is withdrawn by `by`: both players hear `REJECT`.
    pub(super) fn reject(&self, by: &str, out: &mut Vec<Output>) {
        for p in self.players {
            let reject = ServerLine::Reject {
                game_id: self.id.clone(),
                by: by.to_string(),
            };
            tell(out, p, reject);
        }
    }

    /// The colour `conn` plays.
    pub(super) fn color_of(&self, conn: ConnId) -> Color {
        if self.players[0] == conn {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The rating key `color` logged in with, if it gave a password.
    pub(super) fn rating_id_of(&self, color: Color) -> Option<&str> {
        self.rating_ids[color.index()].as_deref()
    }

    /// How `color` came to the board.
    pub(super) fn kind_of(&self, color: Color) -> PlayerKind {
        self.kinds[color.index()]
    }

    /// `color`'s main time left at `now`, ms (the running side's as of `now`).
    pub(super) fn time_left(&self, color: Color, now: Now) -> u64 {
        if self.clock.turn() == color && matches!(self.phase, Phase::Playing) {
            self.clock
                .time_left(now.mono)
                .saturating_sub(u64::from(self.byoyomi) * 1000)
        } else {
            self.clock.remaining(color)
        }
    }

    /// Whether it is `color`'s turn in a started game.
    pub(super) fn is_turn_of(&self, color: Color) -> bool {
        matches!(self.phase, Phase::Playing) && self.referee.turn() == color
    }

    /// Gyoku's `%%IMPASSE` or `%%SENNICHITE` from `color`, on either turn: proposes to
    /// count the impasse now (or a sennichite by agreement), or accepts the other's same
    /// proposal (the game ends as the rules say). Both players hear `##[IMPASSE] proposed
    /// by +` (or `##[SENNICHITE] …`, `-`); a proposal the rules refuse is answered
    /// `##[ERROR]`. A proposal lapses with the next move.
    pub(super) fn agreement(
        &mut self,
        color: Color,
        what: gyoku::Proposal,
        out: &mut Vec<Output>,
    ) -> Step {
        if !matches!(self.phase, Phase::Playing) || self.mated {
            return Step::Unchanged;
        }
        let conn = self.players[color.index()];
        let accepted = match self.referee.accept(what, color) {
            Ok(()) => true,
            Err(gyoku::GameError::NoProposal) => match self.referee.propose(what, color) {
                Ok(()) => false,
                Err(e) => {
                    tell(out, conn, ServerLine::Refused(e));
                    return Step::Unchanged;
                }
            },
            Err(e) => {
                tell(out, conn, ServerLine::Refused(e));
                return Step::Unchanged;
            }
        };
        if accepted {
            return Step::Ends(self.decided());
        }
        let line = match what {
            gyoku::Proposal::Impasse => ServerLine::ImpasseProposed(color),
            gyoku::Proposal::Sennichite => ServerLine::SennichiteProposed(color),
        };
        for p in self.players {
            tell(out, p, line.clone());
        }
        Step::Unchanged
    }

    /// Gyoku's `%%CLAIM` from `color`: the foul the other player has just made is claimed
    /// and its mover loses (under `fouls = claim`); with no such foul, `##[ERROR] no foul
    /// by the other player to claim`.
    pub(super) fn claim(&mut self, color: Color, out: &mut Vec<Output>) -> Step {
        if !matches!(self.phase, Phase::Playing) || self.mated {
            return Step::Unchanged;
        }
        match self.referee.claim_foul(color) {
            Ok(()) => Step::Ends(self.decided()),
            Err(e) => {
                tell(out, self.players[color.index()], ServerLine::Refused(e));
                Step::Unchanged
            }
        }
    }

    /// The side to move's line, on its turn, at `now`.
    pub(super) fn play(
        &mut self,
        color: Color,
        line: GameLine,
        now: Now,
        out: &mut Vec<Output>,
    ) -> Step {
        if self.mated {
            let line = match line {
                // As the CSA text it stands for, which the record keeps.
                GameLine::Play(mv) => GameLine::Said(ClientMessage::Move {
                    text: gyoku_kifu::csa::move_text(self.referee.position(), mv, color),
                    comment: None,
                }),
                line => line,
            };
            return Step::Ends(self.after_unseen_mate(color, Some(line), now));
        }
        if self.referee.outcome().is_some() {
            return Step::Unchanged;
        }
        if let Ok(Some(_)) = self.clock.check(now.mono) {
            let _ = self.referee.time_up(color);
            return Step::Ends(self.decided());
        }
        let conn = self.players[color.index()];
        match line {
            GameLine::Said(ClientMessage::Resign) => {
                let _ = self.referee.resign(color);
            }
            GameLine::Said(ClientMessage::Declare) => {
                if let Err(e) = self.referee.declare() {
                    if e != gyoku::GameError::NoDeclarationRule {
                        tell(out, conn, ServerLine::Refused(e));
                        return Step::Unchanged;
                    }
                    // No declaration under these rules: a declaration that fails.
                    let _ = self.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
                    self.foul_text = Some("%KACHI".into());
                }
            }
            GameLine::Said(ClientMessage::Chudan) if !self.strict => {
                return Step::Ends(Ending::Suspended);
            }
            GameLine::Said(ClientMessage::Move { text, comment }) => {
                let parsed = gyoku_kifu::csa::parse_move(&text, self.referee.position()).ok();
                return self.play_move(color, (text, parsed), comment, now, out);
            }
            GameLine::Play(mv) => {
                let text = gyoku_kifu::csa::move_text(self.referee.position(), mv, color);
                return self.play_move(color, (text, Some((color, mv))), None, now, out);
            }
            // %CHUDAN under --strict-csa-server, or anything else: an illegal move.
            other => {
                self.foul_text = Some(other.text());
                let _ = self.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
            }
        }
        match self.referee.outcome() {
            Some(_) => Step::Ends(self.decided()),
            None => Step::Unchanged,
        }
    }

    /// A move from `color` on its turn, as its CSA text and what the text resolves to (by
    /// whom, which move; `None`: it resolves to none): refused (refused fouls), a foul
    /// that ends the game, or played, stored and echoed with the seconds it was charged.
    fn play_move(
        &mut self,
        color: Color,
        (text, parsed): (String, Option<(Color, gyoku::Move)>),
        comment: Option<String>,
        now: Now,
        out: &mut Vec<Output>,
    ) -> Step {
        let result = match parsed {
            Some((mover, mv)) if mover == color => self.referee.play(mv),
            Some((_, mv)) => self.referee.play_as_other_side(mv),
            None => self.referee.forfeit(color, gyoku::ForfeitCause::Garbage),
        };
        if let Err(e) = result {
            // Refused under `fouls = refuse`: the player may try again.
            tell(out, self.players[color.index()], ServerLine::Refused(e));
            return Step::Unchanged;
        }
        let legal = self.referee.outcome().is_none_or(|o| {
            !matches!(
                o.reason,
                EndReason::IllegalMove { .. } | EndReason::Forfeit { .. }
            )
        });
        if !legal {
            self.foul_text = Some(text);
            return Step::Ends(self.decided());
        }
        let charged = match self.clock.stop(now.mono) {
            Ok(Ok(t)) => t.charged / 1000,
            _ => 0,
        };
        let ply = u32::try_from(self.moves.len() + 1).unwrap_or(u32::MAX);
        out.push(Output::Store(Change::Move {
            game_id: self.id.clone(),
            ply,
            csa: text.clone(),
            seconds: charged,
            comment: comment.clone(),
            at_ms: now.utc_ms,
        }));
        let echo = ServerLine::Move(EchoedMove {
            text: text.clone(),
            ms: Some(charged * 1000),
            comment: None,
        });
        for p in self.players {
            tell(out, p, echo.clone());
        }
        for &m in &self.monitors {
            let seen = [text.clone(), format!("T{charged}"), "+OK".into()];
            tell_lines(out, m, seen.map(|text| monitor(&self.id, text)));
        }
        self.last_move = text.clone();
        self.moves.push((text, charged, comment));
        if self.strict
            && self
                .referee
                .outcome()
                .is_some_and(|o| matches!(o.reason, EndReason::Checkmate | EndReason::NoLegalMove))
        {
            // shogi-server sees no mate: play goes on, and the mated side must resign,
            // flag or move illegally.
            self.mated = true;
        }
        if self.referee.outcome().is_none() || self.mated {
            let _ = self.clock.start(now.mono);
            if self.clock_held {
                self.clock.pause(now.mono);
            }
            return Step::Moved;
        }
        Step::Ends(self.decided())
    }

    /// Stops the clock at `now` (storage fails): the turn's time stands still, and stays
    /// so across the moves made meanwhile, until [`Room::release_clock`].
    pub(super) fn hold_clock(&mut self, now: Now) {
        self.clock_held = true;
        self.clock.pause(now.mono);
    }

    /// The clock goes on at `now` from where it stood.
    pub(super) fn release_clock(&mut self, now: Now) {
        self.clock_held = false;
        self.clock.resume(now.mono);
    }

    /// Whether the side to move has run out of time by `now`.
    pub(super) fn time_is_up(&self, now: Now) -> bool {
        matches!(self.phase, Phase::Playing) && matches!(self.clock.check(now.mono), Ok(Some(_)))
    }

    /// The side to move ran out of time (the server's tick saw it).
    pub(super) fn flag(&mut self, now: Now) -> Ending {
        let color = self.referee.turn();
        if self.mated {
            return self.after_unseen_mate(color, None, now);
        }
        let _ = self.referee.time_up(color);
        self.decided()
    }

    /// The referee's decision.
    fn decided(&self) -> Ending {
        Ending::Decided(self.referee.outcome().cloned().expect("decided"))
    }

    /// `--strict-csa-server`, after a mate the referee saw and shogi-server would not: the
    /// mated side's next action ends the game as shogi-server ends it (a resignation, an
    /// illegal move, a failed declaration, a time-up).
    fn after_unseen_mate(&mut self, color: Color, line: Option<GameLine>, now: Now) -> Ending {
        let ply = u32::try_from(self.referee.plies().len() + 1).unwrap_or(u32::MAX);
        let garbage = EndReason::Forfeit {
            by: color,
            cause: gyoku::ForfeitCause::Garbage,
        };
        let reason = if matches!(self.clock.check(now.mono), Ok(Some(_))) {
            EndReason::TimeUp { by: color }
        } else {
            match line {
                Some(GameLine::Said(ClientMessage::Resign)) => EndReason::Resignation { by: color },
                Some(GameLine::Said(ClientMessage::Move { text, .. })) => {
                    let parsed = gyoku_kifu::csa::parse_move(&text, self.referee.position());
                    self.foul_text = Some(text);
                    match parsed {
                        Ok((_, mv)) => EndReason::IllegalMove {
                            mv,
                            kind: self
                                .referee
                                .position()
                                .check_move(mv)
                                .err()
                                .unwrap_or(IllegalMoveKind::KingInCheck),
                        },
                        Err(_) => garbage,
                    }
                }
                Some(GameLine::Said(ClientMessage::Declare)) => {
                    self.foul_text = Some("%KACHI".into());
                    garbage
                }
                other => {
                    self.foul_text = Some(other.map(|l| l.text()).unwrap_or_default());
                    garbage
                }
            }
        };
        Ending::Decided(Outcome {
            result: GameResult::Win(!color),
            reason,
            ply,
        })
    }

    /// The game ends so at `now`: the end lines to both players and the monitors, and, if
    /// it was played, the result and record stored and the record file written.
    /// Returns the stored result (`black`, `white`, `draw`, `no_contest`; none when
    /// suspended) and the reason's code.
    pub(super) fn close(
        &self,
        ending: &Ending,
        now: Now,
        out: &mut Vec<Output>,
    ) -> (Option<&'static str>, &'static str) {
        let lines = end_lines(self.foul_text.as_deref(), ending);
        for (i, &p) in self.players.iter().enumerate() {
            tell_lines(out, p, lines.players[i].iter().cloned());
        }
        for &m in &self.monitors {
            let seen = [lines.monitor.clone(), "+OK".into()];
            tell_lines(out, m, seen.map(|text| monitor(&self.id, text)));
        }
        if !matches!(self.phase, Phase::Playing) {
            return (None, lines.reason);
        }
        let end_time = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
        let mut text = record::head(&record::RecordHead {
            game_id: &self.id,
            names: [&self.names[0], &self.names[1]],
            rating_ids: [self.rating_ids[0].as_deref(), self.rating_ids[1].as_deref()],
            max_moves: self.max_moves,
            least_time_per_move: self.least_time_per_move,
            increment: self.increment,
            rules: self.preset.name(),
            start_time: &self.started_at,
            start: &self.start,
            initial_moves: &self.initial_moves,
        });
        for (m, t, c) in &self.moves {
            record::move_lines(&mut text, m, *t, c.as_deref());
        }
        if let Some(f) = self.foul_text.as_deref().filter(|f| *f != "%KACHI") {
            text.push_str(&format!("'ILLEGAL_MOVE({f})\n"));
        }
        let summary = format!(
            "{}:{} {}:{} {}",
            lines.summary, self.names[0], lines.results[0], self.names[1], lines.results[1]
        );
        record::tail(
            &mut text,
            lines.record_end,
            self.referee.position(),
            &summary,
            &end_time,
        );
        let path = format!("{}/{}.csa", self.started_at_dir(), self.id);
        out.push(Output::Store(Change::GameEnded {
            game_id: self.id.clone(),
            status: if matches!(ending, Ending::Suspended) {
                "suspended"
            } else {
                "finished"
            },
            result: lines.result.map(str::to_string),
            reason: lines.reason.to_string(),
            ended_at: end_time,
            record: text.clone(),
            record_path: path.clone(),
        }));
        out.push(Output::WriteRecord {
            path,
            bytes: record::encode(&text),
            players: self.players,
        });
        (lines.result, lines.reason)
    }

    /// When the game needs the server next: the end of the agreement wait, or the side to
    /// move running out of time.
    pub(super) fn deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Agreeing { expires } => Some(expires),
            Phase::Playing => {
                let away = self.seats.iter().filter_map(|s| s.away_until).min();
                match (self.clock.deadline(), away) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
        }
    }

    /// What it takes to propose this game again.
    pub(super) fn spec(&self) -> GameSpec {
        GameSpec {
            id: self.id.clone(),
            name: self.name.clone(),
            preset: self.preset,
            fouls: self.fouls,
            names: self.names.clone(),
            max_moves: self.max_moves,
            total: self.total,
            byoyomi: self.byoyomi,
            increment: self.increment,
            start: self.start.clone(),
            initial_moves: self.initial_moves.clone(),
            moves: self.moves.iter().map(|(m, t, _)| (m.clone(), *t)).collect(),
            started_at: self.started_at.clone(),
            replay_of: self.replay_of.clone(),
            rating_ids: self.rating_ids.each_ref().map(|r| login_proof(r.as_ref())),
            kinds: self.kinds,
            main_times: self.main_times,
            clock: self.clock_extras,
            resume_keys: self.seats.each_ref().map(|s| s.token),
        }
    }

    /// `YYYY/MM/DD` of the game's start, the record's directory.
    fn started_at_dir(&self) -> String {
        self.started_at
            .get(..10)
            .unwrap_or("0000/00/00")
            .to_string()
    }

    /// The main times of this no contest's replay under its rules' replay clock, for the
    /// replay's Black and White (this game's White and Black: colours swap), in seconds;
    /// `None` for fresh clocks. Each keeps its own time whatever colour it plays next.
    pub(super) fn replay_main_times(&self) -> Option<[u32; 2]> {
        let policy = self.referee.rules().replay_clock;
        if policy == gyoku::ReplayClock::Fresh {
            return None;
        }
        let left = [Color::Black, Color::White].map(|c| self.clock.remaining(c));
        let [black, white] = policy.main_times(u64::from(self.total) * 1000, left);
        let seconds = |ms: u64| u32::try_from(ms / 1000).unwrap_or(u32::MAX);
        Some([seconds(white), seconds(black)])
    }

    /// The digest of the rules as this game plays them, with its clock for an event's
    /// preset.
    pub(super) fn rules_digest(&self) -> String {
        let clock = self.clock.control_of(Color::Black);
        gyoku_league::rules_digest::of_game(self.preset.name(), self.referee.rules(), clock)
    }

    /// The Game_Summary for a player (`Some(colour)`) or a monitor (`None`, with the
    /// remaining times and the last move).
    pub(super) fn summary(&self, you: Option<Color>) -> GameSummary {
        self.summary_so_far(you, self.resumed)
    }

    /// The Game_Summary, with the moves played and each side's time left when `so_far`
    /// (a resumed game's, a player's who comes back).
    pub(super) fn summary_so_far(&self, you: Option<Color>, so_far: bool) -> GameSummary {
        let g = self;
        let sign = |c: Color| record::sign(c).to_string();
        let declaration = match g.preset {
            Preset::Csa => "Jishogi 1.1".to_string(),
            p => format!("Gyoku {}", p.name()),
        };
        let mut fields = vec![
            ("Protocol_Version".to_string(), "1.2".to_string()),
            ("Protocol_Mode".into(), "Server".into()),
            ("Format".into(), "Shogi 1.0".into()),
            ("Declaration".into(), declaration),
            ("Game_ID".into(), g.id.clone()),
            ("Name+".into(), g.names[0].clone()),
            ("Name-".into(), g.names[1].clone()),
        ];
        if let Some(c) = you {
            fields.push(("Your_Turn".into(), sign(c)));
        }
        fields.push(("Rematch_On_Draw".into(), "NO".into()));
        fields.push(("To_Move".into(), sign(g.start.turn())));
        fields.push(("Max_Moves".into(), g.max_moves.to_string()));
        let time = SummaryTime {
            time_unit: Some("1sec".into()),
            total_time: Some(g.total.into()),
            byoyomi: Some(g.byoyomi.into()),
            increment: Some(g.increment.into()),
            least_time_per_move: Some(g.least_time_per_move.into()),
            ..SummaryTime::default()
        };
        let mut position: Vec<String> = gyoku_kifu::csa::board_text(&g.start)
            .lines()
            .map(str::to_string)
            .collect();
        for (m, t) in &g.initial_moves {
            position.push(format!("{m},T{t}"));
        }
        let time = if (so_far || g.main_times.is_some()) && you.is_some() {
            // Each side's own time left, as `BEGIN Time+`/`Time-` blocks (ShogiHome and
            // CSA 1.2.1 clients read them): a resumed game's, or a replay's whose sides
            // start with different times.
            let side = |c: Color| SummaryTime {
                total_time: Some(g.clock.remaining(c) / 1000),
                ..time.clone()
            };
            SummaryTimes::PerSide(gyoku::ByColor::new(side(Color::Black), side(Color::White)))
        } else {
            SummaryTimes::Both(time)
        };
        if you.is_none() || so_far {
            for (m, t, _) in &g.moves {
                position.push(format!("{m},T{t}"));
            }
        }
        GameSummary {
            fields,
            time,
            position,
            trailer: Vec::new(),
        }
    }

    pub(super) fn show(&self, now: Now) -> String {
        let g = self;
        let mut s = self.summary(None);
        let left = |c: Color| {
            let ms = if g.clock.turn() == c && matches!(g.phase, Phase::Playing) {
                g.clock
                    .time_left(now.mono)
                    .saturating_sub(u64::from(g.byoyomi) * 1000)
            } else {
                g.clock.remaining(c)
            };
            (ms / 1000).to_string()
        };
        s.trailer
            .push(("Remaining_Time+".into(), left(Color::Black)));
        s.trailer
            .push(("Remaining_Time-".into(), left(Color::White)));
        let last = g
            .moves
            .last()
            .map(|(m, t, _)| format!("{m},T{t}"))
            .unwrap_or_default();
        s.trailer.push(("Last_Move".into(), last));
        s.trailer.push((
            "Current_Turn".into(),
            (g.initial_moves.len() + g.moves.len()).to_string(),
        ));
        s.to_string()
    }
}
