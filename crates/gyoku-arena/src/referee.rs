//! One refereed game between two engines.
//!
//! The referee keeps the [`Game`] and the [`Clock`]: it sends each engine the whole game
//! (`position ... moves ...`) and its times, measures the think time itself (from `go` to
//! `bestmove`), and applies the answer: a move (an illegal one is a foul), `resign`, or
//! `win` (a declaration, judged under the rules). A crash, hang, flood or garbage answer
//! forfeits the game; no answer by the clock's deadline loses on time.

use std::time::Duration;

use gyoku::{
    ByColor, Clock, Color, Game, GameResult, Handicap, Millis, Move, Position, RuleSet, TimeControl,
};
use gyoku_kifu::Record;
use gyoku_proto::{BestMove, Command, GameOverResult, Go, PositionStart};
use tokio::time::Instant;

use crate::adjudication::{Adjudicated, Adjudication};
use crate::engine::{Engine, EngineFailure, Thought};

/// What a game starts from and is played under.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The start position.
    pub start: Position,
    /// Moves played before the engines take over (an opening line; legal).
    pub opening: Vec<Move>,
    /// The rules.
    pub rules: RuleSet,
    /// Each side's time control (the same for both unless the engines were given their
    /// own).
    pub time: ByColor<TimeControl>,
    /// How much less time than the clock allows each engine is told it has (for engines
    /// that overrun; the clock itself is not changed).
    pub margin: Millis,
    /// Each side's search limits and the overrun it is forgiven.
    pub limits: ByColor<SearchLimits>,
    /// Adjudication for engine testing (none by default).
    pub adjudication: Adjudication,
}

/// How an engine is asked to think beyond its clock, and how late it may answer: the
/// everyday limits of engine testing (fastchess's `nodes=`, `depth=`, `st=`/`movetime`,
/// `timemargin=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// `go ... nodes N`: search this many nodes (sent with the clock's times).
    pub nodes: Option<u64>,
    /// `go ... depth N`: search to this depth (sent with the clock's times).
    pub depth: Option<u32>,
    /// `go movetime N` instead of the clock's times: the engine's clock is then this many
    /// milliseconds of byoyomi a move, whatever the run's time control.
    pub movetime: Option<Millis>,
    /// A move less than this many milliseconds late is taken as made at its deadline
    /// instead of losing on time (fastchess's `timemargin`); a later one loses.
    pub timemargin: Millis,
}

impl SearchLimits {
    /// The clock the engine plays under: `time`, or its move time as byoyomi.
    ///
    /// ```
    /// use gyoku::TimeControl;
    /// use gyoku_arena::referee::SearchLimits;
    /// let limits = SearchLimits { movetime: Some(200), ..SearchLimits::default() };
    /// assert_eq!(limits.clock(TimeControl::sudden_death(60_000)), TimeControl::byoyomi(0, 200));
    /// ```
    pub fn clock(&self, time: TimeControl) -> TimeControl {
        match self.movetime {
            Some(ms) => TimeControl::byoyomi(0, ms),
            None => time,
        }
    }

    /// As JSON: the limits set.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({});
        if let Some(n) = self.nodes {
            v["nodes"] = n.into();
        }
        if let Some(d) = self.depth {
            v["depth"] = d.into();
        }
        if let Some(m) = self.movetime {
            v["movetime"] = m.into();
        }
        if self.timemargin > 0 {
            v["timemargin"] = self.timemargin.into();
        }
        v
    }

    /// The `go` for the side to move under these limits (see [`go_for`]).
    pub fn go(&self, clock: &Clock, accepts_increment: bool, margin: Millis) -> Go {
        let mut go = match self.movetime {
            Some(ms) => Go {
                movetime: Some(ms.saturating_sub(margin).max(1)),
                ..Go::default()
            },
            None => go_for(clock, accepts_increment, margin),
        };
        go.nodes = self.nodes;
        go.depth = self.depth;
        go
    }
}

/// How a game went.
#[derive(Debug)]
pub struct GameReport {
    /// The game, over (its outcome says how).
    pub game: Game,
    /// The record: moves with the time each engine took, names, the end.
    pub record: Record,
    /// The failure of each engine in this game, if it had one (it must be restarted).
    pub failures: ByColor<Option<EngineFailure>>,
    /// Time the referee spent on its own work (checking moves, repetition, impasse,
    /// the clock, writing commands), summed over the engines' moves.
    pub referee_time: Duration,
    /// How many moves the engines made.
    pub engine_moves: u32,
    /// When the game was adjudicated (the rules had not ended it).
    pub adjudicated: Option<Adjudicated>,
}

impl GameReport {
    /// How the game ended: its result, the reason's code and the ply, from the rules or
    /// from the adjudication.
    pub fn ending(&self) -> (GameResult, String, u32) {
        match (&self.adjudicated, self.game.outcome()) {
            (Some(a), _) => (
                a.result,
                a.reason.to_string(),
                self.game.plies().len() as u32,
            ),
            (None, Some(o)) => (o.result, o.reason.code().to_string(), o.ply),
            (None, None) => unreachable!("a reported game is over or adjudicated"),
        }
    }
}

/// The `go` for the side to move: `btime`/`wtime` and `byoyomi` (0 for sudden death), or
/// `binc`/`winc` with an increment — folded into the times instead for an engine that
/// cannot take them. The side to move is told `margin` less than it has (from its byoyomi
/// when it has one, else from its main time).
pub fn go_for(clock: &Clock, accepts_increment: bool, margin: Millis) -> Go {
    let tc = clock.control();
    let mut go = go_unmargined(clock, accepts_increment);
    let own = if clock.turn() == Color::Black {
        &mut go.btime
    } else {
        &mut go.wtime
    };
    match go.byoyomi.as_mut() {
        Some(b) if *b > 0 && tc.byoyomi > 0 => *b = b.saturating_sub(margin),
        _ => {
            if let Some(t) = own.as_mut() {
                *t = t.saturating_sub(margin);
            }
        }
    }
    go
}

fn go_unmargined(clock: &Clock, accepts_increment: bool) -> Go {
    let tc = clock.control();
    let (b, w) = (clock.remaining(Color::Black), clock.remaining(Color::White));
    let (binc, winc) = (
        clock.control_of(Color::Black).increment,
        clock.control_of(Color::White).increment,
    );
    if tc.increment > 0 {
        if accepts_increment {
            return Go {
                btime: Some(b),
                wtime: Some(w),
                binc: Some(binc),
                winc: Some(winc),
                ..Go::default()
            };
        }
        return Go {
            btime: Some(b + binc),
            wtime: Some(w + winc),
            byoyomi: Some(0),
            ..Go::default()
        };
    }
    Go {
        btime: Some(b),
        wtime: Some(w),
        byoyomi: Some(tc.byoyomi),
        ..Go::default()
    }
}

/// The `position` command for the game so far.
pub fn position_command(game: &Game) -> Command {
    let initial = game.initial();
    let start = if initial.same_position(&Position::startpos()) && initial.move_number() == 1 {
        PositionStart::Startpos
    } else {
        PositionStart::Sfen(initial.to_sfen())
    };
    Command::Position {
        start,
        moves: game.plies().iter().map(|p| p.mv).collect(),
    }
}

/// The instant a move is charged at: as made, or, when it came less than `timemargin`
/// after its deadline `due` (the clock's first instant of lateness), just before the
/// deadline: it is on time, its main time used up. With no margin nothing is forgiven.
///
/// ```
/// use gyoku_arena::referee::forgiven;
/// assert_eq!(forgiven(1_030, 0, 1_000, 50), 999); // 30 ms over, 50 forgiven
/// assert_eq!(forgiven(1_060, 0, 1_000, 50), 1_060); // 60 ms over: late
/// assert_eq!(forgiven(1_000, 0, 1_000, 0), 1_000); // at the deadline, no margin: late
/// assert_eq!(forgiven(900, 0, 1_000, 50), 900);
/// ```
pub fn forgiven(stopped_at: Millis, start: Millis, due: Millis, timemargin: Millis) -> Millis {
    if stopped_at >= due && stopped_at - due < timemargin {
        due.saturating_sub(1).max(start)
    } else {
        stopped_at
    }
}

fn millis_since(t0: Instant, t: Instant) -> Millis {
    t.saturating_duration_since(t0).as_millis() as Millis
}

/// Plays one game: `engines` by colour. Both engines must have been started.
///
/// An opening move the game refuses, or one after its end, is not played (openings are
/// checked when they are loaded: [`crate::openings::load`]).
pub async fn play(engines: ByColor<&mut Engine>, setup: &GameSetup) -> GameReport {
    let mut engines = engines;
    let mut game = Game::new(setup.start.clone(), setup.rules)
        .with_handicap(Handicap::from_setup(&setup.start.to_setup()));
    for &m in &setup.opening {
        // Openings are checked when loaded; one that ends the game stops here.
        if game.outcome().is_some() || game.play(m).is_err() {
            break;
        }
    }
    let opening_plies = game.plies().len();
    let mut failures: ByColor<Option<EngineFailure>> = ByColor::new(None, None);
    let mut times: Vec<Option<u64>> = vec![None; opening_plies];
    let mut referee_time = Duration::ZERO;
    let mut engine_moves = 0;
    for color in [Color::Black, Color::White] {
        if game.outcome().is_some() {
            break;
        }
        if let Err(f) = engines.get_mut(color).new_game().await {
            let _ = game.forfeit(color, f.cause());
            *failures.get_mut(color) = Some(f);
        }
    }
    let mut clock = Clock::with_controls(
        setup.limits.black.clock(setup.time.black),
        setup.limits.white.clock(setup.time.white),
        game.turn(),
    );
    let t0 = Instant::now();
    // Each engine move's score from its mover's view, for adjudication.
    let first_mover = game.turn();
    let mut scores: Vec<Option<i64>> = Vec::new();
    let mut adjudicated = None;
    while game.outcome().is_none() {
        let side = game.turn();
        let work = Instant::now();
        let engine = engines.get_mut(side);
        let limits = setup.limits.get(side);
        let go = limits.go(&clock, engine.accepts_increment(), setup.margin);
        let position = position_command(&game);
        let start = millis_since(t0, Instant::now());
        clock
            .start(start)
            .expect("the referee starts each turn once");
        let due = clock.deadline().unwrap_or(start);
        let deadline = t0 + Duration::from_millis(due + limits.timemargin);
        referee_time += work.elapsed();
        let thought = engine.think(&position, &go, deadline).await;
        let work = Instant::now();
        match thought {
            Ok(Thought::Answer { best, at, .. }) => {
                let stopped_at = millis_since(t0, at);
                let on_time = clock
                    .stop(forgiven(stopped_at, start, due, limits.timemargin))
                    .expect("the clock is running");
                if on_time.is_err() {
                    let _ = game.time_up(side);
                } else {
                    times.push(Some(stopped_at - start));
                    engine_moves += 1;
                    let moved = matches!(best, BestMove::Move(_));
                    let played = match best {
                        BestMove::Move(m) => game.play(m),
                        BestMove::Resign => game.resign(side),
                        BestMove::Win => game.declare(),
                    }
                    .is_ok()
                        && moved;
                    if played && game.outcome().is_none() {
                        scores.push(engine.reading().score);
                        adjudicated = setup.adjudication.judge(
                            &scores,
                            first_mover,
                            game.plies().len() as u32,
                        );
                        if adjudicated.is_some() {
                            referee_time += work.elapsed();
                            break;
                        }
                    }
                }
            }
            Ok(Thought::NoAnswer) => {
                let _ = game.time_up(side);
                // It may still be thinking: restart it before its next game.
                *failures.get_mut(side) = Some(EngineFailure::Hang("bestmove"));
            }
            Err(f) => {
                let _ = game.forfeit(side, f.cause());
                *failures.get_mut(side) = Some(f);
            }
        }
        referee_time += work.elapsed();
    }
    let result = match (&adjudicated, game.outcome()) {
        (Some(a), _) => a.result,
        (None, Some(o)) => o.result,
        (None, None) => unreachable!("the loop ends with the game over or adjudicated"),
    };
    for color in [Color::Black, Color::White] {
        if failures.get(color).is_none() {
            let result = match result {
                GameResult::Win(c) if c == color => GameOverResult::Win,
                GameResult::Win(_) => GameOverResult::Lose,
                GameResult::Draw | GameResult::NoContest => GameOverResult::Draw,
            };
            if let Err(f) = engines.get_mut(color).game_over(result).await {
                *failures.get_mut(color) = Some(f);
            }
        }
    }
    let work = Instant::now();
    let mut record = Record::from_game(&game);
    for (m, t) in record.moves.iter_mut().zip(&times) {
        m.time_ms = *t;
    }
    if let Some(a) = &adjudicated {
        // The rules did not end it: suspended, the adjudication said in a comment.
        record.end = Some(gyoku_kifu::Terminal::Suspend);
        match record.moves.last_mut() {
            Some(m) => m.comments.push(a.detail.clone()),
            None => record.start_comments.push(a.detail.clone()),
        }
    }
    record.header = vec![
        ("先手".to_string(), engines.black.name().to_string()),
        ("後手".to_string(), engines.white.name().to_string()),
        ("持ち時間".to_string(), {
            let [b, w] = [Color::Black, Color::White]
                .map(|c| crate::timecontrol::describe(clock.control_of(c)));
            if b == w { b } else { format!("{b} / {w}") }
        }),
    ];
    referee_time += work.elapsed();
    GameReport {
        game,
        record,
        failures,
        referee_time,
        engine_moves,
        adjudicated,
    }
}
