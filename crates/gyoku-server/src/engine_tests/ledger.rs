//! One test's book-keeping, pure (time is passed in): which game pairs are handed out, to
//! whom and until when, which games are counted, and what the test's SPRT says.
//!
//! Pair `k` (from 0) is games `2k+1` and `2k+2`: one opening, engine 1 Black first. A
//! batch is a few pairs leased to one worker; a lease its worker stops renewing lapses,
//! and the pairs it held that are not counted are handed out again before any new one. A
//! game is counted once, whoever uploads it first; an upload for a lapsed lease is
//! refused (the pair belongs to another batch by then).

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use gyoku_league::sprt::{Decision, Sprt};
use gyoku_league::tally::PairBook;

/// A batch's number, unique on the server.
pub type BatchId = u64;

/// Pairs leased to a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The worker holding it.
    pub worker: String,
    /// Its pairs, from 0.
    pub pairs: Vec<u32>,
    /// When it lapses unless renewed.
    pub deadline: Instant,
}

/// Why an upload is not counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No such batch now: it lapsed (its pairs went to another worker) or was finished.
    NoBatch,
    /// The batch is another worker's.
    NotYours,
    /// The game is not one of the batch's.
    NotInBatch,
}

/// One test's book-keeping.
#[derive(Clone, Debug)]
pub struct Ledger {
    pairs_total: u32,
    batch_pairs: u32,
    next_pair: u32,
    /// Pairs whose lease lapsed, not yet counted: handed out first.
    orphaned: VecDeque<u32>,
    leases: BTreeMap<BatchId, Lease>,
    book: PairBook,
    sprt: Option<Sprt>,
    /// Leases that lapsed, by worker.
    pub lapsed: BTreeMap<String, u32>,
}

impl Ledger {
    /// A test of at most `pairs_total` pairs, handed out `batch_pairs` at a time.
    pub fn new(pairs_total: u32, batch_pairs: u32, sprt: Option<Sprt>) -> Ledger {
        Ledger {
            pairs_total,
            batch_pairs: batch_pairs.max(1),
            next_pair: 0,
            orphaned: VecDeque::new(),
            leases: BTreeMap::new(),
            book: PairBook::default(),
            sprt,
            lapsed: BTreeMap::new(),
        }
    }

    /// Counts a game kept before (a restart); [`Ledger::settle`] once all are in.
    pub fn restore(&mut self, number: u32, half_points: u8) {
        self.book.add(number, half_points);
        let pair = (number - 1) / 2;
        self.next_pair = self.next_pair.max(pair + 1);
    }

    /// After [`Ledger::restore`]: the pairs left half played, or skipped, before the
    /// restart are handed out first (the games in are kept).
    pub fn settle(&mut self) {
        self.orphaned = (0..self.next_pair)
            .filter(|&p| !self.pair_done(p))
            .collect();
    }

    fn pair_done(&self, pair: u32) -> bool {
        self.book.has(2 * pair + 1) && self.book.has(2 * pair + 2)
    }

    /// The results counted.
    pub fn book(&self) -> &PairBook {
        &self.book
    }

    /// The SPRT's ratio and decision, when the test has one.
    pub fn sprt(&self) -> Option<(Sprt, f64, Option<Decision>)> {
        self.sprt.map(|s| {
            let llr = s.llr(&self.book.tally);
            (s, llr, s.decide(llr))
        })
    }

    /// Whether the test is over: its SPRT decided, or every pair is counted.
    pub fn is_over(&self) -> bool {
        self.sprt().is_some_and(|(_, _, d)| d.is_some())
            || self.book.tally.game_count() >= 2 * u64::from(self.pairs_total)
    }

    /// Lets the leases past their deadline lapse: their pairs not counted are handed out
    /// again. Returns the batches that lapsed.
    pub fn expire(&mut self, now: Instant) -> Vec<(BatchId, Lease)> {
        let gone: Vec<BatchId> = self
            .leases
            .iter()
            .filter(|(_, l)| l.deadline <= now)
            .map(|(&id, _)| id)
            .collect();
        let mut out = Vec::new();
        for id in gone {
            if let Some(lease) = self.leases.remove(&id) {
                *self.lapsed.entry(lease.worker.clone()).or_default() += 1;
                for &p in &lease.pairs {
                    if !self.pair_done(p) {
                        self.orphaned.push_back(p);
                    }
                }
                out.push((id, lease));
            }
        }
        out
    }

    /// Leases at most `want` pairs (the test's batch size at most) to `worker` as batch
    /// `id`, lapsed pairs first; `None` when there is nothing to hand out.
    pub fn lease(
        &mut self,
        id: BatchId,
        worker: &str,
        want: u32,
        deadline: Instant,
    ) -> Option<&Lease> {
        if self.is_over() {
            return None;
        }
        let want = want.clamp(1, self.batch_pairs);
        let mut pairs = Vec::new();
        while (pairs.len() as u32) < want {
            if let Some(p) = self.orphaned.pop_front() {
                if !self.pair_done(p) {
                    pairs.push(p);
                }
            } else if self.next_pair < self.pairs_total {
                pairs.push(self.next_pair);
                self.next_pair += 1;
            } else {
                break;
            }
        }
        if pairs.is_empty() {
            return None;
        }
        self.leases.insert(
            id,
            Lease {
                worker: worker.to_string(),
                pairs,
                deadline,
            },
        );
        self.leases.get(&id)
    }

    /// Renews `worker`'s leases to `deadline`; returns how many it holds.
    pub fn renew(&mut self, worker: &str, deadline: Instant) -> usize {
        self.leases
            .values_mut()
            .filter(|l| l.worker == worker)
            .map(|l| l.deadline = l.deadline.max(deadline))
            .count()
    }

    /// Whether `worker` may upload game `number` of batch `id`.
    ///
    /// # Errors
    /// Why not.
    pub fn check_upload(&self, id: BatchId, worker: &str, number: u32) -> Result<(), Refusal> {
        let lease = self.leases.get(&id).ok_or(Refusal::NoBatch)?;
        if lease.worker != worker {
            return Err(Refusal::NotYours);
        }
        if number == 0 || !lease.pairs.contains(&((number - 1) / 2)) {
            return Err(Refusal::NotInBatch);
        }
        Ok(())
    }

    /// Counts game `number` of batch `id`, in which engine 1 scored `half_points`;
    /// `false` when it was counted already. A batch whose games are all counted is done.
    pub fn count(&mut self, id: BatchId, number: u32, half_points: u8) -> bool {
        if self.book.has(number) {
            return false;
        }
        self.book.add(number, half_points);
        let done = self
            .leases
            .get(&id)
            .is_some_and(|l| l.pairs.iter().all(|&p| self.pair_done(p)));
        if done {
            self.leases.remove(&id);
        }
        true
    }

    /// Drops batch `id` (its worker gave it up): its pairs not counted are handed out
    /// again at once.
    pub fn release(&mut self, id: BatchId) {
        if let Some(lease) = self.leases.remove(&id) {
            for p in lease.pairs {
                if !self.pair_done(p) {
                    self.orphaned.push_back(p);
                }
            }
        }
    }

    /// The leases held now.
    pub fn leases(&self) -> &BTreeMap<BatchId, Lease> {
        &self.leases
    }

    /// Whether batch `id` is held now.
    pub fn holds(&self, id: BatchId) -> bool {
        self.leases.contains_key(&id)
    }

    /// Pairs handed out at least once.
    pub fn pairs_started(&self) -> u32 {
        self.next_pair
    }
}

/// The lease of a worker that sends nothing: how long before its batch is handed out
/// again, by default.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(120);

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t0: Instant, s: u64) -> Instant {
        t0 + Duration::from_secs(s)
    }

    #[test]
    fn a_lapsed_batch_is_handed_out_again_first_and_a_late_upload_is_refused() {
        let t0 = Instant::now();
        let mut l = Ledger::new(10, 2, None);
        assert_eq!(l.lease(1, "a", 5, at(t0, 10)).unwrap().pairs, [0, 1]);
        assert_eq!(l.lease(2, "b", 2, at(t0, 10)).unwrap().pairs, [2, 3]);
        assert_eq!(l.check_upload(1, "b", 1), Err(Refusal::NotYours));
        assert_eq!(l.check_upload(1, "a", 5), Err(Refusal::NotInBatch));
        assert_eq!(l.check_upload(1, "a", 3), Ok(()));
        assert!(l.count(1, 1, 2));
        // b renews, a does not.
        l.renew("b", at(t0, 30));
        let lapsed = l.expire(at(t0, 20));
        assert_eq!(lapsed.len(), 1);
        assert_eq!(lapsed[0].0, 1);
        assert_eq!(l.lapsed["a"], 1);
        // Pair 0 is half counted, pair 1 not at all: both are handed out again first.
        assert_eq!(l.lease(3, "c", 2, at(t0, 40)).unwrap().pairs, [0, 1]);
        assert_eq!(l.check_upload(1, "a", 2), Err(Refusal::NoBatch));
        // Game 1 counts once.
        assert!(!l.count(3, 1, 0));
        for n in [2, 3, 4] {
            assert!(l.count(3, n, 1));
        }
        assert!(!l.holds(3), "a batch whose games are all in is done");
        assert_eq!(l.book().tally.pairs, [0, 0, 1, 1, 0]);
    }

    #[test]
    fn the_test_ends_when_every_pair_is_counted_or_the_sprt_decides() {
        let t0 = Instant::now();
        let mut l = Ledger::new(2, 4, None);
        assert_eq!(l.lease(1, "a", 4, at(t0, 1)).unwrap().pairs, [0, 1]);
        assert!(l.lease(2, "b", 4, at(t0, 1)).is_none(), "all handed out");
        for n in 1..=4 {
            l.count(1, n, 1);
        }
        assert!(l.is_over());
        let sprt = Sprt::parse("elo0=0,elo1=50").unwrap();
        let mut l = Ledger::new(1000, 4, Some(sprt));
        let mut id = 0;
        while !l.is_over() {
            id += 1;
            let pairs = l.lease(id, "a", 4, at(t0, 1)).unwrap().pairs.clone();
            for p in pairs {
                l.count(id, 2 * p + 1, 2);
                l.count(id, 2 * p + 2, 2);
            }
        }
        assert_eq!(l.sprt().unwrap().2, Some(Decision::H1));
        assert!(l.lease(id + 1, "a", 4, at(t0, 1)).is_none());
    }

    #[test]
    fn a_restart_hands_out_the_pairs_left_half_played() {
        let t0 = Instant::now();
        let mut l = Ledger::new(10, 4, None);
        for n in [1, 2, 3, 6] {
            l.restore(n, 2);
        }
        l.settle();
        assert_eq!(l.lease(1, "a", 4, at(t0, 1)).unwrap().pairs, [1, 2, 3, 4]);
    }
}

/// The same SPRT decided by one machine's match (games counted in order, as `gyoku match
/// --sprt` counts them) and by the ledger with several workers (batches taken in turn,
/// games finishing in any order, a worker now and then dying with its batch, which
/// lapses and is played again): the decisions come out alike.
#[cfg(test)]
mod simulated {
    use super::*;
    use gyoku_league::elo::logistic_score;

    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        fn below(&mut self, n: usize) -> usize {
            (self.unit() * n as f64) as usize % n
        }

        /// A game of an engine `elo` stronger: 2, 1 or 0 half-points, 40 % draws at
        /// equal strength.
        fn game(&mut self, elo: f64) -> u8 {
            let s = logistic_score(elo);
            let draw = 0.4 * 2.0 * s.min(1.0 - s);
            let u = self.unit();
            if u < s - draw / 2.0 {
                2
            } else if u < s + draw / 2.0 {
                1
            } else {
                0
            }
        }
    }

    /// A match on one machine: games in order until the test decides.
    fn on_one_machine(sprt: Sprt, elo: f64, rng: &mut Rng) -> (Decision, u64) {
        let mut book = PairBook::default();
        for n in 1.. {
            book.add(n, rng.game(elo));
            if let Some(d) = sprt.decide(sprt.llr(&book.tally)) {
                return (d, book.tally.game_count());
            }
        }
        unreachable!()
    }

    /// The ledger with three workers, each holding a batch of two pairs, finishing its
    /// games in any order; one in fifty steps a worker dies and its batch lapses.
    fn over_workers(sprt: Sprt, elo: f64, rng: &mut Rng) -> (Decision, u64) {
        let t0 = Instant::now();
        let mut l = Ledger::new(1_000_000, 2, Some(sprt));
        let mut held: [Option<(BatchId, Vec<u32>)>; 3] = [None, None, None];
        let mut next_id = 0;
        let mut clock = 0u64;
        loop {
            clock += 1;
            let now = t0 + Duration::from_secs(clock);
            l.expire(now);
            let w = rng.below(3);
            let name = ["a", "b", "c"][w];
            l.renew(name, now + Duration::from_secs(5));
            if rng.below(50) == 0 {
                // The worker dies: its batch is never renewed again.
                if let Some((id, _)) = held[w].take()
                    && let Some(lease) = l.leases.get_mut(&id)
                {
                    lease.worker = "dead".into();
                    lease.deadline = now;
                }
                continue;
            }
            match &mut held[w] {
                None => {
                    next_id += 1;
                    if let Some(lease) = l.lease(next_id, name, 2, now + Duration::from_secs(5)) {
                        let games = lease
                            .pairs
                            .iter()
                            .flat_map(|&p| [2 * p + 1, 2 * p + 2])
                            .collect();
                        held[w] = Some((next_id, games));
                    }
                }
                Some((id, games)) => {
                    let k = rng.below(games.len());
                    let number = games.swap_remove(k);
                    let id = *id;
                    if games.is_empty() {
                        held[w] = None;
                    }
                    if l.check_upload(id, name, number).is_ok() {
                        l.count(id, number, rng.game(elo));
                        if let Some((_, _, Some(d))) = l.sprt() {
                            return (d, l.book().tally.game_count());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_test_over_workers_decides_as_one_machine_does() {
        let sprt = Sprt::parse("elo0=0,elo1=40,alpha=0.1,beta=0.1").unwrap();
        let runs = 300;
        let mut rng = Rng(45);
        for elo in [0.0, 20.0, 40.0] {
            let mut stats = [(0usize, 0u64); 2];
            for _ in 0..runs {
                let (d, n) = on_one_machine(sprt, elo, &mut rng);
                stats[0].0 += usize::from(d == Decision::H1);
                stats[0].1 += n;
                let (d, n) = over_workers(sprt, elo, &mut rng);
                stats[1].0 += usize::from(d == Decision::H1);
                stats[1].1 += n;
            }
            let p = stats.map(|(h1, _)| h1 as f64 / f64::from(runs));
            let games = stats.map(|(_, n)| n as f64 / f64::from(runs));
            println!("elo {elo}: H1 accepted {p:?}, mean games {games:?}");
            // Four standard deviations of the difference of two rates over 300 runs.
            let pooled = (p[0] + p[1]) / 2.0;
            let sd = (2.0 * pooled * (1.0 - pooled) / f64::from(runs)).sqrt();
            assert!((p[0] - p[1]).abs() <= 4.0 * sd + 0.01, "elo {elo}: {p:?}");
            assert!(
                (games[0] - games[1]).abs() <= 0.2 * games[0],
                "elo {elo}: {games:?}"
            );
        }
    }
}
