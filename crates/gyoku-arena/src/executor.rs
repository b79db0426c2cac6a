//! One executor for matches and tournaments: engines as they are entered ([`Entrant`]),
//! what every game of a run shares ([`Conditions`]), and a pool of workers ([`Pool`]) that
//! plays [`Job`]s and hands back each game's report.
//!
//! What to play is decided elsewhere, as a pure function of the results so far: a match's
//! game numbers (pairs of one opening, colours swapped), a tournament's
//! [`gyoku_league::schedule::Plan`]. The pool only plays: each worker starts an
//! engine when a game first needs it, keeps the two it used last running for the next game,
//! restarts one that failed, and writes each game's USI traffic when asked.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use gyoku::rules::{DeclarationRule, Fouls, OnFail};
use gyoku::{ByColor, Color, Game, Handicap, Millis, RuleSet, TimeControl};
use gyoku_kifu::Record;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::engine::{Engine, EngineConfig, EngineFailure, UsiLog};
use crate::openings::Opening;
use crate::referee::{self, GameReport, GameSetup, SearchLimits};
use gyoku_league::schedule::Job;

/// An engine as a match or a tournament enters it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// The name given (`--engine NAME=COMMAND`); `None`: the engine's own `id name`.
    pub name: Option<String>,
    /// How to start it and the options it is given.
    pub engine: EngineConfig,
    /// Its own time control; `None`: the run's.
    pub time: Option<TimeControl>,
    /// Its search limits (`go nodes/depth/movetime`) and the overrun it is forgiven.
    pub limits: SearchLimits,
}

impl Entrant {
    /// An engine named by its `id name`, under the run's clock, with no limits.
    pub fn new(engine: EngineConfig) -> Entrant {
        Entrant {
            name: None,
            engine,
            time: None,
            limits: SearchLimits::default(),
        }
    }

    /// The same engine under a given name.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Entrant {
        self.name = Some(name.into());
        self
    }

    /// What identifies the entrant in a run's `match.json` or `tournament.json`: its
    /// command and options, and each of name, time and limits only when given (so that a
    /// directory written before they existed still resumes).
    pub fn identity(&self) -> Value {
        let mut v = json!({"command": self.engine.command, "options": self.engine.options});
        if let Some(name) = &self.name {
            v["name"] = json!(name);
        }
        if let Some(time) = &self.time {
            v["time"] = json!(crate::timecontrol::describe(time));
        }
        if self.limits != SearchLimits::default() {
            v["limits"] = self.limits.to_json();
        }
        v
    }
}

/// What every game of a run shares.
#[derive(Clone, Debug)]
pub struct Conditions {
    /// The rules (fouls and failed declarations lose: [`match_rules`]).
    pub rules: RuleSet,
    /// The time control of every engine that has none of its own.
    pub time: TimeControl,
    /// Time each engine is told it has less than it has (see [`GameSetup::margin`]).
    pub margin: Millis,
    /// The openings; a job names one by index, taken modulo their number.
    pub openings: Vec<Opening>,
    /// Adjudication for engine testing.
    pub adjudication: crate::adjudication::Adjudication,
    /// Where each game's USI traffic is written (`game-NNNN.usi.log`), if anywhere.
    pub log_usi: Option<PathBuf>,
}

/// The most bytes of USI traffic kept for one game's log (what comes after is cut, and
/// the log says so).
pub const MAX_USI_LOG_BYTES: usize = 64 << 20;

/// One finished game.
#[derive(Debug)]
pub struct Finished {
    /// What was played.
    pub job: Job,
    /// How it went.
    pub report: GameReport,
}

/// The record's `棋戦` line for a job (a match's or a tournament's wording).
pub type EventName = Arc<dyn Fn(&Job) -> String + Send + Sync>;

/// Everything a worker reads.
struct Shared {
    entrants: Vec<Entrant>,
    names: Vec<String>,
    conditions: Conditions,
    event: EventName,
    queue: Mutex<VecDeque<Job>>,
}

/// Workers playing jobs from one queue.
pub struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    rx: mpsc::Receiver<Finished>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.handles.len())
            .field("names", &self.shared.names)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// Starts `workers` workers (at least one, at most one per job) on `jobs`. `names` are
    /// the entrants' names as records and results show them.
    pub fn start(
        entrants: Vec<Entrant>,
        names: Vec<String>,
        conditions: Conditions,
        event: EventName,
        jobs: VecDeque<Job>,
        workers: usize,
    ) -> Pool {
        let workers = workers.max(1).min(jobs.len().max(1));
        let shared = Arc::new(Shared {
            entrants,
            names,
            conditions,
            event,
            queue: Mutex::new(jobs),
        });
        let (tx, rx) = mpsc::channel(16);
        let handles = (0..workers)
            .map(|_| tokio::spawn(worker(Arc::clone(&shared), tx.clone())))
            .collect();
        Pool {
            shared,
            handles,
            rx,
        }
    }

    /// The next finished game; `None` once every job is played.
    pub async fn next(&mut self) -> Option<Finished> {
        self.rx.recv().await
    }

    /// Stops at once: no job is started any more, and the games under way are dropped
    /// (their engines killed).
    pub async fn abort(self) {
        self.shared.queue.lock().expect("queue lock").clear();
        for h in &self.handles {
            h.abort();
        }
        for h in self.handles {
            let _ = h.await;
        }
    }

    /// Waits for the workers to end (after [`Pool::next`] returned `None`).
    pub async fn finish(self) {
        for h in self.handles {
            let _ = h.await;
        }
    }
}

/// Engines a worker keeps running between games: the two it played last.
const KEPT_ENGINES: usize = 2;

/// One worker: jobs from the queue until it is empty.
async fn worker(shared: Arc<Shared>, tx: mpsc::Sender<Finished>) {
    let options = derived_options(&shared.conditions.rules);
    let mut running: HashMap<usize, Engine> = HashMap::new();
    let mut used: VecDeque<usize> = VecDeque::new();
    loop {
        let Some(job) = shared.queue.lock().expect("queue lock").pop_front() else {
            break;
        };
        let c = &shared.conditions;
        let opening = &c.openings[job.opening % c.openings.len()];
        let entrant = |k: usize| &shared.entrants[k];
        let setup = GameSetup {
            start: opening.start.clone(),
            opening: opening.moves.clone(),
            rules: c.rules,
            time: ByColor::new(
                entrant(job.black).time.unwrap_or(c.time),
                entrant(job.white).time.unwrap_or(c.time),
            ),
            margin: c.margin,
            limits: ByColor::new(entrant(job.black).limits, entrant(job.white).limits),
            adjudication: c.adjudication,
        };
        // The two engines of this game, started if they are not running.
        let mut start_failure = None;
        for (color, k) in [(Color::Black, job.black), (Color::White, job.white)] {
            if let std::collections::hash_map::Entry::Vacant(slot) = running.entry(k) {
                match Engine::start(&entrant(k).engine, &options).await {
                    Ok(e) => {
                        slot.insert(e);
                    }
                    Err(f) => {
                        start_failure = Some((color, f));
                        break;
                    }
                }
            }
            used.retain(|&u| u != k);
            used.push_back(k);
        }
        while used.len() > KEPT_ENGINES {
            if let Some(old) = used.pop_front()
                && let Some(e) = running.remove(&old)
            {
                e.quit().await;
            }
        }
        let log = c.log_usi.as_ref().map(|_| UsiLog::new(MAX_USI_LOG_BYTES));
        let report = match start_failure {
            Some((color, f)) => lost_before_start(&setup, color, f),
            None => {
                let mut black = running.remove(&job.black).expect("started");
                let mut white = running.remove(&job.white).expect("started");
                if let Some(log) = &log {
                    black.set_log(Some((log.clone(), shared.names[job.black].clone())));
                    white.set_log(Some((log.clone(), shared.names[job.white].clone())));
                }
                let report = referee::play(ByColor::new(&mut black, &mut white), &setup).await;
                black.set_log(None);
                white.set_log(None);
                running.insert(job.black, black);
                running.insert(job.white, white);
                report
            }
        };
        // An engine that failed is started afresh for its next game.
        for (color, k) in [(Color::Black, job.black), (Color::White, job.white)] {
            if report.failures.get(color).is_some()
                && let Some(e) = running.remove(&k)
            {
                e.kill().await;
            }
        }
        if let (Some(dir), Some(log)) = (&c.log_usi, &log) {
            let path = dir.join(format!("game-{:04}.usi.log", job.number));
            if let Err(e) = gyoku_kifu::files::write_atomic(&path, log.text().as_bytes()) {
                eprintln!("--log-usi: {e}");
            }
        }
        let mut report = report;
        report
            .record
            .header
            .retain(|(k, _)| k != "先手" && k != "後手");
        report.record.header.splice(
            0..0,
            [
                ("開始日時".to_string(), now_text()),
                ("棋戦".to_string(), (shared.event)(&job)),
                ("先手".to_string(), shared.names[job.black].clone()),
                ("後手".to_string(), shared.names[job.white].clone()),
            ],
        );
        if tx.send(Finished { job, report }).await.is_err() {
            break;
        }
    }
    for (_, e) in running {
        e.quit().await;
    }
}

/// Starts each engine once, to check it runs and to learn its `id name`.
///
/// # Errors
/// A message naming the engine that cannot start.
pub async fn probe(entrants: &[Entrant], rules: &RuleSet) -> Result<Vec<String>, String> {
    let options = derived_options(rules);
    let mut names = Vec::with_capacity(entrants.len());
    for (k, e) in entrants.iter().enumerate() {
        let engine = Engine::start(&e.engine, &options).await.map_err(|f| {
            let name = e.name.as_ref().map_or(String::new(), |n| format!("{n}: "));
            format!("engine {} ({name}'{}') {f}", k + 1, e.engine.command)
        })?;
        names.push(engine.name().to_string());
        engine.quit().await;
    }
    Ok(names)
}

/// Each entrant's name: the one given, else its `id name`, made unique where it equals a
/// name before it or any name given (`X`, `X (2)`); each such change is returned as a
/// warning. Given names are taken as they are (the caller refuses two equal ones).
///
/// ```
/// use gyoku_arena::executor::unique_names;
/// let (names, warnings) = unique_names(
///     &[None, Some("new".to_string()), None],
///     &["Gyoku greedy".to_string(), "x".to_string(), "Gyoku greedy".to_string()],
/// );
/// assert_eq!(names, ["Gyoku greedy", "new", "Gyoku greedy (2)"]);
/// assert_eq!(warnings.len(), 1);
/// ```
pub fn unique_names(given: &[Option<String>], id_names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> = Vec::with_capacity(given.len());
    let mut warnings = Vec::new();
    for (k, (g, id)) in given.iter().zip(id_names).enumerate() {
        if let Some(g) = g {
            names.push(g.clone());
            continue;
        }
        let taken = |n: &str, names: &[String]| {
            names.iter().any(|m| m == n) || given.iter().flatten().any(|o| o == n)
        };
        let mut name = id.clone();
        let mut n = 2;
        while taken(&name, &names) {
            name = format!("{id} ({n})");
            n += 1;
        }
        if name != *id {
            warnings.push(format!(
                "engine {} is named '{name}': '{id}' is another engine's name (name them: --engine NAME=COMMAND)",
                k + 1
            ));
        }
        names.push(name);
    }
    (names, warnings)
}

/// The options the runner tells each engine that declares them: the entering-king rule in
/// force (YaneuraOu's `EnteringKingRule`, which the built-in engine also takes), the move
/// limit (YaneuraOu's `MaxMovesToDraw`: the game ends after that many plies, a mate on the
/// last one counting; 0 for none) and the variant (Fairy-Stockfish's `UCI_Variant`).
///
/// ```
/// use gyoku::Preset;
/// use gyoku_arena::executor::derived_options;
/// let options = derived_options(&Preset::Csa.rules());
/// assert!(options.contains(&("MaxMovesToDraw".to_string(), "256".to_string())));
/// assert!(options.contains(&("EnteringKingRule".to_string(), "CSARule27".to_string())));
/// let none = derived_options(&Preset::Plain.rules());
/// assert!(none.contains(&("MaxMovesToDraw".to_string(), "0".to_string())));
/// ```
pub fn derived_options(rules: &RuleSet) -> Vec<(String, String)> {
    let rule = match (rules.declaration, rules.try_rule) {
        (_, Some(_)) => "TryRule",
        (Some(d), None) => match (d.rule, rules.missing_points_credit) {
            (DeclarationRule::Points27, false) => "CSARule27",
            (DeclarationRule::Points27, true) => "CSARule27H",
            (DeclarationRule::Jsa24 | DeclarationRule::Points31, false) => "CSARule24",
            (DeclarationRule::Jsa24 | DeclarationRule::Points31, true) => "CSARule24H",
        },
        (None, None) => "NoEnteringKing",
    };
    let max_moves = rules.move_limit.map_or(0, |l| l.plies);
    vec![
        ("EnteringKingRule".to_string(), rule.to_string()),
        ("MaxMovesToDraw".to_string(), max_moves.to_string()),
        ("UCI_Variant".to_string(), "shogi".to_string()),
    ]
}

/// The rules a match plays under: `rules` with fouls and failed declarations losing.
pub fn match_rules(mut rules: RuleSet) -> RuleSet {
    rules.fouls = Fouls::Lose;
    if let Some(d) = rules.declaration.as_mut() {
        d.on_fail = OnFail::Lose;
    }
    rules
}

/// The digest of the rules a match or a tournament played under: the rules as the
/// referee played them (fouls and failed declarations losing: [`match_rules`])
/// and, for an event preset, the clock it was played with. A match under a preset as it
/// is, on the event's own clock, has the digest `gyoku rules PRESET --json` shows.
///
/// ```
/// use gyoku::Preset;
/// use gyoku_arena::executor::match_rules_digest;
/// use gyoku_league::rules_digest::of_preset;
/// let wcsc = Preset::Wcsc;
/// let clock = wcsc.event().unwrap().clock;
/// assert_eq!(match_rules_digest("wcsc", &wcsc.rules(), &clock), of_preset(wcsc));
/// let blitz = gyoku::TimeControl::fischer(60_000, 1_000);
/// assert_ne!(match_rules_digest("wcsc", &wcsc.rules(), &blitz), of_preset(wcsc));
/// assert_eq!(match_rules_digest("csa", &Preset::Csa.rules(), &blitz), of_preset(Preset::Csa));
/// ```
pub fn match_rules_digest(preset: &str, rules: &RuleSet, time: &TimeControl) -> String {
    gyoku_league::rules_digest::of_game(preset, &match_rules(*rules), time)
}

/// UTC now as `YYYY/MM/DD HH:MM:SS` (for record headers).
pub(crate) fn now_text() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    gyoku_league::ratings::floodgate::format_time(secs).replace('-', "/")
}

/// The report of a game an engine lost before it began (it could not be started).
pub(crate) fn lost_before_start(
    setup: &GameSetup,
    color: Color,
    failure: EngineFailure,
) -> GameReport {
    let mut game = Game::new(setup.start.clone(), setup.rules)
        .with_handicap(Handicap::from_setup(&setup.start.to_setup()));
    for &m in &setup.opening {
        // Openings are checked when loaded; one that ends the game stops here.
        if game.outcome().is_some() || game.play(m).is_err() {
            break;
        }
    }
    let _ = game.forfeit(color, failure.cause());
    let record = Record::from_game(&game);
    let mut failures = ByColor::new(None, None);
    *failures.get_mut(color) = Some(failure);
    GameReport {
        game,
        record,
        failures,
        referee_time: std::time::Duration::ZERO,
        engine_moves: 0,
        adjudicated: None,
    }
}
