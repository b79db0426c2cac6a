//! Games people play from the web page. Each person is a *seat*: a CSA client inside the
//! server, a [`ClientSession`] over a connection to the driver ([`Handle::connect`]), so
//! the lobby referees, times and stores these games as it does every other, and the seat
//! knows what any client knows from the server's own lines: its colour (from each
//! `Game_Summary`, so a replay with colours swapped is followed), the game being played,
//! the position and whose turn it is, the echoes, the refusals and the result. An engine
//! opponent is Gyoku's own CSA bridge ([`gyoku_arena::csa_bridge`]) on the server's CSA
//! port, logging in with a ticket for its web name.
//!
//! A game is named `web<n>x<random>-<total>-<byoyomi or increment F>` and set up with its
//! rules, fouls, start and move limit as data ([`GameSetup`]), as the web page's only
//! ([`GameSetup::web_only`]): no CSA client can join it.
//!
//! A seat is reached by its secret token (128 random bits, kept only as a digest). A game
//! between two people also has an invitation: its code is the link, used once to join,
//! which makes the joiner a seat of its own with a new secret the link does not carry;
//! whoever opens the link later sees the game as a spectator.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use gyoku::rules::Fouls;
use gyoku::{Color, GameError, Move, Position, Preset};
use gyoku_arena::csa_bridge::{self, BridgeConfig};
use gyoku_arena::engine::EngineConfig;
use gyoku_proto::csa::{ClientMessage, GameSummary};
use gyoku_proto::csa_client::{ClientSession, Event};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tracing::Instrument;

use crate::driver::{Conn, Handle, Heard};
use crate::engine_levels::EngineLevel;
use crate::engine_pool::EnginePool;
use crate::identity::{GameName, Identity, RatingKey, SeatId};
use crate::lobby::{CheckedLogin, ClockExtras, GameSetup};
use crate::tickets::{SeatToken, SecretDigest, digest, new_secret, same_digest};
use crate::web_accounts::WebAccounts;

/// Seats kept at once; when full, the seats of ended games go first, oldest first.
pub const MAX_SEATS: usize = 1024;

/// Seats of games not ended that one address may have made at once.
pub const MAX_SEATS_PER_ADDRESS: usize = 16;

/// Engine games played at once (each is an engine process).
pub const MAX_ENGINE_GAMES: usize = 16;

/// Engine games one address may play at once.
pub const MAX_ENGINE_GAMES_PER_ADDRESS: usize = 4;

/// The most main time of a game against an engine, in seconds: an engine game holds one
/// of [`MAX_ENGINE_GAMES`] places while it lasts, and sixteen games of 999,999 s held every
/// place for 11.6 days (issue 43).
pub const MAX_ENGINE_GAME_TOTAL: u32 = 3600;

/// The most byoyomi periods a game may have (lishogi offers up to 5).
pub const MAX_PERIODS: u32 = 10;

/// The most thinking-time units a game may have, and the longest unit, seconds.
pub const MAX_THINKING_UNITS: (u32, u32) = (100, 3600);

/// Whether periods and units may extend the byoyomi of `[total, byoyomi, increment]`: only
/// with a byoyomi, at most [`MAX_PERIODS`] and [`MAX_THINKING_UNITS`].
fn check_extras(time: [u32; 3], clock: ClockExtras) -> Result<(), PlayError> {
    let extended = clock.periods > 1 || clock.units.count > 0;
    if extended && time[1] == 0 {
        return Err(PlayError::BadTime(
            "byoyomi periods and thinking units extend a byoyomi: give one".into(),
        ));
    }
    if clock.periods > MAX_PERIODS {
        return Err(PlayError::BadTime(format!(
            "at most {MAX_PERIODS} byoyomi periods"
        )));
    }
    let (count, longest) = MAX_THINKING_UNITS;
    if clock.units.count > count || clock.units.unit > u64::from(longest) * 1000 {
        return Err(PlayError::BadTime(format!(
            "at most {count} thinking units of at most {longest} s"
        )));
    }
    if clock.units.count > 0 && clock.units.unit == 0 {
        return Err(PlayError::BadTime("a thinking unit lasts some time".into()));
    }
    Ok(())
}

/// The most byoyomi or increment of a game against an engine, in seconds.
pub const MAX_ENGINE_GAME_PERIOD: u32 = 60;

/// Whether a game's `[total, byoyomi, increment]` (seconds) may be played: some time, a
/// byoyomi or an increment but not both, at most 999,999 s each; against an engine at most
/// [`MAX_ENGINE_GAME_TOTAL`] of main time and [`MAX_ENGINE_GAME_PERIOD`] a move.
fn check_time(time: [u32; 3], engine: bool) -> Result<(), PlayError> {
    let [total, byoyomi, increment] = time;
    if byoyomi > 0 && increment > 0 {
        return Err(PlayError::BadTime(
            "a game has a byoyomi or an increment, not both".into(),
        ));
    }
    if total == 0 && byoyomi == 0 && increment == 0 {
        return Err(PlayError::BadTime("a game needs some time".into()));
    }
    if time.iter().any(|&t| t > 999_999) {
        return Err(PlayError::BadTime("at most 999,999 seconds".into()));
    }
    if engine && (total > MAX_ENGINE_GAME_TOTAL || byoyomi.max(increment) > MAX_ENGINE_GAME_PERIOD)
    {
        return Err(PlayError::BadTime(format!(
            "a game against an engine has at most {MAX_ENGINE_GAME_TOTAL} s of main time and \
             {MAX_ENGINE_GAME_PERIOD} s of byoyomi or increment"
        )));
    }
    Ok(())
}

/// How long an invitation waits to be opened; then it and its game are let go.
pub const INVITATION_LIFE: Duration = Duration::from_secs(3600);

/// How long an action waits for the lobby's answer.
pub const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// A USI engine people may play against, by the name the page shows.
#[derive(Clone, Debug)]
pub struct EngineChoice {
    /// The name (`builtin`).
    pub name: String,
    /// How to run it.
    pub engine: EngineConfig,
    /// Its levels, lowest first; none: it plays on the game's clock, at full strength.
    pub levels: Vec<EngineLevel>,
}

impl EngineChoice {
    /// The level `asked` for (its lowest when none is), or none for an engine without
    /// levels.
    ///
    /// # Errors
    /// [`PlayError::NoSuchLevel`].
    pub fn level(&self, asked: Option<u32>) -> Result<Option<EngineLevel>, PlayError> {
        let have = || self.levels.iter().map(|l| l.level).collect();
        match (asked, self.levels.first()) {
            (None, lowest) => Ok(lowest.cloned()),
            (Some(n), _) => self
                .levels
                .iter()
                .find(|l| l.level == n)
                .cloned()
                .map(Some)
                .ok_or_else(|| PlayError::NoSuchLevel(n, have())),
        }
    }
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
pub struct GameRequest {
    /// Against whom.
    pub opponent: Opponent,
    /// The rules.
    pub preset: Preset,
    /// What an illegal move does (`None`: as the preset has it).
    pub fouls: Option<Fouls>,
    /// Main time, byoyomi and increment, seconds (byoyomi and increment not both).
    pub time: [u32; 3],
    /// Byoyomi periods and thinking-time units (with a byoyomi only).
    pub clock: ClockExtras,
    /// The person's colour (`None`: drawn by lot).
    pub color: Option<Color>,
    /// A start of its own.
    pub start: Option<Position>,
    /// A move limit of its own (0: none).
    pub max_moves: Option<u32>,
    /// The person's name as the page shows it.
    pub name: String,
    /// The account the person is logged in to (their name then), if any.
    pub account: Option<String>,
    /// The engine's level (an engine with levels: its lowest when none is given).
    pub level: Option<u32>,
}

/// A person at a seat: a guest under the name they gave, or an account under its own
/// name (rated by it).
fn person(seat: SeatId, name: &str, account: Option<&str>) -> Identity {
    match account {
        Some(account) => Identity::Web {
            seat,
            shown: account.to_string(),
            account: Some(RatingKey::from(account)),
        },
        None => Identity::Web {
            seat,
            shown: shown_name(name),
            account: None,
        },
    }
}

/// Where a seat stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// An invitation nobody has opened yet.
    Invited,
    /// An invitation that was used: it shows the game, and acts no more.
    Taken,
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
            Phase::Taken => "taken",
            Phase::Waiting => "waiting",
            Phase::Agreeing => "agreeing",
            Phase::Playing => "playing",
            Phase::Ended => "ended",
            Phase::Closed => "closed",
        }
    }
}

/// What a seat knows, from the server's lines alone.
#[derive(Clone, Debug)]
pub struct SeatState {
    /// Where it stands.
    pub phase: Phase,
    /// Its colour: the one asked for, then the one each `Game_Summary` gives.
    pub color: Color,
    /// Every game this seat has played, in order (a no-contest is replayed); the last is
    /// the one being played or last played ([`SeatState::game_id`]).
    pub games: Vec<String>,
    /// Who was to move at the start of the game proposed or being played (its
    /// `Game_Summary`'s `To_Move`); with [`SeatState::played`], whose turn it is.
    pub start_turn: Option<Color>,
    /// Moves played in that game (a resumed game's already played included).
    pub played: usize,
    /// The last move echoed (`+7776FU,T3`).
    pub last_echo: String,
    /// Echoes heard.
    pub echoes: u64,
    /// The lobby's last `##[ERROR]` to this seat.
    pub error: Option<String>,
    /// The rules' refusal it was, if it was one (an illegal move's kind under refused
    /// fouls, a declaration refused …), as the lobby sent it: a value, not its text.
    pub refusal: Option<GameError>,
    /// How many errors were heard.
    pub errors: u64,
    /// The result line (`#WIN`, `#LOSE`, `#DRAW`, `#CENSORED`, `#CHUDAN`) of the last game.
    pub result: Option<String>,
    /// The name it logged in with.
    pub login: Option<String>,
    /// An impasse count or a sennichite by agreement proposed in the game being played,
    /// and by which colour; until the next move.
    pub proposal: Option<(gyoku::Proposal, Color)>,
    /// Proposals heard.
    pub proposals: u64,
}

impl SeatState {
    fn new(phase: Phase, color: Color) -> SeatState {
        SeatState {
            phase,
            color,
            games: Vec::new(),
            start_turn: None,
            played: 0,
            last_echo: String::new(),
            echoes: 0,
            error: None,
            refusal: None,
            errors: 0,
            result: None,
            login: None,
            proposal: None,
            proposals: 0,
        }
    }

    /// The game being played or last played.
    pub fn game_id(&self) -> Option<&str> {
        self.games.last().map(String::as_str)
    }

    /// The side to move in the game being played: turns alternate from the start's.
    pub fn to_move(&self) -> Option<Color> {
        let start = self.start_turn?;
        Some(if self.played.is_multiple_of(2) {
            start
        } else {
            start.opposite()
        })
    }

    /// A game is proposed: the colour, the side to move at its start and the moves already
    /// played, as its summary gives them.
    fn proposed(&mut self, summary: &GameSummary) {
        self.phase = Phase::Agreeing;
        if let Some(me) = summary.your_turn() {
            self.color = me;
        }
        self.start_turn = summary.to_move();
        self.played = summary.moves_played();
        self.proposal = None;
    }

    /// What an event read from the server changes.
    fn apply(&mut self, event: Event) {
        match event {
            Event::Started(id) => {
                self.phase = Phase::Playing;
                self.games.push(id);
                self.result = None;
            }
            Event::Rejected(_) => {
                // A replay the other side left: the last game's result stands.
                self.phase = Phase::Ended;
                self.result.get_or_insert_with(|| "#REJECT".into());
            }
            Event::Moved(m) => {
                self.played += 1;
                self.last_echo = match m.ms {
                    Some(ms) => format!("{},T{}", m.text, ms / 1000),
                    None => m.text,
                };
                self.echoes += 1;
                self.proposal = None;
            }
            Event::Ended { result, reason } => {
                self.phase = Phase::Ended;
                self.result = Some(match (result, reason) {
                    (Some(r), _) => r.line().to_string(),
                    (None, Some(reason)) => reason.line().to_string(),
                    (None, None) => "#CHUDAN".to_string(),
                });
            }
            Event::Refused { what, rule } => {
                self.error = Some(what);
                self.refusal = rule;
                self.errors += 1;
            }
            Event::ImpasseProposed(by) => {
                self.proposals += 1;
                self.proposal = Some((gyoku::Proposal::Impasse, by));
            }
            Event::SennichiteProposed(by) => {
                self.proposals += 1;
                self.proposal = Some((gyoku::Proposal::Sennichite, by));
            }
            Event::LoginRefused => self.phase = Phase::Closed,
            Event::Proposed(_)
            | Event::LoggedIn
            | Event::Special { .. }
            | Event::LoggedOut
            | Event::Ignored(_) => {}
        }
        if self.phase != Phase::Playing {
            self.proposal = None;
        }
    }
}

/// What a seat sends to the lobby: values, as a client's lines are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// A message (`AGREE`, `%TORYO`, `%KACHI`, `%%IMPASSE` …).
    Message(ClientMessage),
    /// A move, on the seat's turn.
    Move(Move),
}

/// What an invitation says: who invites, under which rules and time.
#[derive(Clone, Debug)]
pub struct Terms {
    /// The name of the person who invites.
    pub from: String,
    /// The rules.
    pub preset: Preset,
    /// What an illegal move does (`None`: as the preset has it).
    pub fouls: Option<Fouls>,
    /// Main time, byoyomi and increment, seconds.
    pub time: [u32; 3],
    /// Byoyomi periods and thinking-time units.
    pub clock: ClockExtras,
    /// A start of its own, as SFEN.
    pub start: Option<String>,
}

/// One person's place in a game, or an invitation to one.
#[derive(Debug)]
pub struct Seat {
    /// For an invitation: who invites, and to what.
    pub terms: Option<Terms>,
    /// The digest of the secret that reaches it.
    key: SecretDigest,
    /// Who plays at it: a person on the page, at one side of one of its games.
    pub who: Identity,
    /// The game name.
    pub game: GameName,
    /// The invitation's code (on the creator's seat of a game between two people only).
    pub invite: Option<SeatToken>,
    /// The address that made it.
    host: IpAddr,
    /// The engine it plays, for a game against an engine.
    engine: Option<Identity>,
    /// For an invitation: the seat made when it was used.
    joined: Mutex<Option<Arc<Seat>>>,
    /// What to send, once the seat is connected.
    lines: Mutex<Option<mpsc::Sender<Said>>>,
    state: watch::Sender<SeatState>,
    created: Instant,
    /// The other person's seat, in a game between two people (an invitation: its
    /// creator's).
    partner: Mutex<Weak<Seat>>,
    /// When the seat's holder last asked for it or acted (its page asks every second
    /// while it is open), and whether its page said it was leaving then.
    seen: Mutex<(Instant, bool)>,
}

impl Seat {
    fn new(token: &SeatToken, who: Identity, game: &GameName, phase: Phase, host: IpAddr) -> Seat {
        let color = who.seat().map_or(Color::Black, |s| s.color);
        Seat {
            terms: None,
            key: token.digest(),
            who,
            game: game.clone(),
            invite: None,
            host,
            engine: None,
            joined: Mutex::new(None),
            lines: Mutex::new(None),
            state: watch::Sender::new(SeatState::new(phase, color)),
            created: Instant::now(),
            partner: Mutex::new(Weak::new()),
            seen: Mutex::new((Instant::now(), false)),
        }
    }

    /// Its holder is here (it asked for the seat, or acted at it).
    pub fn here(&self) {
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner) = (Instant::now(), false);
    }

    /// Its holder's page said it was leaving (closed, or went elsewhere).
    pub fn left(&self) {
        *self.seen.lock().unwrap_or_else(PoisonError::into_inner) = (Instant::now(), true);
    }

    /// How long since its holder was last here, and whether its page said it was
    /// leaving then.
    pub fn unseen_for(&self) -> (Duration, bool) {
        let (at, left) = *self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        (at.elapsed(), left)
    }

    /// The other person's seat, in a game between two people.
    pub fn partner(&self) -> Option<Arc<Seat>> {
        self.partner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .upgrade()
    }

    fn set_partner(&self, partner: &Arc<Seat>) {
        *self.partner.lock().unwrap_or_else(PoisonError::into_inner) = Arc::downgrade(partner);
    }

    /// Its holder is taken to have left: its connection to the lobby closes, and the
    /// lobby ends its game as a player who leaves (`abnormal`: the other side wins).
    pub fn leave(&self) {
        *self.lines.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// What it knows, now.
    pub fn state(&self) -> SeatState {
        self.state.borrow().clone()
    }

    /// For a used invitation: the seat it made.
    pub fn joined(&self) -> Option<Arc<Seat>> {
        self.joined
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sends `said` and waits (at most [`ANSWER_WAIT`]) until `answered` says the state
    /// holds the lobby's answer; the state then, or `None` if the seat is not connected or
    /// no answer came.
    pub async fn send_and_wait(
        &self,
        said: Said,
        answered: impl Fn(&SeatState, &SeatState) -> bool,
    ) -> Option<SeatState> {
        let sender = self
            .lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        let mut rx = self.state.subscribe();
        let before = rx.borrow_and_update().clone();
        sender.send(said).await.ok()?;
        let wait = rx.wait_for(|now| answered(&before, now) || now.phase == Phase::Closed);
        let now = tokio::time::timeout(ANSWER_WAIT, wait)
            .await
            .ok()?
            .ok()?
            .clone();
        Some(now)
    }

    /// Waits (at most [`ANSWER_WAIT`]) until its state satisfies `done`; the state then.
    pub async fn wait_for(&self, done: impl Fn(&SeatState) -> bool) -> Option<SeatState> {
        let mut rx = self.state.subscribe();
        let wait = rx.wait_for(|s| done(s));
        Some(
            tokio::time::timeout(ANSWER_WAIT, wait)
                .await
                .ok()?
                .ok()?
                .clone(),
        )
    }

    fn update(&self, f: impl FnOnce(&mut SeatState)) {
        self.state.send_modify(f);
    }

    /// Still to be played or being played (counts against its address's seats).
    fn live(&self) -> bool {
        !matches!(
            self.state.borrow().phase,
            Phase::Ended | Phase::Closed | Phase::Taken
        )
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
    /// Too many seats of games not ended made from this address.
    TooManyForAddress,
    /// Too many engine games at once, in all or from this address.
    EnginesBusy,
    /// The server is stopping.
    Stopped,
    /// The invitation was opened already.
    Taken,
    /// The engine has no such level (or none at all): the levels it has.
    NoSuchLevel(u32, Vec<u32>),
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::NoSuchEngine(n) => write!(f, "no engine named '{n}' on this server"),
            PlayError::BadTime(m) => f.write_str(m),
            PlayError::Full => write!(f, "{MAX_SEATS} seats are taken; try again later"),
            PlayError::TooManyForAddress => write!(
                f,
                "{MAX_SEATS_PER_ADDRESS} games made from your address are not over yet"
            ),
            PlayError::EnginesBusy => write!(
                f,
                "the engines are busy ({MAX_ENGINE_GAMES} games at once, \
                 {MAX_ENGINE_GAMES_PER_ADDRESS} from one address); try again later"
            ),
            PlayError::Stopped => f.write_str("the server is stopping"),
            PlayError::Taken => f.write_str("this invitation was opened already"),
            PlayError::NoSuchLevel(n, have) if have.is_empty() => {
                write!(f, "level {n}: this engine has no levels")
            }
            PlayError::NoSuchLevel(n, have) => write!(
                f,
                "level {n}: this engine's levels are {}",
                have.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// The web page's games: seats and the engines they may play.
#[derive(Debug)]
pub struct Play {
    local: Handle,
    engines: Vec<EngineChoice>,
    seats: Mutex<HashMap<SecretDigest, Arc<Seat>>>,
    serial: AtomicU64,
    /// Engine games at once.
    engine_games: Arc<Semaphore>,
    /// How long a person may be away from a game before the other may claim it
    /// (`--reconnect-grace`; zero: never).
    away_grace: Duration,
    /// How long a page may stay silent and still be here (a browser asks rarely from a
    /// tab in the background: once a minute after five minutes).
    silence: Duration,
    /// People's accounts (none in tests that play guests only).
    accounts: Option<WebAccounts>,
    /// Engine processes kept between games.
    pool: Arc<EnginePool>,
}

/// A name as a CSA record and an engine's Game_Summary may carry it: letters, digits and
/// `_`, at most 24, `guest` if nothing is left. Two people may have the same one: who they
/// are is their [`Identity`], not their name.
fn shown_name(name: &str) -> String {
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

/// A fair coin.
fn coin() -> bool {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).is_ok() && b[0] & 1 == 1
}

impl Play {
    /// The way into the driver.
    pub fn driver(&self) -> &Handle {
        &self.local
    }

    /// The web page's games over `local`, with these engines; a person away from a game
    /// for `away_grace` (the server's reconnection grace) may be claimed against, a page
    /// silent for `silence` is away (else when it says it leaves).
    pub fn new(
        local: Handle,
        engines: Vec<EngineChoice>,
        (away_grace, silence): (Duration, Duration),
        accounts: Option<WebAccounts>,
    ) -> Arc<Play> {
        Arc::new(Play {
            local,
            engines,
            seats: Mutex::new(HashMap::new()),
            serial: AtomicU64::new(1),
            engine_games: Arc::new(Semaphore::new(MAX_ENGINE_GAMES)),
            away_grace,
            silence,
            accounts,
            pool: Arc::default(),
        })
    }

    /// How many engine processes wait for a next game.
    pub fn idle_engines(&self) -> usize {
        self.pool.idle()
    }

    /// People's accounts, where the server keeps them.
    pub fn accounts(&self) -> Option<&WebAccounts> {
        self.accounts.as_ref()
    }

    /// How long a person may be away before the other may claim the game (zero: never),
    /// and how long a page may stay silent and still be here.
    pub fn presence_bounds(&self) -> (Duration, Duration) {
        (self.away_grace, self.silence)
    }

    /// The engines people may play against, with their levels.
    pub fn engines(&self) -> &[EngineChoice] {
        &self.engines
    }

    /// The engines' names.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// A seat (or an invitation) by its secret token.
    pub fn seat(&self, token: &str) -> Option<Arc<Seat>> {
        let key = digest(token);
        self.lock()
            .get(&key)
            .filter(|s| same_digest(&s.key, &key))
            .cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SecretDigest, Arc<Seat>>> {
        self.seats.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets go of invitations nobody opened in [`INVITATION_LIFE`]: the invitation goes,
    /// and its creator's seat leaves the game (its page says the invitation expired).
    fn expire_invitations(seats: &mut HashMap<SecretDigest, Arc<Seat>>, now: Instant) {
        let expired: Vec<(SecretDigest, GameName)> = seats
            .iter()
            .filter(|(_, s)| {
                s.state.borrow().phase == Phase::Invited
                    && now.duration_since(s.created) >= INVITATION_LIFE
            })
            .map(|(k, s)| (*k, s.game.clone()))
            .collect();
        for (key, game) in expired {
            seats.remove(&key);
            for s in seats.values().filter(|s| s.game == game) {
                s.update(|st| {
                    st.phase = Phase::Closed;
                    st.error = Some("the invitation expired unopened".into());
                });
                // Dropping the sender ends the seat's connection: it leaves the lobby.
                *s.lines.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
        }
    }

    /// Makes room for `n` seats made from `host`, letting go of ended ones, oldest first.
    fn room(
        &self,
        seats: &mut HashMap<SecretDigest, Arc<Seat>>,
        n: usize,
        host: IpAddr,
    ) -> Result<(), PlayError> {
        Self::expire_invitations(seats, Instant::now());
        let mine = seats
            .values()
            .filter(|s| s.host == host && s.live() && s.state.borrow().phase != Phase::Invited)
            .count();
        if mine + 1 > MAX_SEATS_PER_ADDRESS {
            return Err(PlayError::TooManyForAddress);
        }
        if seats.len() + n <= MAX_SEATS {
            return Ok(());
        }
        let mut done: Vec<(Instant, SecretDigest)> = seats
            .iter()
            .filter(|(_, s)| !s.live())
            .map(|(k, s)| (s.created, *k))
            .collect();
        done.sort();
        for (_, key) in done {
            if seats.len() + n <= MAX_SEATS {
                break;
            }
            seats.remove(&key);
        }
        if seats.len() + n <= MAX_SEATS {
            Ok(())
        } else {
            Err(PlayError::Full)
        }
    }

    /// A place among the engine games, for `host`.
    fn engine_place(
        &self,
        seats: &HashMap<SecretDigest, Arc<Seat>>,
        host: IpAddr,
    ) -> Result<OwnedSemaphorePermit, PlayError> {
        let mine = seats
            .values()
            .filter(|s| s.host == host && s.engine.is_some() && s.live())
            .count();
        if mine >= MAX_ENGINE_GAMES_PER_ADDRESS {
            return Err(PlayError::EnginesBusy);
        }
        Arc::clone(&self.engine_games)
            .try_acquire_owned()
            .map_err(|_| PlayError::EnginesBusy)
    }

    /// Starts a game for a person asking from `host`: the person's seat logged in (and for
    /// a game against another person, the invitation, used when opened); for an engine,
    /// the engine on its way to the CSA port. The seat and its secret token.
    ///
    /// # Errors
    /// [`PlayError`].
    pub async fn start(
        &self,
        req: GameRequest,
        host: IpAddr,
    ) -> Result<(Arc<Seat>, SeatToken), PlayError> {
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
        let level = match &engine {
            Some(e) => e.level(req.level)?,
            None => None,
        };
        check_time(req.time, engine.is_some())?;
        check_extras(req.time, req.clock)?;
        let [total, byoyomi, increment] = req.time;
        let n = self.serial.fetch_add(1, Ordering::Relaxed);
        let second = if increment > 0 {
            format!("{increment}F")
        } else {
            byoyomi.to_string()
        };
        let game = GameName::from(format!("web{n}x{}-{total}-{second}", &new_secret()[..8]));
        let color = req
            .color
            .unwrap_or_else(|| if coin() { Color::Black } else { Color::White });
        let token = SeatToken::new();
        let side = |color| SeatId { game: n, color };
        let who = person(side(color), &req.name, req.account.as_deref());
        let who_shown = who.shown().to_string();
        let mut seat = Seat::new(&token, who, &game, Phase::Waiting, host);
        let engine_who = engine.as_ref().map(|e| Identity::Engine {
            seat: side(!color),
            engine: shown_name(&match &level {
                Some(l) => format!("{}_L{}", e.name, l.level),
                None => e.name.clone(),
            }),
        });
        seat.engine.clone_from(&engine_who);
        let invite = (req.opponent == Opponent::Person).then(SeatToken::new);
        seat.invite.clone_from(&invite);
        let seat = Arc::new(seat);
        let engine_permit = {
            let mut seats = self.lock();
            self.room(&mut seats, 2, host)?;
            let permit = match engine {
                Some(_) => Some(self.engine_place(&seats, host)?),
                None => None,
            };
            seats.insert(seat.key, Arc::clone(&seat));
            if let Some(code) = &invite {
                let guest = person(side(!color), "", None);
                let mut invitation = Seat::new(code, guest, &game, Phase::Invited, host);
                invitation.terms = Some(Terms {
                    from: who_shown.clone(),
                    preset: req.preset,
                    fouls: req.fouls,
                    time: req.time,
                    clock: req.clock,
                    start: req.start.as_ref().map(Position::to_sfen),
                });
                invitation.set_partner(&seat);
                seats.insert(invitation.key, Arc::new(invitation));
            }
            permit
        };
        let setup = GameSetup {
            preset: Some(req.preset),
            fouls: req.fouls,
            start: req.start,
            max_moves: req.max_moves,
            web_only: true,
            clock: req.clock,
        };
        if !self.local.setup(game.as_str().to_string(), setup).await {
            return Err(PlayError::Stopped);
        }
        self.connect_as(&seat).await?;
        if let (Some(engine), Some(who), Some(permit)) = (engine, engine_who, engine_permit) {
            self.engine_joins((&engine, level.as_ref()), &game, who, permit);
        }
        Ok((seat, token))
    }

    /// Opens an invitation from `host`: a seat of its own is made with a new secret (the
    /// link's code acts no more), it logs in, and the game starts. The new seat and its
    /// secret token.
    ///
    /// # Errors
    /// [`PlayError::Taken`] if it was opened already.
    pub async fn join(
        &self,
        invitation: &Arc<Seat>,
        (name, account): (&str, Option<&str>),
        host: IpAddr,
    ) -> Result<(Arc<Seat>, SeatToken), PlayError> {
        let token = SeatToken::new();
        let seat = {
            let mut seats = self.lock();
            let s = invitation.state();
            if s.phase != Phase::Invited {
                return Err(PlayError::Taken);
            }
            // The invitation's side of its game, under the name the guest gave.
            let who = match &invitation.who {
                Identity::Web { seat, .. } => person(*seat, name, account),
                other => other.clone(),
            };
            let seat = Arc::new(Seat::new(
                &token,
                who,
                &invitation.game,
                Phase::Waiting,
                host,
            ));
            seats.insert(seat.key, Arc::clone(&seat));
            if let Some(creator) = invitation.partner() {
                creator.set_partner(&seat);
                seat.set_partner(&creator);
            }
            *invitation
                .joined
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&seat));
            invitation.update(|st| st.phase = Phase::Taken);
            seat
        };
        self.connect_as(&seat).await?;
        Ok((seat, token))
    }

    async fn connect_as(&self, seat: &Arc<Seat>) -> Result<(), PlayError> {
        seat.update(|s| s.login = Some(seat.who.shown().to_string()));
        let color = seat.state().color;
        let conn = self
            .local
            .connect(CheckedLogin {
                who: seat.who.clone(),
                x1: false,
                game: Some((seat.game.clone(), Some(color))),
                address: None,
                reconnect: None,
            })
            .await
            .ok_or(PlayError::Stopped)?;
        let (tx, rx) = mpsc::channel(16);
        *seat.lines.lock().unwrap_or_else(PoisonError::into_inner) = Some(tx);
        let span = tracing::info_span!("seat", game = %seat.game, side = %color.name());
        tokio::spawn(run_seat(Arc::clone(seat), conn, rx, self.local.clone()).instrument(span));
        Ok(())
    }

    /// Puts an engine on the CSA port for the game `game` as `who` (its side of the game),
    /// logged in with a ticket; `permit` is its place among the engine games, held while it
    /// plays.
    fn engine_joins(
        &self,
        (engine, level): (&EngineChoice, Option<&EngineLevel>),
        game: &GameName,
        who: Identity,
        permit: OwnedSemaphorePermit,
    ) {
        let at = self.local.csa_addr();
        let color = who.seat().map_or(Color::White, |s| s.color);
        let turn = if color == Color::Black { "B" } else { "W" };
        let ticket = self.local.issue_ticket(who.clone());
        let mut config = BridgeConfig::new(
            &at.ip().to_string(),
            at.port(),
            who.shown(),
            &ticket,
            engine.engine.clone(),
        );
        config.game = Some(format!("{game}-{turn}"));
        // A level thinks as it says, whatever the clock, with the options that weaken it.
        if let Some(level) = level {
            config.strength = Some(level.go());
            config.engine.options.extend(level.options.iter().cloned());
        }
        // The game, and the replay after a no contest if the server proposes one.
        config.games = None;
        config.one_sitting = true;
        config.comments = false;
        config.retry = Duration::from_millis(200);
        let local = self.local.clone();
        let span =
            tracing::info_span!("engine", game = %game, side = %color.name(), engine = %config.id);
        // An engine of the same name and level that finished a game is taken up again.
        let key = format!("{}:{}", engine.name, level.map_or(0, |l| l.level));
        let pool = Arc::clone(&self.pool);
        tokio::spawn(
            async move {
                let _permit = permit;
                let mut process = pool.take(&key);
                if let Err(e) = csa_bridge::run_with(&config, &mut process).await {
                    tracing::warn!("{e}");
                }
                if let Some(e) = process {
                    pool.give(key, e).await;
                }
                local.revoke_ticket(&who);
            }
            .instrument(span),
        );
    }
}

/// A seat's connection: a CSA client session that agrees to every game proposed to it,
/// sends what the page asks, and keeps what it reads in the seat's state.
async fn run_seat(seat: Arc<Seat>, mut conn: Conn, mut lines: mpsc::Receiver<Said>, local: Handle) {
    let mut session = ClientSession::new();
    loop {
        tokio::select! {
            heard = conn.recv() => {
                let event = match heard {
                    None => break,
                    Some(Heard::Summary(summary)) => Ok(Some(session.read_summary(*summary))),
                    Some(Heard::Line(line)) => session.read_line(line),
                    Some(Heard::Reply(_)) => Ok(None),
                };
                match event {
                    Ok(Some(Event::Proposed(summary))) => {
                        seat.update(|s| s.proposed(&summary));
                        if !conn.send(ClientMessage::Agree(None)).await {
                            break;
                        }
                    }
                    Ok(Some(event)) => seat.update(|s| s.apply(event)),
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!("{e}");
                        if !conn.send(ClientMessage::Reject(None)).await {
                            break;
                        }
                    }
                }
            }
            said = lines.recv() => {
                let sent = match said {
                    None => break,
                    Some(Said::Message(m)) => conn.send(m).await,
                    Some(Said::Move(mv)) => conn.play(mv).await,
                };
                if !sent {
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
    *seat.lines.lock().unwrap_or_else(PoisonError::into_inner) = None;
    if let Some(engine) = &seat.engine {
        local.revoke_ticket(engine);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gyoku_proto::csa_client::ClientSession;

    /// The lines a seat reads in a game proposed with colours swapped (a replay), played a
    /// move each way, a refusal, a proposal and the end: its state after each.
    #[test]
    fn a_session_moves_the_state() {
        let summary = "BEGIN Game_Summary\nProtocol_Version:1.2\nFormat:Shogi 1.0\n\
            Game_ID:g2\nName+:a\nName-:b\nYour_Turn:-\nTo_Move:+\nBEGIN Time\n\
            Time_Unit:1sec\nTotal_Time:600\nByoyomi:10\nEND Time\nBEGIN Position\nPI\n+\n\
            END Position\nEND Game_Summary";
        let mut session = ClientSession::new();
        let mut s = SeatState::new(Phase::Waiting, Color::Black);
        for line in summary.lines() {
            match session.read(line).unwrap() {
                Some(Event::Proposed(summary)) => s.proposed(&summary),
                Some(e) => s.apply(e),
                None => {}
            }
        }
        assert_eq!((s.phase, s.color), (Phase::Agreeing, Color::White));
        assert_eq!(s.to_move(), Some(Color::Black));
        let mut read = |s: &mut SeatState, line: &str| {
            if let Some(e) = session.read(line).unwrap() {
                s.apply(e);
            }
        };
        read(&mut s, "START:g2");
        assert_eq!((s.phase, s.game_id()), (Phase::Playing, Some("g2")));
        read(&mut s, "+7776FU,T3");
        assert_eq!((s.echoes, s.last_echo.as_str()), (1, "+7776FU,T3"));
        assert_eq!((s.to_move(), s.played), (Some(Color::White), 1));
        let nifu = GameError::IllegalMove(gyoku::IllegalMoveKind::Nifu);
        read(&mut s, &format!("##[ERROR] {nifu}"));
        assert_eq!(s.errors, 1);
        assert_eq!(s.refusal, Some(nifu), "the kind, read back as a value");
        read(&mut s, "##[IMPASSE] proposed by +");
        assert_eq!(s.proposal, Some((gyoku::Proposal::Impasse, Color::Black)));
        read(&mut s, "-3334FU,T1");
        assert_eq!((s.proposal, s.to_move()), (None, Some(Color::Black)));
        read(&mut s, "%TORYO,T0");
        read(&mut s, "#RESIGN");
        assert_eq!(s.phase, Phase::Playing);
        read(&mut s, "#WIN");
        assert_eq!((s.phase, s.result.as_deref()), (Phase::Ended, Some("#WIN")));
    }

    /// Issue 43: games against an engine are bounded in time (each holds an engine place
    /// while it lasts); games between people are not, beyond 999,999 s.
    #[test]
    fn engine_games_have_a_bounded_clock() {
        for (time, engine, ok) in [
            ([600, 10, 0], true, true),
            ([3600, 60, 0], true, true),
            ([3601, 0, 0], true, false),
            ([0, 61, 0], true, false),
            ([60, 0, 61], true, false),
            ([999_999, 0, 0], true, false),
            ([999_999, 0, 0], false, true),
            ([1_000_000, 0, 0], false, false),
            ([60, 5, 2], false, false),
            ([0, 0, 0], false, false),
        ] {
            assert_eq!(
                check_time(time, engine).is_ok(),
                ok,
                "{time:?} engine {engine}"
            );
        }
    }

    /// Issue 28, item 14: unopened invitations never expired. After [`INVITATION_LIFE`] the
    /// invitation goes and its creator's seat leaves the game, saying why.
    #[test]
    fn unopened_invitations_expire() {
        let host = IpAddr::from([192, 0, 2, 1]);
        let person = |game, color, shown: &str| Identity::Web {
            seat: SeatId { game, color },
            shown: shown.into(),
            account: None,
        };
        let (g, h) = (GameName::from("g"), GameName::from("h"));
        let creator = Arc::new(Seat::new(
            &SeatToken::new(),
            person(1, Color::Black, "x"),
            &g,
            Phase::Waiting,
            host,
        ));
        let invitation = Arc::new(Seat::new(
            &SeatToken::new(),
            person(1, Color::White, "guest"),
            &g,
            Phase::Invited,
            host,
        ));
        let other = Arc::new(Seat::new(
            &SeatToken::new(),
            person(2, Color::Black, "y"),
            &h,
            Phase::Waiting,
            host,
        ));
        let mut seats: HashMap<SecretDigest, Arc<Seat>> = [&creator, &invitation, &other]
            .into_iter()
            .map(|s| (s.key, Arc::clone(s)))
            .collect();
        let now = Instant::now();
        Play::expire_invitations(&mut seats, now);
        assert_eq!(seats.len(), 3, "not yet");
        Play::expire_invitations(&mut seats, now + INVITATION_LIFE);
        assert_eq!(seats.len(), 2);
        assert!(!seats.contains_key(&invitation.key));
        let s = creator.state();
        assert_eq!(s.phase, Phase::Closed);
        assert_eq!(s.error.as_deref(), Some("the invitation expired unopened"));
        assert_eq!(other.state().phase, Phase::Waiting);
    }

    #[test]
    fn shown_names_fit_a_csa_record() {
        assert_eq!(shown_name("Taro Yamada!"), "TaroYamada");
        assert_eq!(shown_name("名人"), "guest");
        assert_eq!(shown_name(&"x".repeat(40)).len(), 24);
    }
}
