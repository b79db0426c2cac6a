//! An event's seats bound to keys the organiser hands out (issue 43): the event file's
//! `[seats]` table names each participant's key by its digest, and while the event is on
//! the server that participant's login name takes only its key as the password — a
//! stranger who logs in first with the name and a password of his own does not get the
//! board. `gyoku event-keys FILE` makes the keys (128 random bits each), writes them to a
//! file only its owner may read, and adds the table to the event file.
//!
//! ```toml
//! [seats]
//! alpha = "blake2b:3f0c…"   # 64 hex digits: the digest of alpha's key
//! beta = "blake2b:9a41…"
//! ```

use std::collections::BTreeMap;

use crate::tickets::{SecretDigest, digest, from_hex32, hex, same_digest};

/// How a digest is written in the file, before its 64 hex digits.
pub const DIGEST_PREFIX: &str = "blake2b:";

/// The participants' keys, kept as digests (empty: the event's seats are bare names).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SeatKeys(BTreeMap<String, SecretDigest>);

impl std::fmt::Debug for SeatKeys {
    // Digests only, but nothing about them belongs in a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeatKeys({} seats)", self.0.len())
    }
}

impl SeatKeys {
    /// Reads the file's `[seats]` table: every participant has a key and nobody else does.
    ///
    /// # Errors
    /// The first seat that is missing, unknown or not a digest, by name.
    pub fn read(
        written: &BTreeMap<String, String>,
        participants: &[String],
    ) -> Result<SeatKeys, String> {
        if written.is_empty() {
            return Ok(SeatKeys::default());
        }
        if let Some(stranger) = written.keys().find(|n| !participants.contains(n)) {
            return Err(format!("seats.{stranger}: not a participant"));
        }
        if let Some(missing) = participants.iter().find(|p| !written.contains_key(*p)) {
            return Err(format!(
                "seats: participant '{missing}' has no key (every participant has one, or \
                 none does; gyoku event-keys makes them)"
            ));
        }
        let mut keys = BTreeMap::new();
        for (name, text) in written {
            let read = text
                .strip_prefix(DIGEST_PREFIX)
                .and_then(from_hex32)
                .ok_or_else(|| {
                    format!("seats.{name}: '{DIGEST_PREFIX}' and 64 hex digits (a key's digest)")
                })?;
            keys.insert(name.clone(), read);
        }
        Ok(SeatKeys(keys))
    }

    /// Whether the event's seats have keys.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `key` is the key of `name`'s seat: `None` when `name` has no keyed seat here.
    /// The digests are compared in constant time.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use gyoku_server::event::seats::{SeatKeys, written_digest};
    /// let seats = BTreeMap::from([("a".to_string(), written_digest("k1"))]);
    /// let keys = SeatKeys::read(&seats, &["a".to_string()]).unwrap();
    /// assert_eq!(keys.check("a", "k1"), Some(true));
    /// assert_eq!(keys.check("a", "k2"), Some(false));
    /// assert_eq!(keys.check("b", "k1"), None);
    /// ```
    pub fn check(&self, name: &str, key: &str) -> Option<bool> {
        let kept = self.0.get(name)?;
        Some(same_digest(kept, &digest(key)))
    }

    /// The seats of every event together: a name seated in two events takes either key.
    pub fn merged<'a>(all: impl IntoIterator<Item = &'a SeatKeys>) -> SeatsOnServer {
        let mut by_name: BTreeMap<String, Vec<SecretDigest>> = BTreeMap::new();
        for keys in all {
            for (name, d) in &keys.0 {
                by_name.entry(name.clone()).or_default().push(*d);
            }
        }
        SeatsOnServer(by_name)
    }
}

/// Every keyed seat of the events a server runs, by login name (what a login is checked
/// against before the accounts).
#[derive(Clone, Default)]
pub struct SeatsOnServer(BTreeMap<String, Vec<SecretDigest>>);

impl std::fmt::Debug for SeatsOnServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeatsOnServer({} names)", self.0.len())
    }
}

impl SeatsOnServer {
    /// Whether `password` is a key of `name`'s seat: `None` when no event seats `name` with
    /// a key (its login goes to the accounts as ever). Every digest is compared, in
    /// constant time.
    pub fn check(&self, name: &str, password: &str) -> Option<bool> {
        let kept = self.0.get(name)?;
        let given = digest(password);
        Some(
            kept.iter()
                .fold(false, |any, d| same_digest(d, &given) | any),
        )
    }
}

/// A key's digest as the file writes it.
pub fn written_digest(key: &str) -> String {
    format!("{DIGEST_PREFIX}{}", hex(&digest(key)))
}

/// The `[seats]` table for `keys` (name, key), to end an event file with.
///
/// ```
/// let table = gyoku_server::event::seats::table(&[("a".into(), "k".into())]);
/// assert!(table.starts_with("\n[seats]\na = \"blake2b:"));
/// ```
pub fn table(keys: &[(String, String)]) -> String {
    let mut text = String::from("\n[seats]\n");
    for (name, key) in keys {
        text.push_str(&format!("{name} = \"{}\"\n", written_digest(key)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn every_participant_has_a_key_or_none_does() {
        let people = names(&["a", "b"]);
        let both = BTreeMap::from([
            ("a".to_string(), written_digest("ka")),
            ("b".to_string(), written_digest("kb")),
        ]);
        let keys = SeatKeys::read(&both, &people).unwrap();
        assert_eq!(keys.check("b", "kb"), Some(true));
        assert_eq!(keys.check("b", "ka"), Some(false));
        assert!(
            SeatKeys::read(&BTreeMap::new(), &people)
                .unwrap()
                .is_empty()
        );
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("a", "blake2b:00")], "participant 'b' has no key"),
            (&[("a", "x"), ("b", "y")], "seats.a: 'blake2b:'"),
            (
                &[("a", "y"), ("b", "y"), ("c", "y")],
                "seats.c: not a participant",
            ),
        ];
        for (written, said) in cases {
            let map: BTreeMap<String, String> = written
                .iter()
                .map(|(n, d)| ((*n).to_string(), (*d).to_string()))
                .collect();
            let err = SeatKeys::read(&map, &people).unwrap_err();
            assert!(err.contains(said), "{written:?}: {err}");
        }
    }

    #[test]
    fn a_name_seated_in_two_events_takes_either_key_and_others_are_not_seated() {
        let one = SeatKeys::read(
            &BTreeMap::from([("a".to_string(), written_digest("k1"))]),
            &names(&["a"]),
        )
        .unwrap();
        let two = SeatKeys::read(
            &BTreeMap::from([("a".to_string(), written_digest("k2"))]),
            &names(&["a"]),
        )
        .unwrap();
        let server = SeatKeys::merged([&one, &two]);
        assert_eq!(server.check("a", "k1"), Some(true));
        assert_eq!(server.check("a", "k2"), Some(true));
        assert_eq!(server.check("a", "k3"), Some(false));
        assert_eq!(server.check("a", ""), Some(false));
        assert_eq!(server.check("z", "k1"), None);
        assert_eq!(format!("{server:?}"), "SeatsOnServer(1 names)");
    }

    #[test]
    fn the_table_reads_back() {
        let keys = [
            ("a".to_string(), "ka".to_string()),
            ("b".to_string(), "kb".to_string()),
        ];
        let text = format!("{}\n", table(&keys));
        let read: BTreeMap<String, BTreeMap<String, String>> = toml::from_str(&text).unwrap();
        let seats = SeatKeys::read(&read["seats"], &names(&["a", "b"])).unwrap();
        assert_eq!(seats.check("a", "ka"), Some(true));
    }
}
