//! An event's definition, as the organiser writes it (`gyoku serve --event-file wcsc.toml`):
//! who plays, which game name they log in for, the format and its rounds, when it starts
//! and how long a missing player is waited for.
//!
//! ```toml
//! name = "wcsc36"                 # the event (letters, digits, '_', '-')
//! game = "wcsc36-600-10"          # the game name participants send (%%GAME wcsc36-600-10 *)
//! preset = "csa"                  # the rules (optional: as the game name or the server says)
//! format = "swiss"                # or "round-robin"
//! rounds = 5                      # Swiss only: a round-robin plays everyone once
//! start = "2026-05-03 10:00:00"   # optional: round 1 is paired then (local time)
//! round_times = ["2026-05-03 13:00:00"]  # optional: round 2 (and so on) no earlier
//! forfeit_after = 600             # seconds a missing player is waited for
//! reconnect_grace = 120           # optional: seconds a dropped player may take to come back
//! periods = 3                     # optional: byoyomi periods (the game name's byoyomi)
//! thinking_units = "10x60s"       # optional: thinking-time units beside the byoyomi
//! participants = ["alpha", "beta", "gamma", "delta"]
//!
//! [seats]                         # optional: each seat's key (gyoku event-keys adds it)
//! alpha = "blake2b:…"             # and so on for every participant
//! ```

use std::collections::BTreeMap;

use chrono::NaiveDateTime;
use gyoku::Preset;
use gyoku_proto::csa::GameName;
use serde::{Deserialize, Serialize};

use super::seats::SeatKeys;

/// The most participants an event may have.
pub const MAX_PARTICIPANTS: usize = 1000;

/// The most rounds a Swiss event may have.
pub const MAX_ROUNDS: u32 = 100;

/// The largest event file read, in bytes.
pub const MAX_EVENT_FILE: usize = 256 * 1024;

/// How the rounds are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventFormat {
    /// Each round paired by score from the results so far, no pair twice.
    Swiss,
    /// Everyone plays everyone once, in rounds fixed in advance (Berger tables).
    RoundRobin,
}

impl EventFormat {
    /// `swiss` or `round-robin`.
    pub fn name(self) -> &'static str {
        match self {
            EventFormat::Swiss => "swiss",
            EventFormat::RoundRobin => "round-robin",
        }
    }
}

/// The file's fields as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    name: String,
    game: String,
    #[serde(default)]
    preset: Option<String>,
    format: EventFormat,
    #[serde(default)]
    rounds: Option<u32>,
    #[serde(default)]
    start: Option<String>,
    #[serde(default)]
    round_times: Vec<String>,
    #[serde(default = "default_forfeit_after")]
    forfeit_after: u64,
    #[serde(default)]
    reconnect_grace: Option<u64>,
    #[serde(default)]
    periods: Option<u32>,
    #[serde(default)]
    thinking_units: Option<String>,
    participants: Vec<String>,
    #[serde(default)]
    seats: BTreeMap<String, String>,
}

fn default_forfeit_after() -> u64 {
    600
}

/// An event's definition, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFile {
    /// The event's name (the web page's `#/events/<name>`, the admin endpoint's).
    pub name: String,
    /// The game name its participants log in for; its time control is the name's.
    pub game: String,
    /// The rules, when the file chooses them.
    pub preset: Option<String>,
    /// The format.
    pub format: EventFormat,
    /// Rounds (a round-robin: as many as it needs).
    pub rounds: u32,
    /// When round 1 is paired (`YYYY-MM-DD HH:MM:SS`, local), if not at once.
    pub start: Option<String>,
    /// When rounds 2, 3, … are paired at the earliest.
    pub round_times: Vec<String>,
    /// Seconds a missing player is waited for, from the round's pairing.
    pub forfeit_after: u64,
    /// Seconds a participant whose connection drops mid-game may take to come back with
    /// its token (issue 42); `None`: the server's `--reconnect-grace`. Past it the board
    /// is lost as a disconnection (`abnormal`).
    #[serde(default)]
    pub reconnect_grace: Option<u64>,
    /// Byoyomi periods of every game (issue 41); `None`: plain byoyomi. A CSA client's
    /// `Game_Summary` says the one byoyomi.
    #[serde(default)]
    pub periods: Option<u32>,
    /// Thinking-time units beside the byoyomi, `COUNTxDURATION` (`10x60s`).
    #[serde(default)]
    pub thinking_units: Option<String>,
    /// The participants' login names, in seeding order.
    pub participants: Vec<String>,
    /// Each participant's key, when the organiser gave them keys (`[seats]`): not part of
    /// the event's stored definition, so keys may be given (or given anew) to an event
    /// under way.
    #[serde(skip)]
    pub seats: SeatKeys,
}

/// Reads a time as the file writes it.
pub fn parse_time(text: &str) -> Option<NaiveDateTime> {
    ["%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text.trim(), f).ok())
}

fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl EventFile {
    /// Reads and checks an event file's text.
    ///
    /// # Errors
    /// What is wrong, and where.
    ///
    /// ```
    /// use gyoku_server::event::EventFile;
    /// let text = "name = \"cup\"\ngame = \"cup-300-10\"\nformat = \"round-robin\"\n\
    ///             participants = [\"a\", \"b\", \"c\"]\n";
    /// let event = EventFile::parse(text).unwrap();
    /// assert_eq!(event.rounds, 3);
    /// assert!(EventFile::parse("name = \"cup\"").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<EventFile, String> {
        if text.len() > MAX_EVENT_FILE {
            return Err(format!(
                "the file has {} bytes; an event file has at most {MAX_EVENT_FILE}",
                text.len()
            ));
        }
        let w: Written = toml::from_str(text).map_err(|e| e.to_string().trim().to_string())?;
        if !plain_name(&w.name) {
            return Err(format!(
                "name '{}': 1 to 64 letters, digits, '_' or '-'",
                w.name
            ));
        }
        match GameName::parse(&w.game) {
            Some(g) if g.name == w.game => {}
            _ => {
                return Err(format!(
                    "game '{}' is not a game name (like {}-600-10)",
                    w.game, w.name
                ));
            }
        }
        if let Some(p) = &w.preset
            && p.parse::<Preset>().is_err()
        {
            return Err(format!("preset '{p}' is not a rules preset"));
        }
        let n = w.participants.len();
        if !(2..=MAX_PARTICIPANTS).contains(&n) {
            return Err(format!(
                "participants: {n} given; an event has 2 to {MAX_PARTICIPANTS}"
            ));
        }
        for (i, p) in w.participants.iter().enumerate() {
            if !plain_name(p) {
                return Err(format!(
                    "participants[{i}] '{p}': a login name (letters, digits, '_' or '-')"
                ));
            }
            if w.participants[..i].contains(p) {
                return Err(format!("participants[{i}] '{p}' is listed twice"));
            }
        }
        let rounds = match w.format {
            EventFormat::RoundRobin => {
                if w.rounds.is_some() {
                    return Err(
                        "rounds: a round-robin plays everyone once; leave rounds out".into(),
                    );
                }
                (n + n % 2 - 1) as u32
            }
            EventFormat::Swiss => match w.rounds {
                Some(r) if (1..=MAX_ROUNDS).contains(&r) => r,
                Some(r) => return Err(format!("rounds = {r}: 1 to {MAX_ROUNDS}")),
                None => return Err("rounds: a Swiss event says how many it plays".into()),
            },
        };
        for (what, t) in w
            .start
            .iter()
            .map(|t| ("start", t))
            .chain(w.round_times.iter().map(|t| ("round_times", t)))
        {
            if parse_time(t).is_none() {
                return Err(format!("{what} '{t}': a time like 2026-05-03 10:00:00"));
            }
        }
        if w.round_times.len() + 1 > rounds as usize {
            return Err(format!(
                "round_times: {} given for rounds 2 to {rounds}",
                w.round_times.len()
            ));
        }
        if !(1..=7 * 86_400).contains(&w.forfeit_after) {
            return Err(format!(
                "forfeit_after = {}: 1 to 604800 seconds",
                w.forfeit_after
            ));
        }
        if w.reconnect_grace.is_some_and(|g| g > 3600) {
            return Err(format!(
                "reconnect_grace = {}: 0 to 3600 seconds",
                w.reconnect_grace.unwrap_or_default()
            ));
        }
        let byoyomi = GameName::parse(&w.game).map_or(0, |g| g.byoyomi_seconds);
        if (w.periods.is_some_and(|p| p > 1) || w.thinking_units.is_some()) && byoyomi == 0 {
            return Err(format!(
                "periods and thinking_units extend a byoyomi: '{}' has none",
                w.game
            ));
        }
        if w.periods.is_some_and(|p| !(1..=10).contains(&p)) {
            return Err(format!(
                "periods = {}: 1 to 10",
                w.periods.unwrap_or_default()
            ));
        }
        if let Some(text) = &w.thinking_units {
            gyoku_arena::timecontrol::parse_thinking_units(text)
                .map_err(|e| format!("thinking_units = {e}"))?;
        }
        let seats = SeatKeys::read(&w.seats, &w.participants)?;
        Ok(EventFile {
            name: w.name,
            game: w.game,
            preset: w.preset,
            format: w.format,
            rounds,
            start: w.start,
            round_times: w.round_times,
            forfeit_after: w.forfeit_after,
            reconnect_grace: w.reconnect_grace,
            periods: w.periods,
            thinking_units: w.thinking_units,
            participants: w.participants,
            seats,
        })
    }

    /// Whether `other` defines the same event (its seats' keys aside).
    pub fn same_event(&self, other: &EventFile) -> bool {
        let bare = |f: &EventFile| EventFile {
            seats: SeatKeys::default(),
            ..f.clone()
        };
        bare(self) == bare(other)
    }

    /// The byoyomi periods and thinking units of every game of the event.
    pub fn clock(&self) -> crate::lobby::ClockExtras {
        crate::lobby::ClockExtras {
            periods: self.periods.unwrap_or(1),
            units: self
                .thinking_units
                .as_deref()
                .and_then(|t| gyoku_arena::timecontrol::parse_thinking_units(t).ok())
                .unwrap_or_default(),
        }
    }

    /// When round `round` (from 1) may be paired at the earliest, if the file says.
    pub fn not_before(&self, round: u32) -> Option<NaiveDateTime> {
        let text = match round {
            1 => self.start.as_ref(),
            r => self.round_times.get(r as usize - 2),
        }?;
        parse_time(text)
    }

    /// The participant's number (seed, from 0).
    pub fn seat(&self, name: &str) -> Option<usize> {
        self.participants.iter().position(|p| p == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "wcsc36"
game = "wcsc36-600-10"
format = "swiss"
rounds = 5
start = "2026-05-03 10:00:00"
round_times = ["2026-05-03 13:00"]
participants = ["a", "b", "c", "d"]
"#;

    #[test]
    fn a_good_file_reads() {
        let e = EventFile::parse(GOOD).unwrap();
        assert_eq!(e.rounds, 5);
        assert_eq!(e.forfeit_after, 600);
        assert_eq!(e.reconnect_grace, None);
        let own = EventFile::parse(&format!("{GOOD}reconnect_grace = 120\n")).unwrap();
        assert_eq!(own.reconnect_grace, Some(120));
        let long = EventFile::parse(&format!("{GOOD}reconnect_grace = 3601\n")).unwrap_err();
        assert!(long.contains("reconnect_grace = 3601"), "{long}");
        // Byoyomi periods and thinking units (issue 41), with the name's byoyomi only.
        let nhk =
            EventFile::parse(&format!("{GOOD}periods = 3\nthinking_units = \"10x60s\"\n")).unwrap();
        assert_eq!(
            (
                nhk.clock().periods,
                nhk.clock().units.count,
                nhk.clock().units.unit
            ),
            (3, 10, 60_000)
        );
        assert_eq!(
            e.clock(),
            crate::lobby::ClockExtras {
                periods: 1,
                ..Default::default()
            }
        );
        let sudden = GOOD.replace("wcsc36-600-10", "wcsc36-600-0");
        let none = EventFile::parse(&format!("{sudden}periods = 3\n")).unwrap_err();
        assert!(none.contains("extend a byoyomi"), "{none}");
        let bad = EventFile::parse(&format!("{GOOD}thinking_units = \"ten\"\n")).unwrap_err();
        assert!(bad.contains("thinking_units = 'ten'"), "{bad}");
        assert_eq!(e.seat("c"), Some(2));
        assert_eq!(e.not_before(1), parse_time("2026-05-03 10:00:00"));
        assert_eq!(e.not_before(2), parse_time("2026-05-03 13:00:00"));
        assert_eq!(e.not_before(3), None);
    }

    /// Issue 43: a `[seats]` table keys the seats, and keys given to an event under way do
    /// not make it another event.
    #[test]
    fn seats_keys_are_read_and_are_not_the_events_definition() {
        use super::super::seats::table;
        let keys: Vec<(String, String)> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| ((*n).to_string(), format!("key-{n}")))
            .collect();
        let keyed = EventFile::parse(&format!("{GOOD}{}", table(&keys))).unwrap();
        assert_eq!(keyed.seats.check("c", "key-c"), Some(true));
        assert_eq!(keyed.seats.check("c", "key-d"), Some(false));
        let bare = EventFile::parse(GOOD).unwrap();
        assert!(bare.seats.is_empty());
        assert!(keyed.same_event(&bare) && keyed != bare);
        // Stored without its keys, the definition reads back as the same event.
        let stored: EventFile =
            serde_json::from_str(&serde_json::to_string(&keyed).unwrap()).unwrap();
        assert!(stored.seats.is_empty() && stored.same_event(&keyed));
        let partial = EventFile::parse(&format!("{GOOD}{}", table(&keys[..3]))).unwrap_err();
        assert!(partial.contains("participant 'd' has no key"), "{partial}");
    }

    /// Each mistake, and the words that say where it is.
    #[test]
    fn mistakes_are_named() {
        let cases: &[(&str, &str, &str)] = &[
            ("name = \"wcsc36\"", "name = \"wc cs\"", "name 'wc cs'"),
            (
                "game = \"wcsc36-600-10\"",
                "game = \"wcsc36\"",
                "not a game name",
            ),
            ("rounds = 5", "rounds = 0", "rounds = 0"),
            ("rounds = 5\n", "", "how many it plays"),
            ("\"d\"]", "\"a\"]", "listed twice"),
            ("format = \"swiss\"", "format = \"knockout\"", "knockout"),
            (
                "start = \"2026-05-03 10:00:00\"",
                "start = \"soon\"",
                "start 'soon'",
            ),
            ("rounds = 5", "rounds = 5\nfoo = 1", "foo"),
            (
                "participants = [\"a\", \"b\", \"c\", \"d\"]",
                "participants = [\"a\"]",
                "1 given",
            ),
        ];
        for (from, to, said) in cases {
            assert!(GOOD.contains(from), "{from}");
            let text = GOOD.replacen(from, to, 1);
            let err = EventFile::parse(&text).unwrap_err();
            assert!(err.contains(said), "{to:?}: {err}");
        }
        let rr = GOOD.replace("format = \"swiss\"", "format = \"round-robin\"");
        assert!(
            EventFile::parse(&rr)
                .unwrap_err()
                .contains("leave rounds out")
        );
        let big = "#".repeat(MAX_EVENT_FILE + 1);
        assert!(EventFile::parse(&big).unwrap_err().contains("at most"));
    }
}
