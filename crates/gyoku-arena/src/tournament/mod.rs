//! Tournaments of many engines: round-robin, gauntlet, Swiss and knockout ([`schedule`]),
//! every game refereed as in a match ([`crate::referee`]), records and `results.jsonl`
//! written as games finish, resumable, with standings, a crosstable and the endings by
//! reason ([`standings`]).

pub mod schedule;
pub mod standings;
pub mod swiss;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gyoku::{ByColor, Color, GameResult, RuleSet, TimeControl};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::engine::{Engine, EngineConfig};
use crate::openings::Opening;
use crate::referee::{self, GameReport, GameSetup};
use crate::runner::{self, MatchError};
pub use schedule::Format;
use schedule::{Job, Plan, Played};
pub use standings::Standings;

/// A tournament to run.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// The engines: each a name (as the standings show it) and how to start it.
    pub engines: Vec<(String, EngineConfig)>,
    /// Its format, rounds and games per encounter.
    pub plan: Plan,
    /// The rule-set preset's name.
    pub preset: String,
    /// The rules (fouls and failed declarations lose, as in a match).
    pub rules: RuleSet,
    /// The time control.
    pub time: TimeControl,
    /// Time each engine is told it has less than it has.
    pub margin: gyoku::Millis,
    /// Openings; each encounter's games `2k` and `2k+1` play one, colours swapped.
    pub openings: Vec<Opening>,
    /// Where records and results go (and where a resume finds them).
    pub out: Option<PathBuf>,
    /// Games played at once.
    pub concurrency: usize,
    /// Adjudication for engine testing (none unless asked).
    pub adjudication: crate::adjudication::Adjudication,
}

/// One finished game, as `results.jsonl` keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentGame {
    /// Its number.
    pub number: u32,
    /// Its round.
    pub round: u32,
    /// Black's and White's engines (indices).
    pub players: [usize; 2],
    /// `black`, `white`, `draw` or `no_contest`.
    pub result: String,
    /// The end reason's code.
    pub reason: String,
    /// Plies.
    pub plies: u32,
}

impl TournamentGame {
    /// Black's half-points (a no contest counts as a draw).
    pub fn black_half_points(&self) -> u8 {
        match self.result.as_str() {
            "black" => 2,
            "white" => 0,
            _ => 1,
        }
    }

    fn played(&self) -> Played {
        Played {
            number: self.number,
            black: self.players[0],
            white: self.players[1],
            black_half_points: self.black_half_points(),
        }
    }

    fn to_json(&self, names: &[String]) -> Value {
        json!({
            "game": self.number,
            "round": self.round,
            "players": [names[self.players[0]], names[self.players[1]]],
            "result": self.result,
            "reason": self.reason,
            "plies": self.plies,
        })
    }

    fn from_json(v: &Value, names: &[String]) -> Option<TournamentGame> {
        let index = |s: &Value| names.iter().position(|n| Some(n.as_str()) == s.as_str());
        let players = v["players"].as_array()?;
        Some(TournamentGame {
            number: u32::try_from(v["game"].as_u64()?).ok()?,
            round: u32::try_from(v["round"].as_u64()?).ok()?,
            players: [index(players.first()?)?, index(players.get(1)?)?],
            result: v["result"].as_str()?.to_string(),
            reason: v["reason"].as_str()?.to_string(),
            plies: u32::try_from(v["plies"].as_u64()?).ok()?,
        })
    }
}

/// Where a tournament stands, after each game.
#[derive(Clone, Debug)]
pub struct TournamentProgress {
    /// Games finished.
    pub done: u32,
    /// Games planned (a knockout's tie-breaks come on top).
    pub total: u32,
    /// The standings so far.
    pub standings: Standings,
}

/// How a tournament went.
#[derive(Clone, Debug)]
pub struct TournamentSummary {
    /// The engines' names.
    pub names: Vec<String>,
    /// Its shape.
    pub plan: Plan,
    /// Every finished game, by number.
    pub games: Vec<TournamentGame>,
    /// Games already finished when it resumed.
    pub resumed: u32,
    /// Whether it stopped before the end.
    pub interrupted: bool,
    /// The output directory.
    pub out: Option<PathBuf>,
    /// The standings.
    pub standings: Standings,
}

impl TournamentSummary {
    /// The summary as text: standings, crosstable, endings by reason.
    pub fn text(&self) -> String {
        let mut out = self.standings.text(&self.names);
        out.push_str(&format!(
            "\n{} games played{}{}\n",
            self.games.len(),
            if self.resumed > 0 {
                format!(" ({} before resuming)", self.resumed)
            } else {
                String::new()
            },
            if self.interrupted {
                ", interrupted: run the same command again to resume"
            } else {
                ""
            }
        ));
        if let Some(dir) = &self.out {
            out.push_str(&format!("records: {}\n", dir.display()));
        }
        out
    }

    /// The summary as JSON.
    pub fn to_json(&self) -> Value {
        let mut v = self.standings.to_json(&self.names);
        v["format"] = json!(self.plan.format.name());
        v["engines"] = json!(self.names);
        v["games"] = json!(self.games.len());
        v["total"] = json!(self.plan.total());
        v["resumed"] = json!(self.resumed);
        v["interrupted"] = json!(self.interrupted);
        v["out"] = json!(self.out.as_ref().map(|p| p.display().to_string()));
        v["results"] = json!(
            self.games
                .iter()
                .map(|g| g.to_json(&self.names))
                .collect::<Vec<_>>()
        );
        v
    }
}

/// What identifies a tournament in its output directory.
fn identity(config: &TournamentConfig) -> Value {
    json!({
        "engines": config.engines.iter().map(|(n, e)| json!({"name": n, "command": e.command, "options": e.options})).collect::<Vec<_>>(),
        "format": config.plan.format.name(),
        "rounds": config.plan.rounds,
        "games_per_encounter": config.plan.games_per_encounter,
        "rules": config.preset,
        "time": crate::timecontrol::describe(&config.time),
        "margin": config.margin,
        "openings": config.openings.iter().map(|o| {
            let mut s = o.start.to_sfen();
            for m in &o.moves { s.push(' '); s.push_str(&m.to_string()); }
            s
        }).collect::<Vec<_>>(),
    })
}

/// Prepares the output directory (`tournament.json`, or the same one already there) and
/// returns the games it has finished.
fn prepare_out(
    dir: &Path,
    config: &TournamentConfig,
    names: &[String],
) -> Result<Vec<TournamentGame>, MatchError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let id_path = dir.join("tournament.json");
    let id = identity(config);
    if id_path.exists() {
        let bytes =
            gyoku_kifu::files::read_regular(&id_path, 1 << 20).map_err(MatchError::Input)?;
        let stored: Value = serde_json::from_slice(&bytes).map_err(|e| {
            MatchError::Input(format!("{}: not a tournament: {e}", id_path.display()))
        })?;
        if stored != id {
            return Err(MatchError::Input(format!(
                "{} holds a different tournament (engines, format, rounds, rules, time or openings differ); use another --out",
                dir.display()
            )));
        }
    } else {
        gyoku_kifu::files::write_atomic(&id_path, format!("{id:#}\n").as_bytes())?;
    }
    let path = dir.join("results.jsonl");
    let mut games: Vec<TournamentGame> = Vec::new();
    if path.exists() {
        let bytes = gyoku_kifu::files::read_regular(&path, 1 << 30).map_err(MatchError::Input)?;
        for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            let parsed = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| TournamentGame::from_json(&v, names));
            match parsed {
                // A game whose records are missing is played again.
                Some(g) if dir.join(format!("game-{:04}.csa", g.number)).is_file() => {
                    if !games.iter().any(|h| h.number == g.number) {
                        games.push(g);
                    }
                }
                _ => eprintln!(
                    "results.jsonl:{}: dropped (that game is played again)",
                    n + 1
                ),
            }
        }
        // What is kept, written back whole.
        let kept: String = games
            .iter()
            .map(|g| format!("{}\n", g.to_json(names)))
            .collect();
        gyoku_kifu::files::write_atomic(&path, kept.as_bytes())?;
    }
    Ok(games)
}

/// A finished game from a worker.
struct Finished {
    job: Job,
    report: GameReport,
}

/// Engines a worker keeps running between games: the two it played last.
const KEPT_ENGINES: usize = 2;

/// One worker: games from `queue`, each engine started when first needed and kept for
/// the next game while it is one of the last two used.
async fn worker(
    config: Arc<TournamentConfig>,
    queue: Arc<Mutex<VecDeque<Job>>>,
    tx: mpsc::Sender<Finished>,
) {
    let options = runner::derived_options(&config.rules);
    let mut running: HashMap<usize, Engine> = HashMap::new();
    let mut used: VecDeque<usize> = VecDeque::new();
    loop {
        let Some(job) = queue.lock().expect("queue lock").pop_front() else {
            break;
        };
        let opening = &config.openings[job.opening % config.openings.len()];
        let setup = GameSetup {
            start: opening.start.clone(),
            opening: opening.moves.clone(),
            rules: config.rules,
            time: config.time,
            margin: config.margin,
            adjudication: config.adjudication,
        };
        // The two engines of this game, started if they are not running.
        let seats = [job.black, job.white];
        let mut start_failure = None;
        for (side, &k) in seats.iter().enumerate() {
            if let std::collections::hash_map::Entry::Vacant(slot) = running.entry(k) {
                match Engine::start(&config.engines[k].1, &options).await {
                    Ok(e) => {
                        slot.insert(e);
                    }
                    Err(f) => {
                        start_failure = Some((side, f));
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
        let report = match start_failure {
            Some((side, f)) => runner::lost_before_start(
                &setup,
                if side == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                f,
            ),
            None => {
                let mut black = running.remove(&job.black).expect("started");
                let mut white = running.remove(&job.white).expect("started");
                let report = referee::play(ByColor::new(&mut black, &mut white), &setup).await;
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
        let mut report = report;
        report
            .record
            .header
            .retain(|(k, _)| k != "先手" && k != "後手");
        report.record.header.splice(
            0..0,
            [
                ("開始日時".to_string(), runner::now_text()),
                (
                    "棋戦".to_string(),
                    format!(
                        "gyoku tournament ({}), rules {}, round {}",
                        config.plan.format.name(),
                        config.preset,
                        job.round
                    ),
                ),
                ("先手".to_string(), config.engines[job.black].0.clone()),
                ("後手".to_string(), config.engines[job.white].0.clone()),
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

/// Starts each engine once (it must answer `usi` and `isready`): an engine that cannot
/// start is the user's input, refused before anything is played.
async fn probe(config: &TournamentConfig) -> Result<(), String> {
    let options = runner::derived_options(&config.rules);
    for (k, (name, e)) in config.engines.iter().enumerate() {
        let engine = Engine::start(e, &options)
            .await
            .map_err(|f| format!("engine {} ({name}: '{}') {f}", k + 1, e.command))?;
        engine.quit().await;
    }
    Ok(())
}

/// Runs a tournament; `progress` after each game. Ctrl-C, SIGTERM and SIGHUP stop it
/// cleanly (finished games are kept; the same command resumes).
///
/// # Errors
/// An engine that cannot start, an output directory that cannot be used or holds another
/// tournament, fewer than two engines.
pub async fn run(
    config: TournamentConfig,
    mut progress: impl FnMut(&TournamentProgress),
) -> Result<TournamentSummary, MatchError> {
    let mut config = config;
    config.rules = runner::match_rules(config.rules);
    if config.engines.len() < 2 {
        return Err(MatchError::Input(
            "a tournament needs two engines or more".into(),
        ));
    }
    if config.openings.is_empty() {
        config.openings.push(Opening::startpos());
    }
    let names: Vec<String> = config.engines.iter().map(|(n, _)| n.clone()).collect();
    probe(&config).await.map_err(MatchError::Input)?;
    let mut games = match &config.out {
        Some(dir) => prepare_out(dir, &config, &names)?,
        None => Vec::new(),
    };
    let resumed = games.len() as u32;
    let plan = config.plan;
    let total = plan.total();
    let config = Arc::new(config);
    let standings_of = |games: &[TournamentGame]| Standings::new(&plan, games);
    progress(&TournamentProgress {
        done: games.len() as u32,
        total,
        standings: standings_of(&games),
    });
    let mut interrupted = false;
    let stop = runner::stop_signal();
    tokio::pin!(stop);
    'stages: loop {
        let played: Vec<Played> = games.iter().map(TournamentGame::played).collect();
        let jobs: VecDeque<Job> = plan.next(&played).into();
        if jobs.is_empty() {
            break;
        }
        let workers = config.concurrency.max(1).min(jobs.len());
        let queue = Arc::new(Mutex::new(jobs));
        let (tx, mut rx) = mpsc::channel(16);
        let handles: Vec<_> = (0..workers)
            .map(|_| tokio::spawn(worker(Arc::clone(&config), Arc::clone(&queue), tx.clone())))
            .collect();
        drop(tx);
        loop {
            tokio::select! {
                finished = rx.recv() => {
                    let Some(Finished { job, report }) = finished else { break };
                    let (result, reason, ply) = report.ending();
                    let game = TournamentGame {
                        number: job.number,
                        round: job.round,
                        players: [job.black, job.white],
                        result: result.code().to_string(),
                        reason: reason.clone(),
                        plies: report.game.plies().len() as u32,
                    };
                    if let Some(dir) = &config.out {
                        let mut record = report.record;
                        record.start_comments.push(format!(
                            "gyoku tournament game {}: {} by {} at ply {}",
                            job.number,
                            match result {
                                GameResult::Win(c) => format!("{c} wins"),
                                GameResult::Draw => "draw".to_string(),
                                GameResult::NoContest => "no contest".to_string(),
                            },
                            reason,
                            ply
                        ));
                        runner::write_record_files(dir, &format!("game-{:04}", job.number), &record)?;
                        runner::append_json_line(dir, &game.to_json(&names))?;
                    }
                    games.push(game);
                    progress(&TournamentProgress { done: games.len() as u32, total, standings: standings_of(&games) });
                }
                _ = &mut stop => {
                    interrupted = true;
                    queue.lock().expect("queue lock").clear();
                    for h in &handles {
                        h.abort();
                    }
                    for h in handles {
                        let _ = h.await;
                    }
                    break 'stages;
                }
            }
        }
        for h in handles {
            let _ = h.await;
        }
    }
    games.sort_by_key(|g| g.number);
    let played: Vec<Played> = games.iter().map(TournamentGame::played).collect();
    interrupted |= !plan.next(&played).is_empty();
    let standings = standings_of(&games);
    Ok(TournamentSummary {
        names,
        plan,
        games,
        resumed,
        interrupted,
        out: config.out.clone(),
        standings,
    })
}

/// Games by number, for the standings.
pub(crate) fn by_number(games: &[TournamentGame]) -> BTreeMap<u32, Played> {
    games.iter().map(|g| (g.number, g.played())).collect()
}
