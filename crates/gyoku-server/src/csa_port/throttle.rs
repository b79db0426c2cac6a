//! Password guessing, slowed down: after a few wrong passwords for one name or from one
//! address, each further try waits longer (doubling, at most [`MAX_DELAY`]), and the server
//! says so on its log. A right password clears the name's and the address's count.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use tokio::time::Instant;

/// Wrong passwords allowed before tries are slowed.
pub const FREE_FAILURES: u32 = 5;

/// The first wait after [`FREE_FAILURES`]; each further wrong password doubles it.
pub const FIRST_DELAY: Duration = Duration::from_millis(250);

/// The longest wait before a try.
pub const MAX_DELAY: Duration = Duration::from_secs(30);

/// A count is forgotten this long after its last wrong password.
pub const FORGET_AFTER: Duration = Duration::from_secs(15 * 60);

/// Names and addresses counted at once; past it the stalest are forgotten first.
pub const MAX_COUNTED: usize = 100_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Address(IpAddr),
    Name(String),
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

/// How long a wrong-password count makes the next try wait.
fn delay_after(count: u32) -> Duration {
    if count < FREE_FAILURES {
        return Duration::ZERO;
    }
    let doublings = (count - FREE_FAILURES).min(16);
    FIRST_DELAY.saturating_mul(1 << doublings).min(MAX_DELAY)
}

/// Wrong passwords by name and by address.
#[derive(Debug, Default)]
pub(crate) struct LoginThrottle {
    counts: HashMap<Key, Failures>,
}

impl LoginThrottle {
    fn keys(address: IpAddr, name: &str) -> [Key; 2] {
        [Key::Address(address), Key::Name(name.to_string())]
    }

    /// How long a try for `name` from `address` must wait at `now`.
    pub(crate) fn wait(&self, address: IpAddr, name: &str, now: Instant) -> Duration {
        Self::keys(address, name)
            .iter()
            .filter_map(|k| self.counts.get(k))
            .map(|f| (f.last + delay_after(f.count)).saturating_duration_since(now))
            .max()
            .unwrap_or_default()
    }

    /// A wrong password: counted for both; a line for the log when tries start to be
    /// slowed, and again each time the count doubles.
    pub(crate) fn failed(&mut self, address: IpAddr, name: &str, now: Instant) -> Option<String> {
        if self.counts.len() >= MAX_COUNTED {
            self.counts
                .retain(|_, f| now.saturating_duration_since(f.last) < FORGET_AFTER);
            if self.counts.len() >= MAX_COUNTED {
                // Still full of fresh counts: the stalest half goes.
                let mut lasts: Vec<Instant> = self.counts.values().map(|f| f.last).collect();
                lasts.sort_unstable();
                let cut = lasts[lasts.len() / 2];
                self.counts.retain(|_, f| f.last > cut);
            }
        }
        let mut said = None;
        for key in Self::keys(address, name) {
            let f = self.counts.entry(key.clone()).or_insert(Failures {
                count: 0,
                last: now,
            });
            if now.saturating_duration_since(f.last) >= FORGET_AFTER {
                f.count = 0;
            }
            f.count += 1;
            f.last = now;
            if f.count >= FREE_FAILURES && f.count.is_power_of_two() || f.count == FREE_FAILURES {
                let who = match &key {
                    Key::Address(a) => format!("from {a}"),
                    Key::Name(n) => format!("for '{n}'"),
                };
                said.get_or_insert_with(|| {
                    format!(
                        "{} wrong passwords {who}; each further try waits up to {} ms",
                        f.count,
                        delay_after(f.count).as_millis()
                    )
                });
            }
        }
        said
    }

    /// The right password: the name's and the address's counts are cleared.
    pub(crate) fn succeeded(&mut self, address: IpAddr, name: &str) {
        for key in Self::keys(address, name) {
            self.counts.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 28, item 3: 84 guesses a second from one address were never slowed.
    #[test]
    fn guesses_wait_longer_and_longer_by_name_and_by_address() {
        let mut t = LoginThrottle::default();
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let t0 = Instant::now();
        for _ in 0..FREE_FAILURES - 1 {
            assert_eq!(t.failed(a, "alice", t0), None);
            assert_eq!(t.wait(a, "alice", t0), Duration::ZERO);
        }
        let said = t.failed(a, "alice", t0).unwrap();
        assert!(said.starts_with("5 wrong passwords"), "{said}");
        assert_eq!(t.wait(a, "alice", t0), FIRST_DELAY);
        // The name is slowed from any address, the address for any name.
        assert_eq!(t.wait(b, "alice", t0), FIRST_DELAY);
        assert_eq!(t.wait(a, "bob", t0), FIRST_DELAY);
        assert_eq!(t.wait(b, "bob", t0), Duration::ZERO);
        // Each wrong password doubles the wait, up to the most.
        t.failed(a, "alice", t0);
        assert_eq!(t.wait(a, "alice", t0), FIRST_DELAY * 2);
        for _ in 0..30 {
            t.failed(a, "alice", t0);
        }
        assert_eq!(t.wait(a, "alice", t0), MAX_DELAY);
        assert_eq!(t.wait(a, "alice", t0 + MAX_DELAY), Duration::ZERO);
        // The right password clears both; a long quiet forgets.
        t.succeeded(a, "alice");
        assert_eq!(t.wait(a, "alice", t0), Duration::ZERO);
        for _ in 0..FREE_FAILURES {
            t.failed(b, "carol", t0);
        }
        assert!(t.wait(b, "carol", t0) > Duration::ZERO);
        t.failed(b, "carol", t0 + FORGET_AFTER);
        assert_eq!(t.wait(b, "carol", t0 + FORGET_AFTER), Duration::ZERO);
    }

    #[test]
    fn the_counts_are_bounded() {
        let mut t = LoginThrottle::default();
        let t0 = Instant::now();
        for i in 0..(MAX_COUNTED as u32 / 2 + 10) {
            let a = IpAddr::from(i.to_be_bytes());
            t.failed(a, &format!("n{i}"), t0 + Duration::from_millis(i.into()));
        }
        assert!(t.counts.len() <= MAX_COUNTED);
    }
}
