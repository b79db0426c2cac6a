//! Impasse (持将棋, jishōgi): the counts, the verdicts, and the calculator.
//!
//! Words as in the rules spec §1: a king in its zone has **entered**; **total points** are
//! a side's pieces anywhere on the board and in hand (rook, bishop, dragon, horse 5, every
//! other piece 1, kings 0); **declaration points** count only the pieces inside the zone
//! and in hand; the **zone count** is the number of pieces other than the king inside the
//! zone. Handicap credit (§4.7) adds the points of the pieces a recognised handicap start
//! removed to White's totals.

use crate::rules::{
    Agreement, CountRule, DeclarationRule, Fouls, LimitState, RecentChecks, Resolution, RuleSet,
    Tie,
};
use crate::{Bitboard, ByColor, Color, Handicap, Position, Preset, Role, Setup};

/// One side's impasse figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImpasseCount {
    /// The king is inside the side's zone.
    pub entered: bool,
    /// Pieces other than the king inside the zone.
    pub zone_count: u32,
    /// Points of every piece on the board and in hand (plus handicap credit for White).
    pub total_points: u32,
    /// Points of the pieces in the zone and in hand (plus handicap credit for White).
    pub declaration_points: u32,
    /// The side's king is attacked.
    pub in_check: bool,
}

impl ImpasseCount {
    /// The figures of `color` in `pos`, with `credit` points added to White's totals.
    ///
    /// ```
    /// use gyoku::{Color, ImpasseCount, Position};
    /// let pos = Position::from_sfen("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 1").unwrap();
    /// let c = ImpasseCount::of(&pos, Color::Black, 0);
    /// assert_eq!((c.entered, c.zone_count, c.declaration_points), (true, 10, 28));
    /// ```
    pub fn of(pos: &Position, color: Color, credit: u32) -> ImpasseCount {
        let board = pos.board();
        let own = board.by_color(color);
        let zone = Bitboard::zone(color);
        let king = pos.king(color);
        let mut total = pos.hand(color).points();
        let mut in_zone = pos.hand(color).points();
        let mut zone_count = 0;
        for sq in own {
            let role = board.piece_at(sq).map_or(Role::King, |p| p.role);
            if role == Role::King {
                continue;
            }
            total += role.points();
            if zone.contains(sq) {
                in_zone += role.points();
                zone_count += 1;
            }
        }
        let credit = if color == Color::White { credit } else { 0 };
        let in_check = king.is_some_and(|k| board.is_attacked(k, !color, board.occupied()));
        ImpasseCount {
            entered: king.is_some_and(|k| k.in_zone(color)),
            zone_count,
            total_points: total + credit,
            declaration_points: in_zone + credit,
            in_check,
        }
    }

    /// Whether every piece the side has on the board (its king included) is inside its
    /// zone: the Fairbairn count's trigger.
    pub fn all_in_zone(pos: &Position, color: Color) -> bool {
        let own = pos.board().by_color(color);
        own.is_nonempty() && (own & !Bitboard::zone(color)).is_empty()
    }
}

/// The handicap credit (§4.7) of a game that started from `initial`: the points of the
/// pieces a recognised handicap start removed, or 0.
///
/// ```
/// use gyoku::{impasse::handicap_credit, Handicap};
/// assert_eq!(handicap_credit(&Handicap::TwoPiece.setup()), 10);
/// assert_eq!(handicap_credit(&gyoku::Setup::startpos()), 0);
/// ```
pub fn handicap_credit(initial: &Setup) -> u32 {
    Handicap::from_setup(initial).map_or(0, Handicap::removed_points)
}

/// What a game lacks of the full set of pieces, in points, as YaneuraOu's handicap rules
/// count it (`CSARule24H`, `CSARule27H`: `update_entering_point` in its
/// `source/position.cpp`): the full set is 56, each king and small piece 1, each rook and
/// bishop 5, promoted or not, on the board or in hand. 0 for a full set, 10 for a two-piece
/// handicap; pieces never leave a game, so every position of a game has its start's.
///
/// ```
/// use gyoku::{impasse::missing_points, Handicap, Position};
/// assert_eq!(missing_points(&Position::startpos()), 0);
/// let two = Position::from_setup(Handicap::TwoPiece.setup()).unwrap();
/// assert_eq!(missing_points(&two), 10);
/// ```
pub fn missing_points(pos: &Position) -> u32 {
    let points = |c: Color| ImpasseCount::of(pos, c, 0).total_points;
    let kings = Color::ALL
        .into_iter()
        .filter(|&c| pos.king(c).is_some())
        .count();
    let kings = u32::try_from(kings).unwrap_or(2);
    56u32.saturating_sub(points(Color::Black) + points(Color::White) + kings)
}

/// The credit White's figures get under `rules` in a game that started from `initial`:
/// what the game lacks of the full set ([`missing_points`]) where the rules say so, else
/// the recognised handicap's removed points ([`handicap_credit`]) where they give credit.
pub fn credit_under(rules: &crate::RuleSet, initial: &Position) -> u32 {
    if rules.missing_points_credit {
        missing_points(initial)
    } else if rules.handicap_credit {
        handicap_credit(&initial.to_setup())
    } else {
        0
    }
}

/// Why a declaration fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclarationFailure {
    /// `king_not_entered`: the declarer's king is not in its zone.
    KingNotEntered,
    /// `zone_count`: fewer than 10 pieces besides the king in the zone.
    ZoneCount,
    /// `in_check`: the declarer is in check.
    InCheck,
    /// `points`: not enough declaration points.
    Points,
    /// `after_move_limit`: the move limit has been reached.
    AfterMoveLimit,
    /// `no_time`: the declarer's time has run out.
    NoTime,
    /// `no_rule`: the rules allow no declaration (a foul where fouls lose).
    NoRule,
}

impl DeclarationFailure {
    /// Every failure, in the order of the checks.
    pub const ALL: [DeclarationFailure; 7] = [
        DeclarationFailure::KingNotEntered,
        DeclarationFailure::ZoneCount,
        DeclarationFailure::InCheck,
        DeclarationFailure::Points,
        DeclarationFailure::AfterMoveLimit,
        DeclarationFailure::NoTime,
        DeclarationFailure::NoRule,
    ];

    /// The stable code.
    pub const fn code(self) -> &'static str {
        match self {
            DeclarationFailure::KingNotEntered => "king_not_entered",
            DeclarationFailure::ZoneCount => "zone_count",
            DeclarationFailure::InCheck => "in_check",
            DeclarationFailure::Points => "points",
            DeclarationFailure::AfterMoveLimit => "after_move_limit",
            DeclarationFailure::NoTime => "no_time",
            DeclarationFailure::NoRule => "no_rule",
        }
    }
}

/// What a declaration would bring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeclarationVerdict {
    /// The declarer wins.
    Win,
    /// The game is void and replayed (JSA 24–30 points).
    NoContest,
    /// The declaration fails.
    Fail(DeclarationFailure),
}

/// The points a declaration under `rule` needs from `color` to win (before handicap
/// credit, which is already in the counted points): 28/27, or 31 for the JSA rule and
/// the 31-point one.
pub const fn declaration_threshold(rule: DeclarationRule, color: Color) -> u32 {
    match (rule, color) {
        (DeclarationRule::Points27, Color::Black) => 28,
        (DeclarationRule::Points27, Color::White) => 27,
        (DeclarationRule::Jsa24 | DeclarationRule::Points31, _) => 31,
    }
}

/// Judges a declaration by `color` with figures `count` under `rule` (the side's turn and
/// time are the caller's to check). Conditions are checked in the spec's order: king in the
/// zone, ten pieces, not in check, points.
///
/// ```
/// use gyoku::impasse::{judge_declaration, DeclarationVerdict};
/// use gyoku::rules::DeclarationRule;
/// use gyoku::{Color, ImpasseCount, Position};
/// let pos = Position::from_sfen("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b P 1").unwrap(); // 27 points
/// let count = ImpasseCount::of(&pos, Color::Black, 0);
/// assert!(matches!(judge_declaration(DeclarationRule::Points27, &count, Color::Black), DeclarationVerdict::Fail(_)));
/// assert_eq!(judge_declaration(DeclarationRule::Jsa24, &count, Color::Black), DeclarationVerdict::NoContest);
/// ```
pub fn judge_declaration(
    rule: DeclarationRule,
    count: &ImpasseCount,
    color: Color,
) -> DeclarationVerdict {
    if !count.entered {
        return DeclarationVerdict::Fail(DeclarationFailure::KingNotEntered);
    }
    if count.zone_count < 10 {
        return DeclarationVerdict::Fail(DeclarationFailure::ZoneCount);
    }
    if count.in_check {
        return DeclarationVerdict::Fail(DeclarationFailure::InCheck);
    }
    let points = count.declaration_points;
    if points >= declaration_threshold(rule, color) {
        DeclarationVerdict::Win
    } else if rule == DeclarationRule::Jsa24 && points >= 24 {
        DeclarationVerdict::NoContest
    } else {
        DeclarationVerdict::Fail(DeclarationFailure::Points)
    }
}

/// The result of a game: a side wins, a draw, or no contest (replayed with colours
/// swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// This side wins.
    Win(Color),
    /// A draw.
    Draw,
    /// Void: replay with colours swapped (a host may map it to a draw).
    NoContest,
}

impl GameResult {
    /// `black`, `white`, `draw` or `no_contest`.
    pub const fn code(self) -> &'static str {
        match self {
            GameResult::Win(Color::Black) => "black",
            GameResult::Win(Color::White) => "white",
            GameResult::Draw => "draw",
            GameResult::NoContest => "no_contest",
        }
    }

    pub(crate) const fn from_resolution(r: Resolution) -> GameResult {
        match r {
            Resolution::Draw => GameResult::Draw,
            Resolution::NoContest => GameResult::NoContest,
        }
    }
}

/// Judges an impasse count: both sides' total points under `agreement`'s count rule.
///
/// 24-point count: a side under 24 loses; both at 24 or more: `both_reach`. 27-point count:
/// a side under 27 loses; both at 27 or more (27–27, or more with handicap credit): `tie`.
pub fn judge_count(agreement: &Agreement, totals: ByColor<u32>) -> GameResult {
    let threshold = match agreement.count {
        CountRule::Points24 => 24,
        CountRule::Points27 => 27,
    };
    match (totals.black >= threshold, totals.white >= threshold) {
        (true, false) => GameResult::Win(Color::Black),
        (false, true) => GameResult::Win(Color::White),
        (false, false) => GameResult::NoContest,
        (true, true) => match agreement.count {
            CountRule::Points24 => GameResult::from_resolution(agreement.both_reach),
            CountRule::Points27 => match agreement.tie {
                Tie::WhiteWins => GameResult::Win(Color::White),
                Tie::NoContest => GameResult::NoContest,
            },
        },
    }
}

/// Whether an impasse by agreement may be counted now: one king entered, or both if the
/// rule requires it.
pub fn agreement_allowed(agreement: &Agreement, counts: &ByColor<ImpasseCount>) -> bool {
    if agreement.require_both_entered {
        counts.black.entered && counts.white.entered
    } else {
        counts.black.entered || counts.white.entered
    }
}

/// An ending that already holds in the calculator's position under a preset, before
/// anyone acts: a game there is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StandingEnd {
    /// `move_limit`: the move limit has been reached (the position's move number counts).
    MoveLimit,
    /// `automatic_impasse`: the side to move meets the automatic impasse's conditions.
    AutomaticImpasse,
    /// `impasse_count`: the Fairbairn count has been forced, with this result.
    ImpasseCount(GameResult),
}

impl StandingEnd {
    /// The stable code, as the game's end reason would say it.
    pub const fn code(self) -> &'static str {
        match self {
            StandingEnd::MoveLimit => "move_limit",
            StandingEnd::AutomaticImpasse => "automatic_impasse",
            StandingEnd::ImpasseCount(_) => "impasse_count",
        }
    }
}

/// The verdict of the calculator for one preset: what [`crate::Game`] under that preset
/// would decide if the side to move declared now, or both agreed to count now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PresetVerdict {
    /// The preset.
    pub preset: Preset,
    /// An ending that already holds here (a game under the preset is over).
    pub ended: Option<StandingEnd>,
    /// If the side to move declared now: `Some(verdict)`, or `None` when no declaration can
    /// be made (the game is over, or the preset refuses a declaration it does not have).
    /// An automatic impasse that holds is `Win`; a declaration under rules without one,
    /// where fouls lose, is `Fail(NoRule)`; in the JSA extension, `Fail(AfterMoveLimit)`.
    pub declaration: Option<DeclarationVerdict>,
    /// The result of an agreement count now, or `None` when the preset has none, it is
    /// not allowed in this position, or the game is over.
    pub agreement: Option<GameResult>,
}

impl PresetVerdict {
    /// `win`, `no_contest`, `lose` or `not_available`.
    pub fn declaration_code(&self) -> &'static str {
        match self.declaration {
            Some(DeclarationVerdict::Win) => "win",
            Some(DeclarationVerdict::NoContest) => "no_contest",
            Some(DeclarationVerdict::Fail(_)) => "lose",
            None => "not_available",
        }
    }

    /// Why a declaration would fail, if it would.
    pub fn declaration_failure(&self) -> Option<DeclarationFailure> {
        match self.declaration {
            Some(DeclarationVerdict::Fail(f)) => Some(f),
            _ => None,
        }
    }

    /// `black`, `white`, `draw`, `no_contest` or `not_available`.
    pub fn agreement_code(&self) -> &'static str {
        self.agreement.map_or("not_available", GameResult::code)
    }
}

/// The impasse calculator's report for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpasseReport {
    /// The side to move.
    pub turn: Color,
    /// Each side's figures, with the handicap credit of the initial position (if given).
    pub counts: ByColor<ImpasseCount>,
    /// The handicap credit applied to White.
    pub credit: u32,
    /// The moves a move limit counts here (the position's move number, less one).
    pub moves_counted: u32,
    /// The verdict under every preset.
    pub verdicts: Vec<PresetVerdict>,
    /// Whether either king can still be mated (the condition of the JSA's Article 9), when
    /// a mate search was asked for ([`ImpasseReport::search_mates`]).
    pub mate: Option<crate::mate::Prospects>,
}

impl ImpasseReport {
    /// Computes the report for `pos` as the start of a game: with `initial` the game's
    /// initial position when known (for handicap credit; without it, `pos` is its own
    /// initial position, so a recognised handicap start is credited), and the move limits
    /// counted from the position's move number.
    ///
    /// ```
    /// use gyoku::{ImpasseReport, Position, Preset};
    /// let pos = Position::from_sfen("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 1").unwrap();
    /// let report = ImpasseReport::new(&pos, None);
    /// let csa = report.verdicts.iter().find(|v| v.preset == Preset::Csa).unwrap();
    /// assert_eq!(csa.declaration_code(), "win");
    /// // At move 257, past csa's 256 moves, the game is over: no declaration.
    /// let late = Position::from_sfen("RRBBK4/PPPPPP3/9/9/9/9/9/9/8k b 2P 257").unwrap();
    /// let report = ImpasseReport::new(&late, None);
    /// let csa = report.verdicts.iter().find(|v| v.preset == Preset::Csa).unwrap();
    /// assert_eq!(csa.declaration_code(), "not_available");
    /// assert_eq!(csa.ended.unwrap().code(), "move_limit");
    /// ```
    pub fn new(pos: &Position, initial: Option<&Setup>) -> ImpasseReport {
        let checks = RecentChecks {
            last: pos.is_check(),
            before: false,
        };
        ImpasseReport::with_checks(pos, initial, checks)
    }

    /// The report for `pos` reached in a game, with the checks of its last two positions
    /// ([`crate::Game::recent_checks`]) for the JSA extension.
    pub fn with_checks(
        pos: &Position,
        initial: Option<&Setup>,
        checks: RecentChecks,
    ) -> ImpasseReport {
        let credit = handicap_credit(&initial.cloned().unwrap_or_else(|| pos.to_setup()));
        let counts_with = |credit: u32| {
            ByColor::new(
                ImpasseCount::of(pos, Color::Black, credit),
                ImpasseCount::of(pos, Color::White, credit),
            )
        };
        let counts = counts_with(credit);
        let plain = counts_with(0);
        let lacking = counts_with(missing_points(pos));
        let moves_counted = pos.move_number().saturating_sub(1);
        let verdicts = Preset::ALL
            .into_iter()
            .map(|preset| {
                let rules = preset.rules();
                let c = if rules.missing_points_credit {
                    &lacking
                } else if rules.handicap_credit {
                    &counts
                } else {
                    &plain
                };
                verdict(preset, &rules, pos, c, moves_counted, checks)
            })
            .collect();
        ImpasseReport {
            turn: pos.turn(),
            counts,
            credit,
            moves_counted,
            verdicts,
            mate: None,
        }
    }
}

impl ImpasseReport {
    /// Searches whether either king of `pos` (the position this report is of) can still be
    /// mated, `nodes` for each side with a 16 MiB table of its own, and keeps the answer in
    /// [`ImpasseReport::mate`]; 0 nodes searches nothing.
    ///
    /// ```
    /// use gyoku::{ImpasseReport, Position};
    /// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 w Gp 1").unwrap();
    /// let mut report = ImpasseReport::new(&pos, None);
    /// report.search_mates(&pos, 10_000);
    /// let mate = report.mate.unwrap();
    /// assert_eq!(mate.describe(gyoku::Color::Black), "mate found in 1");
    /// ```
    pub fn search_mates(&mut self, pos: &Position, nodes: u64) {
        if nodes == 0 {
            return;
        }
        let limits = crate::mate::Limits {
            nodes,
            ..crate::mate::Limits::default()
        };
        let mut solver = crate::mate::Solver::new(16 << 20);
        self.mate = Some(crate::mate::Prospects::search(
            pos,
            &mut solver,
            &limits,
            None,
        ));
    }
}

/// One preset's verdict, in the referee's order (spec §3): past the limit the game ended
/// there; then the automatic impasse, the Fairbairn count and the limit reached now.
fn verdict(
    preset: Preset,
    rules: &RuleSet,
    pos: &Position,
    c: &ByColor<ImpasseCount>,
    moves_counted: u32,
    checks: RecentChecks,
) -> PresetVerdict {
    let turn = pos.turn();
    let own = c.get(turn);
    let limit = rules
        .move_limit
        .map_or(LimitState::Before, |l| l.state(moves_counted, checks));
    let past_limit = rules
        .move_limit
        .is_some_and(|l| moves_counted > l.plies && limit == LimitState::Reached);
    let automatic = rules.automatic_impasse
        && own.entered
        && judge_declaration(DeclarationRule::Points27, own, turn) == DeclarationVerdict::Win;
    let fairbairn = rules.fairbairn_count
        && (ImpasseCount::all_in_zone(pos, Color::Black)
            || ImpasseCount::all_in_zone(pos, Color::White));
    let totals = ByColor::new(c.black.total_points, c.white.total_points);
    let ended = if past_limit {
        Some(StandingEnd::MoveLimit)
    } else if automatic {
        Some(StandingEnd::AutomaticImpasse)
    } else if fairbairn {
        Some(StandingEnd::ImpasseCount(judge_count(
            &rules.fairbairn_agreement(),
            totals,
        )))
    } else if limit == LimitState::Reached {
        Some(StandingEnd::MoveLimit)
    } else {
        None
    };
    let declaration = match ended {
        Some(StandingEnd::AutomaticImpasse) => Some(DeclarationVerdict::Win),
        Some(_) => None,
        None => match rules.declaration {
            Some(_) if limit != LimitState::Before => {
                Some(DeclarationVerdict::Fail(DeclarationFailure::AfterMoveLimit))
            }
            Some(d) => Some(judge_declaration(d.rule, own, turn)),
            None => (rules.fouls != Fouls::Refuse)
                .then_some(DeclarationVerdict::Fail(DeclarationFailure::NoRule)),
        },
    };
    let agreement = rules
        .agreement
        .filter(|a| ended.is_none() && agreement_allowed(a, c))
        .map(|a| judge_count(&a, totals));
    PresetVerdict {
        preset,
        ended,
        declaration,
        agreement,
    }
}

/// Whether the king move `from`→`to` of the side to move is a try under the Try rule:
/// onto the opponent king's starting square (5a for Black, 5i for White).
pub(crate) fn is_try_square(color: Color, to: crate::Square) -> bool {
    let target = match color {
        Color::Black => crate::Square::new(5, 1),
        Color::White => crate::Square::new(5, 9),
    };
    Some(to) == target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_are_conserved() {
        for h in Handicap::ALL {
            let pos = h.position();
            let credit = handicap_credit(&h.setup());
            let b = ImpasseCount::of(&pos, Color::Black, credit);
            let w = ImpasseCount::of(&pos, Color::White, credit);
            assert_eq!(b.total_points + w.total_points, 54, "{h}");
        }
    }
}
