//! A USI engine on a CSA server, with the referee watching: `gyoku csa-client`.
//!
//! The bridge logs in (CSA mode, or x1 with `%%GAME`), reads each `Game_Summary`, agrees,
//! and plays the engine: `position` with the whole game, `go` with the clocks the server
//! says (its `T` charges, as ShogiHome's bridge counts them), the engine's `bestmove` sent
//! as a CSA move with Floodgate's `'* <eval> <pv>` comment, `bestmove win` as `%KACHI`,
//! `resign` as `%TORYO`, an empty keep-alive line after 30 s of silence, `gameover` at the
//! end. Meanwhile it plays every echoed move through its own [`gyoku::Game`] under the
//! rules the summary names, and reports each disagreement with the server: an echoed move
//! the rules refuse, an ending the rules do not give, a time-up its own clock did not see,
//! a declaration refused that the rules grant. Each game is written as KIF and CSA, with a
//! line in `results.jsonl`. A dropped connection is logged in again (a bounded number of
//! times in a row); the engine process dies with the bridge.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gyoku::rules::{MoveLimit, Resolution};
use gyoku::{Color, EndReason, Game, GameResult, Position, Preset, RuleSet};
use gyoku_kifu::{Format, Record, Terminal};
use gyoku_proto::csa::{EndResult, GameEnd, GameSummary, SummaryTime};
use gyoku_proto::csa_client::{ClientSession, EchoedMove, Event, Reason};
use gyoku_proto::{BestMove, Command, GameOverResult, Go, PositionStart};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::time::{Instant, timeout, timeout_at};

use crate::engine::{Engine, EngineConfig, EngineFailure, Reading, Thought};

/// The longest line accepted from a server, bytes.
pub const MAX_LINE: usize = 64 * 1024;

/// Connections that may fail in a row (refused, dropped before a game) before the bridge
/// gives up.
pub const MAX_RECONNECTS: u32 = 10;

/// How the bridge plays.
#[derive(Clone, Debug)]
pub struct BridgeConfig {
    /// The server's host name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The login name.
    pub id: String,
    /// The password.
    pub password: String,
    /// The game name to play (`floodgate-300-10F`): in CSA mode sent as `game,password`,
    /// in x1 mode with `%%GAME`. `None`: a plain `LOGIN id password` (the server decides).
    pub game: Option<String>,
    /// x1 mode.
    pub x1: bool,
    /// Games to play; `None`: until stopped.
    pub games: Option<u32>,
    /// The engine.
    pub engine: EngineConfig,
    /// Taken off the engine's own time in `go` (network and bridge latency).
    pub margin: Duration,
    /// Where records and `results.jsonl` go; `None`: nowhere.
    pub out: Option<PathBuf>,
    /// Floodgate's `'* <eval> <pv>` comment on each move.
    pub comments: bool,
    /// A new engine process for every game (the last one is sent `quit`).
    pub restart_engine: bool,
    /// When the engine thinks on the opponent's time.
    pub ponder: Ponder,
    /// An empty line is sent after this much silence.
    pub keepalive: Duration,
    /// How long to wait between connection attempts.
    pub retry: Duration,
    /// How long to wait for the server beyond what the clocks allow before it counts as
    /// no longer answering (the connection is dropped and logged in again).
    pub server_grace: Duration,
    /// One sitting: play every game the server proposes on one connection (the replay
    /// after a no contest included, however many `games` says), and stop when the server
    /// closes it, never logging in again once a game was played (a web page's engine).
    pub one_sitting: bool,
    /// A connection lost mid-game is tried again this long with the game's reconnect
    /// token (rshogi's `reconnect:`, when the server gave one), the engine and its
    /// position kept; zero: never.
    pub reconnect_for: Duration,
    /// A fixed search (`nodes`, `depth`, `movetime`) sent on each move in place of the
    /// clocks: a level of a server's engine ([`Go`] with only those set). `None`: the
    /// clocks, as the server charges them.
    pub strength: Option<Go>,
}

impl BridgeConfig {
    /// A config with the usual waits: keep-alive 30 s, margin 500 ms, comments on.
    pub fn new(host: &str, port: u16, id: &str, password: &str, engine: EngineConfig) -> Self {
        BridgeConfig {
            host: host.to_string(),
            port,
            id: id.to_string(),
            password: password.to_string(),
            game: None,
            x1: false,
            games: Some(1),
            engine,
            margin: Duration::from_millis(500),
            out: None,
            comments: true,
            restart_engine: false,
            ponder: Ponder::Off,
            keepalive: Duration::from_secs(30),
            retry: Duration::from_secs(2),
            server_grace: Duration::from_secs(60),
            one_sitting: false,
            reconnect_for: Duration::from_secs(30),
            strength: None,
        }
    }
}

/// When the engine thinks on the opponent's time (`USI_Ponder` is set for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ponder {
    /// Never.
    #[default]
    Off,
    /// Once its own move is echoed, on the reply it expects (`bestmove m ponder r`):
    /// `go ponder` with the clocks the server charged, then `ponderhit` when that reply is
    /// played, or `stop` and a normal `go` when another is (ShogiHome's default).
    AfterEcho,
    /// Right after its `bestmove`, before the echo: `go ponder` without clocks, then
    /// `ponderhit btime … wtime …` with them (ShogiHome's early ponder).
    AtOnce,
}

/// One game as the bridge saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReport {
    /// The Game_ID.
    pub game_id: String,
    /// Black's and White's names.
    pub names: [String; 2],
    /// The bridge's side.
    pub me: Color,
    /// The server's reason line (`#RESIGN`), if it sent one.
    pub reason: Option<String>,
    /// The server's result line for the bridge (`#WIN`), if it sent one.
    pub result: Option<String>,
    /// The referee's judgement (`white (resignation)`), if the game ended by the rules.
    pub judged: Option<String>,
    /// Where the server and the rules disagree.
    pub disagreements: Vec<String>,
    /// Moves played (those before the start included).
    pub plies: usize,
}

impl GameReport {
    /// The report as one JSON line of `results.jsonl`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "game_id": self.game_id,
            "black": self.names[0],
            "white": self.names[1],
            "me": if self.me == Color::Black { "black" } else { "white" },
            "reason": self.reason,
            "result": self.result,
            "judged": self.judged,
            "plies": self.plies,
            "disagreements": self.disagreements,
        })
    }
}

/// Why the bridge stopped.
#[derive(Debug)]
pub enum BridgeError {
    /// The server refused the login (a wrong password is not retried).
    LoginRefused,
    /// The server could not be reached, or kept dropping the connection.
    Server(String),
    /// The engine could not be started or failed outside a game.
    Engine(EngineFailure),
    /// Records or results could not be written.
    Output(String),
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BridgeError::LoginRefused => {
                f.write_str("the server refused the login (LOGIN:incorrect)")
            }
            BridgeError::Server(e) => write!(f, "server: {e}"),
            BridgeError::Engine(e) => write!(f, "engine: {e}"),
            BridgeError::Output(e) => write!(f, "output: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {}

fn log(msg: &str) {
    eprintln!("csa-client: {msg}");
}

/// A connection to the server: bounded lines, every write timed.
struct Conn {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    /// A line being read (kept across a cancelled read).
    buf: Vec<u8>,
    last_write: Instant,
}

/// Why a connection can no longer be used.
#[derive(Debug)]
enum ConnError {
    Closed,
    Io(String),
    /// The server said nothing for longer than the clocks allow.
    Silent,
    /// It began a `Game_Summary` and did not end it in time.
    SlowSummary,
    Garbage(String),
}

impl std::fmt::Display for ConnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnError::Closed => f.write_str("the server closed the connection"),
            ConnError::Io(e) => f.write_str(e),
            ConnError::Silent => f.write_str("the server stopped answering"),
            ConnError::SlowSummary => write!(
                f,
                "the server's Game_Summary did not arrive whole within {} s",
                SUMMARY_TIME.as_secs()
            ),
            ConnError::Garbage(e) => write!(f, "the server sent what cannot be read: {e}"),
        }
    }
}

impl Conn {
    async fn connect(host: &str, port: u16) -> Result<Conn, ConnError> {
        let stream = timeout(Duration::from_secs(10), TcpStream::connect((host, port)))
            .await
            .map_err(|_| ConnError::Io(format!("{host}:{port}: no answer in 10 s")))?
            .map_err(|e| ConnError::Io(format!("{host}:{port}: {e}")))?;
        let _ = stream.set_nodelay(true);
        let (r, w) = stream.into_split();
        Ok(Conn {
            reader: BufReader::new(r),
            writer: w,
            buf: Vec::new(),
            last_write: Instant::now(),
        })
    }

    async fn send(&mut self, line: &str) -> Result<(), ConnError> {
        let text = format!("{line}\n");
        match timeout(
            Duration::from_secs(30),
            self.writer.write_all(text.as_bytes()),
        )
        .await
        {
            Ok(Ok(())) => {
                self.last_write = Instant::now();
                Ok(())
            }
            Ok(Err(e)) => Err(ConnError::Io(e.to_string())),
            Err(_) => Err(ConnError::Io("a write took over 30 s".into())),
        }
    }

    /// The next line (cancel-safe: a partial line is kept for the next call).
    async fn line(&mut self) -> Result<String, ConnError> {
        let room = (MAX_LINE + 1).saturating_sub(self.buf.len()) as u64;
        let mut limited = (&mut self.reader).take(room);
        let n = limited
            .read_until(b'\n', &mut self.buf)
            .await
            .map_err(|e| ConnError::Io(e.to_string()))?;
        if self.buf.len() > MAX_LINE {
            return Err(ConnError::Garbage(format!(
                "a line longer than {MAX_LINE} bytes"
            )));
        }
        if n == 0 && !self.buf.ends_with(b"\n") {
            return Err(ConnError::Closed);
        }
        let text = String::from_utf8_lossy(&self.buf)
            .trim_end_matches(['\r', '\n'])
            .to_string();
        self.buf.clear();
        Ok(text)
    }

    /// The next event, sending keep-alives while waiting, until `deadline`. A
    /// `Game_Summary` begun must end within [`SUMMARY_TIME`] (a server writes it at once):
    /// one dripped a line at a time is the server not answering, however far `deadline`.
    async fn event(
        &mut self,
        session: &mut ClientSession,
        keepalive: Duration,
        deadline: Instant,
    ) -> Result<Event, ConnError> {
        let mut summary_by: Option<Instant> = None;
        loop {
            let limit = summary_by.map_or(deadline, |t| t.min(deadline));
            let ping = self.last_write + keepalive;
            let wake = ping.min(limit);
            match timeout_at(wake, self.line()).await {
                Err(_) if wake == limit && summary_by.is_some_and(|t| t <= deadline) => {
                    return Err(ConnError::SlowSummary);
                }
                Err(_) if wake == limit => return Err(ConnError::Silent),
                Err(_) => self.send("").await?,
                Ok(line) => {
                    let line = line?;
                    match session.read(&line) {
                        Ok(Some(ev)) => return Ok(ev),
                        Ok(None) => {
                            if session.in_summary() {
                                summary_by.get_or_insert_with(|| Instant::now() + SUMMARY_TIME);
                            }
                        }
                        Err(e) => return Err(ConnError::Garbage(e.to_string())),
                    }
                }
            }
        }
    }
}

/// How long a `Game_Summary`'s lines may take from its first to its last.
pub const SUMMARY_TIME: Duration = Duration::from_secs(10);

/// A game as the summary sets it up.
struct Setup {
    game_id: String,
    names: [String; 2],
    me: Color,
    rules: RuleSet,
    preset: Preset,
    start: Position,
    /// Moves played before the start, with their times.
    played: Vec<(String, Option<u64>)>,
    /// Each side's clock: main, byoyomi, increment (ms).
    times: [(u64, u64, u64); 2],
}

/// The rules a `Declaration:` line names: `Jishogi 1.1` (and none) is CSA's, `Gyoku
/// <preset>` a Gyoku server's preset.
pub fn preset_of_declaration(line: Option<&str>) -> Preset {
    match line.map(str::trim) {
        Some(d) if d.starts_with("Gyoku ") => d["Gyoku ".len()..].parse().unwrap_or(Preset::Csa),
        _ => Preset::Csa,
    }
}

/// One side's main time, byoyomi and increment in milliseconds, or why the summary's
/// clock does not read (then the game is rejected, never played on a clock of zeros).
fn side_times(t: &SummaryTime, side: &str) -> Result<(u64, u64, u64), String> {
    t.clock_ms().map_err(|e| format!("{side}'s time: {e}"))
}

impl Setup {
    fn read(s: &GameSummary) -> Result<Setup, String> {
        let field = |k: &str| s.field(k).map(str::to_string);
        let me = s.your_turn().ok_or("no Your_Turn in the Game_Summary")?;
        let preset = preset_of_declaration(s.field("Declaration"));
        let mut rules = preset.rules();
        rules.move_limit = match s.max_moves() {
            Some(n) => Some(MoveLimit {
                plies: n,
                check_extension: false,
                result: Resolution::Draw,
                strict_csa_server: false,
            }),
            None if s.field("Max_Moves").is_some() => None,
            None => rules.move_limit,
        };
        let record = summary_record(s)?;
        let mut pos = record.start.clone();
        let mut played = Vec::new();
        for m in &record.moves {
            let color = pos.turn();
            played.push((gyoku_kifu::csa::move_text(&pos, m.mv, color), m.time_ms));
            pos.play(m.mv)
                .map_err(|e| format!("a move before the start: {e}"))?;
        }
        if record.foul.is_some() {
            return Err("an illegal move among the moves before the start".into());
        }
        Ok(Setup {
            game_id: field("Game_ID").unwrap_or_default(),
            names: [
                field("Name+").unwrap_or_default(),
                field("Name-").unwrap_or_default(),
            ],
            me,
            rules,
            preset,
            start: record.start,
            played,
            times: [
                side_times(s.time.of(Color::Black), "Black")?,
                side_times(s.time.of(Color::White), "White")?,
            ],
        })
    }
}

/// A `Game_Summary`'s position block read as a CSA record: the start (board, hands, side
/// to move) and the moves already played, with their times.
///
/// # Errors
/// A block that does not read, or holds no position.
pub fn summary_record(s: &GameSummary) -> Result<gyoku_kifu::Record, String> {
    let text = format!("V2.2\n{}\n", s.position.join("\n"));
    gyoku_kifu::read_str(&text, Format::Csa)
        .map_err(|e| format!("the Game_Summary's position: {e}"))?
        .into_iter()
        .next()
        .ok_or_else(|| "the Game_Summary has no position".to_string())
}

/// Each side's main time left, by the server's `T` charges.
#[derive(Clone, Copy, Debug)]
struct Clocks {
    remaining: [u64; 2],
    times: [(u64, u64, u64); 2],
}

impl Clocks {
    fn charge(&mut self, color: Color, ms: u64) {
        let i = color.index();
        let (_, _, inc) = self.times[i];
        self.remaining[i] = self.remaining[i].saturating_sub(ms) + inc;
    }

    /// All `color` may use on a move: main time, byoyomi, increment.
    fn available(&self, color: Color) -> u64 {
        let (_, byo, inc) = self.times[color.index()];
        self.remaining[color.index()] + byo + inc
    }

    /// `go` as ShogiHome's bridge writes it: both sides' main time left, then `byoyomi`
    /// or `binc`/`winc` (USI allows one or the other); `margin` off the mover's own time.
    fn go(&self, me: Color, margin: u64, increments: bool) -> Go {
        let mut remaining = self.remaining;
        let (_, byo, _) = self.times[me.index()];
        let mut byoyomi = byo;
        let own = &mut remaining[me.index()];
        let short = margin.saturating_sub(*own);
        *own = own.saturating_sub(margin);
        byoyomi = byoyomi.saturating_sub(short);
        let (binc, winc) = (self.times[0].2, self.times[1].2);
        let mut go = Go {
            btime: Some(remaining[0]),
            wtime: Some(remaining[1]),
            ..Go::default()
        };
        if byo > 0 || (binc == 0 && winc == 0) {
            // Sudden death is `byoyomi 0`, as ShogiHome writes it.
            go.byoyomi = Some(byoyomi);
        } else {
            if increments {
                go.binc = Some(binc);
                go.winc = Some(winc);
            } else {
                go.btime = go.btime.map(|t| t + binc);
                go.wtime = go.wtime.map(|t| t + winc);
            }
        }
        go
    }
}

/// Floodgate's move comment from what the engine said of its search: `* <eval> <pv>`,
/// the last centipawn score from Black's side, the last reading after the move itself in
/// CSA; none without a centipawn score.
pub fn floodgate_comment(reading: &Reading, pos: &Position, mv: gyoku::Move) -> Option<String> {
    let score = reading.score_cp?;
    let eval = if pos.turn() == Color::Black {
        score
    } else {
        -score
    };
    let mut text = format!("* {eval}");
    let pv = &reading.pv;
    let mut p = pos.clone();
    for (i, w) in pv.iter().enumerate() {
        let Ok(m) = w.parse::<gyoku::Move>() else {
            break;
        };
        if i == 0 && m == mv {
            if p.play(m).is_err() {
                break;
            }
            continue;
        }
        if i == 0 {
            // The reading does not start with the move played: none of it applies.
            break;
        }
        let color = p.turn();
        let csa = gyoku_kifu::csa::move_text(&p, m, color);
        if p.play(m).is_err() {
            break;
        }
        text.push(' ');
        text.push_str(&csa);
    }
    Some(text)
}

/// Runs the bridge until it has played its games (or fails for good).
///
/// # Errors
/// [`BridgeError`].
pub async fn run(config: &BridgeConfig) -> Result<Vec<GameReport>, BridgeError> {
    let mut engine = None;
    let result = run_with(config, &mut engine).await;
    if let Some(e) = engine.take() {
        e.quit().await;
    }
    result
}

/// [`run`] on the engine in `engine` (started there when empty), which is left there for
/// the caller when the bridge ends (a server's pool of engine processes, reused from game
/// to game); an engine that failed is not.
///
/// # Errors
/// As [`run`].
pub async fn run_with(
    config: &BridgeConfig,
    engine: &mut Option<Engine>,
) -> Result<Vec<GameReport>, BridgeError> {
    // A pondering engine is told so (`USI_Ponder`), unless the user set it.
    let mut config = std::borrow::Cow::Borrowed(config);
    if config.ponder != Ponder::Off && !config.engine.options.iter().any(|(n, _)| n == "USI_Ponder")
    {
        config
            .to_mut()
            .engine
            .options
            .push(("USI_Ponder".into(), "true".into()));
    }
    let config = config.as_ref();
    let mut reports = Vec::new();
    let mut failures = 0;
    let result = loop {
        if config.games.is_some_and(|n| reports.len() >= n as usize) {
            break Ok(());
        }
        match session(config, engine, &mut reports).await {
            Ok(true) if config.one_sitting => break Ok(()),
            Ok(played) => {
                if played {
                    failures = 0;
                } else {
                    failures += 1;
                }
            }
            Err(SessionError::Fatal(e)) => break Err(e),
            Err(SessionError::Connection(e)) => {
                log(&format!("{e}; logging in again"));
                failures += 1;
            }
        }
        if failures >= MAX_RECONNECTS {
            break Err(BridgeError::Server(format!(
                "{MAX_RECONNECTS} connections in a row gave no game; giving up"
            )));
        }
        if config.games.is_none_or(|n| reports.len() < n as usize) {
            tokio::time::sleep(config.retry).await;
        }
    };
    result.map(|()| reports)
}

enum SessionError {
    Fatal(BridgeError),
    Connection(ConnError),
}

impl From<ConnError> for SessionError {
    fn from(e: ConnError) -> SessionError {
        SessionError::Connection(e)
    }
}

/// One connection: log in, play games until the server closes it (CSA mode: after each
/// game) or the bridge has played enough. Whether a game was played.
async fn session(
    config: &BridgeConfig,
    engine: &mut Option<Engine>,
    reports: &mut Vec<GameReport>,
) -> Result<bool, SessionError> {
    let mut conn = Conn::connect(&config.host, config.port).await?;
    let mut session = ClientSession::new();
    let login = match (&config.game, config.x1) {
        (_, true) => format!("LOGIN {} {} x1", config.id, config.password),
        (Some(g), false) => format!("LOGIN {} {g},{}", config.id, config.password),
        (None, false) => format!("LOGIN {} {}", config.id, config.password),
    };
    conn.send(&login).await?;
    let login_deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match conn
            .event(&mut session, config.keepalive, login_deadline)
            .await?
        {
            Event::LoggedIn => break,
            Event::LoginRefused => return Err(SessionError::Fatal(BridgeError::LoginRefused)),
            _ => {}
        }
    }
    let mut played = false;
    loop {
        if !config.one_sitting && config.games.is_some_and(|n| reports.len() >= n as usize) {
            // Done: `LOGOUT`, and its answer (or the server closing) awaited a little.
            if conn.send("LOGOUT").await.is_ok() {
                let until = Instant::now() + Duration::from_secs(5);
                while let Ok(ev) = conn.event(&mut session, config.keepalive, until).await {
                    if ev == Event::LoggedOut {
                        break;
                    }
                }
            }
            return Ok(played);
        }
        if config.x1
            && let Some(g) = &config.game
        {
            conn.send(&format!("%%GAME {g} *")).await?;
        }
        // Waiting for an opponent may take long: no deadline but the keep-alives.
        let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
        let summary = loop {
            match conn.event(&mut session, config.keepalive, far).await {
                Ok(Event::Proposed(s)) => break *s,
                Ok(Event::LoggedOut) | Err(ConnError::Closed) if played => return Ok(played),
                Ok(_) => {}
                Err(e) => return Err(e.into()),
            }
        };
        let report = game(config, engine, &mut conn, &mut session, &summary).await?;
        if let Some(report) = report {
            if let Some(dir) = &config.out {
                append_result(dir, &report)
                    .map_err(|e| SessionError::Fatal(BridgeError::Output(e)))?;
            }
            reports.push(report);
            played = true;
        }
    }
}

/// What a player that came back to its game learns: the new connection, the moves played
/// so far (its own last one among them if the server had it), its next token, and each
/// side's main time left (ms) as of the resumption.
struct Resumed {
    conn: Conn,
    session: ClientSession,
    played: Vec<(String, Option<u64>)>,
    token: Option<String>,
    remaining: Option<[u64; 2]>,
}

/// Why one try to come back failed: to try again, or not (the server refused).
enum ComeBack {
    Again(String),
    Refused(String),
}

/// The token a Game_Summary gives to come back with (`Reconnect_Token:`).
fn reconnect_token(s: &GameSummary) -> Option<String> {
    s.trailer
        .iter()
        .find(|(k, _)| k == "Reconnect_Token")
        .map(|(_, v)| v.clone())
}

/// Logs in again to take up `game_id` with `token`, trying for
/// [`BridgeConfig::reconnect_for`] (waits of 0.2 s, doubling, at most 5 s, between tries).
async fn come_back(config: &BridgeConfig, game_id: &str, token: &str) -> Result<Resumed, String> {
    let until = Instant::now() + config.reconnect_for;
    let mut wait = Duration::from_millis(200);
    let mut tries = 0u32;
    loop {
        tries += 1;
        match come_back_once(config, game_id, token).await {
            Ok(r) => {
                log(&format!(
                    "game {game_id}: the connection dropped; back in the game (try {tries})"
                ));
                return Ok(r);
            }
            Err(ComeBack::Refused(why)) => return Err(why),
            Err(ComeBack::Again(why)) => {
                if Instant::now() + wait >= until {
                    return Err(format!("{why}; gave up after {tries} tries"));
                }
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}

async fn come_back_once(
    config: &BridgeConfig,
    game_id: &str,
    token: &str,
) -> Result<Resumed, ComeBack> {
    let again = |e: ConnError| ComeBack::Again(e.to_string());
    let mut conn = Conn::connect(&config.host, config.port)
        .await
        .map_err(again)?;
    conn.send(&format!(
        "LOGIN {} {} reconnect:{game_id}+{token}",
        config.id, config.password
    ))
    .await
    .map_err(again)?;
    let mut session = ClientSession::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let summary = loop {
        match conn
            .event(&mut session, config.keepalive, deadline)
            .await
            .map_err(again)?
        {
            Event::LoginRefused => {
                return Err(ComeBack::Refused(
                    "the server refused to take the game up again".into(),
                ));
            }
            Event::Proposed(s) => break *s,
            _ => {}
        }
    };
    // `BEGIN Reconnect_State` … `END Reconnect_State`, a few lines.
    let mut remaining = [None, None];
    for _ in 0..16 {
        let line = match conn.event(&mut session, config.keepalive, deadline).await {
            Ok(Event::Ignored(line)) => line,
            Ok(_) => continue,
            Err(e) => return Err(again(e)),
        };
        if line == "END Reconnect_State" {
            break;
        }
        for (k, key) in ["Black_Time_Remaining_Ms:", "White_Time_Remaining_Ms:"]
            .iter()
            .enumerate()
        {
            if let Some(ms) = line.strip_prefix(key) {
                remaining[k] = ms.parse().ok();
            }
        }
    }
    let setup = Setup::read(&summary).map_err(ComeBack::Refused)?;
    Ok(Resumed {
        conn,
        session,
        played: setup.played,
        token: reconnect_token(&summary),
        remaining: match remaining {
            [Some(b), Some(w)] => Some([b, w]),
            _ => None,
        },
    })
}

/// Starts the engine if needed and prepares it for a game under `rules` (the summary's):
/// it is told the entering-king rule and the move limit it plays under, where it offers
/// them (issue 41, item 6), before its `isready`.
async fn ready_engine<'a>(
    config: &BridgeConfig,
    engine: &'a mut Option<Engine>,
    rules: &gyoku::RuleSet,
) -> Result<&'a mut Engine, EngineFailure> {
    let derived = crate::executor::derived_options(rules);
    if engine.is_none() {
        // `usi`, the options, `isready` → `readyok`: ready for `usinewgame` at once.
        let mut e = Engine::start(&config.engine, &derived).await?;
        log(&format!("engine {} started", e.name()));
        e.send(&Command::UsiNewGame).await?;
        *engine = Some(e);
        return Ok(engine.as_mut().expect("just started"));
    }
    let e = engine.as_mut().expect("started");
    e.set_derived(&derived, &config.engine.options).await?;
    e.new_game().await?;
    Ok(e)
}

/// Plays one proposed game; `None` if it never started (rejected).
async fn game(
    config: &BridgeConfig,
    engine_slot: &mut Option<Engine>,
    conn: &mut Conn,
    session: &mut ClientSession,
    summary: &GameSummary,
) -> Result<Option<GameReport>, SessionError> {
    let setup = match Setup::read(summary) {
        Ok(s) => s,
        Err(e) => {
            let id = summary.field("Game_ID").unwrap_or_default();
            log(&format!("cannot play {id}: {e}; rejecting it"));
            conn.send(&format!("REJECT {id}")).await?;
            return Ok(None);
        }
    };
    log(&format!(
        "game {}: {} (black) vs {} (white), playing {}, rules {}",
        setup.game_id,
        setup.names[0],
        setup.names[1],
        if setup.me == Color::Black {
            "black"
        } else {
            "white"
        },
        setup.preset
    ));
    let mut report = GameReport {
        game_id: setup.game_id.clone(),
        names: setup.names.clone(),
        me: setup.me,
        reason: None,
        result: None,
        judged: None,
        disagreements: Vec::new(),
        plies: 0,
    };
    let mut referee = Game::new(setup.start.clone(), setup.rules);
    let mut times: Vec<Option<u64>> = Vec::new();
    let mut clocks = Clocks {
        remaining: [setup.times[0].0, setup.times[1].0],
        times: setup.times,
    };
    for (text, ms) in &setup.played {
        let color = referee.turn();
        if let Err(e) = play_text(&mut referee, text) {
            report
                .disagreements
                .push(format!("a move before the start, {text}, is illegal: {e}"));
            break;
        }
        clocks.charge(color, ms.unwrap_or(0));
        times.push(*ms);
    }
    let engine = match ready_engine(config, engine_slot, &setup.rules).await {
        Ok(e) => e,
        Err(e) => {
            log(&format!("engine: {e}; rejecting {}", setup.game_id));
            conn.send(&format!("REJECT {}", setup.game_id)).await?;
            *engine_slot = None;
            return Err(SessionError::Fatal(BridgeError::Engine(e)));
        }
    };
    conn.send(&format!("AGREE {}", setup.game_id)).await?;
    let agree_deadline = Instant::now() + Duration::from_secs(300);
    loop {
        match conn
            .event(session, config.keepalive, agree_deadline)
            .await?
        {
            Event::Started(_) => break,
            Event::Rejected(by) => {
                log(&format!("game {} rejected: {by}", setup.game_id));
                return Ok(None);
            }
            _ => {}
        }
    }
    let mut turn_started = Instant::now();
    // Issue 42: the token to come back with if the connection drops (a new one each time).
    let mut token = reconnect_token(summary);
    let mut search = Search::Idle;
    let mut stops = 0u32;
    // The reply to ponder on once the engine's own move is echoed.
    let mut expected: Option<gyoku::Move> = None;
    let mut awaiting_echo = false;
    // The move this engine sent and the server has not echoed yet (CSA text, no comment).
    let mut sent: Option<String> = None;
    let mut engine_silent = false;
    let mut special: Option<(String, Color)> = None;
    let server_end: (Option<Reason>, Option<EndResult>);
    let mut engine_failed: Option<EngineFailure> = None;
    let margin = u64::try_from(config.margin.as_millis()).unwrap_or(u64::MAX);
    let position_after = |referee: &Game, more: &[gyoku::Move]| Command::Position {
        start: if setup.start == Position::startpos() {
            PositionStart::Startpos
        } else {
            PositionStart::Sfen(setup.start.to_sfen())
        },
        moves: referee
            .plies()
            .iter()
            .map(|p| p.mv)
            .chain(more.iter().copied())
            .collect(),
    };
    loop {
        let to_move = referee.turn();
        let mine = to_move == setup.me;
        // Not when the rules say the game is over: the server's ruling comes next. But a
        // CSA server need not see checkmate (shogi-server does not): the mated engine is
        // asked all the same, and resigns, as under ShogiHome's bridge.
        let over = referee
            .outcome()
            .is_some_and(|o| !matches!(o.reason, EndReason::Checkmate | EndReason::NoLegalMove));
        if mine
            && search == Search::Idle
            && !awaiting_echo
            && !engine_silent
            && engine_failed.is_none()
            && special.is_none()
            && !over
        {
            let go = config
                .strength
                .clone()
                .unwrap_or_else(|| clocks.go(setup.me, margin, engine.accepts_increment()));
            if let Err(e) = engine.go(&position_after(&referee, &[]), &go).await {
                engine_failed = Some(e);
            } else {
                search = Search::Thinking { stop_sent: false };
            }
        }
        // The server answers within the mover's time (and the grace); while the engine
        // thinks, its own clock bounds the wait (pondering, only the server's answer does).
        let deadline =
            turn_started + Duration::from_millis(clocks.available(to_move)) + config.server_grace;
        // An engine still thinking when its time is all but out is sent `stop` (an
        // engine of the Stockfish family keeps the clocks of its `go` across `ponderhit`:
        // after an early `go ponder`, none).
        let time_out = turn_started + Duration::from_millis(clocks.available(to_move));
        let engine_deadline = match search {
            Search::Pondering { .. } => deadline,
            Search::Thinking { stop_sent: false } => {
                // Half the margin is left for the network (the other half was given
                // to the engine in `go`, for its own lateness).
                let before = config.margin / 2 + engine.limits().late_move_grace;
                time_out
                    .checked_sub(before)
                    .unwrap_or(time_out)
                    .max(turn_started)
            }
            _ => time_out,
        };
        tokio::select! {
            thought = engine.bestmove(engine_deadline), if search != Search::Idle => {
                if search == (Search::Thinking { stop_sent: false })
                    && thought == Ok(Thought::NoAnswer)
                {
                    stops += 1;
                    if stops == 1 {
                        log("the engine was still thinking with its time nearly out: stop \
                             (said once a game)");
                    }
                    search = Search::Thinking { stop_sent: true };
                    if let Err(e) = engine.stop().await {
                        engine_failed = Some(e);
                        search = Search::Idle;
                    }
                    continue;
                }
                if let Search::Pondering { .. } = search {
                    // USI says not before `ponderhit` or `stop`; some engines do (mated).
                    search = Search::Idle;
                    if let Ok(Thought::Answer { best, .. }) = &thought {
                        log(&format!("the engine answered while pondering ({best:?}); ignored"));
                    }
                    if let Err(e) = thought {
                        log(&format!("engine: {e}; waiting for the server's ruling"));
                        engine_failed = Some(e);
                    }
                    continue;
                }
                search = Search::Idle;
                match thought {
                    Ok(Thought::Answer { best, ponder, .. }) => {
                        let line = engine_move_line(config, engine, &referee, &best, setup.me);
                        if let BestMove::Win = best {
                            let mut trial = referee.clone();
                            let _ = trial.declare();
                            if let Some(o) = trial.outcome()
                                && o.result != GameResult::Win(setup.me)
                            {
                                log(&format!(
                                    "warning: the engine declares, and under {} the declaration fails ({o})",
                                    setup.preset
                                ));
                            }
                        }
                        conn.send(&line).await?;
                        awaiting_echo = true;
                        if let BestMove::Move(_) = best {
                            sent = line.split(',').next().map(str::to_string);
                        }
                        let reply = match (config.ponder, &best) {
                            (Ponder::Off, _) => None,
                            (_, BestMove::Move(m)) => ponder_reply(&referee, *m, ponder.as_deref()),
                            _ => None,
                        };
                        if let (Ponder::AtOnce, Some((m, reply))) = (config.ponder, reply) {
                            // Early: on the reply at once, no clocks (they come with
                            // `ponderhit`).
                            let go = Go { ponder: true, ..Go::default() };
                            match engine.go(&position_after(&referee, &[m, reply]), &go).await {
                                Ok(()) => search = Search::Pondering { reply, early: true },
                                Err(e) => engine_failed = Some(e),
                            }
                        } else {
                            expected = reply.map(|(_, r)| r);
                        }
                    }
                    Ok(Thought::NoAnswer) => {
                        log("the engine gave no move within its time; waiting for the server's ruling");
                        engine_silent = true;
                    }
                    Err(e) => {
                        log(&format!("engine: {e}; waiting for the server's ruling"));
                        engine_failed = Some(e);
                    }
                }
            }
            ev = conn.event(session, config.keepalive, deadline) => {
                let ev = match ev {
                    Ok(ev) => ev,
                    Err(e) => {
                        let lost = matches!(e, ConnError::Closed | ConnError::Io(_) | ConnError::Silent);
                        let back = match token.as_deref() {
                            Some(t) if lost && !config.reconnect_for.is_zero() => {
                                log(&format!("game {}: {e}; coming back with its token", setup.game_id));
                                come_back(config, &setup.game_id, t).await.map_err(|why| {
                                    log(&format!("game {}: not back: {why}", setup.game_id));
                                })
                            }
                            _ => Err(()),
                        };
                        let Ok(back) = back else {
                            if search != Search::Idle {
                                let _ = engine.stop().await;
                            }
                            return Err(e.into());
                        };
                        *conn = back.conn;
                        *session = back.session;
                        token = back.token;
                        // The moves the server has that this side did not see echoed: its
                        // own last one (then it is no longer awaited), the opponent's (then
                        // a ponder on another is stopped).
                        let known = referee.plies().len();
                        for (text, ms) in back.played.iter().skip(known) {
                            let color = referee.turn();
                            if color == setup.me {
                                if sent.as_deref() == Some(text.as_str()) {
                                    sent = None;
                                    awaiting_echo = false;
                                }
                            } else if let Search::Pondering { .. } = search {
                                search = Search::Idle;
                                if let Err(e) = stop_pondering(engine).await {
                                    engine_failed = Some(e);
                                }
                                expected = None;
                            }
                            let m = EchoedMove { text: text.clone(), ms: *ms, comment: None };
                            echoed(&mut report, &mut referee, &m);
                            clocks.charge(color, ms.unwrap_or(0));
                            times.push(*ms);
                        }
                        if let Some(left) = back.remaining {
                            clocks.remaining = left;
                        }
                        turn_started = Instant::now();
                        // A move sent that never reached the server is sent again.
                        if awaiting_echo
                            && referee.turn() == setup.me
                            && let Some(text) = sent.clone()
                        {
                            conn.send(&text).await?;
                        }
                        continue;
                    }
                };
                match ev {
                    Event::Moved(m) => {
                        let color = referee.turn();
                        // The server's echo of this side's move must be the move sent: one
                        // that echoes another move, or moves for the engine, is not
                        // recorded as the engine's; the game is stopped here.
                        let mine = if color == setup.me { sent.take() } else { None };
                        if color == setup.me && mine.as_deref() != Some(m.text.as_str()) {
                            let what = match &mine {
                                Some(t) => format!("it sent {t}"),
                                None => "it had sent no move".to_string(),
                            };
                            report.disagreements.push(format!(
                                "the server echoed {} as this engine's move, but {what}; the \
                                 game is stopped",
                                m.text
                            ));
                            server_end = (None, None);
                            break;
                        }
                        let before = referee.plies().len();
                        echoed(&mut report, &mut referee, &m);
                        let played = (referee.plies().len() > before)
                            .then(|| referee.plies().last().map(|p| p.mv))
                            .flatten();
                        clocks.charge(color, m.ms.unwrap_or(0));
                        times.push(m.ms);
                        turn_started = Instant::now();
                        if color == setup.me {
                            awaiting_echo = false;
                            if let Some(reply) = expected.take()
                                && engine_failed.is_none()
                                && referee.outcome().is_none()
                            {
                                let go = Go {
                                    ponder: true,
                                    ..clocks.go(setup.me, margin, engine.accepts_increment())
                                };
                                match engine.go(&position_after(&referee, &[reply]), &go).await {
                                    Ok(()) => search = Search::Pondering { reply, early: false },
                                    Err(e) => engine_failed = Some(e),
                                }
                            }
                        } else if let Search::Pondering { reply, early } = search {
                            search = Search::Idle;
                            let hit = if played == Some(reply) && referee.outcome().is_none() {
                                let times = if early {
                                    clocks.go(setup.me, margin, engine.accepts_increment())
                                } else {
                                    Go::default()
                                };
                                engine.ponder_hit(times).await.map(|()| true)
                            } else {
                                stop_pondering(engine).await.map(|()| false)
                            };
                            match hit {
                                Ok(true) => search = Search::Thinking { stop_sent: false },
                                Ok(false) => {}
                                Err(e) => {
                                    log(&format!("engine: {e}; waiting for the server's ruling"));
                                    engine_failed = Some(e);
                                }
                            }
                        }
                    }
                    Event::Special { text, ms } => {
                        let color = referee.turn();
                        clocks.charge(color, ms.unwrap_or(0));
                        special = Some((text, color));
                        awaiting_echo = false;
                    }
                    Event::Ended { reason, result } => {
                        server_end = (reason, result);
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if search != Search::Idle {
        let _ = engine.stop().await;
    }
    let elapsed = turn_started.elapsed();
    judge_end(
        &mut report,
        &mut referee,
        &setup,
        &clocks,
        special,
        &server_end,
        elapsed,
    );
    report.plies = referee.plies().len();
    report.reason = server_end.0.as_ref().map(|r| r.line().to_string());
    report.result = server_end.1.map(|r| r.line().to_string());
    report.judged = referee
        .outcome()
        .map(|o| format!("{} ({})", o.result.code(), o.reason.code()));
    for d in &report.disagreements {
        log(&format!(
            "game {}: DISAGREES with the server: {d}",
            setup.game_id
        ));
    }
    // A suspended game (`#CHUDAN`, no result) is a draw to the engine, as ShogiHome says.
    let over = match server_end.1 {
        Some(EndResult::Win) => Some(GameOverResult::Win),
        Some(EndResult::Lose) => Some(GameOverResult::Lose),
        Some(EndResult::Draw | EndResult::Censored) | None => Some(GameOverResult::Draw),
    };
    if let (Some(over), None) = (over, &engine_failed) {
        let _ = engine.game_over(over).await;
    }
    if let Some(e) = engine_failed {
        log(&format!(
            "engine: {e}; it is started again for the next game"
        ));
        if let Some(e) = engine_slot.take() {
            e.kill().await;
        }
    } else if config.restart_engine
        && let Some(e) = engine_slot.take()
    {
        e.quit().await;
    }
    log(&format!(
        "game {} over: {} {} (judged: {})",
        report.game_id,
        report.reason.as_deref().unwrap_or("-"),
        report.result.as_deref().unwrap_or("-"),
        report.judged.as_deref().unwrap_or("-")
    ));
    if let Some(dir) = &config.out {
        write_records(dir, &report, &referee, &times, &server_end)
            .map_err(|e| SessionError::Fatal(BridgeError::Output(e)))?;
    }
    Ok(Some(report))
}

/// What the engine is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Search {
    Idle,
    /// On its own move; the answer is awaited. `stop_sent`: it was still thinking when
    /// its time was nearly out.
    Thinking {
        stop_sent: bool,
    },
    /// `go ponder` on the opponent's `reply`; `early`: started before the echo, without
    /// clocks (they come with `ponderhit`).
    Pondering {
        reply: gyoku::Move,
        early: bool,
    },
}

/// The engine's move and the reply it expects (`bestmove m ponder reply`), when both are
/// legal where they would be played.
fn ponder_reply(
    referee: &Game,
    m: gyoku::Move,
    reply: Option<&str>,
) -> Option<(gyoku::Move, gyoku::Move)> {
    let reply: gyoku::Move = reply?.parse().ok()?;
    let mut pos = referee.position().clone();
    pos.play(m).ok()?;
    pos.play(reply).ok()?;
    Some((m, reply))
}

/// A missed ponder: `stop`, and the engine's `bestmove` for the reply that did not come
/// read and dropped.
async fn stop_pondering(engine: &mut Engine) -> Result<(), EngineFailure> {
    engine.stop().await?;
    match engine
        .bestmove(Instant::now() + Duration::from_secs(10))
        .await?
    {
        Thought::Answer { .. } => Ok(()),
        Thought::NoAnswer => Err(EngineFailure::Hang("bestmove after stop")),
    }
}

/// The line to send for the engine's answer.
fn engine_move_line(
    config: &BridgeConfig,
    engine: &Engine,
    referee: &Game,
    best: &BestMove,
    me: Color,
) -> String {
    match best {
        BestMove::Resign => "%TORYO".to_string(),
        BestMove::Win => "%KACHI".to_string(),
        BestMove::Move(m) => {
            let pos = referee.position();
            let mut trial = pos.clone();
            if let Err(e) = trial.play(*m) {
                log(&format!(
                    "warning: the engine's move {m} is illegal here ({e}); sent as it is"
                ));
            }
            let text = gyoku_kifu::csa::move_text(pos, *m, me);
            let comment = config
                .comments
                .then(|| floodgate_comment(engine.reading(), pos, *m))
                .flatten();
            match comment {
                Some(c) => format!("{text},'{c}"),
                None => text,
            }
        }
    }
}

fn play_text(referee: &mut Game, text: &str) -> Result<(), String> {
    let pos = referee.position().clone();
    let (color, mv) = gyoku_kifu::csa::parse_move(text, &pos).map_err(|(_, e)| e)?;
    if color != pos.turn() {
        return Err(format!("{text} is not the side to move's"));
    }
    referee.play(mv).map_err(|e| e.to_string())
}

/// An echoed move, played through the referee; a move the rules refuse is a disagreement.
fn echoed(report: &mut GameReport, referee: &mut Game, m: &EchoedMove) {
    if referee.outcome().is_some() {
        report.disagreements.push(format!(
            "the server echoed {} after the game was over by the rules",
            m.text
        ));
        return;
    }
    if let Err(e) = play_text(referee, &m.text) {
        report.disagreements.push(format!(
            "the server echoed {}, which the rules refuse: {e}",
            m.text
        ));
    }
}

/// Compares the server's ending with the rules', and sets the referee's outcome from the
/// server's where the rules had none.
fn judge_end(
    report: &mut GameReport,
    referee: &mut Game,
    setup: &Setup,
    clocks: &Clocks,
    special: Option<(String, Color)>,
    server_end: &(Option<Reason>, Option<EndResult>),
    elapsed: Duration,
) {
    let to_move = referee.turn();
    let by_rules = referee.outcome().cloned();
    match (&server_end.0, &special, &by_rules) {
        (_, Some((s, c)), None) if s == "%TORYO" => {
            let _ = referee.resign(*c);
        }
        (_, Some((s, _)), None) if s == "%KACHI" => {
            let _ = referee.declare();
            let granted = referee
                .outcome()
                .is_some_and(|o| matches!(o.reason, EndReason::Declaration { .. }));
            let server_granted = matches!(server_end.0, Some(Reason::Known(GameEnd::Jishogi)));
            if granted != server_granted {
                report.disagreements.push(format!(
                    "the server {} a declaration that the rules ({}) {}",
                    if server_granted { "granted" } else { "refused" },
                    setup.preset,
                    if granted { "grant" } else { "refuse" }
                ));
            }
        }
        (Some(Reason::Known(GameEnd::TimeUp)), _, None) => {
            let available = clocks.available(to_move);
            let used = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
            // The server's clock started before the echo reached here: a second's slack.
            if used + 1000 < available {
                report.disagreements.push(format!(
                    "the server flagged {to_move} after {:.1} s of its turn, with {:.1} s left by the T charges",
                    used as f64 / 1000.0,
                    available as f64 / 1000.0
                ));
            }
            let _ = referee.time_up(to_move);
        }
        (Some(Reason::Known(GameEnd::Sennichite)), _, Some(o))
            if matches!(o.reason, EndReason::Sennichite { .. }) => {}
        (Some(Reason::Known(GameEnd::OuteSennichite)), _, Some(o))
            if matches!(o.reason, EndReason::PerpetualCheck { .. }) => {}
        (Some(Reason::Known(GameEnd::MaxMoves)), _, Some(o))
            if matches!(o.reason, EndReason::MoveLimit { .. }) => {}
        (
            Some(Reason::Known(GameEnd::Sennichite | GameEnd::OuteSennichite | GameEnd::MaxMoves)),
            _,
            _,
        ) => {
            report.disagreements.push(format!(
                "the server ended the game with {} where the rules say {}",
                server_end.0.as_ref().map_or("no reason", Reason::line),
                by_rules
                    .as_ref()
                    .map_or("it goes on".to_string(), ToString::to_string)
            ));
        }
        _ => {}
    }
    // The result line against the rules' result, where both have one.
    if let (Some(result), Some(o)) = (server_end.1, referee.outcome()) {
        let expected = match o.result {
            GameResult::Win(c) if c == setup.me => EndResult::Win,
            GameResult::Win(_) => EndResult::Lose,
            GameResult::Draw | GameResult::NoContest => EndResult::Draw,
        };
        let censored =
            result == EndResult::Censored && matches!(o.reason, EndReason::MoveLimit { .. });
        if result != expected && !censored {
            report.disagreements.push(format!(
                "the server says {} where the rules say {} ({o})",
                result.line(),
                expected.line()
            ));
        }
    }
}

/// The record's end when the rules did not decide the game: the server's reason.
/// The record's ending from the server's ruling, when the rules gave none: a foul is
/// written against the side the result says lost (`#ILLEGAL_ACTION` may be either side's).
fn terminal_of(server_end: &(Option<Reason>, Option<EndResult>), me: Color) -> Option<Terminal> {
    let loser = match server_end.1 {
        Some(EndResult::Lose) => Some(me),
        Some(EndResult::Win) => Some(!me),
        _ => None,
    };
    let foul = |otherwise: Terminal| loser.map_or(otherwise, Terminal::IllegalAction);
    Some(match server_end.0.as_ref()? {
        Reason::Known(GameEnd::Chudan) => Terminal::Suspend,
        Reason::Known(GameEnd::IllegalMove) => foul(Terminal::IllegalLoss),
        Reason::Known(GameEnd::TimeUp) => Terminal::TimeUp,
        Reason::Known(GameEnd::Resign) => Terminal::Resign,
        Reason::Known(GameEnd::MaxMoves | GameEnd::Censored) => Terminal::MaxMoves,
        Reason::Known(GameEnd::Sennichite) => Terminal::Sennichite,
        Reason::Known(GameEnd::OuteSennichite) => foul(Terminal::IllegalLoss),
        Reason::Known(GameEnd::Jishogi) => Terminal::Declaration,
        Reason::Unknown(l) if l == "#ILLEGAL_ACTION" && loser.is_some() => {
            foul(Terminal::IllegalLoss)
        }
        Reason::Unknown(l) => Terminal::Other(l.trim_start_matches('#').to_string()),
    })
}

fn write_records(
    dir: &Path,
    report: &GameReport,
    referee: &Game,
    times: &[Option<u64>],
    server_end: &(Option<Reason>, Option<EndResult>),
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut record = Record::from_game(referee);
    for (m, t) in record.moves.iter_mut().zip(times) {
        m.time_ms = *t;
    }
    if record.end.is_none() {
        record.end = terminal_of(server_end, report.me);
    }
    record.header = vec![
        ("棋戦".into(), report.game_id.clone()),
        ("先手".into(), report.names[0].clone()),
        ("後手".into(), report.names[1].clone()),
    ];
    for d in &report.disagreements {
        record
            .start_comments
            .push(format!("gyoku: the server and the rules disagree: {d}"));
    }
    crate::runner::write_record_files(dir, &safe_file_name(&report.game_id), &record)
}

/// A Game_ID as the name of its record files (`<name>.kif`, `<name>.csa`): anything but
/// letters, digits, `+ - _ .` becomes `_`.
///
/// ```
/// use gyoku_arena::csa_bridge::safe_file_name;
/// assert_eq!(safe_file_name("wdoor+floodgate-300-10F+a+b+2026"), "wdoor+floodgate-300-10F+a+b+2026");
/// assert_eq!(safe_file_name("../x y"), "game.._x_y");
/// ```
pub fn safe_file_name(id: &str) -> String {
    let name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "+-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with('.') {
        format!("game{name}")
    } else {
        name
    }
}

fn append_result(dir: &Path, report: &GameReport) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    crate::runner::append_json_line(dir, &report.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 28, item 24: a summary whose time does not read was agreed to, and the engine
    /// told `go btime 0 wtime 0 byoyomi 0`. It is rejected, saying which line.
    #[test]
    fn a_summary_whose_time_does_not_read_is_rejected() {
        let summary = |time: &str| {
            let text = format!(
                "BEGIN Game_Summary\nProtocol_Version:1.2\nGame_ID:g\nName+:a\nName-:b\n\
                 Your_Turn:+\nTo_Move:+\nBEGIN Time\n{time}END Time\nBEGIN Position\nPI\n+\n\
                 END Position\nEND Game_Summary\n"
            );
            GameSummary::parse(text.lines()).unwrap()
        };
        for (time, why) in [
            (
                "Time_Unit:7parsecs\nTotal_Time:600\n",
                "Time_Unit:7parsecs is no unit of time",
            ),
            (
                "Time_Unit:1sec\nTotal_Time:-5\n",
                "Total_Time:-5 is not a whole number",
            ),
            (
                "Time_Unit:1sec\nByoyomi:100000000000000000000\n",
                "Byoyomi:100000000000000000000 is not a whole number",
            ),
            (
                "Time_Unit:1min\nTotal_Time:99999999999\n",
                "Total_Time:99999999999 is longer than 30 days",
            ),
        ] {
            let e = Setup::read(&summary(time))
                .err()
                .unwrap_or_else(|| panic!("{time}"));
            assert_eq!(e, format!("Black's time: {why}"), "{time}");
        }
        let ok = Setup::read(&summary("Time_Unit:1sec\nTotal_Time:600\nByoyomi:10\n")).unwrap();
        assert_eq!(ok.times[0], (600_000, 10_000, 0));
    }

    #[test]
    fn go_counts_the_clocks_as_shogihome_does() {
        // Scenario 15: main 10 s, byoyomi 30 s; T3, T5, then T25 past the main time.
        let mut c = Clocks {
            remaining: [10_000, 10_000],
            times: [(10_000, 30_000, 0); 2],
        };
        c.charge(Color::Black, 3_000);
        let go = c.go(Color::White, 0, true);
        assert_eq!(
            (go.btime, go.wtime, go.byoyomi),
            (Some(7_000), Some(10_000), Some(30_000))
        );
        c.charge(Color::White, 2_000);
        c.charge(Color::Black, 5_000);
        c.charge(Color::White, 3_000);
        c.charge(Color::Black, 25_000);
        let go = c.go(Color::White, 0, true);
        assert_eq!((go.btime, go.wtime), (Some(0), Some(5_000)));
        // Fischer: the increment after each move, in binc/winc.
        let mut f = Clocks {
            remaining: [30_000, 30_000],
            times: [(30_000, 0, 5_000); 2],
        };
        f.charge(Color::Black, 2_000);
        let go = f.go(Color::White, 0, true);
        assert_eq!(
            (go.btime, go.wtime, go.binc, go.winc, go.byoyomi),
            (Some(33_000), Some(30_000), Some(5_000), Some(5_000), None)
        );
        // A margin comes off the mover's own time, then off its byoyomi.
        let go = c.go(Color::White, 500, true);
        assert_eq!(go.wtime, Some(4_500));
        // Sudden death: `byoyomi 0`.
        let s = Clocks {
            remaining: [30_000, 30_000],
            times: [(30_000, 0, 0); 2],
        };
        assert_eq!(s.go(Color::Black, 0, true).byoyomi, Some(0));
        let go = c.go(Color::Black, 500, true);
        assert_eq!((go.btime, go.byoyomi), (Some(0), Some(29_500)));
    }

    #[test]
    fn floodgate_comments_as_shogihome_writes_them() {
        // Scenario 23: White to move, `score cp 35 … pv 8c8d 2f2e 8d8e` → `* -35 +2625FU -8485FU`.
        let mut pos = Position::startpos();
        pos.play("2g2f".parse().unwrap()).unwrap();
        let mv = "8c8d".parse().unwrap();
        let comment = |lines: &[&str]| {
            let mut r = Reading::default();
            lines.iter().for_each(|l| r.add(l));
            floodgate_comment(&r, &pos, mv)
        };
        let info = "info depth 8 seldepth 10 time 250 nodes 12345 nps 49380 hashfull 120 score cp 35 multipv 1 pv 8c8d 2f2e 8d8e";
        assert_eq!(comment(&[info]).as_deref(), Some("* -35 +2625FU -8485FU"));
        // Scenario 22: a mate score only: no comment; a score with no pv: the score alone.
        let mate = "info depth 20 multipv 1 score mate 7 pv 8c8d 6i7h";
        assert_eq!(comment(&[mate]), None);
        let bare = "info depth 5 time 50 nodes 900 currmove 8c8d score cp 12 multipv 1";
        assert_eq!(comment(&[bare]).as_deref(), Some("* -12"));
        // Scenario 1: a mate line's reading goes with the centipawn score before it.
        assert_eq!(comment(&[info, mate]).as_deref(), Some("* -35 +6978KI"));
    }

    #[test]
    fn declarations_name_their_rules() {
        assert_eq!(preset_of_declaration(Some("Jishogi 1.1")), Preset::Csa);
        assert_eq!(preset_of_declaration(None), Preset::Csa);
        assert_eq!(preset_of_declaration(Some("Gyoku jsa")), Preset::Jsa);
    }

    #[test]
    fn game_ids_make_safe_file_names() {
        assert_eq!(safe_file_name("a+b-600-10+x+y+2026"), "a+b-600-10+x+y+2026");
        assert_eq!(safe_file_name("../etc/passwd"), "game.._etc_passwd");
        assert_eq!(safe_file_name(""), "game");
    }
}
