//! The workers a server knows: each registered with the operator's worker token and given
//! a secret of its own (its digest kept, the secret never shown again), what it has done,
//! and whether it is throttled for failing.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use blake2::{Blake2b512, Digest};
use serde_json::{Value, json};

/// The most workers known at once (one unseen for [`FORGOTTEN_AFTER`] is forgotten).
pub const MAX_WORKERS: usize = 20_000;
/// A worker unseen this long is forgotten (it registers again).
pub const FORGOTTEN_AFTER: Duration = Duration::from_secs(3600);
/// The games a worker's failures are counted over.
const RECENT: usize = 20;
/// A worker with this many failures among its recent games is throttled.
const FAILURES_TO_THROTTLE: usize = 5;
/// How long a throttled worker gets no batch (doubling each time, to an hour).
const THROTTLE_FIRST: Duration = Duration::from_secs(30);

/// One worker.
#[derive(Clone, Debug)]
pub struct Worker {
    /// Its id (the name it gave and a suffix of its own).
    pub id: String,
    digest: [u8; 64],
    /// The games it plays at once.
    pub concurrency: u32,
    /// When it last asked anything.
    pub last_seen: Instant,
    /// Its games counted, and those the referee judged otherwise than it claimed.
    pub games: u64,
    /// Uploads the referee judged otherwise than the worker said.
    pub disagreements: u64,
    /// Uploads refused (not a game of its batch, a record of another game).
    pub refused: u64,
    /// Its recent games: whether each was a failure (a crash, a hang, a time loss, an
    /// illegal move).
    recent: VecDeque<bool>,
    /// No batch until then.
    pub throttled_until: Option<Instant>,
    throttles: u32,
    /// When it registered.
    pub since: Instant,
}

fn digest(secret: &str) -> [u8; 64] {
    let mut d = [0u8; 64];
    d.copy_from_slice(&Blake2b512::digest(secret.as_bytes()));
    d
}

/// Whether two digests are equal, in time that does not depend on where they differ.
fn same(a: &[u8; 64], b: &[u8; 64]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The workers known.
#[derive(Debug, Default)]
pub struct Registry {
    workers: BTreeMap<String, Worker>,
}

/// Why a worker's request is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// No such worker (never registered, or forgotten: register again), or a wrong secret.
    Worker,
}

impl Registry {
    /// Registers a worker named `name` (checked by the caller) playing `concurrency` games
    /// at once: its id and its secret (256 random bits, hex), shown this once. `None` when
    /// [`MAX_WORKERS`] are known.
    ///
    /// # Errors
    /// When the system's random source fails.
    pub fn register(
        &mut self,
        name: &str,
        concurrency: u32,
        now: Instant,
    ) -> Result<Option<(String, String)>, String> {
        self.workers
            .retain(|_, w| now.saturating_duration_since(w.last_seen) < FORGOTTEN_AFTER);
        if self.workers.len() >= MAX_WORKERS {
            return Ok(None);
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("the random source failed: {e}"))?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut suffix_bytes = [0u8; 4];
        getrandom::fill(&mut suffix_bytes).map_err(|e| format!("the random source failed: {e}"))?;
        let id = format!(
            "{name}-{}",
            suffix_bytes
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        self.workers.insert(
            id.clone(),
            Worker {
                id: id.clone(),
                digest: digest(&secret),
                concurrency,
                last_seen: now,
                games: 0,
                disagreements: 0,
                refused: 0,
                recent: VecDeque::new(),
                throttled_until: None,
                throttles: 0,
                since: now,
            },
        );
        Ok(Some((id, secret)))
    }

    /// The worker `id` whose secret is `secret`, seen now.
    ///
    /// # Errors
    /// [`Unknown::Worker`].
    pub fn admit(&mut self, id: &str, secret: &str, now: Instant) -> Result<&mut Worker, Unknown> {
        let w = self.workers.get_mut(id).ok_or(Unknown::Worker)?;
        if !same(&w.digest, &digest(secret)) {
            return Err(Unknown::Worker);
        }
        w.last_seen = now;
        Ok(w)
    }

    /// The worker `id`, if known.
    pub fn get(&self, id: &str) -> Option<&Worker> {
        self.workers.get(id)
    }

    /// The worker `id`, if known, to change.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Worker> {
        self.workers.get_mut(id)
    }

    /// Every worker known.
    pub fn all(&self) -> impl Iterator<Item = &Worker> {
        self.workers.values()
    }

    /// Workers known.
    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Whether none is known.
    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }
}

impl Worker {
    /// Notes a counted game: whether it agreed with the referee, and whether the worker's
    /// own engine failed in it. Enough failures lately throttle the worker.
    pub fn note_game(&mut self, agrees: bool, failed: bool, now: Instant) {
        self.games += 1;
        if !agrees {
            self.disagreements += 1;
        }
        self.recent.push_back(failed || !agrees);
        while self.recent.len() > RECENT {
            self.recent.pop_front();
        }
        if self.recent.iter().filter(|&&f| f).count() >= FAILURES_TO_THROTTLE {
            let wait = THROTTLE_FIRST
                .saturating_mul(1 << self.throttles.min(7))
                .min(Duration::from_secs(3600));
            self.throttles += 1;
            self.throttled_until = Some(now + wait);
            self.recent.clear();
        }
    }

    /// How long it still waits for a batch.
    pub fn throttled_for(&self, now: Instant) -> Option<Duration> {
        self.throttled_until
            .map(|t| t.saturating_duration_since(now))
            .filter(|d| !d.is_zero())
    }

    /// As the test's page shows it.
    pub fn to_json(&self, now: Instant) -> Value {
        json!({
            "id": self.id,
            "concurrency": self.concurrency,
            "seen_s_ago": now.saturating_duration_since(self.last_seen).as_secs(),
            "games": self.games,
            "disagreements": self.disagreements,
            "refused": self.refused,
            "throttled_s": self.throttled_for(now).map(|d| d.as_secs()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_admits_its_worker_only_and_failures_throttle() {
        let now = Instant::now();
        let mut r = Registry::default();
        let (a, secret) = r.register("box", 2, now).unwrap().unwrap();
        let (b, other) = r.register("box", 2, now).unwrap().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("box-") && secret.len() == 64);
        assert!(r.admit(&a, &secret, now).is_ok());
        assert_eq!(r.admit(&a, &other, now).unwrap_err(), Unknown::Worker);
        assert_eq!(
            r.admit("nobody", &secret, now).unwrap_err(),
            Unknown::Worker
        );
        let w = r.get_mut(&a).unwrap();
        for _ in 0..4 {
            w.note_game(true, true, now);
        }
        assert!(w.throttled_for(now).is_none());
        w.note_game(false, false, now);
        assert_eq!(w.throttled_for(now), Some(THROTTLE_FIRST));
        assert_eq!(w.disagreements, 1);
    }
}
