//! A room: one game between two connections, from its proposal to its end. It holds the
//! referee ([`gyoku::Game`]) and the clock ([`gyoku::Clock`]); the lobby brings it each
//! player's line in turn and sends and stores what it says.

use super::*;

#[derive(Debug)]
pub(super) enum Phase {
    Agreeing { expires: Millis },
    Playing,
}

#[derive(Debug)]
pub(super) struct LiveGame {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) preset: Preset,
    pub(super) fouls: Option<Fouls>,
    /// Black's and White's connections.
    pub(super) players: [ConnId; 2],
    pub(super) names: [String; 2],
    pub(super) rating_ids: [Option<String>; 2],
    pub(super) referee: Game,
    pub(super) clock: Clock,
    pub(super) phase: Phase,
    pub(super) start: Position,
    pub(super) initial_moves: Vec<(String, u32)>,
    /// Played after the initial moves: CSA text, seconds, comment.
    pub(super) moves: Vec<(String, u64, Option<String>)>,
    /// The last echoed move without its time (`+7776FU`), for duplicates.
    pub(super) last_move: String,
    /// The foul's text (`'ILLEGAL_MOVE(…)` in the record).
    pub(super) foul_text: Option<String>,
    pub(super) started_at: String,
    pub(super) total: u32,
    pub(super) byoyomi: u32,
    pub(super) increment: u32,
    pub(super) max_moves: u32,
    pub(super) monitors: Vec<ConnId>,
    /// A suspended game taken up again: stored already, its clock as it was.
    pub(super) resumed: bool,
    /// The no-contest game this one replays.
    pub(super) replay_of: Option<String>,
    /// `--strict-csa-server`: the referee saw mate, the game goes on as on shogi-server.
    pub(super) mated: bool,
}

/// A player's line in a game, read once where it came in (and kept so while it waits
/// for the player's turn).
#[derive(Clone, Debug)]
pub(super) enum GameLine {
    /// A move, `%TORYO`, `%KACHI` or `%CHUDAN`.
    Said(ClientMessage),
    /// A line shaped like a move that is none (`+77`): a foul on the player's turn.
    Garbage(String),
}

impl GameLine {
    /// The line as the player sent it (a foul's text in the record).
    fn text(&self) -> String {
        match self {
            GameLine::Said(m) => m.to_string(),
            GameLine::Garbage(raw) => raw.clone(),
        }
    }
}

/// How a game ends, as the server sees it.
#[derive(Clone, Debug)]
pub(super) enum Ending {
    /// The referee decided.
    Decided(Outcome),
    /// A player left mid-game (shogi-server's `abnormal`): it loses.
    Left(Color),
    /// A player asked to suspend (`%CHUDAN`): no result, stored as suspended.
    Suspended,
}

impl Lobby {
    /// Proposes a game, new or resumed, to its two players.
    pub(super) fn open(
        &mut self,
        spec: GameSpec,
        players: [ConnId; 2],
        resumed: bool,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let rules = spec.rules(self.config.strict_csa_server);
        let control = TimeControl {
            main: u64::from(spec.total) * 1000,
            byoyomi: u64::from(spec.byoyomi) * 1000,
            increment: u64::from(spec.increment) * 1000,
            least_time_per_move: u64::from(self.config.least_time_per_move) * 1000,
            rounding: Rounding::FlooredSeconds,
        };
        let mut referee = Game::new(spec.start.clone(), rules);
        let mut remaining = [control.main; 2];
        let played = spec
            .initial_moves
            .iter()
            .map(|(m, _)| (m, None))
            .chain(spec.moves.iter().map(|(m, t)| (m, Some(*t))));
        for (m, charged) in played {
            let mover = referee.turn();
            let Ok((_, mv)) = gyoku_kifu::csa::parse_move(m, referee.position()) else {
                break;
            };
            if referee.play(mv).is_err() || referee.outcome().is_some() {
                break;
            }
            // Buoy moves cost nothing; a resumed game's moves cost what they were charged.
            if let Some(t) = charged {
                let r = &mut remaining[mover.index()];
                *r = (*r + control.increment).saturating_sub(t * 1000);
            }
        }
        let key = self.next_game;
        self.next_game += 1;
        let last_move = spec
            .moves
            .last()
            .map(|(m, _)| m.clone())
            .or_else(|| spec.initial_moves.last().map(|(m, _)| m.clone()))
            .unwrap_or_default();
        let [black, white] = players;
        let g = LiveGame {
            id: spec.id.clone(),
            name: spec.name.clone(),
            preset: spec.preset,
            fouls: spec.fouls,
            players,
            names: spec.names,
            rating_ids: [
                self.conns[&black].rating_id.clone(),
                self.conns[&white].rating_id.clone(),
            ],
            clock: Clock::with_remaining(control, referee.turn(), remaining[0], remaining[1]),
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
            monitors: Vec::new(),
            resumed,
            replay_of: spec.replay_of,
            mated: false,
        };
        for (color, conn) in [(Color::Black, black), (Color::White, white)] {
            // The Game_Summary block, written by its own type.
            out.push(Output::Send(
                conn,
                self.summary(&g, Some(color)).to_string(),
            ));
            self.set_status(conn, Status::AgreeWaiting);
            let c = self
                .conns
                .get_mut(&conn)
                .expect("paired players are logged in");
            c.game = Some(key);
            c.sente = Some(color == Color::Black);
            c.game_name = spec.name.clone();
        }
        self.by_id.insert(spec.id, key);
        self.games.insert(key, g);
        self.schedule(key);
    }

    pub(super) fn agree(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            let msg = ServerLine::Error(format!(
                "you are in {} status. AGREE is valid in agree_waiting status",
                c.status.name()
            ));
            Self::tell(out, conn, msg);
            return;
        }
        c.status = Status::StartWaiting; // from agree_waiting: not in the waiting index
        let key = c.game.expect("agree_waiting has a game");
        let g = self.games.get_mut(&key).expect("live game");
        let both = g.players.iter().all(|p| {
            self.conns
                .get(p)
                .is_some_and(|c| c.status == Status::StartWaiting)
        });
        if !both {
            return;
        }
        g.phase = Phase::Playing;
        if g.resumed {
            out.push(Output::Store(Change::GameResumed {
                game_id: g.id.clone(),
            }));
        } else {
            g.started_at = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
            out.push(Output::Store(Change::GameStarted(StartedGame {
                id: g.id.clone(),
                name: g.name.clone(),
                black: g.names[0].clone(),
                white: g.names[1].clone(),
                rules: g.preset.name().to_string(),
                fouls: g.fouls.map(|f| fouls_name(f).to_string()),
                max_moves: g.max_moves,
                least_time_per_move: self.config.least_time_per_move,
                total_time: g.total,
                byoyomi: g.byoyomi,
                increment: g.increment,
                start_sfen: g.start.to_sfen(),
                initial_moves: g
                    .initial_moves
                    .iter()
                    .map(|(m, t)| format!("{m},T{t}\n"))
                    .collect(),
                started_at: g.started_at.clone(),
                replay_of: g.replay_of.clone(),
            })));
        }
        for p in g.players {
            Self::tell(out, p, ServerLine::Start(g.id.clone()));
            if let Some(c) = self.conns.get_mut(&p) {
                c.status = Status::Game;
            }
        }
        let _ = g.clock.start(now.mono);
        self.schedule(key);
        let g = &self.games[&key];
        // A player whose moves arrived before the start has them played now.
        let side = g.referee.turn();
        let first = g.players[side.index()];
        if let Some(line) = self
            .conns
            .get_mut(&first)
            .and_then(|c| c.deferred.pop_front())
        {
            self.game_line(first, line, now, out);
        }
    }

    pub(super) fn reject(&mut self, conn: ConnId, out: &mut Vec<Output>) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if c.status != Status::AgreeWaiting {
            let msg = ServerLine::Error(format!(
                "you are in {} status. REJECT is valid in agree_waiting status",
                c.status.name()
            ));
            Self::tell(out, conn, msg);
            return;
        }
        let key = c.game.expect("agree_waiting has a game");
        let name = c.name.clone();
        self.drop_proposal(key, &name, out);
    }

    pub(super) fn drop_proposal(&mut self, key: u64, by: &str, out: &mut Vec<Output>) {
        let Some(g) = self.games.remove(&key) else {
            return;
        };
        self.by_id.remove(&g.id);
        for p in g.players {
            let reject = ServerLine::Reject {
                game_id: g.id.clone(),
                by: by.to_string(),
            };
            Self::tell(out, p, reject);
        }
        if g.resumed {
            self.suspended.insert(g.spec());
        }
        for p in g.players {
            self.release(p, true, out);
        }
    }

    /// [`IMPASSE_LINE`] from a player in a game, on either turn: proposes to count the
    /// impasse now, or accepts the other's proposal (the game ends, counted as the rules
    /// say). Both players hear `##[IMPASSE] proposed by +` (or `-`); a proposal the rules
    /// refuse is answered `##[ERROR]`. A proposal lapses with the next move.
    pub(super) fn impasse_line(&mut self, conn: ConnId, now: Now, out: &mut Vec<Output>) {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(g) = self.games.get_mut(&key) else {
            return;
        };
        if !matches!(g.phase, Phase::Playing) || g.mated {
            return;
        }
        let color = if g.players[0] == conn {
            Color::Black
        } else {
            Color::White
        };
        let accepted = match g.referee.accept_impasse(color) {
            Ok(()) => true,
            Err(gyoku::GameError::NoProposal) => match g.referee.propose_impasse(color) {
                Ok(()) => false,
                Err(e) => {
                    Self::tell(out, conn, ServerLine::Error(format!("{e}")));
                    return;
                }
            },
            Err(e) => {
                Self::tell(out, conn, ServerLine::Error(format!("{e}")));
                return;
            }
        };
        if accepted {
            return self.finish(key, now, out);
        }
        for p in g.players {
            Self::tell(out, p, ServerLine::ImpasseProposed(color));
        }
    }

    /// A move or `%…` from a player in a game: deferred if it is not its turn.
    pub(super) fn game_line(
        &mut self,
        conn: ConnId,
        line: GameLine,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(key) = self.conns.get(&conn).and_then(|c| c.game) else {
            return;
        };
        let Some(g) = self.games.get(&key) else {
            return;
        };
        let color = if g.players[0] == conn {
            Color::Black
        } else {
            Color::White
        };
        if g.referee.turn() != color || !matches!(g.phase, Phase::Playing) {
            let c = self.conns.get_mut(&conn).expect("checked above");
            if c.deferred.len() >= MAX_DEFERRED {
                Self::tell(
                    out,
                    conn,
                    ServerLine::Error("too many moves sent out of turn".into()),
                );
                self.closed(conn, now, out);
                out.push(Output::Close(conn));
                return;
            }
            c.deferred.push_back(line);
            return;
        }
        self.play_line(key, color, line, now, out);
        // The other side may have sent its next moves early: play them now, in order.
        loop {
            let Some(g) = self.games.get(&key) else {
                return;
            };
            let side = g.referee.turn();
            let next = g.players[side.index()];
            let Some(line) = self
                .conns
                .get_mut(&next)
                .and_then(|c| c.deferred.pop_front())
            else {
                return;
            };
            self.play_line(key, side, line, now, out);
        }
    }

    /// The side to move's line, on its turn.
    pub(super) fn play_line(
        &mut self,
        key: u64,
        color: Color,
        line: GameLine,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let strict = self.config.strict_csa_server;
        let g = self.games.get_mut(&key).expect("live game");
        if g.mated {
            return self.after_unseen_mate(key, color, Some(line), now, out);
        }
        if g.referee.outcome().is_some() {
            return;
        }
        if let Ok(Some(_)) = g.clock.check(now.mono) {
            let _ = g.referee.time_up(color);
            return self.finish(key, now, out);
        }
        let said = match &line {
            GameLine::Said(msg) => Some(msg.clone()),
            GameLine::Garbage(_) => None,
        };
        match said {
            Some(ClientMessage::Resign) => {
                let _ = g.referee.resign(color);
            }
            Some(ClientMessage::Declare) => {
                if let Err(e) = g.referee.declare() {
                    let conn = g.players[color.index()];
                    if e == gyoku::GameError::NoDeclarationRule {
                        // No declaration under these rules: a declaration that fails.
                        let _ = g.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
                        g.foul_text = Some("%KACHI".into());
                    } else {
                        Self::tell(out, conn, ServerLine::Error(format!("{e}")));
                        return;
                    }
                }
            }
            Some(ClientMessage::Chudan) if !strict => {
                return self.end(key, Ending::Suspended, now, out);
            }
            Some(ClientMessage::Move { text, comment }) => {
                let parsed = gyoku_kifu::csa::parse_move(&text, g.referee.position());
                let result = match parsed {
                    Ok((mover, mv)) if mover == color => g.referee.play(mv),
                    Ok((_, mv)) => g.referee.play_as_other_side(mv),
                    Err(_) => g.referee.forfeit(color, gyoku::ForfeitCause::Garbage),
                };
                if let Err(e) = result {
                    // Refused under `fouls = refuse`: the player may try again.
                    let conn = g.players[color.index()];
                    Self::tell(out, conn, ServerLine::Error(format!("{e}")));
                    return;
                }
                let legal = g.referee.outcome().is_none_or(|o| {
                    !matches!(
                        o.reason,
                        EndReason::IllegalMove { .. } | EndReason::Forfeit { .. }
                    )
                });
                if !legal {
                    g.foul_text = Some(text);
                    return self.finish(key, now, out);
                }
                let charged = match g.clock.stop(now.mono) {
                    Ok(Ok(t)) => t.charged / 1000,
                    _ => 0,
                };
                let ply = u32::try_from(g.moves.len() + 1).unwrap_or(u32::MAX);
                out.push(Output::Store(Change::Move {
                    game_id: g.id.clone(),
                    ply,
                    csa: text.clone(),
                    seconds: charged,
                    comment: comment.clone(),
                }));
                let echo = ServerLine::Move(EchoedMove {
                    text: text.clone(),
                    ms: Some(charged * 1000),
                    comment: None,
                });
                for p in g.players {
                    Self::tell(out, p, echo.clone());
                }
                for &m in &g.monitors {
                    let seen = [text.clone(), format!("T{charged}"), "+OK".into()];
                    Self::tell_lines(out, m, seen.map(|text| monitor(&g.id, text)));
                }
                g.last_move = text.clone();
                g.moves.push((text, charged, comment));
                if strict
                    && g.referee.outcome().is_some_and(|o| {
                        matches!(o.reason, EndReason::Checkmate | EndReason::NoLegalMove)
                    })
                {
                    // shogi-server sees no mate: play goes on, and the mated side must
                    // resign, flag or move illegally.
                    g.mated = true;
                }
                if g.referee.outcome().is_none() || g.mated {
                    let _ = g.clock.start(now.mono);
                    self.schedule(key);
                }
            }
            // %CHUDAN under --strict-csa-server, or anything else: an illegal move.
            _ => {
                g.foul_text = Some(line.text());
                let _ = g.referee.forfeit(color, gyoku::ForfeitCause::Garbage);
            }
        }
        let g = &self.games[&key];
        if g.referee.outcome().is_some() && !g.mated {
            self.finish(key, now, out);
        }
    }

    /// `--strict-csa-server`, after a mate the referee saw and shogi-server would not: the
    /// mated side's next action ends the game as shogi-server ends it (a resignation, an
    /// illegal move, a failed declaration, a time-up).
    pub(super) fn after_unseen_mate(
        &mut self,
        key: u64,
        color: Color,
        line: Option<GameLine>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let g = self.games.get_mut(&key).expect("live game");
        let ply = u32::try_from(g.referee.plies().len() + 1).unwrap_or(u32::MAX);
        let garbage = EndReason::Forfeit {
            by: color,
            cause: gyoku::ForfeitCause::Garbage,
        };
        let reason = if matches!(g.clock.check(now.mono), Ok(Some(_))) {
            EndReason::TimeUp { by: color }
        } else {
            match line {
                Some(GameLine::Said(ClientMessage::Resign)) => EndReason::Resignation { by: color },
                Some(GameLine::Said(ClientMessage::Move { text, .. })) => {
                    let parsed = gyoku_kifu::csa::parse_move(&text, g.referee.position());
                    g.foul_text = Some(text);
                    match parsed {
                        Ok((_, mv)) => EndReason::IllegalMove {
                            mv,
                            kind: g
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
                    g.foul_text = Some("%KACHI".into());
                    garbage
                }
                other => {
                    g.foul_text = Some(other.map(|l| l.text()).unwrap_or_default());
                    garbage
                }
            }
        };
        let outcome = Outcome {
            result: GameResult::Win(!color),
            reason,
            ply,
        };
        self.end(key, Ending::Decided(outcome), now, out);
    }

    pub(super) fn finish(&mut self, key: u64, now: Now, out: &mut Vec<Output>) {
        let outcome = self.games[&key]
            .referee
            .outcome()
            .cloned()
            .expect("decided");
        self.end(key, Ending::Decided(outcome), now, out);
    }

    /// Ends a game: the end lines to both players, the record and the result stored, the
    /// record file written, CSA-mode players disconnected.
    pub(super) fn end(&mut self, key: u64, ending: Ending, now: Now, out: &mut Vec<Output>) {
        let Some(g) = self.games.remove(&key) else {
            return;
        };
        self.by_id.remove(&g.id);
        let lines = end_lines(&g, &ending);
        for (i, &p) in g.players.iter().enumerate() {
            Self::tell_lines(out, p, lines.players[i].iter().cloned());
        }
        for &m in &g.monitors {
            let seen = [lines.monitor.clone(), "+OK".into()];
            Self::tell_lines(out, m, seen.map(|text| monitor(&g.id, text)));
            if let Some(c) = self.conns.get_mut(&m) {
                c.monitoring.retain(|&k| k != key);
            }
        }
        let end_time = now.wall.format("%Y/%m/%d %H:%M:%S").to_string();
        let mut text = record::head(&record::RecordHead {
            game_id: &g.id,
            names: [&g.names[0], &g.names[1]],
            rating_ids: [g.rating_ids[0].as_deref(), g.rating_ids[1].as_deref()],
            max_moves: g.max_moves,
            least_time_per_move: self.config.least_time_per_move,
            increment: g.increment,
            rules: g.preset.name(),
            start_time: &g.started_at,
            start: &g.start,
            initial_moves: &g.initial_moves,
        });
        for (m, t, c) in &g.moves {
            record::move_lines(&mut text, m, *t, c.as_deref());
        }
        if let Some(f) = g.foul_text.as_deref().filter(|f| *f != "%KACHI") {
            text.push_str(&format!("'ILLEGAL_MOVE({f})\n"));
        }
        let summary = format!(
            "{}:{} {}:{} {}",
            lines.summary, g.names[0], lines.results[0], g.names[1], lines.results[1]
        );
        record::tail(
            &mut text,
            lines.record_end,
            g.referee.position(),
            &summary,
            &end_time,
        );
        let path = format!("{}/{}.csa", g.started_at_dir(), g.id);
        if matches!(g.phase, Phase::Playing) {
            out.push(Output::Store(Change::GameEnded {
                game_id: g.id.clone(),
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
                players: g.players,
            });
        }
        if matches!(ending, Ending::Suspended) {
            self.suspended.insert(g.spec());
        }
        // A no contest (JSA sennichite, a 24-30 impasse, the 500-move limit) is replayed
        // with colours swapped: offered to both players at once, linked to this game.
        let replay = matches!(&ending, Ending::Decided(o) if o.result == GameResult::NoContest)
            && g.players.iter().all(|p| self.conns.contains_key(p));
        if !replay && !matches!(ending, Ending::Suspended) {
            self.setups.retain(|(name, _)| *name != g.name);
        }
        // Sends go out after the commit, the players' after the file: the driver orders them so.
        for p in g.players {
            self.release(p, !replay, out);
        }
        if replay {
            let [black, white] = g.players;
            self.propose(
                &g.name,
                [white, black],
                Vec::new(),
                Some(g.id.clone()),
                now,
                out,
            );
        }
    }

    pub(super) fn tick(&mut self, now: Now, out: &mut Vec<Output>) {
        // Only the games whose deadline has come, from the heap (never a scan of all).
        let mut due: Vec<(u64, bool)> = Vec::new();
        while let Some(&Reverse((at, key))) = self.deadlines.peek() {
            if at > now.mono {
                break;
            }
            self.deadlines.pop();
            let Some(g) = self.games.get(&key) else {
                continue;
            };
            match g.phase {
                Phase::Agreeing { expires } if expires <= now.mono => due.push((key, false)),
                Phase::Playing if matches!(g.clock.check(now.mono), Ok(Some(_))) => {
                    due.push((key, true));
                }
                // A deadline the game has moved on from (or not quite there: rounding).
                _ => {}
            }
        }
        due.sort_unstable();
        due.dedup();
        for (key, playing) in due {
            if playing {
                let g = self.games.get_mut(&key).expect("listed");
                let color = g.referee.turn();
                if g.mated {
                    self.after_unseen_mate(key, color, None, now, out);
                    continue;
                }
                let _ = g.referee.time_up(color);
                self.finish(key, now, out);
            } else {
                self.drop_proposal(key, "the Server (timed out)", out);
            }
        }
    }
}

impl LiveGame {
    /// When the game needs the server next: the end of the agreement wait, or the side to
    /// move running out of time.
    pub(super) fn deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Agreeing { expires } => Some(expires),
            Phase::Playing => self.clock.deadline(),
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
        }
    }

    /// `YYYY/MM/DD` of the game's start, the record's directory.
    pub(super) fn started_at_dir(&self) -> String {
        self.started_at
            .get(..10)
            .unwrap_or("0000/00/00")
            .to_string()
    }
}
