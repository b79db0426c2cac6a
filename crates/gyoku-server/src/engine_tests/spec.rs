//! What an engine test is: two engines, the rules by preset, the clock, the openings and
//! when it stops, as `gyoku test create` sends it ([`TestSpec`]), and the same checked
//! into what the referee plays and judges by ([`Checked`]).

use gyoku::{Preset, RuleSet, TimeControl};
use gyoku_arena::executor::{match_rules, match_rules_digest};
use gyoku_arena::openings::Opening;
use gyoku_league::sprt::Sprt;
use serde::{Deserialize, Serialize};

/// The most openings a test holds.
pub const MAX_OPENINGS: usize = 100_000;
/// The most game pairs a test plays.
pub const MAX_PAIRS: u32 = 1_000_000;
/// The most pairs in one batch.
pub const MAX_BATCH_PAIRS: u32 = 64;
/// The most options an engine is given.
const MAX_OPTIONS: usize = 64;

/// One of a test's two engines: its name (what workers run it by, and what records show),
/// optionally the command a worker runs when it has none of its own for that name, and
/// its USI options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestEngine {
    /// Its name: letters, digits, `-`, `_` and `.`, at most 32.
    pub name: String,
    /// The command line a worker runs it with, unless the worker has its own for the name
    /// (`gyoku worker --engine NAME=COMMAND`); `builtin` needs none.
    #[serde(default)]
    pub command: Option<String>,
    /// `setoption` pairs.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// A build the server keeps, by its SHA-256 (`POST /api/artefacts`): each worker
    /// fetches it and runs it, unless it has its own command for the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artefact: Option<String>,
}

/// An engine test as asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestSpec {
    /// Its name: letters, digits, `-`, `_` and `.`, at most 64.
    pub name: String,
    /// Engine 1 (the one tested) and engine 2.
    pub engines: [TestEngine; 2],
    /// The rule-set preset (`gyoku rules` lists them).
    pub preset: String,
    /// The main time and increment (`10s`, `60+1s`), as `gyoku match --time`.
    #[serde(default)]
    pub time: Option<String>,
    /// The byoyomi, as `gyoku match --byoyomi`.
    #[serde(default)]
    pub byoyomi: Option<String>,
    /// The openings, each one USI line (`startpos moves …`, `sfen … moves …`), taken in
    /// turn: pair `k` plays opening `k` modulo their number. None: the even start.
    #[serde(default)]
    pub openings: Vec<String>,
    /// The most game pairs.
    pub pairs: u32,
    /// An SPRT that stops the test when it decides (`elo0=0,elo1=5`, as `gyoku match
    /// --sprt`).
    #[serde(default)]
    pub sprt: Option<String>,
    /// Pairs handed to a worker at once (default 4).
    #[serde(default = "default_batch_pairs")]
    pub batch_pairs: u32,
}

fn default_batch_pairs() -> u32 {
    4
}

/// A test checked: what the games are played and judged under.
#[derive(Clone, Debug)]
pub struct Checked {
    /// As asked (openings written as `sfen … moves …`).
    pub spec: TestSpec,
    /// The rules the games are played under (fouls and failed declarations lose).
    pub rules: RuleSet,
    /// The clock.
    pub time: TimeControl,
    /// The openings (the even start when none was given).
    pub openings: Vec<Opening>,
    /// The test that stops it.
    pub sprt: Option<Sprt>,
    /// The digest of the rules and clock the games are played under.
    pub digest: String,
}

/// Whether `name` is a name a test or an engine may have: 1 to `max` of letters, digits,
/// `-`, `_` and `.`.
pub fn valid_name(name: &str, max: usize) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

impl TestSpec {
    /// Checks the test.
    ///
    /// ```
    /// use gyoku_server::engine_tests::spec::{TestEngine, TestSpec};
    /// let engine = |name: &str| TestEngine { name: name.into(), command: None, options: vec![], artefact: None };
    /// let spec = TestSpec {
    ///     name: "t1".into(),
    ///     engines: [engine("new"), engine("old")],
    ///     preset: "csa".into(),
    ///     time: None,
    ///     byoyomi: Some("100ms".into()),
    ///     openings: vec!["startpos moves 7g7f".into()],
    ///     pairs: 100,
    ///     sprt: Some("elo0=0,elo1=10".into()),
    ///     batch_pairs: 4,
    /// };
    /// let checked = spec.check().unwrap();
    /// assert_eq!(checked.openings[0].moves.len(), 1);
    /// assert_eq!(checked.digest.len(), 64);
    /// let mut twins = spec.clone();
    /// twins.engines[1].name = "new".into();
    /// assert!(twins.check().unwrap_err().contains("two engines"));
    /// ```
    ///
    /// # Errors
    /// What is wrong, naming the field.
    pub fn check(&self) -> Result<Checked, String> {
        if !valid_name(&self.name, 64) {
            return Err(format!(
                "name '{}': 1 to 64 letters, digits, '-', '_' or '.'",
                self.name
            ));
        }
        for (k, e) in self.engines.iter().enumerate() {
            if !valid_name(&e.name, 32) {
                return Err(format!(
                    "engines[{k}].name '{}': 1 to 32 letters, digits, '-', '_' or '.'",
                    e.name
                ));
            }
            if e.command
                .as_ref()
                .is_some_and(|c| c.trim().is_empty() || c.len() > 4096)
            {
                return Err(format!(
                    "engines[{k}].command: empty or longer than 4096 bytes"
                ));
            }
            if e.options.len() > MAX_OPTIONS
                || e.options.iter().any(|(n, v)| {
                    n.is_empty()
                        || n.len() > 256
                        || v.len() > 1024
                        || n.contains(['\n', '\r'])
                        || v.contains(['\n', '\r'])
                })
            {
                return Err(format!(
                    "engines[{k}].options: at most {MAX_OPTIONS}, each a name of 1 to 256 \
                     bytes and a value of at most 1024, on one line"
                ));
            }
        }
        if self.engines[0].name == self.engines[1].name {
            return Err(format!(
                "two engines named '{}': give each its own name",
                self.engines[0].name
            ));
        }
        let preset: Preset = self.preset.parse().map_err(|_| {
            format!(
                "preset '{}': not a rule-set preset (gyoku rules)",
                self.preset
            )
        })?;
        let rules = match_rules(preset.rules());
        let time = match (&self.time, &self.byoyomi, preset.event()) {
            (None, None, Some(event)) => event.clock,
            (t, b, _) => gyoku_arena::timecontrol::parse_time_control(t.as_deref(), b.as_deref())
                .map_err(|e| format!("time: {e}"))?,
        };
        if self.openings.len() > MAX_OPENINGS {
            return Err(format!("openings: at most {MAX_OPENINGS}"));
        }
        let mut openings = Vec::with_capacity(self.openings.len().max(1));
        for (k, line) in self.openings.iter().enumerate() {
            openings.push(
                Opening::parse_line(line, &rules).map_err(|e| format!("openings[{k}]: {e}"))?,
            );
        }
        if openings.is_empty() {
            openings.push(Opening::startpos());
        }
        if !(1..=MAX_PAIRS).contains(&self.pairs) {
            return Err(format!("pairs: 1 to {MAX_PAIRS}"));
        }
        if !(1..=MAX_BATCH_PAIRS).contains(&self.batch_pairs) {
            return Err(format!("batch_pairs: 1 to {MAX_BATCH_PAIRS}"));
        }
        let sprt = self
            .sprt
            .as_deref()
            .map(Sprt::parse)
            .transpose()
            .map_err(|e| format!("sprt: {e}"))?;
        let mut spec = self.clone();
        spec.openings = if self.openings.is_empty() {
            Vec::new()
        } else {
            openings.iter().map(Opening::usi_line).collect()
        };
        Ok(Checked {
            digest: match_rules_digest(&self.preset, &rules, &time),
            spec,
            rules,
            time,
            openings,
            sprt,
        })
    }
}

impl Checked {
    /// The opening of game `number` (from 1): games `2k+1` and `2k+2` play opening `k`.
    pub fn opening_of(&self, number: u32) -> &Opening {
        let pair = (number.saturating_sub(1) / 2) as usize;
        &self.openings[pair % self.openings.len()]
    }
}

/// Which engine (0 or 1) has Black in game `number` (from 1): engine 1 in the odd games.
pub const fn black_of(number: u32) -> usize {
    (number.saturating_sub(1) % 2) as usize
}
