//! New names, paced by where they come from: binding a name to a password costs a
//! password hash and a stored account, so one address may bind only so many in an hour
//! (an IPv6 address counts by its /64, which one machine is given whole). Past it the
//! login is refused before any hash is made, and a known player's login is not kept
//! waiting behind a crowd of new names.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use tokio::time::Instant;

/// The window new names are counted in.
pub const WINDOW: Duration = Duration::from_secs(3600);

/// New names one address may bind in a [`WINDOW`] unless the server is told otherwise
/// (`gyoku serve --new-names-per-address`).
pub const DEFAULT_PER_ADDRESS: u32 = 20;

/// Addresses counted at once; past it, windows that have ended are forgotten, then the
/// oldest.
pub const MAX_COUNTED: usize = 100_000;

/// Where new names come from: an IPv4 address, or an IPv6 address's /64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Source {
    V4([u8; 4]),
    V6Prefix([u8; 8]),
}

impl Source {
    fn of(address: IpAddr) -> Source {
        match address {
            IpAddr::V4(a) => Source::V4(a.octets()),
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => Source::V4(v4.octets()),
                None => {
                    let mut prefix = [0u8; 8];
                    prefix.copy_from_slice(&a.octets()[..8]);
                    Source::V6Prefix(prefix)
                }
            },
        }
    }
}

/// New names bound by each source in its current window.
#[derive(Debug)]
pub(crate) struct NewNames {
    per_address: u32,
    windows: HashMap<Source, (u32, Instant)>,
}

impl NewNames {
    /// At most `per_address` new names from one source in a [`WINDOW`] (0: none at all).
    pub(crate) fn new(per_address: u32) -> NewNames {
        NewNames {
            per_address,
            windows: HashMap::new(),
        }
    }

    /// Whether `address` may bind one more name at `now` (then it is counted), or how long
    /// until it may.
    pub(crate) fn take(&mut self, address: IpAddr, now: Instant) -> Result<(), Duration> {
        let source = Source::of(address);
        if !self.windows.contains_key(&source) && self.windows.len() >= MAX_COUNTED {
            self.forget(now);
        }
        let (count, start) = self.windows.entry(source).or_insert((0, now));
        if now.saturating_duration_since(*start) >= WINDOW {
            *count = 0;
            *start = now;
        }
        if *count >= self.per_address {
            return Err((*start + WINDOW).saturating_duration_since(now));
        }
        *count += 1;
        Ok(())
    }

    fn forget(&mut self, now: Instant) {
        self.windows
            .retain(|_, (_, start)| now.saturating_duration_since(*start) < WINDOW);
        if self.windows.len() >= MAX_COUNTED {
            let mut starts: Vec<Instant> = self.windows.values().map(|(_, s)| *s).collect();
            starts.sort_unstable();
            let cut = starts[starts.len() / 2];
            self.windows.retain(|_, (_, start)| *start > cut);
        }
    }
}

/// What a refusal says: the whole minutes until the address may bind a name again.
pub(crate) fn refusal(wait: Duration) -> String {
    let minutes = wait.as_secs().div_ceil(60).max(1);
    format!(
        "too many new names from your address; log in with a name you have, or try a new one \
         in {minutes} min"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_binds_so_many_names_in_a_window() {
        let mut n = NewNames::new(3);
        let now = Instant::now();
        let home: IpAddr = [192, 0, 2, 1].into();
        let other: IpAddr = [192, 0, 2, 2].into();
        for _ in 0..3 {
            assert_eq!(n.take(home, now), Ok(()));
        }
        let wait = n.take(home, now + Duration::from_secs(60)).unwrap_err();
        assert_eq!(wait, WINDOW - Duration::from_secs(60));
        assert!(refusal(wait).ends_with("in 59 min"), "{}", refusal(wait));
        // Another address is counted apart; the window's end makes room again.
        assert_eq!(n.take(other, now), Ok(()));
        assert_eq!(n.take(home, now + WINDOW), Ok(()));
        // None at all when told so.
        assert!(NewNames::new(0).take(home, now).is_err());
    }

    #[test]
    fn an_ipv6_network_counts_as_one_address() {
        let mut n = NewNames::new(2);
        let now = Instant::now();
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(n.take(a, now), Ok(()));
        assert_eq!(n.take(b, now), Ok(()));
        assert!(n.take(a, now).is_err());
        assert_eq!(n.take(elsewhere, now), Ok(()));
        // An IPv4 address written as IPv6 is that IPv4 address.
        let v4: IpAddr = [198, 51, 100, 7].into();
        let mapped: IpAddr = "::ffff:198.51.100.7".parse().unwrap();
        assert_eq!(n.take(v4, now), Ok(()));
        assert_eq!(n.take(mapped, now), Ok(()));
        assert!(n.take(v4, now).is_err());
    }

    #[test]
    fn the_count_is_bounded() {
        let mut n = NewNames::new(1);
        let now = Instant::now();
        for i in 0..(MAX_COUNTED as u32 + 10) {
            let a = IpAddr::from(i.to_be_bytes());
            let _ = n.take(a, now + Duration::from_millis(u64::from(i)));
        }
        assert!(n.windows.len() <= MAX_COUNTED);
    }
}
