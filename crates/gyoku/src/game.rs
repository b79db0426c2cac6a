//! A game under a rule set: its history, the actions players take, and how it ends.
//!
//! Only [`Game`] decides how a game ends. After every action it applies the rules spec's
//! order (§3): checkmate or no legal move; a foul by the move just played; then — for the
//! position the move produced — a try, the automatic impasse of the side to move (§4.3:
//! after mate, before repetition), perpetual check, sennichite, the Fairbairn count, and
//! last the move limit, so a mate or a sennichite on the last allowed move decides the game.
//! A move limit counts the moves of the game, including those before its initial position
//! (an SFEN with move number 495 is five moves from JSA's 500). A game whose initial
//! position stands at its limit is judged as if the limit move had just been played there
//! (mate, the automatic impasse, then the limit; the start position's check opens the JSA
//! extension); one that starts past its limit is over by `move_limit` at ply 0 unless the
//! JSA extension holds there.
//!
//! `Err` means refused and nothing changed; a foul that loses under `fouls = lose` is an
//! [`Outcome`], not an error.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use crate::impasse::{
    self, DeclarationFailure, DeclarationVerdict, GameResult, ImpasseCount, ImpasseReport,
};
use crate::outcome::{EndReason, Outcome};
use crate::rules::{DeclarationRule, Fouls, LimitState, OnFail, RecentChecks, RuleSet};
use crate::{ByColor, Color, IllegalMoveKind, Move, Position};

/// One move of the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlyRecord {
    /// The move.
    pub mv: Move,
    /// The hash of the position it produced.
    pub hash: u64,
    /// Whether it gave check.
    pub check: bool,
}

/// Something a player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The side to move plays a move.
    Move(Move),
    /// A player resigns.
    Resign(Color),
    /// The side to move declares an impasse (入玉宣言) instead of moving (USI `bestmove
    /// win`, CSA `%KACHI`).
    Declare,
    /// A player proposes to count an impasse.
    ProposeImpasse(Color),
    /// A player accepts the other's proposal.
    AcceptImpasse(Color),
    /// Both players agree to count an impasse at once.
    AgreeImpasse,
    /// A player proposes a sennichite by agreement (where the rules allow one).
    ProposeSennichite(Color),
    /// A player accepts the other's sennichite proposal.
    AcceptSennichite(Color),
    /// Both players agree to a sennichite at once, before the fourth occurrence.
    AgreeSennichite,
    /// A player claims the foul the other has just made (under `fouls = claim`).
    ClaimFoul(Color),
    /// A player's clock ran out.
    TimeUp(Color),
}

/// A refused action; the game is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameError {
    /// The game has already ended.
    GameOver,
    /// An illegal move, refused because the rules say `fouls = refuse`.
    IllegalMove(IllegalMoveKind),
    /// A declaration that fails, refused because the rules say `on_fail = refuse`.
    DeclarationRefused(DeclarationFailure),
    /// The rules have no declaration.
    NoDeclarationRule,
    /// The rules have no impasse by agreement.
    NoAgreementRule,
    /// No king has entered (or not both, where the rules require it), so no count yet.
    AgreementNotAllowed,
    /// There is no proposal from the other player to accept.
    NoProposal,
    /// The rules allow no sennichite by agreement.
    NoSennichiteAgreement,
    /// The position has not stood often enough for a sennichite by agreement
    /// ([`crate::rules::AGREED_SENNICHITE_MIN`]).
    NotRepeated,
    /// No foul by the other player stands to be claimed (under `fouls = claim`, only the
    /// last move can be, and only before the claimant moves).
    NoFoulToClaim,
    /// A move that would take the king left in check by a foul (under `fouls = claim`):
    /// the foul is claimed instead.
    KingCapture,
}

impl GameError {
    /// Every refusal there is: each illegal move's kind, each declaration failure, and the
    /// refusals without a cause.
    ///
    /// ```
    /// use gyoku::GameError;
    /// let all: Vec<GameError> = GameError::all().collect();
    /// assert_eq!(all.len(), 25);
    /// assert!(all.contains(&GameError::NoProposal));
    /// ```
    pub fn all() -> impl Iterator<Item = GameError> {
        crate::IllegalMoveKind::ALL
            .into_iter()
            .map(GameError::IllegalMove)
            .chain(
                crate::impasse::DeclarationFailure::ALL
                    .into_iter()
                    .map(GameError::DeclarationRefused),
            )
            .chain([
                GameError::GameOver,
                GameError::NoDeclarationRule,
                GameError::NoAgreementRule,
                GameError::AgreementNotAllowed,
                GameError::NoProposal,
                GameError::NoSennichiteAgreement,
                GameError::NotRepeated,
                GameError::NoFoulToClaim,
                GameError::KingCapture,
            ])
    }

    /// A stable code.
    pub fn code(&self) -> &'static str {
        match self {
            GameError::GameOver => "game_over",
            GameError::IllegalMove(k) => k.code(),
            GameError::DeclarationRefused(f) => f.code(),
            GameError::NoDeclarationRule => "no_declaration_rule",
            GameError::NoAgreementRule => "no_agreement_rule",
            GameError::AgreementNotAllowed => "agreement_not_allowed",
            GameError::NoProposal => "no_proposal",
            GameError::NoSennichiteAgreement => "no_sennichite_agreement",
            GameError::NotRepeated => "not_repeated",
            GameError::NoFoulToClaim => "no_foul_to_claim",
            GameError::KingCapture => "king_capture",
        }
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::GameOver => f.write_str("the game is over"),
            GameError::IllegalMove(k) => write!(f, "illegal move refused: {} ({k})", k.code()),
            GameError::DeclarationRefused(r) => {
                write!(f, "declaration refused: condition '{}' not met", r.code())
            }
            GameError::NoDeclarationRule => f.write_str("these rules have no declaration"),
            GameError::NoAgreementRule => f.write_str("these rules have no impasse agreement"),
            GameError::AgreementNotAllowed => f.write_str("an impasse count needs an entered king"),
            GameError::NoProposal => f.write_str("no proposal to accept"),
            GameError::NoSennichiteAgreement => {
                f.write_str("these rules allow no sennichite by agreement")
            }
            GameError::NotRepeated => {
                f.write_str("the position has not repeated: no sennichite to agree to")
            }
            GameError::NoFoulToClaim => f.write_str("no foul by the other player to claim"),
            GameError::KingCapture => {
                f.write_str("the king left in check is not taken: claim the foul instead")
            }
        }
    }
}

impl std::error::Error for GameError {}

/// Hashes are already uniformly random: use them as they are.
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Occurrences = HashMap<u64, u8, BuildHasherDefault<IdentityHasher>>;

/// A game: the initial position, the rules, the history, and (once it has ended) the
/// outcome.
///
/// ```
/// use gyoku::{Action, Game, GameResult, Position, Preset};
/// let mut game = Game::new(Position::startpos(), Preset::Csa.rules());
/// for m in ["7g7f", "3c3d", "8h2b+", "3a2b"] {
///     game.play(m.parse()?)?;
/// }
/// game.apply(Action::Resign(gyoku::Color::Black))?;
/// let outcome = game.outcome().unwrap();
/// assert_eq!(outcome.result, GameResult::Win(gyoku::Color::White));
/// assert_eq!(outcome.reason.code(), "resignation");
/// assert_eq!(outcome.ply, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Game {
    rules: RuleSet,
    initial: Position,
    credit: u32,
    position: Position,
    plies: Vec<PlyRecord>,
    occurrences: Occurrences,
    outcome: Option<Outcome>,
    proposal: Option<(Proposal, Color)>,
    foul: Option<PendingFoul>,
}

/// A foul played under `fouls = claim`, which the other player may claim until their own
/// next move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PendingFoul {
    /// The move.
    pub mv: Move,
    /// What was illegal about it.
    pub kind: IllegalMoveKind,
    /// Who played it.
    pub by: Color,
    /// Its ply.
    pub ply: u32,
}

/// What a player proposed, for the other to accept before the next move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proposal {
    /// To count the impasse now.
    Impasse,
    /// A sennichite by agreement.
    Sennichite,
}

impl Proposal {
    /// `impasse` or `sennichite`.
    pub const fn code(self) -> &'static str {
        match self {
            Proposal::Impasse => "impasse",
            Proposal::Sennichite => "sennichite",
        }
    }
}

impl Game {
    /// A game from `initial` under `rules`. Handicap credit, where the rules give it, comes
    /// from `initial` when it is a recognised handicap start. The initial position may
    /// already be decided (no legal move, an automatic impasse).
    pub fn new(initial: Position, rules: RuleSet) -> Game {
        let credit = impasse::credit_under(&rules, &initial);
        let mut occurrences = Occurrences::with_capacity_and_hasher(512, Default::default());
        occurrences.insert(initial.hash(), 1);
        let mut game = Game {
            rules,
            position: initial.clone(),
            initial,
            credit,
            plies: Vec::with_capacity(256),
            occurrences,
            outcome: None,
            proposal: None,
            foul: None,
        };
        game.outcome = game.judge_initial();
        game
    }

    /// The same game with the handicap credit of `handicap` (for a game resumed from a
    /// later position of a handicap game, or an impasse count on a composed position);
    /// `None` removes the credit. The rules must give credit for it to count.
    #[must_use]
    pub fn with_handicap(mut self, handicap: Option<crate::Handicap>) -> Game {
        self.credit = match handicap {
            // What the game lacks is in its pieces, whatever start it is said to have had.
            _ if self.rules.missing_points_credit => impasse::missing_points(&self.position),
            Some(h) if self.rules.handicap_credit => h.removed_points(),
            _ => 0,
        };
        if self.plies.is_empty() {
            self.outcome = self.judge_initial();
        }
        self
    }

    /// The rules.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The initial position.
    pub fn initial(&self) -> &Position {
        &self.initial
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played, with the hash of the position each produced and whether it checked.
    pub fn plies(&self) -> &[PlyRecord] {
        &self.plies
    }

    /// The handicap credit given to White (0 without a recognised handicap start, or when
    /// the rules give none).
    pub fn handicap_credit(&self) -> u32 {
        self.credit
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The impasse calculator for the current position (with this game's initial position
    /// for handicap credit).
    pub fn impasse_report(&self) -> ImpasseReport {
        ImpasseReport::with_checks(
            &self.position,
            Some(&self.initial.to_setup()),
            self.recent_checks(),
        )
    }

    /// `color`'s impasse figures now, with this game's handicap credit.
    pub fn impasse_count(&self, color: Color) -> ImpasseCount {
        ImpasseCount::of(&self.position, color, self.credit)
    }

    /// Takes an action.
    ///
    /// # Errors
    /// [`GameError`] when the action is refused; the game is then unchanged.
    pub fn apply(&mut self, action: Action) -> Result<(), GameError> {
        match action {
            Action::Move(m) => self.play(m),
            Action::Resign(color) => self.resign(color),
            Action::Declare => self.declare(),
            Action::ProposeImpasse(color) => self.propose_impasse(color),
            Action::AcceptImpasse(color) => self.accept_impasse(color),
            Action::AgreeImpasse => self.agree_impasse(),
            Action::ProposeSennichite(color) => self.propose_sennichite(color),
            Action::AcceptSennichite(color) => self.accept_sennichite(color),
            Action::AgreeSennichite => self.agree_sennichite(),
            Action::ClaimFoul(color) => self.claim_foul(color),
            Action::TimeUp(color) => self.time_up(color),
        }
    }

    fn ensure_running(&self) -> Result<(), GameError> {
        if self.outcome.is_some() {
            Err(GameError::GameOver)
        } else {
            Ok(())
        }
    }

    fn end(&mut self, result: GameResult, reason: EndReason, ply: u32) {
        self.outcome = Some(Outcome {
            result,
            reason,
            ply,
        });
    }

    /// The moves a move limit counts: those played in this game, plus those before its
    /// initial position (an SFEN's move number 495 means 494 moves were played before).
    pub fn moves_counted(&self) -> u32 {
        self.initial.move_number().saturating_sub(1) + self.plies.len() as u32
    }

    /// Whether the positions after the last two moves were checks (for a game imported
    /// mid-way, the initial position's check stands for the move before it).
    pub fn recent_checks(&self) -> RecentChecks {
        let check_after = |ply: usize| {
            if ply == 0 {
                self.initial.is_check()
            } else {
                self.plies[ply - 1].check
            }
        };
        let n = self.plies.len();
        RecentChecks {
            last: check_after(n),
            before: n >= 1 && check_after(n - 1),
        }
    }

    /// Where the game stands against its move limit now (`Before` without a limit).
    pub fn limit_state(&self) -> LimitState {
        self.rules.move_limit.map_or(LimitState::Before, |l| {
            l.state(self.moves_counted(), self.recent_checks())
        })
    }

    /// The ply an action taken instead of a move occupies.
    fn next_ply(&self) -> u32 {
        self.plies.len() as u32 + 1
    }

    /// The side to move plays `m`.
    ///
    /// # Errors
    /// [`GameError::GameOver`], or [`GameError::IllegalMove`] under `fouls = refuse`. Under
    /// `fouls = lose` an illegal move ends the game instead (`Ok`, see [`Game::outcome`]).
    /// Under `fouls = claim` a foul real pieces can make is played and stands to be claimed
    /// ([`Game::pending_foul`]); any other is refused, and so is taking a king a foul left
    /// in check ([`GameError::KingCapture`]).
    pub fn play(&mut self, m: Move) -> Result<(), GameError> {
        self.ensure_running()?;
        let us = self.position.turn();
        if self.rules.fouls == Fouls::Claim
            && let Move::Normal { to, .. } = m
            && self.position.king(!us) == Some(to)
        {
            return Err(GameError::KingCapture);
        }
        if let Err(kind) = self.position.check_move(m) {
            return match self.rules.fouls {
                Fouls::Refuse => Err(GameError::IllegalMove(kind)),
                Fouls::Claim if !kind.is_physical() => Err(GameError::IllegalMove(kind)),
                Fouls::Claim => {
                    let ply = self.next_ply();
                    self.record_move(m);
                    // Nothing is judged on a foul: its opponent claims it, or plays on.
                    self.foul = Some(PendingFoul {
                        mv: m,
                        kind,
                        by: us,
                        ply,
                    });
                    Ok(())
                }
                Fouls::Lose => {
                    let ply = self.next_ply();
                    self.end(
                        GameResult::Win(!us),
                        EndReason::IllegalMove { mv: m, kind },
                        ply,
                    );
                    Ok(())
                }
            };
        }
        let try_before = self.try_allowed_before(m);
        let repeated = self.record_move(m) >= 4;
        self.outcome = self.judge_after_move(try_before.then_some(m), repeated);
        Ok(())
    }

    /// Plays `m` on the board and keeps it in the history; any proposal lapses, and so does
    /// a foul's claim. How many times the position it makes has stood.
    fn record_move(&mut self, m: Move) -> u8 {
        self.position.play_unchecked(m);
        let hash = self.position.hash();
        self.plies.push(PlyRecord {
            mv: m,
            hash,
            check: self.position.is_check(),
        });
        self.proposal = None;
        self.foul = None;
        let count = self.occurrences.entry(hash).or_insert(0);
        *count = count.saturating_add(1);
        *count
    }

    /// The foul that stands to be claimed now (under `fouls = claim`: the last move, until
    /// its opponent moves).
    pub fn pending_foul(&self) -> Option<PendingFoul> {
        self.foul
    }

    /// `color` claims the foul the other player has just made (under `fouls = claim`): its
    /// mover loses, by `claimed_foul` at the foul's ply.
    ///
    /// ```
    /// use gyoku::{Color, Game, GameError, GameResult, Position, Preset, rules::Fouls};
    /// let mut rules = Preset::JsaAmateur.rules();
    /// rules.fouls = Fouls::Claim;
    /// // White's pawn on 5c, Black's on 5g: a second Black pawn on the file is nifu.
    /// let start = Position::from_sfen("4k4/9/4p4/9/9/9/4P4/9/4K4 b P 1")?;
    /// let mut game = Game::new(start, rules);
    /// game.play("P*5e".parse()?)?;
    /// assert_eq!(game.outcome(), None, "played, and it stands to be claimed");
    /// assert_eq!(game.claim_foul(Color::Black), Err(GameError::NoFoulToClaim));
    /// game.claim_foul(Color::White)?;
    /// let o = game.outcome().unwrap();
    /// assert_eq!((o.result, o.reason.code(), o.ply), (GameResult::Win(Color::White), "claimed_foul", 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::NoFoulToClaim`].
    pub fn claim_foul(&mut self, color: Color) -> Result<(), GameError> {
        self.ensure_running()?;
        let foul = self
            .foul
            .filter(|f| f.by == !color)
            .ok_or(GameError::NoFoulToClaim)?;
        self.end(
            GameResult::Win(color),
            EndReason::ClaimedFoul {
                mv: foul.mv,
                kind: foul.kind,
                by: foul.by,
            },
            foul.ply,
        );
        Ok(())
    }

    /// The side *not* to move plays `m`: a second move in a row (二手指し), which the rules
    /// never allow but a record can hold (CSA's sign, JKF's `color`). Under `fouls = lose`
    /// its mover loses (`illegal_move`, kind `out_of_turn`); under `fouls = refuse` it is
    /// refused and nothing changes.
    ///
    /// ```
    /// use gyoku::{Color, Game, GameResult, Move, Position, Preset};
    ///
    /// let mut game = Game::new(Position::startpos(), Preset::Csa.rules());
    /// game.play(Move::from_usi("7g7f").unwrap()).unwrap();
    /// // Black moves again, with White to move.
    /// game.play_out_of_turn(Move::from_usi("2g2f").unwrap()).unwrap();
    /// assert_eq!(game.outcome().unwrap().result, GameResult::Win(Color::White));
    /// ```
    ///
    /// # Errors
    /// [`GameError::GameOver`], or [`GameError::IllegalMove`] under `fouls = refuse`.
    pub fn play_out_of_turn(&mut self, m: Move) -> Result<(), GameError> {
        self.ensure_running()?;
        let kind = IllegalMoveKind::OutOfTurn;
        match self.rules.fouls {
            // Nothing is played out of turn: a claim has no move to stand on.
            Fouls::Refuse | Fouls::Claim => Err(GameError::IllegalMove(kind)),
            Fouls::Lose => {
                let ply = self.next_ply();
                let mover = !self.position.turn();
                self.end(
                    GameResult::Win(!mover),
                    EndReason::IllegalMove { mv: m, kind },
                    ply,
                );
                Ok(())
            }
        }
    }

    /// Whether `m`, if it is a king move onto the try square, would be a try under the
    /// rules (judged before the move: both kings entered and no check, where required).
    fn try_allowed_before(&self, m: Move) -> bool {
        let Some(rule) = self.rules.try_rule else {
            return false;
        };
        let Move::Normal { from, to, .. } = m else {
            return false;
        };
        let us = self.position.turn();
        if self.position.king(us) != Some(from) || !impasse::is_try_square(us, to) {
            return false;
        }
        !rule.require_both_entered
            || (from.in_zone(us)
                && self.position.king(!us).is_some_and(|k| k.in_zone(!us))
                && !self.position.is_check())
    }

    /// Endings that hold at the start of the side to move's turn: no legal move, the
    /// automatic impasse, the Fairbairn count.
    fn judge_start_of_turn(&self) -> Option<Outcome> {
        let ply = self.plies.len() as u32;
        let pos = &self.position;
        let turn = pos.turn();
        let strict = self.rules.move_limit.is_some_and(|l| l.strict_csa_server);
        if !strict && !pos.has_legal_moves() {
            let reason = if pos.is_check() {
                EndReason::Checkmate
            } else {
                EndReason::NoLegalMove
            };
            return Some(Outcome {
                result: GameResult::Win(!turn),
                reason,
                ply,
            });
        }
        if self.rules.automatic_impasse && pos.king(turn).is_some_and(|k| k.in_zone(turn)) {
            let count = self.impasse_count(turn);
            if impasse::judge_declaration(DeclarationRule::Points27, &count, turn)
                == DeclarationVerdict::Win
            {
                return Some(Outcome {
                    result: GameResult::Win(turn),
                    reason: EndReason::AutomaticImpasse {
                        winner: turn,
                        count,
                    },
                    ply,
                });
            }
        }
        None
    }

    fn judge_after_move(&self, try_move: Option<Move>, repeated: bool) -> Option<Outcome> {
        let ply = self.plies.len() as u32;
        let mover = !self.position.turn();
        // Mate first (a try that mates is reported as the mate); then the try, which ends
        // the game on the move, before the next turn's automatic impasse.
        let start = self.judge_start_of_turn();
        if let Some(outcome) = &start
            && matches!(
                outcome.reason,
                EndReason::Checkmate | EndReason::NoLegalMove
            )
        {
            return start;
        }
        if let Some(m) = try_move {
            return Some(Outcome {
                result: GameResult::Win(mover),
                reason: EndReason::Try { square: m.to() },
                ply,
            });
        }
        self.judge_position(start, repeated)
    }

    /// The initial position's outcome, if it is already decided. At its move limit it is
    /// judged as the position after the limit move; past it, the limit came first.
    fn judge_initial(&self) -> Option<Outcome> {
        if let Some(limit) = self.rules.move_limit
            && self.moves_counted() > limit.plies
            && self.limit_state() == LimitState::Reached
        {
            return self.limit_outcome();
        }
        let start = self.judge_start_of_turn();
        self.judge_position(start, false)
    }

    /// After mate and the try: the start-of-turn ending, repetition, the Fairbairn count
    /// and the move limit, in that order.
    fn judge_position(&self, start: Option<Outcome>, repeated: bool) -> Option<Outcome> {
        let ply = self.plies.len() as u32;
        if start.is_some() {
            return start;
        }
        if repeated && let Some(outcome) = self.judge_repetition(ply) {
            return Some(outcome);
        }
        if let Some(outcome) = self.fairbairn_outcome(ply) {
            return Some(outcome);
        }
        self.limit_outcome()
    }

    /// The move limit's outcome now, if it has been reached (and no JSA extension holds).
    fn limit_outcome(&self) -> Option<Outcome> {
        let limit = self.rules.move_limit?;
        (self.limit_state() == LimitState::Reached).then(|| Outcome {
            result: GameResult::from_resolution(limit.result),
            reason: EndReason::MoveLimit { limit: limit.plies },
            ply: self.plies.len() as u32,
        })
    }

    fn fairbairn_outcome(&self, ply: u32) -> Option<Outcome> {
        if !(self.rules.fairbairn_count
            && (ImpasseCount::all_in_zone(&self.position, Color::Black)
                || ImpasseCount::all_in_zone(&self.position, Color::White)))
        {
            return None;
        }
        let points = self.total_points();
        Some(Outcome {
            result: impasse::judge_count(&self.rules.fairbairn_agreement(), points),
            reason: EndReason::ImpasseCount { points },
            ply,
        })
    }

    fn total_points(&self) -> ByColor<u32> {
        ByColor::new(
            self.impasse_count(Color::Black).total_points,
            self.impasse_count(Color::White).total_points,
        )
    }

    /// The current position has (by hash) occurred four times or more: confirm on the real
    /// board and hands, over the whole game, and judge perpetual check (§3).
    fn judge_repetition(&self, ply: u32) -> Option<Outcome> {
        let occurrences = self.confirmed_occurrences()?;
        let [first, .., last] = occurrences;
        let mut all_checks = [true, true];
        let mut mover = self.initial.turn();
        if first % 2 == 1 {
            mover = !mover;
        }
        for k in first + 1..=last {
            if !self.plies[k as usize - 1].check {
                all_checks[mover.index()] = false;
            }
            mover = !mover;
        }
        let reason_result = match all_checks {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        };
        Some(match reason_result {
            Some(checker) => Outcome {
                result: GameResult::Win(!checker),
                reason: EndReason::PerpetualCheck {
                    checker,
                    occurrences,
                },
                ply,
            },
            None => Outcome {
                result: GameResult::from_resolution(self.rules.sennichite),
                reason: EndReason::Sennichite { occurrences },
                ply,
            },
        })
    }

    /// The four plies after which the current position stood, confirmed by replaying the
    /// game and comparing the real positions; `None` if fewer than four (a hash collision).
    fn confirmed_occurrences(&self) -> Option<[u32; 4]> {
        let found = self.plies_at_current_position();
        if found.len() < 4 {
            return None;
        }
        let tail = &found[found.len() - 4..];
        Some([tail[0], tail[1], tail[2], tail[3]])
    }

    /// Every ply after which the current position stood (0: the initial position),
    /// confirmed on the real board and hands by replaying the game.
    fn plies_at_current_position(&self) -> Vec<u32> {
        let target = self.position.hash();
        let n = self.plies.len();
        let mut found = Vec::with_capacity(4);
        let mut pos = self.initial.clone();
        for i in 0..=n {
            let hash = if i == 0 {
                self.initial.hash()
            } else {
                self.plies[i - 1].hash
            };
            if hash == target && pos.same_position(&self.position) {
                found.push(i as u32);
            }
            if i < n {
                pos.play_unchecked(self.plies[i].mv);
            }
        }
        found
    }

    /// `color` resigns.
    ///
    /// # Errors
    /// [`GameError::GameOver`].
    pub fn resign(&mut self, color: Color) -> Result<(), GameError> {
        self.ensure_running()?;
        let ply = self.next_ply();
        self.end(
            GameResult::Win(!color),
            EndReason::Resignation { by: color },
            ply,
        );
        Ok(())
    }

    /// `color`'s clock has run out.
    ///
    /// # Errors
    /// [`GameError::GameOver`].
    pub fn time_up(&mut self, color: Color) -> Result<(), GameError> {
        self.ensure_running()?;
        let ply = self.next_ply();
        self.end(
            GameResult::Win(!color),
            EndReason::TimeUp { by: color },
            ply,
        );
        Ok(())
    }

    /// The side to move sends `m` marked as the other side's move (a CSA move with the
    /// wrong sign, a protocol's move for the wrong colour): a foul of kind
    /// [`IllegalMoveKind::OutOfTurn`] whatever the move itself would do. Under
    /// `fouls = lose` the side to move loses; under `fouls = refuse` it is refused.
    ///
    /// ```
    /// use gyoku::{Color, Game, GameResult, Move, Position, Preset};
    ///
    /// let mut game = Game::new(Position::startpos(), Preset::Csa.rules());
    /// game.play(Move::from_usi("7g7f").unwrap()).unwrap();
    /// // White, to move, sends a Black move.
    /// game.play_as_other_side(Move::from_usi("1g1f").unwrap()).unwrap();
    /// assert_eq!(game.outcome().unwrap().result, GameResult::Win(Color::Black));
    /// ```
    ///
    /// # Errors
    /// [`GameError::GameOver`], or [`GameError::IllegalMove`] under `fouls = refuse`.
    pub fn play_as_other_side(&mut self, m: Move) -> Result<(), GameError> {
        self.ensure_running()?;
        let kind = IllegalMoveKind::OutOfTurn;
        match self.rules.fouls {
            // Nothing is played out of turn: a claim has no move to stand on.
            Fouls::Refuse | Fouls::Claim => Err(GameError::IllegalMove(kind)),
            Fouls::Lose => {
                let us = self.position.turn();
                let ply = self.next_ply();
                self.end(
                    GameResult::Win(!us),
                    EndReason::IllegalMove { mv: m, kind },
                    ply,
                );
                Ok(())
            }
        }
    }

    /// `color` forfeits the game (its engine crashed, hung, flooded or answered garbage).
    ///
    /// # Errors
    /// [`GameError::GameOver`].
    pub fn forfeit(&mut self, color: Color, cause: crate::ForfeitCause) -> Result<(), GameError> {
        self.ensure_running()?;
        let ply = self.next_ply();
        self.end(
            GameResult::Win(!color),
            EndReason::Forfeit { by: color, cause },
            ply,
        );
        Ok(())
    }

    /// The side to move declares an impasse instead of moving (the caller has checked that
    /// it has time left; see [`crate::Clock`]).
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::NoDeclarationRule`] (rules without a
    /// declaration, under `fouls = refuse`), or [`GameError::DeclarationRefused`] under
    /// `on_fail = refuse`. Under `on_fail = lose` a failed declaration ends the game (`Ok`);
    /// so does a declaration under rules that have none when `fouls = lose` (it is a foul:
    /// [`DeclarationFailure::NoRule`]).
    pub fn declare(&mut self) -> Result<(), GameError> {
        self.ensure_running()?;
        let Some(rule) = self.rules.declaration else {
            if self.rules.fouls != Fouls::Refuse {
                let declarer = self.position.turn();
                let count = self.impasse_count(declarer);
                let ply = self.next_ply();
                self.end(
                    GameResult::Win(!declarer),
                    EndReason::FailedDeclaration {
                        declarer,
                        failure: DeclarationFailure::NoRule,
                        count,
                    },
                    ply,
                );
                return Ok(());
            }
            return Err(GameError::NoDeclarationRule);
        };
        let declarer = self.position.turn();
        let count = self.impasse_count(declarer);
        let past_limit = self.limit_state() != LimitState::Before;
        let verdict = if past_limit {
            DeclarationVerdict::Fail(DeclarationFailure::AfterMoveLimit)
        } else {
            impasse::judge_declaration(rule.rule, &count, declarer)
        };
        let ply = self.next_ply();
        match verdict {
            DeclarationVerdict::Win => self.end(
                GameResult::Win(declarer),
                EndReason::Declaration { declarer, count },
                ply,
            ),
            DeclarationVerdict::NoContest => self.end(
                GameResult::NoContest,
                EndReason::Declaration { declarer, count },
                ply,
            ),
            DeclarationVerdict::Fail(failure) => match rule.on_fail {
                OnFail::Refuse => return Err(GameError::DeclarationRefused(failure)),
                OnFail::Lose => self.end(
                    GameResult::Win(!declarer),
                    EndReason::FailedDeclaration {
                        declarer,
                        failure,
                        count,
                    },
                    ply,
                ),
            },
        }
        Ok(())
    }

    /// The agreement rule and both sides' total points, if an impasse may be counted now.
    fn countable(&self) -> Result<(crate::rules::Agreement, ByColor<u32>), GameError> {
        self.ensure_running()?;
        let agreement = self.rules.agreement.ok_or(GameError::NoAgreementRule)?;
        let counts = ByColor::new(
            self.impasse_count(Color::Black),
            self.impasse_count(Color::White),
        );
        if !impasse::agreement_allowed(&agreement, &counts) {
            return Err(GameError::AgreementNotAllowed);
        }
        Ok((
            agreement,
            ByColor::new(counts.black.total_points, counts.white.total_points),
        ))
    }

    /// Both players agree to count an impasse now.
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::NoAgreementRule`],
    /// [`GameError::AgreementNotAllowed`] (no king entered, or not both where required).
    pub fn agree_impasse(&mut self) -> Result<(), GameError> {
        let (agreement, points) = self.countable()?;
        let result = impasse::judge_count(&agreement, points);
        let ply = self.next_ply();
        self.end(result, EndReason::ImpasseAgreement { points }, ply);
        Ok(())
    }

    /// `color` proposes an impasse count; the other player may accept until the next move.
    ///
    /// # Errors
    /// As [`Game::agree_impasse`] would refuse now.
    pub fn propose_impasse(&mut self, color: Color) -> Result<(), GameError> {
        self.countable()?;
        self.proposal = Some((Proposal::Impasse, color));
        Ok(())
    }

    /// `color` accepts the other player's proposal, and the impasse is counted.
    ///
    /// # Errors
    /// [`GameError::NoProposal`] without a proposal from the other player; otherwise as
    /// [`Game::agree_impasse`].
    pub fn accept_impasse(&mut self, color: Color) -> Result<(), GameError> {
        self.ensure_running()?;
        if self.proposal != Some((Proposal::Impasse, !color)) {
            return Err(GameError::NoProposal);
        }
        self.agree_impasse()
    }

    /// `color` proposes `what` (as [`Game::propose_impasse`] or
    /// [`Game::propose_sennichite`]).
    ///
    /// # Errors
    /// As those.
    pub fn propose(&mut self, what: Proposal, color: Color) -> Result<(), GameError> {
        match what {
            Proposal::Impasse => self.propose_impasse(color),
            Proposal::Sennichite => self.propose_sennichite(color),
        }
    }

    /// `color` accepts the other's proposal of `what` (as [`Game::accept_impasse`] or
    /// [`Game::accept_sennichite`]).
    ///
    /// # Errors
    /// As those.
    pub fn accept(&mut self, what: Proposal, color: Color) -> Result<(), GameError> {
        match what {
            Proposal::Impasse => self.accept_impasse(color),
            Proposal::Sennichite => self.accept_sennichite(color),
        }
    }

    /// The proposal standing now, and who made it (it lapses with the next move).
    pub fn proposal(&self) -> Option<(Proposal, Color)> {
        self.proposal
    }

    /// Whether the players may agree to a sennichite now: `Ok`, or why not (as
    /// [`Game::agree_sennichite`] would refuse).
    ///
    /// # Errors
    /// As [`Game::agree_sennichite`].
    pub fn sennichite_agreeable(&self) -> Result<(), GameError> {
        self.agreeable_sennichite().map(|_| ())
    }

    /// The plies after which the current position has stood where the rules allow a
    /// sennichite by agreement and it has stood often enough.
    fn agreeable_sennichite(&self) -> Result<Vec<u32>, GameError> {
        self.ensure_running()?;
        if !self.rules.agreed_sennichite {
            return Err(GameError::NoSennichiteAgreement);
        }
        let seen = self
            .occurrences
            .get(&self.position.hash())
            .copied()
            .unwrap_or(0);
        if u32::from(seen) < crate::rules::AGREED_SENNICHITE_MIN {
            return Err(GameError::NotRepeated);
        }
        let plies = self.plies_at_current_position();
        if (plies.len() as u32) < crate::rules::AGREED_SENNICHITE_MIN {
            return Err(GameError::NotRepeated);
        }
        Ok(plies)
    }

    /// Both players agree to a sennichite now, before the fourth occurrence (JSA 対局規定,
    /// 2019-10-01): the game ends as a sennichite does under these rules.
    ///
    /// ```
    /// use gyoku::{Game, GameError, GameResult, Position, Preset};
    /// let shuffle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    /// let mut game = Game::new(Position::startpos(), Preset::Jsa.rules());
    /// assert_eq!(game.agree_sennichite(), Err(GameError::NotRepeated));
    /// for m in shuffle {
    ///     game.play(m.parse()?)?;
    /// }
    /// // The start position stands for the second time: the players may agree.
    /// game.agree_sennichite()?;
    /// let outcome = game.outcome().unwrap();
    /// assert_eq!(outcome.reason.code(), "agreed_sennichite");
    /// assert_eq!(outcome.result, GameResult::NoContest);
    ///
    /// let mut csa = Game::new(Position::startpos(), Preset::Csa.rules());
    /// for m in shuffle {
    ///     csa.play(m.parse()?)?;
    /// }
    /// assert_eq!(csa.agree_sennichite(), Err(GameError::NoSennichiteAgreement));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::NoSennichiteAgreement`] (the rules allow
    /// none), [`GameError::NotRepeated`] (the position has not stood twice).
    pub fn agree_sennichite(&mut self) -> Result<(), GameError> {
        let occurrences = self.agreeable_sennichite()?;
        let ply = self.next_ply();
        self.end(
            GameResult::from_resolution(self.rules.sennichite),
            EndReason::AgreedSennichite { occurrences },
            ply,
        );
        Ok(())
    }

    /// `color` proposes a sennichite by agreement; the other player may accept until the
    /// next move.
    ///
    /// # Errors
    /// As [`Game::agree_sennichite`] would refuse now.
    pub fn propose_sennichite(&mut self, color: Color) -> Result<(), GameError> {
        self.agreeable_sennichite()?;
        self.proposal = Some((Proposal::Sennichite, color));
        Ok(())
    }

    /// `color` accepts the other player's sennichite proposal, and the game ends.
    ///
    /// # Errors
    /// [`GameError::NoProposal`] without such a proposal from the other player; otherwise
    /// as [`Game::agree_sennichite`].
    pub fn accept_sennichite(&mut self, color: Color) -> Result<(), GameError> {
        self.ensure_running()?;
        if self.proposal != Some((Proposal::Sennichite, !color)) {
            return Err(GameError::NoProposal);
        }
        self.agree_sennichite()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    /// The moves played, in USI, separated by spaces.
    pub fn usi_moves(&self) -> String {
        let mut s = String::with_capacity(self.plies.len() * 5);
        for (i, p) in self.plies.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&p.mv.to_string());
        }
        s
    }
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("initial", &self.initial.to_sfen())
            .field("moves", &self.usi_moves())
            .field("outcome", &self.outcome)
            .finish()
    }
}
