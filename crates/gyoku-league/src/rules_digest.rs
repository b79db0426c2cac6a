//! The digest of the rules games are played under: the SHA-256 of their canonical JSON
//! ([`gyoku::rules::canonical_json`]), in lower-case hex. A test, an engine-testing
//! framework or a stored server game pins it, and so the exact rules it ran under: a
//! change to any field (a move limit, a declaration's points, a clock) changes it.

use gyoku::{Preset, RuleSet, TimeControl};
use sha2::{Digest, Sha256};

/// The SHA-256 of `text`, in lower-case hex.
fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The digest of a preset as it is.
///
/// ```
/// use gyoku::Preset;
/// use gyoku_league::rules_digest::{of_preset, of_rules};
/// let csa = of_preset(Preset::Csa);
/// assert_eq!(csa.len(), 64);
/// assert_ne!(csa, of_preset(Preset::Floodgate), "a clock and a name of its own");
/// let mut rules = Preset::Csa.rules();
/// assert_eq!(of_rules("csa", &rules, None), csa);
/// rules.set_max_moves(320);
/// assert_ne!(of_rules("csa", &rules, None), csa, "another move limit");
/// ```
pub fn of_preset(preset: Preset) -> String {
    sha256_hex(&preset.canonical_json())
}

/// The digest of rules named `name`, with a clock or none (a preset changed by options
/// keeps its name; its digest is no longer the preset's).
pub fn of_rules(name: &str, rules: &RuleSet, clock: Option<&TimeControl>) -> String {
    sha256_hex(&gyoku::rules::canonical_json(name, rules, clock))
}

/// The digest of the rules one game is played under, as they are (a server game's
/// refused fouls included), with its clock when the preset is an event's.
pub fn of_game(preset: &str, rules: &RuleSet, time: &TimeControl) -> String {
    let event = preset.parse::<Preset>().ok().and_then(Preset::event);
    of_rules(preset, rules, event.map(|_| time))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset has a digest of its own, and a known text has the SHA-256 every
    /// tool computes (`printf abc | sha256sum`).
    #[test]
    fn digests_are_sha256_and_tell_every_preset_apart() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut seen: Vec<String> = Preset::ALL.iter().map(|&p| of_preset(p)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), Preset::ALL.len());
    }
}
