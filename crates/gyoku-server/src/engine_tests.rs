//! Engine tests spread over workers (issue 45): the server keeps each test (two engines,
//! a preset, a clock, openings, a stop rule), hands game pairs out in batches to workers
//! on any machine, judges every uploaded record again under the test's rules and clock,
//! and counts the referee's verdict — never the worker's word — toward the test's SPRT.
//!
//! - [`spec`]: what a test is, checked.
//! - [`ledger`]: one test's batches, leases and counted games (pure, time passed in).
//! - [`workers`]: the workers known, their secrets and their throttling.
//! - [`rejudge`]: an uploaded record judged again.
//! - [`client`] and [`worker`]: `gyoku test` and `gyoku worker`'s side of the API.
//!
//! [`Tests`] holds them for the HTTP handlers: each operation here is quick and runs
//! under one lock; storage and judging happen outside it, in the handlers.

pub mod artefacts;
pub mod client;
pub mod ledger;
pub mod rejudge;
pub mod spec;
pub mod worker;
pub mod workers;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::store::{StoredTest, TestGame};
use ledger::{BatchId, Ledger, Refusal};
use rejudge::Verdict;
use spec::{Checked, TestSpec, black_of};
use workers::Registry;

/// The most tests kept at once (running or ended).
pub const MAX_TESTS: usize = 1_000;
/// The games a test's page lists (the latest).
const LISTED_GAMES: usize = 200;
/// The most batches one worker holds at once (in all tests).
pub const MAX_BATCHES_PER_WORKER: usize = 4;
/// The window games per minute are counted over.
const RATE_WINDOW: Duration = Duration::from_secs(120);

/// Why a request about tests is refused: an HTTP status, a stable code and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The HTTP status.
    pub status: u16,
    /// The stable code.
    pub code: &'static str,
    /// What and where.
    pub message: String,
    /// When to ask again, in seconds (a throttled worker).
    pub retry_after_s: Option<u64>,
}

impl Refused {
    fn new(status: u16, code: &'static str, message: impl Into<String>) -> Refused {
        Refused {
            status,
            code,
            message: message.into(),
            retry_after_s: None,
        }
    }
}

/// A test's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Handing out games.
    Running,
    /// Stopped by the operator.
    Stopped,
    /// Its SPRT decided, or every pair was played.
    Finished,
}

impl Status {
    /// `running`, `stopped` or `finished`.
    pub const fn code(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Stopped => "stopped",
            Status::Finished => "finished",
        }
    }

    fn parse(s: &str) -> Status {
        match s {
            "running" => Status::Running,
            "stopped" => Status::Stopped,
            _ => Status::Finished,
        }
    }
}

/// One test as the server holds it.
struct Held {
    checked: Arc<Checked>,
    status: Status,
    created_at: String,
    ended_at: Option<String>,
    ledger: Ledger,
    /// The latest games, newest last.
    latest: VecDeque<TestGame>,
    /// Games counted and disagreements, by worker.
    by_worker: BTreeMap<String, [u64; 2]>,
    /// When each recent game was counted (games per minute).
    recent: VecDeque<Instant>,
}

/// What a worker is handed: a batch of game pairs of one test.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Its number.
    pub id: BatchId,
    /// The test.
    pub test: Arc<Checked>,
    /// Its pairs, from 0.
    pub pairs: Vec<u32>,
    /// How long the lease lasts unless renewed.
    pub lease: Duration,
}

impl Batch {
    /// As the API hands it out: the test's engines, preset, clock and digest, and each
    /// game's number, Black's engine (0 or 1) and opening.
    pub fn to_json(&self) -> Value {
        let t = &self.test;
        let games: Vec<Value> = self
            .pairs
            .iter()
            .flat_map(|&p| [2 * p + 1, 2 * p + 2])
            .map(|n| {
                json!({
                    "number": n,
                    "black": black_of(n),
                    "opening": t.opening_of(n).usi_line(),
                })
            })
            .collect();
        json!({
            "id": self.id,
            "test": t.spec.name,
            "engines": t.spec.engines,
            "preset": t.spec.preset,
            "time": t.spec.time,
            "byoyomi": t.spec.byoyomi,
            "digest": t.digest,
            "games": games,
            "lease_s": self.lease.as_secs(),
        })
    }
}

/// What an upload is, once the referee has judged it.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The game as kept.
    pub game: TestGame,
    /// The referee's verdict.
    pub verdict: Verdict,
}

/// The tests and workers of one server.
pub struct Tests {
    state: Mutex<State>,
    lease: Duration,
    artefacts: Option<artefacts::Artefacts>,
}

struct State {
    tests: BTreeMap<String, Held>,
    workers: Registry,
    /// Each batch held, by number: its test.
    batches: BTreeMap<BatchId, String>,
    next_batch: BatchId,
}

impl std::fmt::Debug for Tests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tests")
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

fn engine_number(w: Option<usize>) -> Option<u8> {
    w.map(|w| w as u8 + 1)
}

impl Tests {
    /// No tests yet (see [`Tests::restore`]), batches leased for `lease`, builds kept in
    /// `artefacts`.
    pub fn new(lease: Duration, artefacts: Option<artefacts::Artefacts>) -> Tests {
        Tests {
            state: Mutex::new(State {
                tests: BTreeMap::new(),
                workers: Registry::default(),
                batches: BTreeMap::new(),
                next_batch: 1,
            }),
            lease,
            artefacts,
        }
    }

    /// Takes up the tests kept (`stored`, with each one's games), as read at a start; one
    /// held already by that name is left as it is. A kept test whose spec no longer reads
    /// is left out, with a warning.
    pub fn restore(&self, stored: Vec<(StoredTest, Vec<TestGame>)>, now: Instant) {
        let mut st = self.state();
        for (t, games) in stored {
            if st.tests.contains_key(&t.name) {
                continue;
            }
            let checked = serde_json::from_str::<TestSpec>(&t.spec)
                .map_err(|e| e.to_string())
                .and_then(|s| s.check());
            let checked = match checked {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(test = %t.name, "a kept engine test does not read: {e}");
                    continue;
                }
            };
            let mut held = Held::new(Arc::new(checked), t.created_at);
            held.status = Status::parse(&t.status);
            held.ended_at = t.ended_at;
            for g in games {
                let hp = match g.judged.0 {
                    Some(1) => 2,
                    Some(_) => 0,
                    None => 1,
                };
                held.ledger.restore(g.number, hp);
                held.note(g, now);
            }
            held.ledger.settle();
            held.recent.clear();
            st.tests.insert(t.name, held);
        }
    }

    /// The artefacts kept (none when the server has nowhere to keep them).
    pub fn artefacts(&self) -> Option<&artefacts::Artefacts> {
        self.artefacts.as_ref()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Checks a new test: refused when one of its name is held, or too many are.
    ///
    /// # Errors
    /// [`Refused`]: 400 `invalid_test`, 409 `test_exists`, 503 `too_many_tests`.
    pub fn check_new(&self, spec: &TestSpec) -> Result<Checked, Refused> {
        let checked = spec
            .check()
            .map_err(|e| Refused::new(400, "invalid_test", e))?;
        for e in &spec.engines {
            if let Some(a) = &e.artefact
                && self.artefacts.as_ref().and_then(|x| x.path(a)).is_none()
            {
                return Err(Refused::new(
                    400,
                    "unknown_artefact",
                    format!(
                        "engine '{}': no artefact {a} here (POST /api/artefacts first)",
                        e.name
                    ),
                ));
            }
        }
        let st = self.state();
        if st.tests.contains_key(&spec.name) {
            return Err(Refused::new(
                409,
                "test_exists",
                format!("a test named '{}' exists: choose another name", spec.name),
            ));
        }
        if st.tests.len() >= MAX_TESTS {
            return Err(Refused::new(
                503,
                "too_many_tests",
                format!("{MAX_TESTS} tests are kept already"),
            ));
        }
        Ok(checked)
    }

    /// Holds a test made (and kept) now.
    pub fn add(&self, checked: Checked, created_at: String) {
        let name = checked.spec.name.clone();
        self.state()
            .tests
            .insert(name, Held::new(Arc::new(checked), created_at));
    }

    /// Stops a test (its batches are let go; uploads for them are refused). Returns its
    /// status, unchanged when it was not running.
    ///
    /// # Errors
    /// 404 `no_test`.
    pub fn stop(&self, name: &str, ended_at: &str) -> Result<(Status, Option<Value>), Refused> {
        let mut st = self.state();
        let held = st.tests.get_mut(name).ok_or_else(|| no_test(name))?;
        if held.status == Status::Running {
            held.status = Status::Stopped;
            held.ended_at = Some(ended_at.to_string());
        }
        let decision = held.decision();
        let status = held.status;
        st.batches.retain(|_, t| t != name);
        Ok((status, decision))
    }

    /// Registers a worker: its id and secret.
    ///
    /// # Errors
    /// 503 `too_many_workers`, 500 `random_failed`.
    pub fn register(
        &self,
        name: &str,
        concurrency: u32,
        now: Instant,
    ) -> Result<(String, String), Refused> {
        self.state()
            .workers
            .register(name, concurrency, now)
            .map_err(|e| Refused::new(500, "random_failed", e))?
            .ok_or_else(|| {
                Refused::new(
                    503,
                    "too_many_workers",
                    format!("{} workers are known already", workers::MAX_WORKERS),
                )
            })
    }

    /// Admits a worker by its id and secret.
    ///
    /// # Errors
    /// 401 `unknown_worker`.
    pub fn admit(&self, id: &str, secret: &str, now: Instant) -> Result<(), Refused> {
        self.state()
            .workers
            .admit(id, secret, now)
            .map(|_| ())
            .map_err(|_| unknown_worker())
    }

    /// Lets lapsed leases go, in every test.
    fn expire(st: &mut State, now: Instant) {
        let mut gone = Vec::new();
        for held in st.tests.values_mut() {
            gone.extend(held.ledger.expire(now).into_iter().map(|(id, _)| id));
        }
        for id in gone {
            st.batches.remove(&id);
        }
    }

    /// Hands worker `id` (admitted) a batch of at most `want` pairs of a running test it
    /// can play (`can_play` says, by the test's engines), the oldest test first; `None`
    /// when there is none.
    ///
    /// # Errors
    /// 429 `throttled` (with how long) for a worker that keeps failing.
    pub fn lease(
        &self,
        id: &str,
        want: u32,
        can_play: impl Fn(&Checked) -> bool,
        now: Instant,
    ) -> Result<Option<Batch>, Refused> {
        let mut st = self.state();
        Self::expire(&mut st, now);
        let st = &mut *st;
        let worker = st.workers.get_mut(id).ok_or_else(unknown_worker)?;
        if let Some(wait) = worker.throttled_for(now) {
            let seconds = wait.as_secs().max(1);
            let mut r = Refused::new(
                429,
                "throttled",
                format!("this worker's games failed too often lately: no batch for {seconds} s"),
            );
            r.retry_after_s = Some(seconds);
            return Err(r);
        }
        let holding: usize = st
            .tests
            .values()
            .map(|h| {
                h.ledger
                    .leases()
                    .values()
                    .filter(|l| l.worker == id)
                    .count()
            })
            .sum();
        if holding >= MAX_BATCHES_PER_WORKER {
            let mut r = Refused::new(
                429,
                "too_many_batches",
                format!(
                    "this worker holds {holding} batches: finish one first (at most \
                     {MAX_BATCHES_PER_WORKER})"
                ),
            );
            r.retry_after_s = Some(self.lease.as_secs().clamp(1, 30));
            return Err(r);
        }
        let mut order: Vec<(&String, &mut Held)> = st
            .tests
            .iter_mut()
            .filter(|(_, h)| h.status == Status::Running && can_play(&h.checked))
            .collect();
        order.sort_by(|a, b| a.1.created_at.cmp(&b.1.created_at));
        for (name, held) in order {
            let batch_id = st.next_batch;
            if let Some(lease) = held.ledger.lease(batch_id, id, want, now + self.lease) {
                let batch = Batch {
                    id: batch_id,
                    test: Arc::clone(&held.checked),
                    pairs: lease.pairs.clone(),
                    lease: self.lease,
                };
                st.next_batch += 1;
                st.batches.insert(batch_id, name.clone());
                return Ok(Some(batch));
            }
        }
        Ok(None)
    }

    /// A worker's heartbeat: its leases renewed; answers which of `batches` are no longer
    /// its to play (lapsed, finished, or their test ended).
    pub fn heartbeat(&self, id: &str, batches: &[BatchId], now: Instant) -> Vec<BatchId> {
        let mut st = self.state();
        Self::expire(&mut st, now);
        let deadline = now + self.lease;
        for held in st.tests.values_mut() {
            held.ledger.renew(id, deadline);
        }
        batches
            .iter()
            .copied()
            .filter(|b| {
                !st.batches.get(b).is_some_and(|t| {
                    st.tests.get(t).is_some_and(|h| {
                        h.status == Status::Running
                            && h.ledger.leases().get(b).is_some_and(|l| l.worker == id)
                    })
                })
            })
            .collect()
    }

    /// Whether worker `id` may upload game `number` of batch `batch`: the test to judge
    /// it under.
    ///
    /// # Errors
    /// 409 `batch_gone` (lapsed, finished, its test ended), 403 `not_your_batch`, 400
    /// `not_in_batch`.
    pub fn check_upload(
        &self,
        id: &str,
        batch: BatchId,
        number: u32,
        now: Instant,
    ) -> Result<Arc<Checked>, Refused> {
        let mut st = self.state();
        Self::expire(&mut st, now);
        let st = &mut *st;
        let refused = |st: &mut State, r: Refused| {
            if let Some(w) = st.workers.get_mut(id) {
                w.refused += 1;
            }
            Err(r)
        };
        let Some(held) = st
            .batches
            .get(&batch)
            .and_then(|t| st.tests.get(t))
            .filter(|h| h.status == Status::Running)
        else {
            return refused(st, batch_gone(batch));
        };
        match held.ledger.check_upload(batch, id, number) {
            Ok(()) => Ok(Arc::clone(&held.checked)),
            Err(Refusal::NoBatch) => refused(st, batch_gone(batch)),
            Err(Refusal::NotYours) => refused(
                st,
                Refused::new(
                    403,
                    "not_your_batch",
                    format!("batch {batch} is another worker's"),
                ),
            ),
            Err(Refusal::NotInBatch) => refused(
                st,
                Refused::new(
                    400,
                    "not_in_batch",
                    format!("game {number} is not one of batch {batch}'s"),
                ),
            ),
        }
    }

    /// Notes an upload refused after it was admitted (its record is not the game).
    pub fn note_refused(&self, id: &str) {
        if let Some(w) = self.state().workers.get_mut(id) {
            w.refused += 1;
        }
    }

    /// Counts a judged game, kept already (`kept`: the store took it; `false` when that
    /// number was kept before, which is not counted again). Returns whether it was
    /// counted, and the test's decision when this game ended the test (to be kept).
    pub fn count(
        &self,
        batch: BatchId,
        judged: Judged,
        kept: bool,
        now: Instant,
        now_text: &str,
    ) -> (bool, Option<(Status, Option<Value>)>) {
        let mut st = self.state();
        let st = &mut *st;
        let worker = judged.game.worker.clone();
        if let Some(w) = st.workers.get_mut(&worker) {
            let loser_failed = judged.verdict.is_failure();
            w.note_game(
                judged.game.agrees,
                kept && loser_failed && judged.verdict.winner.is_some(),
                now,
            );
        }
        let Some(held) = st.tests.get_mut(&judged.game.test) else {
            return (false, None);
        };
        if !kept {
            return (false, None);
        }
        let counted = held
            .ledger
            .count(batch, judged.game.number, judged.verdict.half_points());
        if counted {
            held.note(judged.game, now);
        }
        if !held.ledger.holds(batch) {
            st.batches.remove(&batch);
        }
        let ended = (held.status == Status::Running && held.ledger.is_over()).then(|| {
            held.status = Status::Finished;
            held.ended_at = Some(now_text.to_string());
            (held.status, held.decision())
        });
        if ended.is_some() {
            let name = held.checked.spec.name.clone();
            st.batches.retain(|_, t| *t != name);
        }
        (counted, ended)
    }

    /// Every test in short, oldest first.
    pub fn list(&self, now: Instant) -> Value {
        let st = self.state();
        let mut tests: Vec<&Held> = st.tests.values().collect();
        tests.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Value::Array(tests.into_iter().map(|h| h.summary(now)).collect())
    }

    /// One test in full: its summary, spec, workers, and latest games.
    ///
    /// # Errors
    /// 404 `no_test`.
    pub fn view(&self, name: &str, now: Instant) -> Result<Value, Refused> {
        let mut st = self.state();
        Self::expire(&mut st, now);
        let held = st.tests.get(name).ok_or_else(|| no_test(name))?;
        let mut v = held.summary(now);
        let mut spec = serde_json::to_value(&held.checked.spec).unwrap_or(Value::Null);
        // Commands are the operator's: the page shows engines by name and options.
        if let Some(engines) = spec["engines"].as_array_mut() {
            for e in engines {
                if let Some(o) = e.as_object_mut() {
                    o.remove("command");
                }
            }
        }
        v["spec"] = spec;
        // Every worker that counted a game, holds a batch, or let one lapse.
        let mut ids: std::collections::BTreeSet<&String> = held.by_worker.keys().collect();
        ids.extend(held.ledger.leases().values().map(|l| &l.worker));
        ids.extend(held.ledger.lapsed.keys());
        let workers: Vec<Value> = ids
            .into_iter()
            .map(|id| {
                let [games, disagreements] = held.by_worker.get(id).copied().unwrap_or_default();
                let known = st.workers.get(id);
                let mut w = known.map_or_else(|| json!({"id": id}), |w| w.to_json(now));
                w["test_games"] = json!(games);
                w["test_disagreements"] = json!(disagreements);
                w["lapsed_batches"] = json!(held.ledger.lapsed.get(id).copied().unwrap_or(0));
                w["batches"] = json!(
                    held.ledger
                        .leases()
                        .values()
                        .filter(|l| &l.worker == id)
                        .count()
                );
                w
            })
            .collect();
        v["workers"] = Value::Array(workers);
        v["batches"] = held
            .ledger
            .leases()
            .iter()
            .map(|(id, l)| {
                json!({
                    "id": id,
                    "worker": l.worker,
                    "games": l.pairs.iter().flat_map(|&p| [2 * p + 1, 2 * p + 2]).collect::<Vec<_>>(),
                    "lapses_in_s": l.deadline.saturating_duration_since(now).as_secs(),
                })
            })
            .collect();
        v["latest_games"] = Value::Array(held.latest.iter().rev().map(game_json).collect());
        Ok(v)
    }

    /// Whether test `name` is held.
    pub fn has(&self, name: &str) -> bool {
        self.state().tests.contains_key(name)
    }

    /// Workers known.
    pub fn workers(&self) -> usize {
        self.state().workers.len()
    }
}

/// A game as the API shows it.
pub fn game_json(g: &TestGame) -> Value {
    let engine = |w: Option<u8>| w.map_or(Value::Null, |w| json!(format!("engine{w}")));
    json!({
        "number": g.number,
        "black": format!("engine{}", black_of(g.number) + 1),
        "worker": g.worker,
        "winner": engine(g.judged.0),
        "reason": g.judged.1,
        "claimed_winner": engine(g.claimed.0),
        "claimed_reason": g.claimed.1,
        "agrees": g.agrees,
        "plies": g.plies,
        "at": g.at,
    })
}

fn no_test(name: &str) -> Refused {
    Refused::new(404, "no_test", format!("no test named '{name}'"))
}

fn unknown_worker() -> Refused {
    Refused::new(
        401,
        "unknown_worker",
        "unknown worker or wrong secret: register again (POST /api/workers)",
    )
}

fn batch_gone(batch: BatchId) -> Refused {
    Refused::new(
        409,
        "batch_gone",
        format!("batch {batch} is no longer yours: it lapsed, was finished, or its test ended"),
    )
}

impl Held {
    fn new(checked: Arc<Checked>, created_at: String) -> Held {
        let s = &checked.spec;
        Held {
            ledger: Ledger::new(s.pairs, s.batch_pairs, checked.sprt),
            checked,
            status: Status::Running,
            created_at,
            ended_at: None,
            latest: VecDeque::new(),
            by_worker: BTreeMap::new(),
            recent: VecDeque::new(),
        }
    }

    fn note(&mut self, game: TestGame, now: Instant) {
        let counts = self.by_worker.entry(game.worker.clone()).or_default();
        counts[0] += 1;
        if !game.agrees {
            counts[1] += 1;
        }
        self.recent.push_back(now);
        while self
            .recent
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) > RATE_WINDOW)
        {
            self.recent.pop_front();
        }
        self.latest.push_back(game);
        while self.latest.len() > LISTED_GAMES {
            self.latest.pop_front();
        }
    }

    /// The test's SPRT and results, as kept when it ends.
    fn decision(&self) -> Option<Value> {
        let book = self.ledger.book();
        let elo = book.tally.elo();
        let sprt = self.ledger.sprt().map(|(s, llr, d)| {
            let (lower, upper) = s.bounds();
            json!({
                "elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                "llr": llr, "lower": lower, "upper": upper,
                "decision": d.map(|d| match d {
                    gyoku_league::sprt::Decision::H0 => "H0",
                    gyoku_league::sprt::Decision::H1 => "H1",
                }),
            })
        });
        Some(json!({
            "sprt": sprt,
            "pentanomial": book.tally.pairs,
            "trinomial": book.tally.games,
            "elo": elo.map(|e| e.0), "elo_error": elo.map(|e| e.1), "los": elo.map(|e| e.2),
        }))
    }

    fn summary(&self, now: Instant) -> Value {
        let s = &self.checked.spec;
        let book = self.ledger.book();
        let games = book.tally.game_count();
        let window = self
            .recent
            .iter()
            .filter(|&&t| now.saturating_duration_since(t) <= RATE_WINDOW)
            .count();
        let disagreements: u64 = self.by_worker.values().map(|c| c[1]).sum();
        let mut v = json!({
            "name": s.name,
            "status": self.status.code(),
            "engines": [s.engines[0].name, s.engines[1].name],
            "preset": s.preset,
            "digest": self.checked.digest,
            "time": gyoku_arena::timecontrol::describe(&self.checked.time),
            "pairs": s.pairs,
            "games": games,
            "games_total": 2 * u64::from(s.pairs),
            "batches_out": self.ledger.leases().len(),
            "disagreements": disagreements,
            "games_per_minute": window as f64 * 60.0 / RATE_WINDOW.as_secs_f64(),
            "created_at": self.created_at,
            "ended_at": self.ended_at,
        });
        if let Some(Value::Object(d)) = self.decision() {
            for (k, x) in d {
                v[k] = x;
            }
        }
        v
    }
}

/// Turns a judged upload into the game kept.
pub fn judged_game(
    test: &str,
    number: u32,
    worker: &str,
    claimed: (Option<usize>, String),
    verdict: Verdict,
    at: String,
) -> Judged {
    Judged {
        game: TestGame {
            test: test.to_string(),
            number,
            worker: worker.to_string(),
            agrees: claimed.0 == verdict.winner,
            claimed: (engine_number(claimed.0), claimed.1),
            judged: (engine_number(verdict.winner), verdict.reason.clone()),
            plies: verdict.plies,
            at,
        },
        verdict,
    }
}
