//! A USI engine as a child process: the handshake, options, new games, one move at a
//! time, and a clean (or forced) exit.
//!
//! Every wait has a deadline. The engine's output is read by a task of its own, line by
//! line with a length limit, so an engine that writes without end cannot make the runner
//! use memory without bound. The process is killed when its [`Engine`] is dropped, so no
//! engine outlives the runner.

use std::process::Stdio;
use std::time::Duration;

use gyoku::ForfeitCause;
use gyoku_proto::{BestMove, Command, EngineMessage, GameOverResult, Go, Info, OptionDecl};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command as Process};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout_at};

/// How long the runner waits, and how much output it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// From `usi` to `usiok`.
    pub handshake: Duration,
    /// From `isready` to `readyok` (engines load evaluation files here: gpsusi takes ~4 s).
    pub ready: Duration,
    /// After `quit`, before the process is killed.
    pub quit_grace: Duration,
    /// After the clock runs out, how long to wait for a late `bestmove` (it still loses on
    /// time; waiting a little tells a slow engine from a hung one).
    pub late_move_grace: Duration,
    /// The longest line accepted, in bytes.
    pub max_line: usize,
    /// The most lines accepted while one move is thought about.
    pub max_lines_per_move: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(30),
            quit_grace: Duration::from_secs(2),
            late_move_grace: Duration::from_millis(200),
            max_line: 64 * 1024,
            max_lines_per_move: 200_000,
        }
    }
}

/// How to start an engine and what to tell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The command line (split like a shell would: quotes and backslashes work).
    pub command: String,
    /// `setoption` name and value pairs, sent after `usiok` whether or not the engine
    /// declares them (they replace any the runner derives from the rules).
    pub options: Vec<(String, String)>,
    /// Waits and output limits.
    pub limits: Limits,
}

impl EngineConfig {
    /// A config with default limits and no options.
    pub fn new(command: impl Into<String>) -> EngineConfig {
        EngineConfig {
            command: command.into(),
            options: Vec::new(),
            limits: Limits::default(),
        }
    }
}

/// Why an engine cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// The command could not be started.
    Spawn(String),
    /// The process exited or closed its output.
    Crash(String),
    /// It did not answer in time (`what` it was waiting for).
    Hang(&'static str),
    /// It answered garbage where a move was due.
    Garbage(String),
    /// It wrote too much.
    Flood(String),
}

impl EngineFailure {
    /// The forfeit this failure costs the engine in a game.
    pub fn cause(&self) -> ForfeitCause {
        match self {
            EngineFailure::Spawn(_) | EngineFailure::Crash(_) => ForfeitCause::Crash,
            EngineFailure::Hang(_) => ForfeitCause::Hang,
            EngineFailure::Garbage(_) => ForfeitCause::Garbage,
            EngineFailure::Flood(_) => ForfeitCause::Flood,
        }
    }
}

impl std::fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineFailure::Spawn(e) => write!(f, "cannot start: {e}"),
            EngineFailure::Crash(e) => write!(f, "crashed: {e}"),
            EngineFailure::Hang(what) => write!(f, "hung: no {what} in time"),
            EngineFailure::Garbage(line) => write!(f, "answered garbage: {line}"),
            EngineFailure::Flood(what) => write!(f, "flooded its output: {what}"),
        }
    }
}

impl std::error::Error for EngineFailure {}

/// What came of asking for a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Thought {
    /// A `bestmove`, read at `at`.
    Answer {
        /// The answer.
        best: BestMove,
        /// The reply it expects (`bestmove <move> ponder <move>`), as written.
        ponder: Option<String>,
        /// When it was read.
        at: Instant,
    },
    /// No answer by the deadline (the engine may still be thinking).
    NoAnswer,
}

/// A line read from the engine, or why reading stopped.
#[derive(Debug)]
enum Line {
    Text(String),
    TooLong,
    Closed(String),
}

/// A running USI engine.
#[derive(Debug)]
pub struct Engine {
    child: Child,
    /// Its process group (its own, led by the engine process): killed whole when the
    /// engine is dropped, so that a wrapper script's children go too.
    group: Option<nix::unistd::Pid>,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Line>,
    name: String,
    options: Vec<OptionDecl>,
    limits: Limits,
    /// Lines read since the last `go`.
    lines_this_move: usize,
    /// The last `info` with `multipv 1` (or none) read while thinking about the last move.
    last_info: Option<Info>,
    /// What those lines said, the last of each.
    reading: Reading,
    /// When the process was seen to exit, and how.
    exited: Option<(std::process::ExitStatus, Instant)>,
    /// Where its traffic is logged, and the name it is logged under.
    log: Option<(UsiLog, String)>,
}

/// One game's USI traffic, both engines' lines in the order the referee wrote and read
/// them, each with the milliseconds since the log began: `12 black-name > go ...`,
/// `40 black-name < bestmove 7g7f`. Bounded: past its byte limit it keeps only a note that
/// it was cut.
#[derive(Clone, Debug)]
pub struct UsiLog {
    inner: std::sync::Arc<std::sync::Mutex<LogText>>,
}

#[derive(Debug)]
struct LogText {
    began: Instant,
    text: String,
    limit: usize,
    cut: bool,
}

impl UsiLog {
    /// An empty log that keeps at most `limit` bytes.
    pub fn new(limit: usize) -> UsiLog {
        UsiLog {
            inner: std::sync::Arc::new(std::sync::Mutex::new(LogText {
                began: Instant::now(),
                text: String::new(),
                limit,
                cut: false,
            })),
        }
    }

    /// Adds a line: `who` wrote (`<`) or was sent (`>`) `line`.
    pub fn add(&self, who: &str, direction: char, line: &str) {
        let mut log = self.inner.lock().expect("log lock");
        if log.cut {
            return;
        }
        let ms = log.began.elapsed().as_millis();
        let entry = format!("{ms} {who} {direction} {}\n", line.trim_end());
        if log.text.len() + entry.len() > log.limit {
            log.cut = true;
            log.text
                .push_str("(the log is cut here: it reached its size limit)\n");
        } else {
            log.text.push_str(&entry);
        }
    }

    /// The log so far.
    pub fn text(&self) -> String {
        self.inner.lock().expect("log lock").text.clone()
    }
}

/// What an engine last said of its search for one move, from its main-line `info` lines:
/// the last centipawn score and the last reading, each from whichever line last had one
/// (ShogiHome's Floodgate comments pair them so: a `score mate` line's `pv` with the
/// `score cp` before it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// The last `score cp`, from the mover's view.
    pub score_cp: Option<i64>,
    /// The moves after the last `pv`, as written.
    pub pv: Vec<String>,
    /// The last score of either kind, from the mover's view: `score cp` as it is, `score
    /// mate` as ±30000 (for adjudication).
    pub score: Option<i64>,
}

/// A `score mate` as a score: ±30000, the sign the mate's.
pub const MATE_SCORE: i64 = 30_000;

impl Reading {
    /// Takes in one `info` line.
    ///
    /// ```
    /// use gyoku_arena::engine::Reading;
    /// let mut r = Reading::default();
    /// r.add("info depth 3 score cp -35 pv 8c8d 2f2e");
    /// r.add("info depth 4 score mate -9 pv 8c8d 7g7f");
    /// assert_eq!((r.score_cp, r.pv.join(" ")), (Some(-35), "8c8d 7g7f".to_string()));
    /// assert_eq!(r.score, Some(-30_000));
    /// ```
    pub fn add(&mut self, info: &str) {
        let words: Vec<&str> = info.split_whitespace().collect();
        if let Some(cp) = words.windows(3).find_map(|w| {
            (w[0] == "score" && w[1] == "cp")
                .then(|| w[2].parse::<i64>().ok())
                .flatten()
        }) {
            self.score_cp = Some(cp);
            self.score = Some(cp);
        }
        if let Some(mate) = words
            .windows(3)
            .find_map(|w| (w[0] == "score" && w[1] == "mate").then_some(w[2]))
        {
            // `mate -9`, `mate 5`, or `mate +`/`mate -` without a distance.
            self.score = Some(if mate.starts_with('-') {
                -MATE_SCORE
            } else {
                MATE_SCORE
            });
        }
        if let Some(at) = words.iter().position(|w| *w == "pv") {
            self.pv = words[at + 1..].iter().map(|w| (*w).to_string()).collect();
        }
    }
}

/// Reads lines into `tx`, each at most `max` bytes; stops at the end of output.
async fn read_lines(stdout: tokio::process::ChildStdout, max: usize, tx: mpsc::Sender<Line>) {
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(c) => c,
            Err(e) => {
                let _ = tx.send(Line::Closed(e.to_string())).await;
                return;
            }
        };
        if chunk.is_empty() {
            let _ = tx.send(Line::Closed("end of output".into())).await;
            return;
        }
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take > max + 1 {
            let _ = tx.send(Line::TooLong).await;
            return;
        }
        buf.extend_from_slice(&chunk[..take]);
        reader.consume(take);
        if end {
            let text = String::from_utf8_lossy(&buf).into_owned();
            buf.clear();
            if tx.send(Line::Text(text)).await.is_err() {
                return;
            }
        }
    }
}

impl Engine {
    /// Starts the engine: `usi` → `usiok`, `setoption` for each of `options` (derived by
    /// the runner) that the engine declares and then for each of the config's, `isready` →
    /// `readyok`.
    ///
    /// # Errors
    /// [`EngineFailure`] when it cannot start, exits, or does not answer in time.
    pub async fn start(
        config: &EngineConfig,
        options: &[(String, String)],
    ) -> Result<Engine, EngineFailure> {
        let argv = shell_words::split(&config.command)
            .map_err(|e| EngineFailure::Spawn(format!("'{}': {e}", config.command)))?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| EngineFailure::Spawn("empty engine command".into()))?;
        let mut command = Process::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            // Its own process group, so that everything it starts can be killed with it.
            .process_group(0);
        die_with_parent(command.as_std_mut());
        let mut child = command
            .spawn()
            .map_err(|e| EngineFailure::Spawn(format!("'{}': {e}", config.command)))?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(nix::unistd::Pid::from_raw);
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(read_lines(stdout, config.limits.max_line, tx));
        RUNNING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut engine = Engine {
            child,
            group,
            stdin,
            lines: rx,
            name: program.clone(),
            options: Vec::new(),
            limits: config.limits,
            lines_this_move: 0,
            last_info: None,
            reading: Reading::default(),
            exited: None,
            log: None,
        };
        engine.send(&Command::Usi).await?;
        let deadline = Instant::now() + engine.limits.handshake;
        loop {
            match engine.recv(deadline, "usiok").await? {
                EngineMessage::IdName(n) => {
                    // Shown in tables and written in records: never a terminal control.
                    engine.name = gyoku_kifu::escape_controls(&n).into_owned();
                }
                EngineMessage::Option(o) => engine.options.push(o),
                EngineMessage::UsiOk => break,
                _ => {}
            }
        }
        engine.set_derived(options, &config.options).await?;
        for (name, value) in &config.options {
            let command = Command::SetOption {
                name: name.clone(),
                value: Some(value.clone()),
            };
            engine.send(&command).await?;
        }
        engine.ready().await?;
        Ok(engine)
    }

    /// Sends the options the runner derives from the rules (the entering-king rule, the
    /// move limit, the variant: [`crate::executor::derived_options`]) that the engine
    /// declares and `user` does not set: the user's options win. Between games, before
    /// `isready` ([`Engine::new_game`]), for a game under other rules.
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn set_derived(
        &mut self,
        options: &[(String, String)],
        user: &[(String, String)],
    ) -> Result<(), EngineFailure> {
        for (name, value) in options {
            if self.has_option(name) && !user.iter().any(|(n, _)| n == name) {
                let command = Command::SetOption {
                    name: name.clone(),
                    value: Some(value.clone()),
                };
                self.send(&command).await?;
            }
        }
        Ok(())
    }

    /// The engine's `id name` (the program's name if it gave none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Logs its traffic from now on into `log` under `name` (`None`: no more).
    pub fn set_log(&mut self, log: Option<(UsiLog, String)>) {
        self.log = log;
    }

    /// The options it declared.
    pub fn options(&self) -> &[OptionDecl] {
        &self.options
    }

    /// Whether it declared option `name`.
    pub fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.name == name)
    }

    /// Whether `go` may carry `binc`/`winc`: gpsusi 0.7.0 aborts on them (so it gets the
    /// increment folded into its time instead).
    pub fn accepts_increment(&self) -> bool {
        !self.name.starts_with("gpsshogi")
    }

    /// Writes a command.
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn send(&mut self, command: &Command) -> Result<(), EngineFailure> {
        let line = format!("{command}\n");
        if let Some((log, name)) = &self.log {
            log.add(name, '>', &line);
        }
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| EngineFailure::Crash(format!("cannot write '{command}': {e}")))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| EngineFailure::Crash(format!("cannot write '{command}': {e}")))
    }

    /// The next message, by `deadline`.
    async fn recv(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
    ) -> Result<EngineMessage, EngineFailure> {
        let line = loop {
            if let Some((status, at)) = self.exited {
                // The process is gone (its output may be held open by a child of a
                // wrapper script): what it wrote before is still read, briefly.
                let drained = at + Duration::from_millis(200);
                match timeout_at(deadline.min(drained), self.lines.recv()).await {
                    Ok(line) => break Ok(line),
                    Err(e) if Instant::now() >= deadline => break Err(e),
                    Err(_) => return Err(EngineFailure::Crash(format!("exited ({status})"))),
                }
            }
            tokio::select! {
                biased;
                line = timeout_at(deadline, self.lines.recv()) => break line,
                status = self.child.wait() => match status {
                    Ok(status) => self.exited = Some((status, Instant::now())),
                    Err(e) => return Err(EngineFailure::Crash(format!("cannot wait for it: {e}"))),
                },
            }
        };
        match line {
            Err(_) => Err(EngineFailure::Hang(waiting_for)),
            Ok(None) => Err(EngineFailure::Crash("output closed".into())),
            Ok(Some(Line::Closed(why))) => Err(EngineFailure::Crash(self.exit_status(why))),
            Ok(Some(Line::TooLong)) => Err(EngineFailure::Flood(format!(
                "a line longer than {} bytes",
                self.limits.max_line
            ))),
            Ok(Some(Line::Text(text))) => {
                if let Some((log, name)) = &self.log {
                    log.add(name, '<', &text);
                }
                self.lines_this_move += 1;
                if self.lines_this_move > self.limits.max_lines_per_move {
                    return Err(EngineFailure::Flood(format!(
                        "more than {} lines for one move",
                        self.limits.max_lines_per_move
                    )));
                }
                Ok(EngineMessage::parse(&text))
            }
        }
    }

    fn exit_status(&mut self, why: String) -> String {
        match self.child.try_wait() {
            Ok(Some(status)) => format!("exited ({status})"),
            _ => why,
        }
    }

    /// `isready` → `readyok`.
    ///
    /// # Errors
    /// [`EngineFailure`].
    pub async fn ready(&mut self) -> Result<(), EngineFailure> {
        self.send(&Command::IsReady).await?;
        let deadline = Instant::now() + self.limits.ready;
        self.lines_this_move = 0;
        loop {
            if self.recv(deadline, "readyok").await? == EngineMessage::ReadyOk {
                return Ok(());
            }
        }
    }

    /// `isready` → `readyok`, then `usinewgame`.
    ///
    /// # Errors
    /// [`EngineFailure`].
    pub async fn new_game(&mut self) -> Result<(), EngineFailure> {
        self.ready().await?;
        self.send(&Command::UsiNewGame).await
    }

    /// Sends `position` and `go`, and waits for `bestmove` until `deadline` (plus the
    /// late-move grace). Returns when the answer was read, or [`Thought::NoAnswer`].
    ///
    /// # Errors
    /// [`EngineFailure`] when it crashes, floods or answers garbage.
    pub async fn think(
        &mut self,
        position: &Command,
        go: &Go,
        deadline: Instant,
    ) -> Result<Thought, EngineFailure> {
        self.go(position, go).await?;
        self.bestmove(deadline).await
    }

    /// Sends `position` and `go` (the answer is read by [`Engine::bestmove`]).
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn go(&mut self, position: &Command, go: &Go) -> Result<(), EngineFailure> {
        self.send(position).await?;
        self.lines_this_move = 0;
        self.last_info = None;
        self.reading = Reading::default();
        self.send(&Command::Go(go.clone())).await
    }

    /// Waits for `bestmove` until `deadline` (plus the late-move grace). Cancel-safe: a
    /// wait dropped half-way loses no line, and may be taken up again.
    ///
    /// # Errors
    /// [`EngineFailure`] when it crashes, floods or answers garbage.
    pub async fn bestmove(&mut self, deadline: Instant) -> Result<Thought, EngineFailure> {
        let deadline = deadline + self.limits.late_move_grace;
        loop {
            match self.recv(deadline, "bestmove").await {
                Ok(EngineMessage::Info(info)) => {
                    let main_line = info
                        .raw
                        .split_whitespace()
                        .skip_while(|w| *w != "multipv")
                        .nth(1)
                        .is_none_or(|n| n == "1");
                    if main_line {
                        self.reading.add(&info.raw);
                        self.last_info = Some(info);
                    }
                }
                Ok(EngineMessage::BestMove { best, ponder }) => {
                    return Ok(Thought::Answer {
                        best,
                        ponder,
                        at: Instant::now(),
                    });
                }
                Ok(EngineMessage::Malformed { line, reason }) => {
                    return Err(EngineFailure::Garbage(format!("{line} ({reason})")));
                }
                Ok(_) => {}
                Err(EngineFailure::Hang(_)) => return Ok(Thought::NoAnswer),
                Err(e) => return Err(e),
            }
        }
    }

    /// The waits and output limits it runs under.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The last main-line `info` the engine wrote while thinking about its last move.
    pub fn last_info(&self) -> Option<&Info> {
        self.last_info.as_ref()
    }

    /// What the engine's main-line `info` lines said while thinking about its last move.
    pub fn reading(&self) -> &Reading {
        &self.reading
    }

    /// `stop`: the engine is to answer at once (its `bestmove` is read and dropped by the
    /// next wait for `readyok`).
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn stop(&mut self) -> Result<(), EngineFailure> {
        self.send(&Command::Stop).await
    }

    /// `ponderhit`: the reply the engine pondered on was played; `times` are written after
    /// it when set (`ponderhit btime … wtime …`). Its `bestmove` is read by
    /// [`Engine::bestmove`].
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn ponder_hit(&mut self, times: Go) -> Result<(), EngineFailure> {
        self.send(&Command::PonderHit(times)).await
    }

    /// Tells the engine the game is over (`gameover`), from its point of view.
    ///
    /// # Errors
    /// [`EngineFailure::Crash`] when its input is closed.
    pub async fn game_over(&mut self, result: GameOverResult) -> Result<(), EngineFailure> {
        self.send(&Command::GameOver(result)).await
    }

    /// `quit`, then kills the process if it has not exited within the grace period.
    pub async fn quit(mut self) {
        let _ = self.send(&Command::Quit).await;
        let grace = self.limits.quit_grace;
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }

    /// Kills the process now.
    pub async fn kill(mut self) {
        self.kill_group();
        let _ = self.child.kill().await;
    }

    /// Kills every process of the engine's group (the engine, and whatever a wrapper
    /// script started). A group that is already gone is no error.
    fn kill_group(&mut self) {
        if let Some(group) = self.group {
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

impl Drop for Engine {
    /// Whatever way an engine goes (quit, kill, a match interrupted by a signal, a task
    /// aborted), its whole process group goes with it.
    fn drop(&mut self) {
        self.kill_group();
        RUNNING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The engines of this process started and not yet dropped.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many engine processes this process runs now: those [`Engine::start`] started,
/// less those dropped (a dropped engine's process group is killed).
///
/// ```
/// assert_eq!(gyoku_arena::engine::running(), 0);
/// ```
pub fn running() -> usize {
    RUNNING.load(std::sync::atomic::Ordering::Relaxed)
}

/// On Linux, the process `command` starts is killed by the kernel when this one dies,
/// even by SIGKILL (`PR_SET_PDEATHSIG`). The signal comes when the thread that started it
/// ends: engines are started from the runtime's worker threads, which live as long as the
/// match does (a caller on a thread of its own keeps that thread while the child lives).
///
/// ```no_run
/// let mut command = std::process::Command::new("/usr/games/gpsusi");
/// gyoku_arena::engine::die_with_parent(&mut command);
/// let child = command.spawn();
/// ```
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn die_with_parent(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls may be made. It makes two system calls, prctl(2) and
    // getppid(2), through nix's thin wrappers, which neither allocate nor lock; the error
    // it may return is built from a raw OS error code, without allocating. It reads only
    // `parent`, a copied integer. There is no safe API for a parent-death signal: it must
    // be set in the child itself, before exec.
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                .map_err(|e| std::io::Error::from_raw_os_error(e as i32))?;
            // The runner died before the signal was set: do not start an orphan.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(nix::libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Elsewhere: nothing (the child is killed when its handle is dropped, if asked).
#[cfg(not(target_os = "linux"))]
pub fn die_with_parent(_command: &mut std::process::Command) {}
