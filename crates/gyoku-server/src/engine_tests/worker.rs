//! `gyoku worker`: asks a server for batches of game pairs, plays them with the local
//! executor (the match runner's), uploads each game's CSA record and result, and sends a
//! heartbeat while it plays. A batch the server says is gone (lapsed, its test ended) is
//! dropped at once, its engines killed.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use gyoku::Color;
use gyoku_arena::engine::EngineConfig;
use gyoku_arena::executor::{Conditions, Entrant, Finished, Pool};
use gyoku_arena::openings::Opening;
use gyoku_league::schedule::Job;
use serde_json::{Value, json};

use super::client::{Answer, Client};
use super::spec::{TestEngine, TestSpec};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The server's address (`http://HOST:PORT`).
    pub server: String,
    /// The operator's worker token (registers the worker).
    pub token: String,
    /// The name it registers under.
    pub name: String,
    /// Games played at once.
    pub concurrency: usize,
    /// Its own commands for engines by name (`--engine NAME=COMMAND`).
    pub engines: Vec<(String, String)>,
    /// The command of the engine named `builtin` (this program's `engine`).
    pub builtin: Option<String>,
    /// Stop once the server has no batch it can play.
    pub exit_when_idle: bool,
    /// Where engine builds fetched from the server are kept, by digest.
    pub cache_dir: std::path::PathBuf,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    /// Batches played.
    pub batches: u64,
    /// Games uploaded and counted.
    pub counted: u64,
    /// Games the referee judged otherwise than this worker's runner.
    pub disagreements: u64,
    /// Uploads refused (the batch was gone, the record was not the game).
    pub refused: u64,
}

/// The longest wait between asks for a batch when there is none.
const MOST_IDLE_WAIT: Duration = Duration::from_secs(10);

struct Session {
    client: Client,
    options: WorkerOptions,
    id: String,
    secret: String,
}

impl Session {
    async fn register(client: Client, options: WorkerOptions) -> Result<Session, String> {
        let a = client
            .post(
                "/api/workers",
                Some(&options.token),
                &json!({"name": options.name, "concurrency": options.concurrency}),
            )
            .await?;
        if a.status != 200 {
            return Err(format!(
                "the server refused to register this worker: {}",
                a.message()
            ));
        }
        let id = a.body["worker"]
            .as_str()
            .ok_or("the server gave no worker id")?
            .to_string();
        let secret = a.body["secret"]
            .as_str()
            .ok_or("the server gave no secret")?
            .to_string();
        Ok(Session {
            client,
            options,
            id,
            secret,
        })
    }

    fn bearer(&self) -> String {
        format!("{}:{}", self.id, self.secret)
    }

    /// A worker's request; registered again once when the server has forgotten it.
    async fn post(&mut self, path: &str, body: &Value) -> Result<Answer, String> {
        let a = self.client.post(path, Some(&self.bearer()), body).await?;
        if a.code() == Some("unknown_worker") {
            let again = Session::register(self.client.clone(), self.options.clone()).await?;
            self.id = again.id;
            self.secret = again.secret;
            return self.client.post(path, Some(&self.bearer()), body).await;
        }
        Ok(a)
    }

    /// The engine names this worker has commands of its own for.
    fn has(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .options
            .engines
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        if self.options.builtin.is_some() {
            names.push("builtin".into());
        }
        names
    }

    /// The command line that runs `e` here: this worker's own for its name, else its
    /// artefact (fetched once), else the test's command (`builtin [ARGS]`: this program's
    /// engine).
    async fn command_of(&mut self, e: &TestEngine) -> Result<Option<String>, String> {
        if let Some((_, c)) = self.options.engines.iter().find(|(n, _)| *n == e.name) {
            return Ok(Some(c.clone()));
        }
        if let Some(digest) = &e.artefact {
            let path = self.fetch_artefact(digest).await?;
            return Ok(Some(shell_word(&path.display().to_string())));
        }
        let builtin = |rest: &str| self.options.builtin.as_ref().map(|b| format!("{b}{rest}"));
        Ok(match e.command.as_deref() {
            None if e.name == "builtin" => builtin(""),
            Some("builtin") => builtin(""),
            Some(c) if c.starts_with("builtin ") => builtin(&c["builtin".len()..]),
            other => other.map(str::to_string),
        })
    }

    /// The artefact `digest`, from the cache or fetched from the server (its digest
    /// checked before it is kept, executable).
    async fn fetch_artefact(&mut self, digest: &str) -> Result<std::path::PathBuf, String> {
        if !super::artefacts::is_digest(digest) {
            return Err(format!("artefact '{digest}': not a SHA-256"));
        }
        let dir = self.options.cache_dir.clone();
        let path = dir.join(digest);
        if path.is_file() {
            return Ok(path);
        }
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let part = dir.join(format!(".{digest}.{}", std::process::id()));
        let got = self
            .client
            .download(
                &format!("/api/artefacts/{digest}"),
                &self.bearer(),
                &part,
                (
                    super::artefacts::MAX_ARTEFACT_BYTES,
                    Duration::from_secs(600),
                ),
            )
            .await;
        let got = match got {
            Ok(Ok(d)) => d,
            Ok(Err(answer)) => {
                let _ = std::fs::remove_file(&part);
                return Err(format!("artefact {digest}: {}", answer.message()));
            }
            Err(e) => {
                let _ = std::fs::remove_file(&part);
                return Err(e);
            }
        };
        if got != digest {
            let _ = std::fs::remove_file(&part);
            return Err(format!(
                "artefact {digest}: the server sent a file whose digest is {got}"
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("{}: {e}", part.display()))?;
        }
        std::fs::rename(&part, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

/// A path as one word of a command line (quoted when it needs to be).
///
/// ```
/// use gyoku_server::engine_tests::worker::shell_word;
/// assert_eq!(shell_word("/usr/bin/gyoku"), "/usr/bin/gyoku");
/// assert_eq!(shell_word("/a b/it's"), "'/a b/it'\\''s'");
/// ```
pub fn shell_word(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Runs a worker until it is stopped (Ctrl-C, SIGTERM), or, with `exit_when_idle`, until
/// the server has nothing it can play. `say` hears each step.
///
/// # Errors
/// When the server cannot be reached at first, or refuses to register the worker.
pub async fn run(
    options: WorkerOptions,
    mut say: impl FnMut(&str),
) -> Result<WorkerSummary, String> {
    let client = Client::new(&options.server, Duration::from_secs(30))?;
    let mut session = Session::register(client, options).await?;
    say(&format!("registered as {}", session.id));
    let mut summary = WorkerSummary::default();
    let mut idle = Duration::from_millis(250);
    let stop = gyoku_arena::runner::stop_signal();
    tokio::pin!(stop);
    loop {
        let want = session.options.concurrency.div_ceil(2).max(1);
        let asked = json!({"pairs": want, "has": session.has()});
        let ask = session.post("/api/workers/batch", &asked);
        let answer = tokio::select! {
            a = ask => a,
            () = &mut stop => return Ok(summary),
        };
        let answer = match answer {
            Ok(a) => a,
            Err(e) => {
                say(&format!(
                    "the server: {e}; asking again in {} s",
                    idle.as_secs_f64()
                ));
                tokio::select! {
                    () = tokio::time::sleep(idle) => {}
                    () = &mut stop => return Ok(summary),
                }
                idle = (idle * 2).min(MOST_IDLE_WAIT);
                continue;
            }
        };
        let batch = match answer.status {
            200 if answer.body["batch"].is_object() => answer.body["batch"].clone(),
            200 | 429 => {
                if answer.status == 200 && session.options.exit_when_idle {
                    say("no batch to play: stopping (--exit-when-idle)");
                    return Ok(summary);
                }
                let wait = answer.body["retry_after_s"]
                    .as_f64()
                    .or_else(|| answer.body["error"]["retry_after"].as_f64())
                    .map_or(idle, Duration::from_secs_f64)
                    .min(MOST_IDLE_WAIT);
                if answer.status == 429 {
                    say(&answer.message());
                }
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = &mut stop => return Ok(summary),
                }
                idle = (idle * 2).min(MOST_IDLE_WAIT);
                continue;
            }
            _ => return Err(format!("the server refused a batch: {}", answer.message())),
        };
        idle = Duration::from_millis(250);
        let played = tokio::select! {
            r = play_batch(&mut session, &batch, &mut summary, &mut say) => r,
            () = &mut stop => return Ok(summary),
        };
        match played {
            Ok(()) => summary.batches += 1,
            Err(e) => say(&format!("batch {}: {e}", batch["id"])),
        }
    }
}

/// A batch made ready to play: its engines, conditions and games.
struct Prepared {
    id: u64,
    test: String,
    entrants: Vec<Entrant>,
    names: Vec<String>,
    conditions: Conditions,
    jobs: VecDeque<Job>,
    lease_s: u64,
}

/// Reads a batch as the server handed it, checks its rules digest against this
/// program's, and resolves its engines' commands.
async fn prepare(session: &mut Session, batch: &Value) -> Result<Prepared, String> {
    let id = batch["id"].as_u64().ok_or("a batch without an id")?;
    let engines: [TestEngine; 2] = serde_json::from_value(batch["engines"].clone())
        .map_err(|e| format!("the batch's engines: {e}"))?;
    let text = |k: &str| batch[k].as_str().map(str::to_string);
    let spec = TestSpec {
        name: text("test").ok_or("a batch without a test")?,
        engines: engines.clone(),
        preset: text("preset").ok_or("a batch without a preset")?,
        time: text("time"),
        byoyomi: text("byoyomi"),
        openings: Vec::new(),
        pairs: 1,
        sprt: None,
        batch_pairs: 1,
    };
    let checked = spec.check()?;
    if batch["digest"].as_str() != Some(checked.digest.as_str()) {
        return Err(format!(
            "the rules and clock digest here ({}) is not the server's ({}): this worker's \
             Gyoku plays another rule set; update it",
            checked.digest, batch["digest"]
        ));
    }
    let games = batch["games"].as_array().ok_or("a batch without games")?;
    let mut openings = Vec::with_capacity(games.len());
    let mut jobs = VecDeque::with_capacity(games.len());
    for (i, g) in games
        .iter()
        .enumerate()
        .take(2 * super::spec::MAX_BATCH_PAIRS as usize)
    {
        let number = g["number"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("a game without a number")?;
        let black = g["black"]
            .as_u64()
            .filter(|&b| b <= 1)
            .ok_or("a game without Black")? as usize;
        let line = g["opening"].as_str().ok_or("a game without an opening")?;
        openings.push(Opening::parse_line(line, &checked.rules)?);
        jobs.push_back(Job {
            number,
            round: 1,
            black,
            white: 1 - black,
            opening: i,
        });
    }
    let mut entrants = Vec::with_capacity(2);
    for e in &engines {
        let command = session.command_of(e).await?.ok_or_else(|| {
            format!(
                "no command for engine '{}' (give --engine {}=COMMAND)",
                e.name, e.name
            )
        })?;
        let mut config = EngineConfig::new(command);
        config.options = e.options.clone();
        entrants.push(Entrant::new(config).named(e.name.clone()));
    }
    Ok(Prepared {
        id,
        test: spec.name,
        entrants,
        names: engines.iter().map(|e| e.name.clone()).collect(),
        conditions: Conditions {
            rules: checked.rules,
            time: checked.time,
            margin: 0,
            openings,
            adjudication: gyoku_arena::adjudication::Adjudication::default(),
            log_usi: None,
        },
        jobs,
        lease_s: batch["lease_s"].as_u64().unwrap_or(120).max(3),
    })
}

/// What became of an upload.
enum Uploaded {
    /// Taken (counted or not).
    Taken,
    /// The batch is no longer this worker's: stop playing it.
    BatchGone,
}

/// Uploads a finished game.
async fn upload(
    session: &mut Session,
    id: u64,
    finished: Finished,
    summary: &mut WorkerSummary,
    say: &mut impl FnMut(&str),
) -> Result<Uploaded, String> {
    let Finished { job, report } = finished;
    let (result, reason, _) = report.ending();
    let winner = match result {
        gyoku::GameResult::Win(Color::Black) => Some(job.black + 1),
        gyoku::GameResult::Win(Color::White) => Some(job.white + 1),
        _ => None,
    };
    let record = gyoku_kifu::write(&report.record, gyoku_kifu::Format::Csa);
    let body = json!({
        "batch": id, "number": job.number, "winner": winner, "reason": reason,
        "record": record,
    });
    let a = session.post("/api/workers/games", &body).await?;
    match a.status {
        200 => {
            if a.body["counted"] == true {
                summary.counted += 1;
            }
            if a.body["agrees"] == false {
                summary.disagreements += 1;
                say(&format!(
                    "game {}: the referee says {} by {}; this worker's runner said otherwise",
                    job.number, a.body["winner"], a.body["reason"]
                ));
            }
        }
        409 => {
            summary.refused += 1;
            say(&format!("batch {id}: {}; dropped", a.message()));
            return Ok(Uploaded::BatchGone);
        }
        _ => {
            summary.refused += 1;
            say(&format!("game {}: refused: {}", job.number, a.message()));
        }
    }
    Ok(Uploaded::Taken)
}

/// Plays one batch, uploading each game as it ends, with heartbeats meanwhile.
async fn play_batch(
    session: &mut Session,
    batch: &Value,
    summary: &mut WorkerSummary,
    say: &mut impl FnMut(&str),
) -> Result<(), String> {
    let p = prepare(session, batch).await?;
    let id = p.id;
    let test = p.test.clone();
    say(&format!(
        "batch {id}: {} games of test {test}",
        p.jobs.len()
    ));
    let mut pool = Pool::start(
        p.entrants,
        p.names,
        p.conditions,
        Arc::new(move |_: &Job| format!("gyoku test {test}")),
        p.jobs,
        session.options.concurrency,
    );
    let mut beat = tokio::time::interval(Duration::from_secs(p.lease_s / 3));
    beat.tick().await;
    loop {
        tokio::select! {
            finished = pool.next() => {
                let Some(finished) = finished else { break };
                match upload(session, id, finished, summary, say).await {
                    Ok(Uploaded::Taken) => {}
                    Ok(Uploaded::BatchGone) => {
                        pool.abort().await;
                        return Ok(());
                    }
                    Err(e) => {
                        // The server cannot be reached: the batch will lapse there.
                        pool.abort().await;
                        return Err(e);
                    }
                }
            }
            _ = beat.tick() => {
                let a = session.post("/api/workers/heartbeat", &json!({"batches": [id]})).await;
                let gone = a.as_ref().is_ok_and(|a| {
                    a.body["gone"].as_array().is_some_and(|g| g.iter().any(|b| b.as_u64() == Some(id)))
                });
                if gone {
                    say(&format!("batch {id}: the server no longer needs it; dropped"));
                    pool.abort().await;
                    return Ok(());
                }
            }
        }
    }
    pool.finish().await;
    Ok(())
}
