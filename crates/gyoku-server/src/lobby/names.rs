//! What a game's name says, read once where a CSA client names a game: a rules prefix of
//! Gyoku's own (`rules_<preset>_<refuse|lose>_…`), shogi-server's buoy games (`buoy_…`) and
//! Floodgate's games (`floodgate-…`, no turn chosen). From there on a game's rules are data
//! ([`super::GameSpec`]); nothing reads them from its name again.

use gyoku::Preset;
use gyoku::rules::Fouls;
use gyoku_proto::csa::GameName;

/// The rules a game name chooses, each `None` where it chooses nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NamedRules {
    /// `rules_<preset>_…`.
    pub preset: Option<Preset>,
    /// `rules_<preset>_refuse_…` or `rules_<preset>_lose_…`.
    pub fouls: Option<Fouls>,
}

/// The rules a CSA client's game name chooses: `rules_jsa_cup-600-10` plays JSA rules,
/// `rules_jsa_refuse_club-600-10` JSA rules with illegal moves refused and tried again.
///
/// ```
/// use gyoku::Preset;
/// use gyoku::rules::Fouls;
/// use gyoku_server::lobby::rules_of_name;
/// let named = rules_of_name("rules_jsa_refuse_club-600-10");
/// assert_eq!((named.preset, named.fouls), (Some(Preset::Jsa), Some(Fouls::Refuse)));
/// let named = rules_of_name("rules_lishogi_lose_cup-300-0");
/// assert_eq!((named.preset, named.fouls), (Some(Preset::Lishogi), Some(Fouls::Lose)));
/// assert_eq!(rules_of_name("rules_jsa_cup-600-10").fouls, None);
/// assert_eq!(rules_of_name("floodgate-300-10F").preset, None);
/// ```
pub fn rules_of_name(name: &str) -> NamedRules {
    let Some((preset, rest)) = name
        .strip_prefix("rules_")
        .and_then(|rest| rest.split_once('_'))
    else {
        return NamedRules::default();
    };
    let Ok(preset) = preset.parse::<Preset>() else {
        return NamedRules::default();
    };
    let fouls = rest
        .split_once('_')
        .and_then(|(word, _)| word.parse::<Fouls>().ok());
    NamedRules {
        preset: Some(preset),
        fouls,
    }
}

/// A buoy game's name (`buoy_<name>-<total>-<byoyomi>`): its games start from the buoy's
/// moves.
pub(super) fn is_buoy_name(name: &str) -> bool {
    name.starts_with("buoy_") && GameName::parse(name).is_some()
}

/// A Floodgate game's name (`floodgate-300-10F`): its players may not choose a turn.
pub(super) fn is_floodgate_name(name: &str) -> bool {
    name.strip_prefix("floodgate-")
        .and_then(|rest| GameName::parse(&format!("floodgate-{rest}")))
        .is_some_and(|g| g.name.matches('-').count() == 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_choose_rules_only_by_a_whole_prefix() {
        for (name, preset, fouls) in [
            ("rules_jsa_cup-600-10", Some(Preset::Jsa), None),
            (
                "rules_csa_refuse_x-60-0",
                Some(Preset::Csa),
                Some(Fouls::Refuse),
            ),
            ("rules_nosuch_cup-600-10", None, None),
            ("rules_jsa-600-10", None, None),
            ("rulesjsa_cup-600-10", None, None),
            ("cup-600-10", None, None),
        ] {
            assert_eq!(rules_of_name(name), NamedRules { preset, fouls }, "{name}");
        }
        assert!(is_buoy_name("buoy_x-600-10") && !is_buoy_name("buoyx-600-10"));
        assert!(is_floodgate_name("floodgate-300-10F") && !is_floodgate_name("flood-300-10"));
    }
}
