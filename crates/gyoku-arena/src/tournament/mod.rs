//! Tournaments of many engines: round-robin, gauntlet, Swiss and knockout (scheduled by
//! [`gyoku_league::schedule`]), every game refereed as in a match ([`crate::referee`]),
//! records and `results.jsonl` written as games finish, resumable, with standings, a
//! crosstable and the endings by reason ([`gyoku_league::standings`]).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gyoku::{GameResult, RuleSet, TimeControl};
use serde_json::{Value, json};

use gyoku_league::schedule::{Job, Plan, Played};
use gyoku_league::standings::{Standings, TournamentGame};

use crate::executor::{self, Conditions, Entrant, Finished, Pool};
use crate::openings::Opening;
use crate::runner::{self, MatchError};

/// A tournament to run.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// The engines: each a name (as the standings show it; none: its `id name`), how to
    /// start it, and optionally its own time control and search limits.
    pub engines: Vec<Entrant>,
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
    /// Where each game's USI traffic is written (`game-NNNN.usi.log`), if anywhere.
    pub log_usi: Option<PathBuf>,
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
    /// The game that has just finished (none in the first report).
    pub finished: Option<TournamentGame>,
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
    /// The rules' preset name.
    pub rules: String,
    /// The digest of the rules played under ([`crate::executor::match_rules_digest`]).
    pub rules_digest: String,
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
        out.push_str(&format!(
            "rules: {} (digest {})\n",
            self.rules, self.rules_digest
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
        v["rules"] = json!(self.rules);
        v["rules_digest"] = json!(self.rules_digest);
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
        "engines": config.engines.iter().map(Entrant::identity).collect::<Vec<_>>(),
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
    let path = dir.join("results.jsonl");
    if !id_path.exists() && std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        return Err(MatchError::Input(format!(
            "{} has results.jsonl but no tournament.json: which tournament they belong to \
             cannot be told; use another --out (or put its tournament.json back)",
            dir.display()
        )));
    }
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
        let (kept, strays) = scheduled(&config.plan, games);
        for g in strays {
            eprintln!(
                "results.jsonl: game {} ({} vs {}, round {}) is no game of this tournament's \
                 schedule: dropped (the scheduled game is played)",
                g.number, names[g.players[0]], names[g.players[1]], g.round
            );
        }
        games = kept;
        // What is kept, written back whole.
        let kept: String = games
            .iter()
            .map(|g| format!("{}\n", g.to_json(names)))
            .collect();
        gyoku_kifu::files::write_atomic(&path, kept.as_bytes())?;
    }
    Ok(games)
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
    config.rules = executor::match_rules(config.rules);
    if config.engines.len() < 2 {
        return Err(MatchError::Input(
            "a tournament needs two engines or more".into(),
        ));
    }
    if config.openings.is_empty() {
        config.openings.push(Opening::startpos());
    }
    // An engine that cannot start is the user's input, refused before anything is played.
    let id_names = executor::probe(&config.engines, &config.rules)
        .await
        .map_err(MatchError::Input)?;
    let given: Vec<Option<String>> = config.engines.iter().map(|e| e.name.clone()).collect();
    let (names, warnings) = executor::unique_names(&given, &id_names);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let mut games = match &config.out {
        Some(dir) => prepare_out(dir, &config, &names)?,
        None => Vec::new(),
    };
    if let Some(dir) = &config.log_usi {
        std::fs::create_dir_all(dir)
            .map_err(|e| MatchError::Input(format!("--log-usi {}: {e}", dir.display())))?;
    }
    let resumed = games.len() as u32;
    let plan = config.plan;
    let total = plan.total();
    let conditions = Conditions {
        rules: config.rules,
        time: config.time,
        margin: config.margin,
        openings: config.openings.clone(),
        adjudication: config.adjudication,
        log_usi: config.log_usi.clone(),
    };
    let (format, preset) = (plan.format.name(), config.preset.clone());
    let event: executor::EventName = Arc::new(move |job| {
        format!(
            "gyoku tournament ({format}), rules {preset}, round {}",
            job.round
        )
    });
    let standings_of = |games: &[TournamentGame]| Standings::new(&plan, games);
    progress(&TournamentProgress {
        done: games.len() as u32,
        total,
        standings: standings_of(&games),
        finished: None,
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
        let mut pool = Pool::start(
            config.engines.clone(),
            names.clone(),
            conditions.clone(),
            Arc::clone(&event),
            jobs,
            config.concurrency,
        );
        loop {
            tokio::select! {
                finished = pool.next() => {
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
                            "gyoku tournament game {}: {} by {reason} at ply {ply}",
                            job.number,
                            match result {
                                GameResult::Win(c) => format!("{c} wins"),
                                GameResult::Draw => "draw".to_string(),
                                GameResult::NoContest => "no contest".to_string(),
                            },
                        ));
                        runner::write_record_files(dir, &format!("game-{:04}", job.number), &record)?;
                        runner::append_json_line(dir, &game.to_json(&names))?;
                    }
                    games.push(game.clone());
                    progress(&TournamentProgress {
                        done: games.len() as u32,
                        total,
                        standings: standings_of(&games),
                        finished: Some(game),
                    });
                }
                _ = &mut stop => {
                    interrupted = true;
                    pool.abort().await;
                    break 'stages;
                }
            }
        }
        pool.finish().await;
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
        rules: config.preset.clone(),
        rules_digest: crate::executor::match_rules_digest(
            &config.preset,
            &config.rules,
            &config.time,
        ),
    })
}

/// Splits stored games into those the schedule plays and the rest: a game is kept when it
/// is a job the plan gives once the games kept before it are counted (the same number,
/// round, Black and White), so that a line edited or written by something else (an
/// engine against itself, a game of another tournament) never counts.
fn scheduled(
    plan: &Plan,
    stored: Vec<TournamentGame>,
) -> (Vec<TournamentGame>, Vec<TournamentGame>) {
    let mut kept: Vec<TournamentGame> = Vec::new();
    let mut rest = stored;
    loop {
        let played: Vec<Played> = kept.iter().map(TournamentGame::played).collect();
        let jobs = plan.next(&played);
        let before = kept.len();
        rest.retain(|g| {
            let is_job = jobs.iter().any(|j| {
                (j.number, j.round, j.black, j.white)
                    == (g.number, g.round, g.players[0], g.players[1])
            });
            if is_job {
                kept.push(g.clone());
            }
            !is_job
        });
        if kept.len() == before {
            return (kept, rest);
        }
    }
}
