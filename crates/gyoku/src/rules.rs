//! Rule sets: plain values that say how a game ends, with presets by name.
//!
//! Every field of the rules spec §6 is here. A preset is only a starting value: any field
//! can be changed afterwards (`gyoku judge --rules csa --max-moves 320`).

use std::fmt;
use std::str::FromStr;

/// What an illegal move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fouls {
    /// The mover loses at once (tournament rules).
    Lose,
    /// The move is refused and the game goes on (friendly play).
    Refuse,
    /// A foul stands only if the opponent claims it before making their own next move
    /// (amateur events: the 女流王座戦 2016 regulations, rule 9; the Tsukuba rules). A foul
    /// real pieces can make (nifu, uchifuzume, a dead piece, the king left in check) is
    /// played; claimed, its mover loses; unclaimed, it is part of the game; a resignation
    /// before the claim stands. Moves no real piece can make are refused.
    Claim,
}

impl Fouls {
    /// `lose`, `refuse` or `claim`.
    pub const fn code(self) -> &'static str {
        match self {
            Fouls::Lose => "lose",
            Fouls::Refuse => "refuse",
            Fouls::Claim => "claim",
        }
    }
}

impl FromStr for Fouls {
    type Err = String;

    /// `lose`, `refuse` or `claim`.
    fn from_str(s: &str) -> Result<Fouls, String> {
        [Fouls::Lose, Fouls::Refuse, Fouls::Claim]
            .into_iter()
            .find(|f| f.code() == s)
            .ok_or_else(|| format!("fouls '{s}': lose, refuse or claim"))
    }
}

/// How a game that is neither won nor lost ends: drawn, or void and replayed with colours
/// swapped (the JSA's 指し直し), which a host may map to a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    /// A draw.
    Draw,
    /// No contest: replay with colours swapped.
    NoContest,
}

/// Which declaration (入玉宣言) the rules allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclarationRule {
    /// The 27-point declaration (CSA "Jishogi 1.1", JSA amateur, 81Dojo, FESA 5.3): Black
    /// needs 28 declaration points, White 27; otherwise the declarer loses.
    Points27,
    /// The JSA professional declaration: 31 or more wins, 24–30 is no contest, fewer loses.
    Jsa24,
    /// YaneuraOu's `CSARule24` (`EKR_24_POINT`, "24点法(31点以上で宣言勝ち)",
    /// `source/types.h`): the CSA declaration's conditions with 31 points for either side;
    /// anything less, as any unmet condition, loses (CSA: the declarer loses).
    Points31,
}

/// What a declaration that fails its conditions does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnFail {
    /// The declarer loses.
    Lose,
    /// The declaration is refused and the game goes on.
    Refuse,
}

/// A declaration rule and what a failed declaration does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// The thresholds and outcomes.
    pub rule: DeclarationRule,
    /// A failed declaration.
    pub on_fail: OnFail,
}

/// The count used when both players agree to an impasse (or are made to count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CountRule {
    /// JSA: a side under 24 total points loses; both at 24 or more: `both_reach`.
    Points24,
    /// Amateur 27-point count: a side under 27 loses; 27–27: `tie`.
    Points27,
}

/// The 27–27 tie of the 27-point count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tie {
    /// White wins the tie.
    WhiteWins,
    /// The game is replayed.
    NoContest,
}

/// Impasse by agreement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Agreement {
    /// How the count decides.
    pub count: CountRule,
    /// For the 24-point count, when both sides reach 24.
    pub both_reach: Resolution,
    /// For the 27-point count, a 27–27 tie.
    pub tie: Tie,
    /// Whether both kings must have entered (JSA before 2019, amateur 27-point count), or
    /// one is enough (JSA since 2019).
    pub require_both_entered: bool,
}

/// The Try rule (トライルール).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TryRule {
    /// The seed rule text: both kings must have entered before the try, and a king in
    /// check may not try. `false` is YaneuraOu's and ShogiHome's flavour: any legal king
    /// move onto the square wins, also as an escape from check.
    pub require_both_entered: bool,
}

/// A move limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveLimit {
    /// The number of moves (plies).
    pub plies: u32,
    /// The JSA 500-move rule's extension: if the position after the last allowed move is a
    /// check, play goes on until a move that is not a check.
    pub check_extension: bool,
    /// The result when the limit is reached.
    pub result: Resolution,
    /// Reproduce shogi-server: it never detects mate, so a mate on the last allowed move is
    /// still `#MAX_MOVES`, and a mated player must resign.
    pub strict_csa_server: bool,
}

/// Where a game stands against its move limit (spec §4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitState {
    /// Fewer moves than the limit have been played: play and declarations go on.
    Before,
    /// The limit has been reached during a JSA check extension: play goes on, a
    /// declaration fails (`after_move_limit`).
    Extension,
    /// The limit has been reached: the game is over by `move_limit` (unless the move that
    /// reached it decided the game first).
    Reached,
}

/// Whether the positions after the last two moves were checks: the JSA extension's memory.
/// For a game imported mid-way, the start position's check stands for the move before it,
/// and what came before that is unknown (no check).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RecentChecks {
    /// The side to move is in check now.
    pub last: bool,
    /// The side that moved last was in check before its move.
    pub before: bool,
}

impl MoveLimit {
    /// Where a game stands after `moves_counted` moves (the SFEN move number's moves
    /// included), with the checks of its last two positions.
    ///
    /// The JSA extension starts only if the move that reached the limit gave check, and
    /// lasts while the checks continue: it ends at the first move that is no check when
    /// the move before it was none either (so the escapes between the checks do not end it).
    ///
    /// ```
    /// use gyoku::rules::{LimitState, RecentChecks};
    /// use gyoku::Preset;
    /// let jsa = Preset::Jsa.rules().move_limit.unwrap();
    /// let check = RecentChecks { last: true, before: false };
    /// assert_eq!(jsa.state(499, check), LimitState::Before);
    /// assert_eq!(jsa.state(500, check), LimitState::Extension);
    /// assert_eq!(jsa.state(500, RecentChecks::default()), LimitState::Reached);
    /// ```
    pub fn state(&self, moves_counted: u32, checks: RecentChecks) -> LimitState {
        if moves_counted < self.plies {
            return LimitState::Before;
        }
        let extended = self.check_extension
            && if moves_counted == self.plies {
                checks.last
            } else {
                checks.last || checks.before
            };
        if extended {
            LimitState::Extension
        } else {
            LimitState::Reached
        }
    }
}

/// A rule set: how a game ends, field by field (spec §6).
///
/// ```
/// use gyoku::{Preset, RuleSet};
/// let mut rules = RuleSet::preset(Preset::Csa);
/// assert_eq!(rules.move_limit.unwrap().plies, 256);
/// rules.set_max_moves(320);
/// assert_eq!(rules.move_limit.unwrap().plies, 320);
/// assert_eq!("81dojo".parse::<Preset>(), Ok(Preset::Dojo81));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// What an illegal move does.
    pub fouls: Fouls,
    /// The result of a sennichite (fourfold repetition without perpetual check).
    pub sennichite: Resolution,
    /// Both players may agree to a sennichite before the fourth occurrence, once the
    /// position has stood at least [`AGREED_SENNICHITE_MIN`] times; it ends as a
    /// sennichite does (`sennichite`'s result). The JSA's 対局規定 as revised on
    /// 2019-10-01: "同一局面が4回現れなくても両対局者の合意があれば千日手が成立する"
    /// (ja.wikipedia, 千日手).
    pub agreed_sennichite: bool,
    /// The clocks a no contest's replay is played with (sennichite, a 24–30 declaration,
    /// the impasse count or the move limit, where they are no contests): fresh, each
    /// side's remaining time, topped up, or byoyomi only. The JSA's 対局規定 第6条: the
    /// remaining times, both given the same so that the shorter has one hour, never more
    /// than the initial time (`top-up:1h`).
    pub replay_clock: crate::ReplayClock,
    /// The declaration the side to move may make instead of a move, if any.
    pub declaration: Option<Declaration>,
    /// The 27-point declaration conditions checked for the side to move at the start of
    /// its turn; met, that side wins (lishogi, Shogi Wars).
    pub automatic_impasse: bool,
    /// Impasse by agreement of both players, if allowed.
    pub agreement: Option<Agreement>,
    /// The Try rule, if in force.
    pub try_rule: Option<TryRule>,
    /// Fairbairn / Shogi Association for the West: as soon as one side has every piece it
    /// has on the board inside its zone, the game ends and is counted (24-point count).
    pub fairbairn_count: bool,
    /// The move limit, if any.
    pub move_limit: Option<MoveLimit>,
    /// Credit the pieces a recognised handicap start removes to the giver (White).
    pub handicap_credit: bool,
    /// YaneuraOu's handicap rules (`CSARule24H`, `CSARule27H`; `update_entering_point` in
    /// `source/position.cpp`): White's declaration is credited with whatever points the
    /// game lacks of the full set (56, small pieces and kings 1, rook and bishop 5), from any
    /// start, a recognised handicap or not.
    pub missing_points_credit: bool,
    /// JSA: a foul nobody pointed out does not decide the game if the fouler's opponent
    /// later resigned; the resignation stands (used when judging records).
    pub unnoticed_foul_resignation_stands: bool,
}

/// How many times the position must have stood for the players to agree to a sennichite
/// (where [`RuleSet::agreed_sennichite`] allows it): a repetition, so twice. The JSA's
/// text gives no count ("4回未満でも"); a position that has stood once has repeated
/// nothing, and an agreement there would be a draw by agreement, which no rule set has.
pub const AGREED_SENNICHITE_MIN: u32 = 2;

/// The named rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// `jsa`: JSA professional rules (2019–).
    Jsa,
    /// `jsa-amateur`: JSA amateur events.
    JsaAmateur,
    /// `csa`: Floodgate and the CSA tournaments.
    Csa,
    /// `81dojo`.
    Dojo81,
    /// `lishogi`.
    Lishogi,
    /// `shogi-wars`.
    ShogiWars,
    /// `try`: the Try rule.
    Try,
    /// `saw`: Fairbairn / Shogi Association for the West.
    Saw,
    /// `friendly`: moves and declarations that break the rules are refused.
    Friendly,
    /// `none`: no impasse rule at all.
    Plain,
    /// `csa24`: YaneuraOu's `CSARule24`: CSA rules with a 31-point declaration.
    Csa24,
    /// `csa24h`: YaneuraOu's `CSARule24H`: `csa24`, White credited what the game lacks.
    Csa24H,
    /// `csa27h`: YaneuraOu's `CSARule27H`: `csa`, White credited what the game lacks.
    Csa27H,
    /// `wcsc`: the World Computer Shogi Championship (WCSC32–): 320 moves, 15 min + 5 s.
    Wcsc,
    /// `denryu`: the Denryu-sen: 512 moves, 10 min + 2 s.
    Denryu,
    /// `floodgate`: Floodgate's own games: 256 moves, 5 min + 10 s.
    Floodgate,
}

/// The JSA 24-point count with one king entered (both at 24 or more: no contest).
pub(crate) const POINTS24_AGREEMENT: Agreement = Agreement {
    count: CountRule::Points24,
    both_reach: Resolution::NoContest,
    tie: Tie::NoContest,
    require_both_entered: false,
};

const BASE: RuleSet = RuleSet {
    fouls: Fouls::Lose,
    sennichite: Resolution::Draw,
    agreed_sennichite: false,
    replay_clock: crate::ReplayClock::Fresh,
    declaration: None,
    automatic_impasse: false,
    agreement: None,
    try_rule: None,
    fairbairn_count: false,
    move_limit: None,
    handicap_credit: false,
    missing_points_credit: false,
    unnoticed_foul_resignation_stands: false,
};

const DECLARE_27: Option<Declaration> = Some(Declaration {
    rule: DeclarationRule::Points27,
    on_fail: OnFail::Lose,
});

const DECLARE_31: Option<Declaration> = Some(Declaration {
    rule: DeclarationRule::Points31,
    on_fail: OnFail::Lose,
});

/// A drawn limit of `plies` moves, a mate on the last one counting.
const fn limit(plies: u32) -> Option<MoveLimit> {
    Some(MoveLimit {
        plies,
        check_extension: false,
        result: Resolution::Draw,
        strict_csa_server: false,
    })
}

/// The CSA rules every computer event and engine rule set builds on: fouls lose,
/// sennichite draws, the 27-point `%KACHI`, 256 moves.
const CSA: RuleSet = RuleSet {
    declaration: DECLARE_27,
    move_limit: limit(256),
    ..BASE
};

/// What an event publishes beside its rules: its clock and where the rules are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EventTerms {
    /// The clock every game is played with.
    pub clock: crate::TimeControl,
    /// Since when the event plays so, and where that is written.
    pub since: &'static str,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 16] = [
        Preset::Jsa,
        Preset::JsaAmateur,
        Preset::Csa,
        Preset::Dojo81,
        Preset::Lishogi,
        Preset::ShogiWars,
        Preset::Try,
        Preset::Saw,
        Preset::Friendly,
        Preset::Plain,
        Preset::Csa24,
        Preset::Csa24H,
        Preset::Csa27H,
        Preset::Wcsc,
        Preset::Denryu,
        Preset::Floodgate,
    ];

    /// The stable name (`jsa`, `jsa-amateur`, `csa`, `81dojo`, `lishogi`, `shogi-wars`,
    /// `try`, `saw`, `friendly`, `none`, `csa24`, `csa24h`, `csa27h`, `wcsc`, `denryu`,
    /// `floodgate`).
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Jsa => "jsa",
            Preset::JsaAmateur => "jsa-amateur",
            Preset::Csa => "csa",
            Preset::Dojo81 => "81dojo",
            Preset::Lishogi => "lishogi",
            Preset::ShogiWars => "shogi-wars",
            Preset::Try => "try",
            Preset::Saw => "saw",
            Preset::Friendly => "friendly",
            Preset::Plain => "none",
            Preset::Csa24 => "csa24",
            Preset::Csa24H => "csa24h",
            Preset::Csa27H => "csa27h",
            Preset::Wcsc => "wcsc",
            Preset::Denryu => "denryu",
            Preset::Floodgate => "floodgate",
        }
    }

    /// One line on what the preset is for.
    pub const fn description(self) -> &'static str {
        match self {
            Preset::Jsa => {
                "JSA professional rules (2019-): agreement 24, declaration 31/24-30, 500 moves"
            }
            Preset::JsaAmateur => {
                "JSA amateur events: 27-point declaration, 27-point count (tie: White)"
            }
            Preset::Csa => "Floodgate / CSA tournaments: %KACHI (27-point), 256 moves",
            Preset::Dojo81 => "81Dojo: 27-point declaration, handicap credit",
            Preset::Lishogi => {
                "lishogi: automatic 27-point impasse, 700 plies, illegal moves refused"
            }
            Preset::ShogiWars => "Shogi Wars: automatic 27-point impasse",
            Preset::Try => "Try rule: a king reaching the enemy king's start square wins",
            Preset::Saw => "Fairbairn / SAW: forced 24-point count once a side is all in its zone",
            Preset::Friendly => "friendly play: illegal moves refused, agreement 24",
            Preset::Plain => "no impasse rule",
            Preset::Csa24 => "YaneuraOu CSARule24: CSA rules, 31-point declaration, 256 moves",
            Preset::Csa24H => "YaneuraOu CSARule24H: csa24, White credited what the game lacks",
            Preset::Csa27H => "YaneuraOu CSARule27H: csa, White credited what the game lacks",
            Preset::Wcsc => "WCSC (WCSC32-): CSA rules, 320 moves, 15 min + 5 s increment",
            Preset::Denryu => "Denryu-sen: CSA rules, 512 moves, 10 min + 2 s increment",
            Preset::Floodgate => "Floodgate: CSA rules, 256 moves, 5 min + 10 s increment",
        }
    }

    /// What an event preset bundles beside its rules (its clock, and since when), or
    /// `None` for a rule set alone.
    ///
    /// ```
    /// use gyoku::Preset;
    /// let wcsc = Preset::Wcsc.event().unwrap();
    /// assert_eq!((wcsc.clock.main, wcsc.clock.increment), (900_000, 5_000));
    /// assert_eq!(Preset::Wcsc.rules().move_limit.unwrap().plies, 320);
    /// assert!(Preset::Csa.event().is_none());
    /// ```
    pub const fn event(self) -> Option<EventTerms> {
        use crate::TimeControl;
        match self {
            Preset::Wcsc => Some(EventTerms {
                clock: TimeControl::fischer(900_000, 5_000),
                since: "WCSC32 (2022): 320 moves, 15 min + 5 s; from WCSC25 (2015) the game \
                        ended at move 256 with a mate on it counting, 10 s byoyomi that year \
                        (rules spec R12: blog.computer-shogi.org, 2014/12)",
            }),
            Preset::Denryu => Some(EventTerms {
                clock: TimeControl::fischer(600_000, 2_000),
                since: "the Denryu-sen's rules: 512 moves, 10 min + 2 s (rules spec R12)",
            }),
            Preset::Floodgate => Some(EventTerms {
                clock: TimeControl::fischer(300_000, 10_000),
                since: "Floodgate's floodgate-300-10F: 256 moves, 5 min + 10 s, the 27-point \
                        %KACHI (rules spec R12; shogi-server)",
            }),
            _ => None,
        }
    }

    /// The rule set.
    pub const fn rules(self) -> RuleSet {
        match self {
            Preset::Jsa => RuleSet {
                sennichite: Resolution::NoContest,
                agreed_sennichite: true,
                replay_clock: crate::ReplayClock::TopUp(3_600_000),
                declaration: Some(Declaration {
                    rule: DeclarationRule::Jsa24,
                    on_fail: OnFail::Lose,
                }),
                agreement: Some(POINTS24_AGREEMENT),
                move_limit: Some(MoveLimit {
                    plies: 500,
                    check_extension: true,
                    result: Resolution::NoContest,
                    strict_csa_server: false,
                }),
                handicap_credit: true,
                unnoticed_foul_resignation_stands: true,
                ..BASE
            },
            Preset::JsaAmateur => RuleSet {
                agreed_sennichite: true,
                // Where an event replays a no contest: the remaining times, the shorter
                // topped up to 10 minutes (the 女流王座戦's amateur rules, issue 41).
                replay_clock: crate::ReplayClock::TopUp(600_000),
                declaration: DECLARE_27,
                agreement: Some(Agreement {
                    count: CountRule::Points27,
                    both_reach: Resolution::Draw,
                    tie: Tie::WhiteWins,
                    require_both_entered: true,
                }),
                handicap_credit: true,
                unnoticed_foul_resignation_stands: true,
                ..BASE
            },
            Preset::Csa | Preset::Floodgate => CSA,
            Preset::Csa24 => RuleSet {
                declaration: DECLARE_31,
                ..CSA
            },
            Preset::Csa24H => RuleSet {
                declaration: DECLARE_31,
                missing_points_credit: true,
                ..CSA
            },
            Preset::Csa27H => RuleSet {
                missing_points_credit: true,
                ..CSA
            },
            Preset::Wcsc => RuleSet {
                move_limit: limit(320),
                ..CSA
            },
            Preset::Denryu => RuleSet {
                move_limit: limit(512),
                ..CSA
            },
            Preset::Dojo81 => RuleSet {
                declaration: DECLARE_27,
                handicap_credit: true,
                ..BASE
            },
            Preset::Lishogi => RuleSet {
                fouls: Fouls::Refuse,
                automatic_impasse: true,
                move_limit: Some(MoveLimit {
                    plies: 700,
                    check_extension: false,
                    result: Resolution::Draw,
                    strict_csa_server: false,
                }),
                handicap_credit: true,
                ..BASE
            },
            Preset::ShogiWars => RuleSet {
                automatic_impasse: true,
                ..BASE
            },
            Preset::Try => RuleSet {
                try_rule: Some(TryRule {
                    require_both_entered: true,
                }),
                ..BASE
            },
            Preset::Saw => RuleSet {
                agreement: Some(Agreement {
                    both_reach: Resolution::Draw,
                    ..POINTS24_AGREEMENT
                }),
                fairbairn_count: true,
                handicap_credit: true,
                ..BASE
            },
            Preset::Friendly => RuleSet {
                fouls: Fouls::Refuse,
                agreed_sennichite: true,
                agreement: Some(Agreement {
                    both_reach: Resolution::Draw,
                    ..POINTS24_AGREEMENT
                }),
                handicap_credit: true,
                ..BASE
            },
            Preset::Plain => BASE,
        }
    }
}

impl Preset {
    /// The preset as data, in one canonical JSON text: its name, every field of its rules
    /// and, for an event, its clock (`null` otherwise), keys sorted, no blanks. Two presets
    /// that decide every game alike and time it alike differ only in their name; a test
    /// or a framework that pins this text's SHA-256 (`gyoku rules --json`'s `digest`)
    /// notices any change to the rules it ran under.
    ///
    /// ```
    /// use gyoku::Preset;
    /// let csa = Preset::Csa.canonical_json();
    /// assert!(csa.starts_with(r#"{"clock":null,"name":"csa","rules":{"agreement":null,"#));
    /// assert!(csa.contains(r#""move_limit":{"check_extension":false,"plies":256,"#));
    /// assert!(Preset::Floodgate.canonical_json().contains(r#""increment_ms":10000"#));
    /// ```
    pub fn canonical_json(self) -> String {
        canonical_json(
            self.name(),
            &self.rules(),
            self.event().map(|e| e.clock).as_ref(),
        )
    }
}

/// Rules named `name` (a preset's name, or what a caller calls rules it changed), with a
/// clock or none, as one canonical JSON text: what [`Preset::canonical_json`] writes for a
/// preset as it is.
pub fn canonical_json(name: &str, rules: &RuleSet, clock: Option<&crate::TimeControl>) -> String {
    let clock = clock.map_or("null".to_string(), |c| {
        format!(
            r#"{{"byoyomi_ms":{},"increment_ms":{},"least_time_per_move_ms":{},"main_ms":{}}}"#,
            c.byoyomi, c.increment, c.least_time_per_move, c.main
        )
    });
    let name: String = name
        .chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c if c.is_control() => format!("\\u{:04x}", u32::from(c)).chars().collect(),
            c => vec![c],
        })
        .collect();
    format!(
        r#"{{"clock":{clock},"name":"{name}","rules":{}}}"#,
        rules.canonical_json()
    )
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Not a preset name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePresetError(pub String);

impl fmt::Display for ParsePresetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown rule set '{}' (expected one of:", self.0)?;
        for p in Preset::ALL {
            write!(f, " {p}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for ParsePresetError {}

impl FromStr for Preset {
    type Err = ParsePresetError;
    fn from_str(s: &str) -> Result<Preset, ParsePresetError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParsePresetError(s.to_string()))
    }
}

impl RuleSet {
    /// The count the Fairbairn rule forces (§4.6): the rules' own agreement count, or the
    /// 24-point count with a draw when both reach 24.
    pub fn fairbairn_agreement(&self) -> Agreement {
        self.agreement.unwrap_or(Agreement {
            both_reach: Resolution::Draw,
            ..POINTS24_AGREEMENT
        })
    }

    /// The rule set of a preset.
    pub const fn preset(preset: Preset) -> RuleSet {
        preset.rules()
    }

    /// Sets a fixed move limit of `plies` (0 removes the limit). A JSA-style limit keeps its
    /// check extension and result; otherwise the limit draws.
    pub fn set_max_moves(&mut self, plies: u32) {
        if plies == 0 {
            self.move_limit = None;
            return;
        }
        let limit = self.move_limit.get_or_insert(MoveLimit {
            plies,
            check_extension: false,
            result: Resolution::Draw,
            strict_csa_server: false,
        });
        limit.plies = plies;
    }

    /// Every field as one canonical JSON object (keys sorted, no blanks; absent rules
    /// `null`): what [`Preset::canonical_json`] pins. A field added since the digests were
    /// first published (`agreed_sennichite`, `replay_clock`) is written only when set (a
    /// replay clock other than `fresh`), so the text, and the digest, of rules that do not
    /// use it stay what they were.
    pub fn canonical_json(&self) -> String {
        let resolution = |r: Resolution| match r {
            Resolution::Draw => "\"draw\"",
            Resolution::NoContest => "\"no_contest\"",
        };
        let agreement = self.agreement.map_or("null".to_string(), |a| {
            format!(
                r#"{{"both_reach":{},"count":"{}","require_both_entered":{},"tie":"{}"}}"#,
                resolution(a.both_reach),
                match a.count {
                    CountRule::Points24 => "points24",
                    CountRule::Points27 => "points27",
                },
                a.require_both_entered,
                match a.tie {
                    Tie::WhiteWins => "white_wins",
                    Tie::NoContest => "no_contest",
                }
            )
        });
        let declaration = self.declaration.map_or("null".to_string(), |d| {
            format!(
                r#"{{"on_fail":"{}","rule":"{}"}}"#,
                match d.on_fail {
                    OnFail::Lose => "lose",
                    OnFail::Refuse => "refuse",
                },
                match d.rule {
                    DeclarationRule::Points27 => "points27",
                    DeclarationRule::Jsa24 => "jsa24",
                    DeclarationRule::Points31 => "points31",
                }
            )
        });
        let move_limit = self.move_limit.map_or("null".to_string(), |m| {
            format!(
                r#"{{"check_extension":{},"plies":{},"result":{},"strict_csa_server":{}}}"#,
                m.check_extension,
                m.plies,
                resolution(m.result),
                m.strict_csa_server
            )
        });
        let try_rule = self.try_rule.map_or("null".to_string(), |t| {
            format!(r#"{{"require_both_entered":{}}}"#, t.require_both_entered)
        });
        format!(
            concat!(
                r#"{{{}"agreement":{},"automatic_impasse":{},"declaration":{},"#,
                r#""fairbairn_count":{},"fouls":"{}","handicap_credit":{},"#,
                r#""missing_points_credit":{},"move_limit":{},{}"sennichite":{},"#,
                r#""try_rule":{},"unnoticed_foul_resignation_stands":{}}}"#
            ),
            if self.agreed_sennichite {
                r#""agreed_sennichite":true,"#
            } else {
                ""
            },
            agreement,
            self.automatic_impasse,
            declaration,
            self.fairbairn_count,
            self.fouls.code(),
            self.handicap_credit,
            self.missing_points_credit,
            move_limit,
            if self.replay_clock == crate::ReplayClock::Fresh {
                String::new()
            } else {
                format!(r#""replay_clock":"{}","#, self.replay_clock)
            },
            resolution(self.sennichite),
            try_rule,
            self.unnoticed_foul_resignation_stands
        )
    }

    /// Every field as `(name, value)` text, for `gyoku rules PRESET`.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let resolution = |r: Resolution| match r {
            Resolution::Draw => "draw",
            Resolution::NoContest => "no_contest",
        };
        let mut out = vec![
            ("fouls", self.fouls.code().to_string()),
            ("sennichite", resolution(self.sennichite).to_string()),
            ("agreed_sennichite", self.agreed_sennichite.to_string()),
            ("replay_clock", self.replay_clock.to_string()),
        ];
        out.push((
            "declaration",
            match self.declaration {
                None => "none".to_string(),
                Some(d) => format!(
                    "{} (on_fail = {})",
                    match d.rule {
                        DeclarationRule::Points27 => "27-point: Black 28, White 27",
                        DeclarationRule::Jsa24 => "JSA 24-point: 31 wins, 24-30 no_contest",
                        DeclarationRule::Points31 => "31-point: 31 wins, fewer fails",
                    },
                    match d.on_fail {
                        OnFail::Lose => "lose",
                        OnFail::Refuse => "refuse",
                    }
                ),
            },
        ));
        out.push(("automatic_impasse", self.automatic_impasse.to_string()));
        out.push((
            "agreement",
            match self.agreement {
                None => "none".to_string(),
                Some(a) => match a.count {
                    CountRule::Points24 => format!(
                        "24-point count; both >= 24: {}; require_both_entered = {}",
                        resolution(a.both_reach),
                        a.require_both_entered
                    ),
                    CountRule::Points27 => format!(
                        "27-point count; tie 27-27: {}; require_both_entered = {}",
                        match a.tie {
                            Tie::WhiteWins => "white",
                            Tie::NoContest => "no_contest",
                        },
                        a.require_both_entered
                    ),
                },
            },
        ));
        out.push((
            "try_rule",
            match self.try_rule {
                None => "none".to_string(),
                Some(t) => format!("require_both_entered = {}", t.require_both_entered),
            },
        ));
        out.push(("fairbairn_count", self.fairbairn_count.to_string()));
        out.push((
            "move_limit",
            match self.move_limit {
                None => "none".to_string(),
                Some(m) => format!(
                    "{} plies, then {}; check_extension = {}; strict_csa_server = {}",
                    m.plies,
                    resolution(m.result),
                    m.check_extension,
                    m.strict_csa_server
                ),
            },
        ));
        out.push(("handicap_credit", self.handicap_credit.to_string()));
        out.push((
            "missing_points_credit",
            self.missing_points_credit.to_string(),
        ));
        out.push((
            "unnoticed_foul_resignation_stands",
            self.unnoticed_foul_resignation_stands.to_string(),
        ));
        out
    }
}

impl Default for RuleSet {
    /// The `none` preset.
    fn default() -> RuleSet {
        BASE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_follow_the_spec_table() {
        let jsa = Preset::Jsa.rules();
        assert_eq!(jsa.sennichite, Resolution::NoContest);
        assert_eq!(jsa.move_limit.unwrap().plies, 500);
        assert!(jsa.move_limit.unwrap().check_extension);
        assert_eq!(jsa.declaration.unwrap().rule, DeclarationRule::Jsa24);
        // Sennichite by agreement: JSA 対局規定 (2019-10-01); not between engines.
        assert!(jsa.agreed_sennichite && Preset::JsaAmateur.rules().agreed_sennichite);
        assert!(!Preset::Csa.rules().agreed_sennichite);
        assert_eq!(Preset::Lishogi.rules().fouls, Fouls::Refuse);
        assert_eq!(Preset::Lishogi.rules().move_limit.unwrap().plies, 700);
        assert!(Preset::ShogiWars.rules().automatic_impasse);
        assert!(Preset::Try.rules().try_rule.unwrap().require_both_entered);
        assert!(Preset::Saw.rules().fairbairn_count);
        assert_eq!(Preset::Plain.rules(), RuleSet::default());
        for p in Preset::ALL {
            assert_eq!(p.name().parse(), Ok(p));
            assert_eq!(p.rules().fields().len(), 13);
            // Every field of the text form is in the canonical JSON too, but for a later
            // field that is not set (left out so that older digests stand).
            let json = p.canonical_json();
            for (name, _) in p.rules().fields() {
                let later_unset = (name == "agreed_sennichite" && !p.rules().agreed_sennichite)
                    || (name == "replay_clock"
                        && p.rules().replay_clock == crate::ReplayClock::Fresh);
                assert_eq!(
                    json.contains(&format!("\"{name}\":")),
                    !later_unset,
                    "{p}: {name}"
                );
            }
        }
    }

    #[test]
    fn max_moves_override() {
        let mut r = Preset::Jsa.rules();
        r.set_max_moves(600);
        assert!(r.move_limit.unwrap().check_extension);
        let mut r = Preset::Dojo81.rules();
        r.set_max_moves(320);
        assert_eq!(r.move_limit.unwrap().result, Resolution::Draw);
        r.set_max_moves(0);
        assert!(r.move_limit.is_none());
    }
}
