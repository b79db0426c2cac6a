//! A connection's pace: its lines are taken at a steady rate with a burst allowed, so that
//! one client's flood waits in its own socket (the kernel's buffers, then the client's)
//! rather than in front of everyone's moves in the referee's queue.

use std::time::Duration;

use tokio::time::Instant;

/// Lines a second a connection may send for as long as it likes.
pub const LINES_PER_SECOND: u32 = 200;

/// Lines it may send at once beyond that pace.
pub const BURST: u32 = 2_000;

/// A token bucket of lines.
#[derive(Debug)]
pub(crate) struct Pace {
    /// Lines that may go now, in thousandths.
    milli_tokens: u64,
    last: Instant,
}

impl Pace {
    /// A full bucket at `now`.
    pub(crate) fn new(now: Instant) -> Pace {
        Pace {
            milli_tokens: u64::from(BURST) * 1000,
            last: now,
        }
    }

    /// A line arrives at `now`: how long it waits before it goes (zero within the pace).
    pub(crate) fn wait(&mut self, now: Instant) -> Duration {
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        let earned = elapsed
            .as_micros()
            .saturating_mul(u128::from(LINES_PER_SECOND))
            / 1000;
        let full = u64::from(BURST) * 1000;
        self.milli_tokens = (u128::from(self.milli_tokens) + earned).min(u128::from(full)) as u64;
        if self.milli_tokens >= 1000 {
            self.milli_tokens -= 1000;
            return Duration::ZERO;
        }
        // Waits until a whole line is earned, which it then spends.
        let missing = 1000 - self.milli_tokens;
        self.milli_tokens = 0;
        let wait = Duration::from_micros(missing * 1000 / u64::from(LINES_PER_SECOND));
        self.last = now + wait;
        wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_goes_at_once_then_lines_go_at_the_pace() {
        let start = Instant::now();
        let mut pace = Pace::new(start);
        for _ in 0..BURST {
            assert_eq!(pace.wait(start), Duration::ZERO);
        }
        // The next lines of the same instant wait 5 ms each (200 a second), in turn.
        let mut at = start;
        for _ in 0..5 {
            let wait = pace.wait(at);
            assert_eq!(wait, Duration::from_millis(5));
            at += wait;
        }
        // A quiet second earns 200 lines back.
        let later = at + Duration::from_secs(1);
        for _ in 0..LINES_PER_SECOND {
            assert_eq!(pace.wait(later), Duration::ZERO);
        }
        assert!(pace.wait(later) > Duration::ZERO);
        // Eleven quiet seconds fill the bucket, and no more.
        let quiet = later + Duration::from_secs(11);
        for _ in 0..BURST {
            assert_eq!(pace.wait(quiet), Duration::ZERO);
        }
        assert!(pace.wait(quiet) > Duration::ZERO);
    }
}
