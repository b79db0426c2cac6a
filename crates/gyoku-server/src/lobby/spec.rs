//! What a game is made from, as data: its rules, fouls, players, times, start and moves
//! ([`GameSpec`]), a buoy's moves, the start of a handicap game.

use gyoku::rules::Fouls;
use gyoku::{Color, Handicap, Position, Preset, RuleSet};

use super::change::StartedGame;
use crate::identity::PlayerKind;

/// The start position of a game: the even start, or a handicap as shogi-server sets it
/// (the giver is Black and moves first, its pieces removed).
pub fn start_position(handicap: Option<Handicap>) -> Position {
    let Some(h) = handicap else {
        return Position::startpos();
    };
    // Gyoku's handicaps have White give; turn the board round and swap the colours.
    let given = Position::from_sfen(h.sfen()).expect("handicap SFENs are valid");
    let mut setup = gyoku::Setup::empty();
    for (sq, piece) in given.board().iter() {
        let flipped = gyoku::Square::new(10 - sq.file(), 10 - sq.rank()).expect("on the board");
        setup.put(
            flipped,
            gyoku::Piece {
                color: !piece.color,
                role: piece.role,
            },
        );
    }
    setup.turn = Color::Black;
    Position::from_setup(setup).expect("a turned handicap is a legal position")
}

/// A no contest's replay: the game it replays, and Black's and White's main time in
/// seconds for it where the replay clock gives them their own (`None`: fresh clocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The Game_ID of the no contest.
    pub of: String,
    /// The replay's Black's and White's main time, seconds.
    pub main_times: Option<[u32; 2]>,
}

/// A game as stored: what it takes to propose it again (a suspended game) or for the
/// first time.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The Game_ID.
    pub id: String,
    /// The game name.
    pub name: String,
    /// The rules.
    pub preset: Preset,
    /// What illegal moves do; `None`: as the preset has it.
    pub fouls: Option<Fouls>,
    /// Black's and White's names.
    pub names: [String; 2],
    /// The move limit (0: none).
    pub max_moves: u32,
    /// Seconds.
    pub total: u32,
    /// Seconds.
    pub byoyomi: u32,
    /// Seconds.
    pub increment: u32,
    /// The start position.
    pub start: Position,
    /// Moves the game started with (buoy), with their times.
    pub initial_moves: Vec<(String, u32)>,
    /// Moves played, with the seconds each was charged.
    pub moves: Vec<(String, u64)>,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub started_at: String,
    /// The no-contest game this one replays.
    pub replay_of: Option<String>,
    /// How Black and White logged in ([`StartedGame::rating_ids`]: a rating id, empty for
    /// no password, `None` when not kept).
    pub rating_ids: [Option<String>; 2],
    /// How Black and White came to the board ([`StartedGame::kinds`]).
    pub kinds: [PlayerKind; 2],
    /// Black's and White's main time in seconds where they differ from `total` (a
    /// replay's, [`StartedGame::main_times`]).
    pub main_times: Option<[u32; 2]>,
    /// Byoyomi periods and thinking-time units ([`StartedGame::clock`]).
    pub clock: super::clock_extras::ClockExtras,
    /// The digests of the reconnect tokens Black and White last held, kept while the game
    /// is suspended: a side that logged in without a password takes the game up only with
    /// its token, for nothing else tells it from another login of its name. Not stored:
    /// after a restart such a side is taken up as before.
    pub resume_keys: [Option<crate::tickets::SecretDigest>; 2],
}

impl GameSpec {
    /// A stored game as a spec; `None` if what is stored does not make sense (an unknown
    /// preset, a bad SFEN).
    pub fn from_stored(g: &StartedGame, moves: Vec<(String, u64)>) -> Option<GameSpec> {
        Some(GameSpec {
            id: g.id.clone(),
            name: g.name.clone(),
            preset: g.rules.parse().ok()?,
            fouls: match g.fouls.as_deref() {
                None => None,
                Some(f) => Some(f.parse().ok()?),
            },
            names: [g.black.clone(), g.white.clone()],
            max_moves: g.max_moves,
            total: g.total_time,
            byoyomi: g.byoyomi,
            increment: g.increment,
            start: Position::from_sfen(&g.start_sfen).ok()?,
            initial_moves: split_moves(&g.initial_moves.replace('\n', ""))?,
            moves,
            started_at: g.started_at.clone(),
            replay_of: g.replay_of.clone(),
            rating_ids: g.rating_ids.clone(),
            kinds: g.kinds,
            main_times: g.main_times,
            clock: g.clock,
            resume_keys: [None, None],
        })
    }
}

/// `rules` with the move limit `plies` (none for 0; the preset's own for `None`), the
/// rest of the limit as the preset has it (the JSA check extension and its no contest
/// stay), through the core's one helper; and shogi-server's way at the limit when
/// `strict_csa_server`.
pub(super) fn limited(mut rules: RuleSet, plies: Option<u32>, strict_csa_server: bool) -> RuleSet {
    if let Some(plies) = plies {
        rules.set_max_moves(plies);
    }
    if let Some(limit) = &mut rules.move_limit {
        limit.strict_csa_server = strict_csa_server;
    }
    rules
}

impl GameSpec {
    /// The clock at the first move after the buoy's (which cost nothing), `turn` to move:
    /// the name's times with the game's periods and units, charged in whole seconds as CSA
    /// servers do, each move at least `least_time_per_move` seconds; each side's main time
    /// its own in a replay under a replay clock.
    pub fn start_clock(&self, least_time_per_move: u32, turn: gyoku::Color) -> gyoku::Clock {
        let control = self.clock.apply(gyoku::TimeControl {
            main: u64::from(self.total) * 1000,
            byoyomi: u64::from(self.byoyomi) * 1000,
            increment: u64::from(self.increment) * 1000,
            least_time_per_move: u64::from(least_time_per_move) * 1000,
            rounding: gyoku::Rounding::FlooredSeconds,
            ..gyoku::TimeControl::sudden_death(0)
        });
        let [black, white] = self
            .main_times
            .map_or([control.main; 2], |t| t.map(|s| u64::from(s) * 1000));
        gyoku::Clock::with_remaining(control, turn, black, white)
    }

    /// The game's rules: its preset's, with its own move limit (none for 0; the rest of
    /// the limit as the preset has it) and its fouls; shogi-server's way at the limit when
    /// `strict_csa_server`.
    pub fn rules(&self, strict_csa_server: bool) -> RuleSet {
        let mut rules = limited(self.preset.rules(), Some(self.max_moves), strict_csa_server);
        if let Some(fouls) = self.fouls {
            rules.fouls = fouls;
        }
        rules
    }
}

/// The moves of a buoy or fork, `+7776FU,T0-3334FU,T2` or `+7776FU-3334FU`: each CSA
/// move with its time (1 s when none is given, as shogi-server).
pub fn split_moves(text: &str) -> Option<Vec<(String, u32)>> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let m = text.get(i..i + 7)?;
        if !gyoku_proto::csa::move_shaped(m) {
            return None;
        }
        i += 7;
        let mut t = 1;
        if b.get(i) == Some(&b',') && b.get(i + 1) == Some(&b'T') {
            let digits = b[i + 2..].iter().take_while(|c| c.is_ascii_digit()).count();
            t = text.get(i + 2..i + 2 + digits)?.parse().ok()?;
            i += 2 + digits;
        }
        out.push((m.to_string(), t));
        if out.len() > 10_000 {
            return None;
        }
    }
    Some(out)
}

/// Plays CSA moves from `start`; `None` if one is not legal.
pub(super) fn play_moves(start: &Position, moves: &[(String, u32)]) -> Option<Position> {
    let mut pos = start.clone();
    for (m, _) in moves {
        let (mover, mv) = gyoku_kifu::csa::parse_move(m, &pos).ok()?;
        if mover != pos.turn() {
            return None;
        }
        pos.play(mv).ok()?;
    }
    Some(pos)
}

/// How a player logged in, as a game keeps it: its rating id, or empty without a password.
pub(super) fn login_proof(rating_id: Option<&String>) -> Option<String> {
    Some(rating_id.cloned().unwrap_or_default())
}

/// Whether a player who logged in with `rating_id` logged in as `kept` says the player of
/// a game did (anyone, when it was not kept).
pub(super) fn same_login(kept: Option<&String>, rating_id: Option<&String>) -> bool {
    match kept {
        None => true,
        Some(id) if id.is_empty() => rating_id.is_none(),
        Some(id) => rating_id == Some(id),
    }
}
