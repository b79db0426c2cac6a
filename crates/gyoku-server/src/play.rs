//! Games people play from the web page. Each person is a *seat*: a connection made inside
//! the server ([`Handle`]) that logs in and speaks CSA to the lobby like any
//! client, so the lobby referees, times and stores these games as it does every other. An
//! engine opponent is Gyoku's own CSA bridge ([`gyoku_arena::csa_bridge`]) on the server's
//! CSA port, as `gyoku csa-client` would put it there.
//!
//! A game is named so that the lobby knows its rules and fouls
//! (`rules_<preset>_<refuse|lose>_web<n><random>-<total>-<byoyomi or increment F>`); a
//! start of its own is set up first ([`crate::lobby::Input::Setup`]). A seat is reached by
//! its token, a secret the page keeps: the creator's, and for a game between two people
//! the invitation's, which the page turns into a link.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gyoku::rules::Fouls;
use gyoku::{Color, Position, Preset};
use gyoku_arena::csa_bridge::{self, BridgeConfig};
use gyoku_arena::engine::EngineConfig;
use tokio::sync::{mpsc, watch};

use crate::driver::{Conn, Handle};
use crate::lobby::{CheckedLogin, GameSetup};

/// Seats kept at once; when full, the seats of ended games go first, oldest first.
pub const MAX_SEATS: usize = 1024;

/// How long an action waits for the lobby's answer.
pub const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// A USI engine people may play against, by the name the page shows.
#[derive(Clone, Debug)]
pub struct EngineChoice {
    /// The name (`builtin`).
    pub name: String,
    /// How to run it.
    pub engine: EngineConfig,
}

/// Who the person plays against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// One of the server's engines, by name.
    Engine(String),
    /// Another person, who opens the invitation.
    Person,
}

/// A game a person asks for.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Against whom.
    pub opponent: Opponent,
    /// The rules.
    pub preset: Preset,
    /// What an illegal move does (`None`: as the preset has it).
    pub fouls: Option<Fouls>,
    /// Main time, byoyomi and increment, seconds (byoyomi and increment not both).
    pub time: [u32; 3],
    /// The person's colour (`None`: drawn by lot).
    pub color: Option<Color>,
    /// A start of its own.
    pub start: Option<Position>,
    /// A move limit of its own (0: none).
    pub max_moves: Option<u32>,
    /// The person's name as the page shows it.
    pub name: String,
}

/// Where a seat stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// An invitation nobody has opened yet.
    Invited,
    /// Logged in, waiting for the opponent.
    Waiting,
    /// The game is proposed (the seat agrees at once).
    Agreeing,
    /// Playing.
    Playing,
    /// The game ended (a replay may follow: a new proposal).
    Ended,
    /// The connection is closed.
    Closed,
}

impl Phase {
    /// The name the API gives it.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Invited => "invited",
            Phase::Waiting => "waiting",
            Phase::Agreeing => "agreeing",
            Phase::Playing => "playing",
            Phase::Ended => "ended",
            Phase::Closed => "closed",
        }
    }
}

/// What a seat has heard from the lobby.
#[derive(Clone, Debug)]
pub struct SeatState {
    /// Where it stands.
    pub phase: Phase,
    /// Every game this seat has played, in order (a no-contest is replayed); the last is
    /// the one being played or last played ([`SeatState::game_id`]).
    pub games: Vec<String>,
    /// The last move echoed (`+7776FU,T3`).
    pub last_echo: String,
    /// Echoes heard.
    pub echoes: u64,
    /// The lobby's last `##[ERROR]` to this seat, and how many there were.
    pub error: Option<String>,
    /// How many errors were heard.
    pub errors: u64,
    /// The result line (`#WIN`, `#LOSE`, `#DRAW`, `#CENSORED`, `#CHUDAN`) of the last game.
    pub result: Option<String>,
    /// The name it logged in with.
    pub login: Option<String>,
    /// An impasse count proposed in the game being played, by this colour; until the next
    /// move.
    pub proposal: Option<Color>,
    /// Proposals heard.
    pub proposals: u64,
}

impl SeatState {
    /// The game being played or last played.
    pub fn game_id(&self) -> Option<&str> {
        self.games.last().map(String::as_str)
    }
}

/// One person's place in a game.
#[derive(Debug)]
pub struct Seat {
    /// The secret that reaches it.
    pub token: String,
    /// The login name it was made with (the one it logged in with is in its state).
    pub login: String,
    /// The colour.
    pub color: Color,
    /// The game name.
    pub game: String,
    /// The invitation's token (the creator's seat of a game between two people).
    pub invite: Option<String>,
    /// Lines to send, once the seat is connected.
    lines: Mutex<Option<mpsc::Sender<String>>>,
    state: watch::Sender<SeatState>,
    created: Instant,
}

impl Seat {
    /// What it has heard, now.
    pub fn state(&self) -> SeatState {
        self.state.borrow().clone()
    }

    /// Sends `line` and waits (at most [`ANSWER_WAIT`]) until `answered` says the state
    /// holds the lobby's answer; the state then, or `None` if the seat is not connected or
    /// no answer came.
    pub async fn act(
        &self,
        line: &str,
        answered: impl Fn(&SeatState, &SeatState) -> bool,
    ) -> Option<SeatState> {
        let sender = self
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()?;
        let mut rx = self.state.subscribe();
        let before = rx.borrow_and_update().clone();
        sender.send(line.to_string()).await.ok()?;
        let wait = rx.wait_for(|now| answered(&before, now) || now.phase == Phase::Closed);
        let now = tokio::time::timeout(ANSWER_WAIT, wait)
            .await
            .ok()?
            .ok()?
            .clone();
        Some(now)
    }

    fn update(&self, f: impl FnOnce(&mut SeatState)) {
        self.state.send_modify(f);
    }
}

/// Why a game could not be made or joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// No engine of that name.
    NoSuchEngine(String),
    /// A time control a game name cannot carry.
    BadTime(String),
    /// Too many seats at once.
    Full,
    /// The server is stopping.
    Stopped,
    /// The invitation was opened already.
    Taken,
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::NoSuchEngine(n) => write!(f, "no engine named '{n}' on this server"),
            PlayError::BadTime(m) => f.write_str(m),
            PlayError::Full => write!(f, "{MAX_SEATS} seats are taken; try again later"),
            PlayError::Stopped => f.write_str("the server is stopping"),
            PlayError::Taken => f.write_str("this invitation was opened already"),
        }
    }
}

impl std::error::Error for PlayError {}

/// The web page's games: seats and the engines they may play.
#[derive(Debug)]
pub struct Play {
    local: Handle,
    engines: Vec<EngineChoice>,
    seats: Mutex<HashMap<String, Arc<Seat>>>,
    serial: AtomicU64,
}

/// 16 random hex digits.
fn random_hex() -> String {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // No randomness: a clock-derived value still keeps names apart.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (t as u64).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The login of a page's game `n` for the side `color`: `Taro@web12b` (unique whatever
/// names the players give: two guests may play each other).
fn login_name(name: &str, n: u64, color: Color) -> String {
    let side = if color == Color::Black { 'b' } else { 'w' };
    format!("{}@web{n}{side}", login_base(name))
}

/// A name as a CSA login may carry it: letters, digits and `_`, at most 24, `guest` if
/// nothing is left.
fn login_base(name: &str) -> String {
    let base: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(24)
        .collect();
    if base.is_empty() {
        "guest".into()
    } else {
        base
    }
}

impl Play {
    /// The web page's games over `local`, with these engines.
    pub fn new(local: Handle, engines: Vec<EngineChoice>) -> Arc<Play> {
        Arc::new(Play {
            local,
            engines,
            seats: Mutex::new(HashMap::new()),
            serial: AtomicU64::new(1),
        })
    }

    /// The engines' names.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// A seat by its token.
    pub fn seat(&self, token: &str) -> Option<Arc<Seat>> {
        self.lock().get(token).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Seat>>> {
        self.seats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Makes room for `n` seats, letting go of ended ones, oldest first.
    fn room(&self, seats: &mut HashMap<String, Arc<Seat>>, n: usize) -> Result<(), PlayError> {
        if seats.len() + n <= MAX_SEATS {
            return Ok(());
        }
        let mut done: Vec<(Instant, String)> = seats
            .values()
            .filter(|s| matches!(s.state().phase, Phase::Ended | Phase::Closed))
            .map(|s| (s.created, s.token.clone()))
            .collect();
        done.sort();
        for (_, token) in done {
            if seats.len() + n <= MAX_SEATS {
                break;
            }
            seats.remove(&token);
        }
        if seats.len() + n <= MAX_SEATS {
            Ok(())
        } else {
            Err(PlayError::Full)
        }
    }

    /// Starts a game for a person: the person's seat logged in (and for a game against
    /// another person, the invitation's seat, logged in when opened); for an engine, the
    /// engine on its way to the CSA port.
    ///
    /// # Errors
    /// [`PlayError`].
    pub async fn start(&self, req: NewGame) -> Result<Arc<Seat>, PlayError> {
        let engine = match &req.opponent {
            Opponent::Engine(name) => Some(
                self.engines
                    .iter()
                    .find(|e| e.name == *name)
                    .cloned()
                    .ok_or_else(|| PlayError::NoSuchEngine(name.clone()))?,
            ),
            Opponent::Person => None,
        };
        let [total, byoyomi, increment] = req.time;
        if byoyomi > 0 && increment > 0 {
            return Err(PlayError::BadTime(
                "a game has a byoyomi or an increment, not both".into(),
            ));
        }
        if total == 0 && byoyomi == 0 && increment == 0 {
            return Err(PlayError::BadTime("a game needs some time".into()));
        }
        if [total, byoyomi, increment].iter().any(|&t| t > 999_999) {
            return Err(PlayError::BadTime("at most 999,999 seconds".into()));
        }
        let n = self.serial.fetch_add(1, Ordering::Relaxed);
        let fouls = match req.fouls {
            Some(Fouls::Refuse) => "refuse_",
            Some(Fouls::Lose) => "lose_",
            None => "",
        };
        let second = if increment > 0 {
            format!("{increment}F")
        } else {
            byoyomi.to_string()
        };
        let game = format!(
            "rules_{}_{fouls}web{n}x{}-{total}-{second}",
            req.preset.name(),
            &random_hex()[..8]
        );
        let color = req.color.unwrap_or_else(|| {
            if random_hex().as_bytes()[0].is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            }
        });
        let login = login_name(&req.name, n, color);
        let invite = (req.opponent == Opponent::Person).then(random_hex);
        let seat = Arc::new(Seat {
            token: random_hex(),
            login,
            color,
            game: game.clone(),
            invite: invite.clone(),
            lines: Mutex::new(None),
            state: watch::Sender::new(initial_state(Phase::Waiting)),
            created: Instant::now(),
        });
        {
            let mut seats = self.lock();
            self.room(&mut seats, 2)?;
            seats.insert(seat.token.clone(), Arc::clone(&seat));
            if let Some(token) = &invite {
                seats.insert(
                    token.clone(),
                    Arc::new(Seat {
                        token: token.clone(),
                        login: login_name("guest", n, !color),
                        color: !color,
                        game: game.clone(),
                        invite: None,
                        lines: Mutex::new(None),
                        state: watch::Sender::new(initial_state(Phase::Invited)),
                        created: Instant::now(),
                    }),
                );
            }
        }
        if (req.start.is_some() || req.max_moves.is_some())
            && !self
                .local
                .setup(
                    game.clone(),
                    GameSetup {
                        start: req.start,
                        max_moves: req.max_moves,
                    },
                )
                .await
        {
            return Err(PlayError::Stopped);
        }
        self.connect(&seat).await?;
        if let Some(engine) = engine {
            self.engine_joins(&engine, &game, !color, n);
        }
        Ok(seat)
    }

    /// Opens an invitation: its seat logs in, and the game starts.
    ///
    /// # Errors
    /// [`PlayError::Taken`] if it was opened already.
    pub async fn join(&self, seat: &Arc<Seat>, name: &str) -> Result<(), PlayError> {
        if seat.state().phase != Phase::Invited {
            return Err(PlayError::Taken);
        }
        seat.update(|s| s.phase = Phase::Waiting);
        // The login name the page chose, kept unique by the game's number.
        let n = seat.login.rsplit_once("@web").map_or("0", |(_, n)| n);
        let login = format!("{}@web{n}", login_base(name));
        self.connect_as(seat, login).await
    }

    async fn connect(&self, seat: &Arc<Seat>) -> Result<(), PlayError> {
        self.connect_as(seat, seat.login.clone()).await
    }

    async fn connect_as(&self, seat: &Arc<Seat>, login: String) -> Result<(), PlayError> {
        seat.update(|s| s.login = Some(login.clone()));
        let conn = self
            .local
            .connect(CheckedLogin {
                name: login,
                x1: false,
                rating_id: None,
                game: Some((seat.game.clone(), Some(seat.color))),
            })
            .await
            .ok_or(PlayError::Stopped)?;
        let (tx, rx) = mpsc::channel(16);
        *seat
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(tx);
        tokio::spawn(run_seat(Arc::clone(seat), conn, rx));
        Ok(())
    }

    /// Puts an engine on the CSA port for the game `game` as `color`.
    fn engine_joins(&self, engine: &EngineChoice, game: &str, color: Color, n: u64) {
        let at = self.local.csa_addr();
        let turn = if color == Color::Black { "B" } else { "W" };
        let mut config = BridgeConfig::new(
            &at.ip().to_string(),
            at.port(),
            &login_name(&engine.name, n, color),
            "",
            engine.engine.clone(),
        );
        config.game = Some(format!("{game}-{turn}"));
        config.games = Some(1);
        config.comments = false;
        config.retry = Duration::from_millis(200);
        tokio::spawn(async move {
            if let Err(e) = csa_bridge::run(&config).await {
                eprintln!("gyoku serve: engine for {}: {e}", config.id);
            }
        });
    }
}

fn initial_state(phase: Phase) -> SeatState {
    SeatState {
        phase,
        games: Vec::new(),
        last_echo: String::new(),
        echoes: 0,
        error: None,
        errors: 0,
        result: None,
        login: None,
        proposal: None,
        proposals: 0,
    }
}

/// A seat's connection: agrees to every game proposed to it, sends what the page asks,
/// and keeps what it hears in the seat's state.
async fn run_seat(seat: Arc<Seat>, mut conn: Conn, mut lines: mpsc::Receiver<String>) {
    loop {
        tokio::select! {
            line = conn.recv() => {
                let Some(line) = line else { break };
                if line == "END Game_Summary" {
                    seat.update(|s| s.phase = Phase::Agreeing);
                    if !conn.send("AGREE").await {
                        break;
                    }
                } else {
                    seat.update(|s| heard(s, &line));
                }
            }
            line = lines.recv() => {
                let Some(line) = line else { break };
                if !conn.send(&line).await {
                    break;
                }
            }
        }
    }
    seat.update(|s| {
        if s.phase != Phase::Ended {
            s.phase = Phase::Closed;
        }
    });
    *seat
        .lines
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
}

/// What a line from the lobby changes.
fn heard(s: &mut SeatState, line: &str) {
    if let Some(id) = line.strip_prefix("START:") {
        s.phase = Phase::Playing;
        s.games.push(id.to_string());
        s.result = None;
    } else if line.starts_with("REJECT:") {
        // A replay the other side left: the last game's result stands.
        s.phase = Phase::Ended;
        s.result.get_or_insert_with(|| "#REJECT".into());
    } else if let Some(e) = line.strip_prefix("##[ERROR] ") {
        s.error = Some(e.to_string());
        s.errors += 1;
    } else if matches!(line, "#WIN" | "#LOSE" | "#DRAW" | "#CENSORED" | "#CHUDAN") {
        s.phase = Phase::Ended;
        s.result = Some(line.to_string());
    } else if (line.starts_with('+') || line.starts_with('-')) && line.contains(",T") {
        s.last_echo = line.to_string();
        s.echoes += 1;
        s.proposal = None;
    } else if let Some(by) = line.strip_prefix("##[IMPASSE] proposed by ") {
        s.proposals += 1;
        s.proposal = match by {
            "+" => Some(Color::Black),
            "-" => Some(Color::White),
            _ => None,
        };
    }
    if s.phase != Phase::Playing {
        s.proposal = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_heard_move_the_state() {
        let mut s = initial_state(Phase::Waiting);
        heard(&mut s, "START:g1");
        assert_eq!((s.phase, s.game_id()), (Phase::Playing, Some("g1")));
        heard(&mut s, "+7776FU,T3");
        assert_eq!((s.echoes, s.last_echo.as_str()), (1, "+7776FU,T3"));
        heard(&mut s, "##[ERROR] illegal move: nifu");
        assert_eq!(
            (s.errors, s.error.as_deref()),
            (1, Some("illegal move: nifu"))
        );
        heard(&mut s, "##[IMPASSE] proposed by -");
        assert_eq!(s.proposal, Some(Color::White));
        heard(&mut s, "-3334FU,T1");
        assert_eq!(s.proposal, None);
        heard(&mut s, "#RESIGN");
        assert_eq!(s.phase, Phase::Playing);
        heard(&mut s, "#LOSE");
        assert_eq!(
            (s.phase, s.result.as_deref()),
            (Phase::Ended, Some("#LOSE"))
        );
    }

    #[test]
    fn login_names_are_identifiers() {
        assert_eq!(login_base("Taro Yamada!"), "TaroYamada");
        assert_eq!(login_base("名人"), "guest");
        assert_eq!(login_base(&"x".repeat(40)).len(), 24);
    }
}
