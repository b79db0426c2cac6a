//! What the lobby asks storage to keep: data only. The driver commits a batch of
//! [`Change`]s before it sends anything the batch decided; storage never calls back.

use crate::identity::PlayerKind;

/// A game as stored when both players agreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedGame {
    /// The Game_ID.
    pub id: String,
    /// The game name (`floodgate-300-10F`).
    pub name: String,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The rules preset.
    pub rules: String,
    /// What illegal moves do (`refuse`, `lose`); `None`: as the preset has it.
    pub fouls: Option<String>,
    /// The move limit (0: none).
    pub max_moves: u32,
    /// Seconds.
    pub least_time_per_move: u32,
    /// Seconds.
    pub total_time: u32,
    /// Seconds.
    pub byoyomi: u32,
    /// Seconds.
    pub increment: u32,
    /// The start position.
    pub start_sfen: String,
    /// Moves the game started with (`+7776FU,T3` each line).
    pub initial_moves: String,
    /// `YYYY/MM/DD HH:MM:SS`.
    pub started_at: String,
    /// The game this one replays (a no-contest's replay with colours swapped).
    pub replay_of: Option<String>,
    /// How Black and White logged in: their rating ids (keyed by the server from their
    /// passwords; empty: without one). `None` in games stored before it was kept. A
    /// suspended game resumes only for players who log in the same way.
    pub rating_ids: [Option<String>; 2],
    /// The digest of the rules it is played under
    /// ([`gyoku_league::rules_digest::of_game`]); `None` in games stored before it was kept.
    pub rules_digest: Option<String>,
    /// How Black and White came to the board: a CSA client, a person on the web page, or
    /// the engine a page chose ([`PlayerKind`]); `Csa` for games stored before it was
    /// kept, but for names the page gave then.
    pub kinds: [PlayerKind; 2],
    /// Black's and White's main time in seconds where they differ from `total_time` (a
    /// no contest's replay under a replay clock that keeps what each had left); `None`:
    /// `total_time` each.
    pub main_times: Option<[u32; 2]>,
    /// Byoyomi periods and thinking-time units beside the byoyomi (a web page's game).
    pub clock: super::clock_extras::ClockExtras,
    /// When its clock started, in Unix milliseconds (the view's running clock counts from
    /// it until the first move); `None` in games stored before it was kept.
    pub started_ms: Option<i64>,
}

/// One change to the stored state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A game started.
    GameStarted(Box<StartedGame>),
    /// A move was accepted.
    Move {
        /// The Game_ID.
        game_id: String,
        /// Its ply in the game (1 = the first move after the start position and the
        /// initial moves).
        ply: u32,
        /// `+7776FU`.
        csa: String,
        /// Seconds charged.
        seconds: u64,
        /// The `,'` comment.
        comment: Option<String>,
        /// When it was accepted, in Unix milliseconds: the other side's clock started then.
        at_ms: i64,
    },
    /// A game ended (or was suspended, with no result).
    GameEnded {
        /// The Game_ID.
        game_id: String,
        /// `finished` or `suspended`.
        status: &'static str,
        /// `black`, `white`, `draw`, `no_contest`, or none when suspended.
        result: Option<String>,
        /// The reason code.
        reason: String,
        /// `YYYY/MM/DD HH:MM:SS`.
        ended_at: String,
        /// The CSA record.
        record: String,
        /// Where the record file is written, relative to the records directory.
        record_path: String,
    },
    /// A suspended game was taken up again by both players.
    GameResumed {
        /// The Game_ID.
        game_id: String,
        /// When, in Unix milliseconds: the side to move's clock started again then.
        at_ms: i64,
    },
    /// A buoy game was set (or its count changed; 0 deletes it).
    Buoy {
        /// Its name.
        name: String,
        /// Its moves (`+7776FU,T0+3334FU…` as `%%SETBUOY` takes them).
        moves: String,
        /// Who set it.
        owner: String,
        /// Games it may still start.
        count: u32,
    },
    /// An organised event's next entry ([`crate::event::Entry`], as JSON).
    EventEntry {
        /// The event's name.
        event: String,
        /// Its number among the event's entries, from 0.
        seq: u32,
        /// `YYYY/MM/DD HH:MM:SS`.
        at: String,
        /// The entry.
        entry: String,
    },
}

impl Change {
    /// The game it changes, if any.
    pub fn game_id(&self) -> Option<&str> {
        match self {
            Change::GameStarted(g) => Some(&g.id),
            Change::Move { game_id, .. }
            | Change::GameEnded { game_id, .. }
            | Change::GameResumed { game_id, .. } => Some(game_id),
            Change::Buoy { .. } | Change::EventEntry { .. } => None,
        }
    }
}

/// A stored buoy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBuoy {
    /// Its name.
    pub name: String,
    /// Its moves.
    pub moves: String,
    /// Who set it.
    pub owner: String,
    /// Games it may still start.
    pub count: u32,
}
