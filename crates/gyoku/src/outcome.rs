//! How a game ended: a result and a reason with its figures, and their codes in each
//! record format and protocol.

use std::fmt;

use crate::impasse::{DeclarationFailure, GameResult, ImpasseCount};
use crate::{ByColor, Color, IllegalMoveKind, Move, Square};

/// Why a game ended, with the figures that decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move (a loss for it).
    NoLegalMove,
    /// A player resigned.
    Resignation {
        /// Who resigned.
        by: Color,
    },
    /// A move broke the rules (under `fouls = lose`); the mover lost.
    IllegalMove {
        /// The move as attempted (not played).
        mv: Move,
        /// What was illegal about it.
        kind: IllegalMoveKind,
    },
    /// A foul its opponent claimed before making their own next move (under
    /// `fouls = claim`); its mover lost. Unlike [`EndReason::IllegalMove`], the move was
    /// played: it is the game's last.
    ClaimedFoul {
        /// The move.
        mv: Move,
        /// What was illegal about it.
        kind: IllegalMoveKind,
        /// Who played it.
        by: Color,
    },
    /// The same position occurred for the fourth time.
    Sennichite {
        /// The plies after which the position stood (0 = the initial position).
        occurrences: [u32; 4],
    },
    /// Sennichite in which every move of one side between the first and fourth occurrence
    /// gave check: that side lost.
    PerpetualCheck {
        /// The side that kept checking.
        checker: Color,
        /// The plies after which the position stood.
        occurrences: [u32; 4],
    },
    /// Both players agreed to a sennichite before the fourth occurrence (where the rules
    /// allow it: the JSA's since 2019-10-01); it ends as a sennichite does.
    AgreedSennichite {
        /// The plies after which the position had stood (0 = the initial position): two
        /// or three of them.
        occurrences: Vec<u32>,
    },
    /// Both players agreed to an impasse count.
    ImpasseAgreement {
        /// Total points, with handicap credit.
        points: ByColor<u32>,
    },
    /// The side to move declared an impasse (入玉宣言) and it held.
    Declaration {
        /// The declarer.
        declarer: Color,
        /// The declarer's figures.
        count: ImpasseCount,
    },
    /// A declaration failed its conditions; the declarer lost.
    FailedDeclaration {
        /// The declarer.
        declarer: Color,
        /// The first condition that failed.
        failure: DeclarationFailure,
        /// The declarer's figures.
        count: ImpasseCount,
    },
    /// At the start of its turn the side to move met the 27-point conditions and won.
    AutomaticImpasse {
        /// The winner.
        winner: Color,
        /// Its figures.
        count: ImpasseCount,
    },
    /// A side had all its pieces in its zone, so the game was counted (Fairbairn / SAW).
    ImpasseCount {
        /// Total points, with handicap credit.
        points: ByColor<u32>,
    },
    /// A king reached the opponent king's starting square (Try rule).
    Try {
        /// The square reached.
        square: Square,
    },
    /// The move limit was reached.
    MoveLimit {
        /// The limit in plies.
        limit: u32,
    },
    /// A player's time ran out.
    TimeUp {
        /// Who ran out of time.
        by: Color,
    },
    /// A player stopped taking part (an engine crashed, hung, flooded its output or
    /// answered garbage) and lost.
    Forfeit {
        /// Who forfeited.
        by: Color,
        /// Why.
        cause: ForfeitCause,
    },
}

/// Why a player forfeited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForfeitCause {
    /// Its process exited or its connection closed.
    Crash,
    /// It did not answer within the time allowed for something other than a move
    /// (`usiok`, `readyok`).
    Hang,
    /// It answered something that is not a move where a move was due.
    Garbage,
    /// It wrote more output than the referee accepts.
    Flood,
    /// A record names the side as the one that lost by an illegal action, without
    /// showing it as a move (CSA's `%+ILLEGAL_ACTION`, a server's word).
    IllegalAction,
}

impl ForfeitCause {
    /// The stable code: `crash`, `hang`, `garbage`, `flood`, `illegal_action`.
    pub const fn code(self) -> &'static str {
        match self {
            ForfeitCause::Crash => "crash",
            ForfeitCause::Hang => "hang",
            ForfeitCause::Garbage => "garbage",
            ForfeitCause::Flood => "flood",
            ForfeitCause::IllegalAction => "illegal_action",
        }
    }
}

impl EndReason {
    /// The stable code: `checkmate`, `no_legal_move`, `resignation`, `illegal_move`,
    /// `claimed_foul`,
    /// `sennichite`, `agreed_sennichite`, `perpetual_check`, `impasse_agreement`, `declaration`,
    /// `failed_declaration`, `automatic_impasse`, `impasse_count`, `try`, `move_limit`,
    /// `time_up`, and for a forfeit its cause: `crash`, `hang`, `garbage`, `flood`.
    pub const fn code(&self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::NoLegalMove => "no_legal_move",
            EndReason::Resignation { .. } => "resignation",
            EndReason::IllegalMove { .. } => "illegal_move",
            EndReason::ClaimedFoul { .. } => "claimed_foul",
            EndReason::Sennichite { .. } => "sennichite",
            EndReason::AgreedSennichite { .. } => "agreed_sennichite",
            EndReason::PerpetualCheck { .. } => "perpetual_check",
            EndReason::ImpasseAgreement { .. } => "impasse_agreement",
            EndReason::Declaration { .. } => "declaration",
            EndReason::FailedDeclaration { .. } => "failed_declaration",
            EndReason::AutomaticImpasse { .. } => "automatic_impasse",
            EndReason::ImpasseCount { .. } => "impasse_count",
            EndReason::Try { .. } => "try",
            EndReason::MoveLimit { .. } => "move_limit",
            EndReason::TimeUp { .. } => "time_up",
            EndReason::Forfeit { cause, .. } => cause.code(),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Who won, or a draw, or no contest.
    pub result: GameResult,
    /// Why, with the figures.
    pub reason: EndReason,
    /// The ply of the ending: the move that ended the game, or, for an action taken instead
    /// of a move (resignation, declaration, agreement, an illegal move, time), the ply it
    /// took the place of.
    pub ply: u32,
}

impl Outcome {
    /// The CSA protocol lines a server sends at this end, from the winner's point of view
    /// where it has one (`#WIN`/`#LOSE` per player is the server's to add): `%TORYO`,
    /// `#RESIGN`, `#SENNICHITE`, `#OUTE_SENNICHITE`, `%KACHI` + `#JISHOGI`, `#MAX_MOVES`,
    /// `#TIME_UP`, `#ILLEGAL_MOVE`, `#ABNORMAL` (a forfeit).
    pub fn csa_codes(&self) -> &'static [&'static str] {
        match &self.reason {
            EndReason::Checkmate | EndReason::NoLegalMove => &["%TSUMI"],
            EndReason::Resignation { .. } => &["%TORYO", "#RESIGN"],
            EndReason::IllegalMove { .. }
            | EndReason::ClaimedFoul { .. }
            | EndReason::FailedDeclaration { .. } => &["#ILLEGAL_MOVE"],
            EndReason::Sennichite { .. } | EndReason::AgreedSennichite { .. } => {
                &["%SENNICHITE", "#SENNICHITE"]
            }
            EndReason::PerpetualCheck { .. } => &["#OUTE_SENNICHITE"],
            EndReason::Declaration { .. } | EndReason::AutomaticImpasse { .. } => {
                &["%KACHI", "#JISHOGI"]
            }
            EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => {
                &["%JISHOGI", "#JISHOGI"]
            }
            EndReason::Try { .. } => &["#TRY"],
            EndReason::MoveLimit { .. } => &["%MAX_MOVES", "#MAX_MOVES"],
            EndReason::TimeUp { .. } => &["%TIME_UP", "#TIME_UP"],
            EndReason::Forfeit { .. } => &["#ABNORMAL"],
        }
    }

    /// The KIF end line word: `詰み`, `投了`, `反則負け`, `千日手`, `持将棋`, `入玉勝ち`,
    /// `切れ負け`, `最大手数`, `トライ`.
    pub fn kif_code(&self) -> &'static str {
        match &self.reason {
            EndReason::Checkmate | EndReason::NoLegalMove => "詰み",
            EndReason::Resignation { .. } => "投了",
            EndReason::IllegalMove { .. }
            | EndReason::ClaimedFoul { .. }
            | EndReason::FailedDeclaration { .. }
            | EndReason::PerpetualCheck { .. } => "反則負け",
            EndReason::Sennichite { .. } | EndReason::AgreedSennichite { .. } => "千日手",
            EndReason::ImpasseAgreement { .. } | EndReason::ImpasseCount { .. } => "持将棋",
            EndReason::Declaration { .. } | EndReason::AutomaticImpasse { .. } => {
                if self.result == GameResult::NoContest {
                    "持将棋"
                } else {
                    "入玉勝ち"
                }
            }
            EndReason::Try { .. } => "トライ",
            EndReason::MoveLimit { .. } => "最大手数",
            EndReason::TimeUp { .. } => "切れ負け",
            EndReason::Forfeit { .. } => "反則負け",
        }
    }

    /// The USI `gameover` word for `color`: `win`, `lose` or `draw` (no contest is a draw
    /// to an engine).
    pub fn usi_gameover(&self, color: Color) -> &'static str {
        match self.result {
            GameResult::Win(c) if c == color => "win",
            GameResult::Win(_) => "lose",
            GameResult::Draw | GameResult::NoContest => "draw",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = match self.result {
            GameResult::Win(c) => format!("{c} wins"),
            GameResult::Draw => "draw".to_string(),
            GameResult::NoContest => "no contest (replay with colours swapped)".to_string(),
        };
        write!(f, "{result} by {} at ply {}", self.reason.code(), self.ply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(result: GameResult, reason: EndReason) -> Outcome {
        Outcome {
            result,
            reason,
            ply: 1,
        }
    }

    #[test]
    fn codes_map_to_record_formats() {
        let resign = outcome(
            GameResult::Win(Color::White),
            EndReason::Resignation { by: Color::Black },
        );
        assert_eq!(resign.csa_codes(), ["%TORYO", "#RESIGN"]);
        assert_eq!(resign.kif_code(), "投了");
        assert_eq!(
            (
                resign.usi_gameover(Color::White),
                resign.usi_gameover(Color::Black)
            ),
            ("win", "lose")
        );
        let perpetual = outcome(
            GameResult::Win(Color::White),
            EndReason::PerpetualCheck {
                checker: Color::Black,
                occurrences: [0, 4, 8, 12],
            },
        );
        assert_eq!(perpetual.csa_codes(), ["#OUTE_SENNICHITE"]);
        assert_eq!(perpetual.kif_code(), "反則負け");
        let count = ImpasseCount {
            entered: true,
            zone_count: 10,
            total_points: 28,
            declaration_points: 28,
            in_check: false,
        };
        let declared = outcome(
            GameResult::Win(Color::Black),
            EndReason::Declaration {
                declarer: Color::Black,
                count,
            },
        );
        assert_eq!(
            (declared.csa_codes(), declared.kif_code()),
            (&["%KACHI", "#JISHOGI"][..], "入玉勝ち")
        );
        let replay = outcome(
            GameResult::NoContest,
            EndReason::Declaration {
                declarer: Color::Black,
                count,
            },
        );
        assert_eq!(
            (replay.kif_code(), replay.usi_gameover(Color::Black)),
            ("持将棋", "draw")
        );
        let limit = outcome(GameResult::Draw, EndReason::MoveLimit { limit: 256 });
        assert_eq!(
            (limit.csa_codes(), limit.kif_code()),
            (&["%MAX_MOVES", "#MAX_MOVES"][..], "最大手数")
        );
        let sennichite = outcome(
            GameResult::Draw,
            EndReason::Sennichite {
                occurrences: [0, 4, 8, 12],
            },
        );
        assert_eq!(
            (sennichite.csa_codes()[1], sennichite.kif_code()),
            ("#SENNICHITE", "千日手")
        );
        let time = outcome(
            GameResult::Win(Color::Black),
            EndReason::TimeUp { by: Color::White },
        );
        assert_eq!(
            (time.csa_codes()[1], time.kif_code()),
            ("#TIME_UP", "切れ負け")
        );
        let foul = outcome(
            GameResult::Win(Color::Black),
            EndReason::IllegalMove {
                mv: "P*5e".parse().unwrap(),
                kind: IllegalMoveKind::Nifu,
            },
        );
        assert_eq!(
            (foul.csa_codes(), foul.kif_code()),
            (&["#ILLEGAL_MOVE"][..], "反則負け")
        );
        assert_eq!(
            outcome(GameResult::Win(Color::Black), EndReason::Checkmate).kif_code(),
            "詰み"
        );
        assert_eq!(resign.to_string(), "white wins by resignation at ply 1");
    }
}
