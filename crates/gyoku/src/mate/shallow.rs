//! Mates in one and three, by direct search: every check, every reply.

use std::ops::ControlFlow;

use super::checks::{Cover, INTERPOSE_ANYWHERE};
use crate::{Bitboard, Move, Piece, Position, Role, Square, attacks};

/// The defender's king and the squares next to it that the attacker attacks, before a
/// check: see [`Position::king_steps_away_after`].
pub(super) struct KingRoom {
    pub(super) king: Square,
    pub(super) attacked: Bitboard,
}

impl KingRoom {
    /// The squares the king can step to now: next to it, without a piece of its own,
    /// and not attacked.
    pub(super) fn free(&self, pos: &Position) -> Bitboard {
        attacks::king_attacks(self.king) & !pos.board.by_color(!pos.turn) & !self.attacked
    }
}

impl Position {
    /// A move that mates at once, if the side to move has one: a legal check after which
    /// the other side has no legal move. A pawn drop never qualifies (uchifuzume is not
    /// a legal move), while a pawn *moved* to mate does.
    ///
    /// ```
    /// use gyoku::Position;
    /// let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    /// assert_eq!(pos.mate_in_1().map(|m| m.to_string()), Some("G*5b".to_string()));
    /// // The pawn would mate from 1b, so it may not be dropped there.
    /// let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
    /// assert_eq!(pos.mate_in_1(), None);
    /// ```
    pub fn mate_in_1(&self) -> Option<Move> {
        self.find_mate_in_1()
    }

    /// The shortest mate within three plies, if there is one: the attacker's moves, and
    /// for a mate in three the defender's reply that the line follows (every reply is
    /// mated at once).
    ///
    /// ```
    /// use gyoku::Position;
    /// // The pawn may not be dropped to mate on 1b; the rook takes the silver and
    /// // promotes, the king takes it back, and a silver dropped on 2b mates.
    /// let pos = Position::from_sfen("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
    /// assert_eq!(pos.mate_in_1(), None);
    /// let line: Vec<String> = pos.mate_in_3().unwrap().iter().map(|m| m.to_string()).collect();
    /// assert_eq!(line, ["9a2a+", "1a2a", "S*2b"]);
    /// ```
    pub fn mate_in_3(&self) -> Option<Vec<Move>> {
        let pos = self;
        if let Some(m) = pos.find_mate_in_1() {
            return Some(vec![m]);
        }
        let found = pos.for_each_check(|check| {
            let mut after = pos.clone();
            after.play_unchecked(check);
            match after.every_reply_mated_in_1() {
                Some(Some((reply, mate))) => ControlFlow::Break(vec![check, reply, mate]),
                _ => ControlFlow::Continue(()),
            }
        });
        match found {
            ControlFlow::Break(line) => Some(line),
            ControlFlow::Continue(()) => None,
        }
    }

    /// [`Position::mate_in_1`]. Out of check, in two passes: the checks from close by
    /// ([`Position::close_mate_in_1`]: most mates, and cheap to look for), then those
    /// from afar that may mate ([`Position::far_mate_in_1`]: often none). In check, the
    /// evasions that check and may mate ([`Cover::for_mate`]).
    pub(super) fn find_mate_in_1(&self) -> Option<Move> {
        let room = self.king_room()?;
        if self.checkers.is_nonempty() {
            return self.mate_in_1_among(&room, |free| Cover::for_mate(self, room.king, free));
        }
        // The pieces that open a line onto a square the king can step to now, as they
        // move: found once, when either pass first needs them.
        let mut opening = None;
        let free = room.free(self);
        if let Some(mate) = self.close_mate_in_1(&room, free, &mut opening) {
            return Some(mate);
        }
        self.far_mate_in_1(&room, free, &mut opening)
    }

    /// The first check from close by (next to the king, or a knight's) that mates at
    /// once: out of check, [`Position::close_mate_in_1`]; in check, the evasions that
    /// land beside the king (see [`Cover::beside`]).
    pub(super) fn find_close_mate_in_1(&self) -> Option<Move> {
        let room = self.king_room()?;
        if self.checkers.is_nonempty() {
            return self.mate_in_1_among(&room, |free| {
                Cover::for_mate(self, room.king, free).beside(room.king)
            });
        }
        let free = room.free(self);
        self.close_mate_in_1(&room, free, &mut None)
    }

    /// The first of the checks `cover` (given the squares the king can step to now)
    /// lets through that mates.
    pub(super) fn mate_in_1_among(
        &self,
        room: &KingRoom,
        cover: impl FnOnce(Bitboard) -> Cover,
    ) -> Option<Move> {
        let cover = cover(room.free(self));
        if cover.is_none() {
            return None;
        }
        let found = self.checks_that_may_mate(&cover, |m| {
            if self.mates(room, m) {
                ControlFlow::Break(m)
            } else {
                ControlFlow::Continue(())
            }
        });
        match found {
            ControlFlow::Break(m) => Some(m),
            ControlFlow::Continue(()) => None,
        }
    }

    /// With the defender to move: `None` when some reply escapes a mate in one;
    /// `Some(None)` when there is no reply at all (mated already); otherwise a reply and
    /// its mate.
    fn every_reply_mated_in_1(&mut self) -> Option<Option<(Move, Move)>> {
        // The king's moves come first, the likeliest to escape: the search stops at the
        // first reply that does.
        let mut line = None;
        let escaped = self.clone().for_each_legal(|pm| {
            pm.try_for_each(|reply| {
                let undo = self.play_undoable(reply);
                let mate = self.find_mate_in_1();
                self.undo(undo);
                match mate {
                    None => ControlFlow::Break(()),
                    Some(mate) => {
                        line.get_or_insert((reply, mate));
                        ControlFlow::Continue(())
                    }
                }
            })
        });
        match escaped {
            ControlFlow::Break(()) => None,
            ControlFlow::Continue(()) => Some(line),
        }
    }

    /// What [`Position::king_steps_away_after`] needs of the position before any check:
    /// the other king's square, and the squares next to it that the side to move attacks
    /// (with the king off the board: a slider that reaches the king reaches the square
    /// behind it).
    fn king_room(&self) -> Option<KingRoom> {
        let us = self.turn;
        let king = self.kings[(!us).index()]?;
        let near = attacks::king_attacks(king);
        let attacked = near & !self.board.king_escapes(king, near, us);
        Some(KingRoom { king, attacked })
    }

    /// Whether `check` (a legal check of the side to move) leaves the other side no move:
    /// ruled out at once where the king steps away, else played on a copy.
    pub(super) fn mates(&self, room: &KingRoom, check: Move) -> bool {
        if self.interposed_from_hand(room.king, check) || self.king_steps_away_after(room, check) {
            return false;
        }
        let mut after = self.clone();
        after.play_unchecked(check);
        !after.has_legal_moves()
    }

    /// Where `m` moves from (`None` for a drop) and to, and the kind of piece it leaves
    /// there (promoted where it promotes); `None` when no piece stands on its origin.
    fn placed(&self, m: Move) -> Option<(Option<Square>, Square, Role)> {
        match m {
            Move::Drop { role, to } => Some((None, to, role)),
            Move::Normal { from, to, promote } => {
                let role = self.board.piece_at(from)?.role;
                let role = if promote {
                    role.promoted().unwrap_or(role)
                } else {
                    role
                };
                Some((Some(from), to, role))
            }
        }
    }

    /// Whether `check` (a legal check of the side to move) is a single check from afar,
    /// against which the other side can drop a piece it holds on a square between: then
    /// `check` does not mate. A drop checks alone, and so does a piece moved that leaves
    /// no line onto the king (its origin is off the king's lines, or it keeps to the line
    /// it stood on); one that leaves such a line without checking itself uncovers the
    /// only check, through its origin. Where it is not sure, it says no.
    fn interposed_from_hand(&self, king: Square, check: Move) -> bool {
        let us = self.turn;
        let them = !us;
        let hand = self.hands[them.index()];
        if hand.is_empty() {
            return false;
        }
        let Some((from, to, role)) = self.placed(check) else {
            return false;
        };
        let between = match from {
            None => attacks::between(king, to),
            Some(from) => {
                let line = attacks::line(king, from);
                if line.is_empty() || line.contains(to) {
                    attacks::between(king, to)
                } else {
                    let occupied = self.board.occupied().without(from).with(to);
                    if attacks::attacks(us, role, to, occupied).contains(king) {
                        // Perhaps a double check.
                        return false;
                    }
                    // The slider behind `from` checks: the squares up to `from` are
                    // between it and the king.
                    attacks::between(king, from).with(from)
                }
            }
        };
        // A step piece's check, or a slider's from next to the king, has no square
        // between; a square is between only where `to` is on one of the king's lines.
        if between.is_empty() {
            return false;
        }
        if hand.has_any(&INTERPOSE_ANYWHERE) {
            return true;
        }
        // A lance, knight or pawn only where it could move again.
        let open = |ranks| between & !Bitboard::far_ranks(them, ranks);
        if (hand.has(Role::Lance) && open(1).is_nonempty())
            || (hand.has(Role::Knight) && open(2).is_nonempty())
        {
            return true;
        }
        // A pawn, on a file without one of the defender's own, where it does not check
        // (so it cannot be a pawn dropped to mate).
        hand.has(Role::Pawn) && {
            let pawns = self
                .board
                .by_piece(Piece::new(them, Role::Pawn))
                .file_fill();
            let checking = self.kings[us.index()]
                .map_or(Bitboard::EMPTY, |ours| attacks::pawn_attacks(us, ours));
            (open(1) & !pawns & !checking).is_nonempty()
        }
    }

    /// Whether, after the side to move plays `check` (a legal check), the other king can
    /// step to a square that no piece of the mover attacks: then `check` does not mate.
    /// Read off `room` (the position's, before the check) with the moved piece and the
    /// lines its leaving opens accounted for, far cheaper than playing the move: most
    /// checks that do not mate are answered so. Where it is not sure, it says no.
    pub(super) fn king_steps_away_after(&self, room: &KingRoom, check: Move) -> bool {
        let us = self.turn;
        let king = room.king;
        let Some((from, to, role)) = self.placed(check) else {
            return false;
        };
        let mut occupied = self.board.occupied().with(to).without(king);
        // What was attacked stays attacked (a square the moved piece no longer covers, or
        // that `to` now shields, is counted attacked still: never an escape that is not).
        let mut attacked = room.attacked | attacks::attacks(us, role, to, occupied);
        if let Some(from) = from {
            occupied = occupied.without(from);
            // The king takes a checker beside it that no other piece defends (one that
            // moved was counted as defending its own square in `room`).
            if attacks::king_attacks(king).contains(to)
                && self
                    .board
                    .attackers_to(to, us, occupied)
                    .without(from)
                    .is_empty()
            {
                return true;
            }
            // The mover's sliders that stopped at `from` now see past it, along lines
            // that may reach the king's neighbours only if `from`'s own lines do.
            let lines = attacks::rook_rays(from) | attacks::bishop_rays(from);
            let sliders = if (lines & attacks::king_attacks(king)).is_nonempty() {
                self.board.sliders_to(from, us, occupied)
            } else {
                Bitboard::EMPTY
            };
            for slider in sliders {
                if let Some(piece) = self.board.piece_at(slider) {
                    attacked |= attacks::attacks(us, piece.role, slider, occupied);
                }
            }
        }
        // The king may step to any square next to it without a piece of its own (taking a
        // checker that took one of them was looked at above).
        let free = attacks::king_attacks(king) & !self.board.by_color(!us);
        (free & !attacked).is_nonempty()
    }
}

#[cfg(test)]
mod tests {
    use crate::Position;

    /// Positions with a known answer, each checked by playing the line.
    #[test]
    fn short_mates_table() {
        // (SFEN, mate in 1, mate in 3 plies or none)
        let table: &[(&str, Option<&str>, Option<usize>)] = &[
            // A gold on the head of the king (頭金).
            ("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", Some("G*5b"), Some(1)),
            // Uchifuzume: the pawn may not be dropped on 1b; mate takes three plies.
            ("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1", None, Some(3)),
            // ... and here the pawn drop is the only mate, so there is none.
            ("7nk/9/7G1/9/9/9/9/9/4K4 b P 1", None, None),
            // A pawn *pushed* to mate is legal (突き歩詰め); so is the gold's mate.
            ("7nk/9/7GP/9/9/9/9/9/4K4 b - 1", Some("*"), Some(1)),
            // The knight's check leaves 6b, the king's one free square, to the bishop it
            // uncovers (a line onto a square next to the king, not onto the king).
            ("4k4/2S3G2/9/3N5/6N2/9/8B/9/K8 b - 1", Some("3e4c"), Some(1)),
            // White attacks.
            ("4k4/9/9/9/9/9/4p4/9/4K4 w g 1", Some("G*5h"), Some(1)),
            // Mates from afar, the defender holding nothing to drop between: a rook
            // dropped anywhere on the 9th file (next to the king it is taken).
            ("k8/9/9/9/9/9/9/9/1R2K4 b R 1", Some("*"), Some(1)),
            // A dragon two squares away: its steps take the squares beside the king, and
            // the rook leaving 4c opens the horse's diagonal onto 2a.
            (
                "1+P6k/9/5R3/2+P6/9/2+B6/9/3K5/9 b - 1",
                Some("4c1c+"),
                Some(1),
            ),
            // The dragon leaving 8c opens the bishop's diagonal onto 6a.
            ("4k4/9/1+R7/B8/9/B7G/9/6S2/4K4 b S 1", Some("8c5c"), Some(1)),
            (
                "3B5/9/k8/9/4+R4/9/2K6/1+s5B1/9 b NSG 1",
                Some("5e9e"),
                Some(1),
            ),
            // Nothing: the start.
            (crate::STARTPOS_SFEN, None, None),
        ];
        for &(sfen, one, three) in table {
            let pos = Position::from_sfen(sfen).unwrap();
            let m1 = pos.mate_in_1();
            assert_eq!(m1.is_some(), one.is_some(), "{sfen}");
            if let (Some(m), Some(expected)) = (m1, one)
                && expected != "*"
            {
                assert_eq!(m.to_string(), expected, "{sfen}");
            }
            let line = pos.mate_in_3();
            assert_eq!(line.as_ref().map(Vec::len), three, "{sfen}");
            if let Some(line) = line {
                let mut after = pos.clone();
                for (i, &m) in line.iter().enumerate() {
                    if i % 2 == 0 {
                        assert!(after.gives_check(m), "{sfen}: {m}");
                    }
                    after.play(m).unwrap();
                }
                assert!(after.is_checkmate(), "{sfen}: {line:?}");
            }
        }
    }

    /// Calls `f` with the positions of the mate table and those a few random moves
    /// away: twelve times, a random check (or any move when there is none) and a random
    /// reply.
    fn walk_positions(mut f: impl FnMut(&Position)) {
        let table = include_str!("../../../../tests/data/mate/positions.tsv");
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let sfen = line.split('\t').next().unwrap();
            let mut pos = crate::mate::tests::lenient(sfen);
            for _ in 0..12 {
                f(&pos);
                let checks = pos.checking_moves();
                let moves = if checks.is_empty() || next() % 4 == 0 {
                    pos.legal_moves()
                } else {
                    checks
                };
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[next() as usize % moves.len()]);
                let replies = pos.legal_moves();
                if replies.is_empty() {
                    break;
                }
                pos.play_unchecked(replies[next() as usize % replies.len()]);
            }
        }
    }

    /// Whether some check of the side to move leaves the other side no move, and, given
    /// `plies` of 3, whether some check is answered only by replies that are so mated:
    /// every check played, every reply.
    fn brute_mate_within(pos: &Position, plies: u32) -> bool {
        pos.checking_moves().iter().any(|&m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let replies = after.legal_moves();
            replies.is_empty()
                || (plies >= 3
                    && replies.iter().all(|&r| {
                        let mut next = after.clone();
                        next.play_unchecked(r);
                        brute_mate_within(&next, plies - 2)
                    }))
        })
    }

    /// The mates in one and three agree with a search of every check and every reply,
    /// on the walk's positions, and the lines they give mate.
    #[test]
    fn short_mates_agree_with_brute_force() {
        let (mut positions, mut ones, mut threes) = (0, 0, 0);
        walk_positions(|pos| {
            positions += 1;
            let one = pos.mate_in_1();
            assert_eq!(one.is_some(), brute_mate_within(pos, 1), "{pos}");
            if let Some(m) = one {
                let mut after = pos.clone();
                after.play(m).unwrap();
                assert!(after.is_checkmate(), "{pos}: {m}");
                ones += 1;
                return;
            }
            let three = pos.mate_in_3();
            assert_eq!(three.is_some(), brute_mate_within(pos, 3), "{pos}");
            if let Some(line) = three {
                let mut after = pos.clone();
                for m in line {
                    after.play(m).unwrap();
                }
                assert!(after.is_checkmate(), "{pos}");
                threes += 1;
            }
        });
        assert!(
            positions > 1_500 && ones > 100 && threes > 50,
            "{positions} {ones} {threes}"
        );
    }

    /// Sparse positions made at random (the kings, up to nine pieces of either side,
    /// hands of a few kinds): the mate in one agrees with every check played, and what
    /// it finds mates. Such positions have many mates from afar, with nothing to drop
    /// between.
    #[test]
    fn mates_in_1_agree_with_brute_force_on_random_positions() {
        const ROLES: [&str; 13] = [
            "P", "L", "N", "S", "G", "B", "R", "+P", "+L", "+N", "+S", "+B", "+R",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut positions, mut mates) = (0, 0);
        while positions < 100_000 {
            // Files from 9 to 1 in each rank, as SFEN writes them.
            let mut board = vec![String::new(); 81];
            board[next(9) + 9 * next(3)] = "k".into();
            if next(2) == 0 {
                board[next(9) + 9 * (6 + next(3))] = "K".into();
            }
            for _ in 0..2 + next(8) {
                let sq = next(81);
                if board[sq].is_empty() {
                    let role = ROLES[next(ROLES.len())];
                    board[sq] = if next(3) == 0 {
                        role.to_lowercase()
                    } else {
                        role.into()
                    };
                }
            }
            let ranks: Vec<String> = board
                .chunks(9)
                .map(|rank| {
                    let mut text = String::new();
                    let mut empty = 0;
                    for piece in rank {
                        if piece.is_empty() {
                            empty += 1;
                            continue;
                        }
                        if empty > 0 {
                            text += &empty.to_string();
                            empty = 0;
                        }
                        text += piece;
                    }
                    if empty > 0 {
                        text += &empty.to_string();
                    }
                    text
                })
                .collect();
            let mut hand: String = "PLNSGBR".chars().filter(|_| next(4) == 0).collect();
            hand.extend("plnsgbr".chars().filter(|_| next(5) == 0));
            if hand.is_empty() {
                hand.push('-');
            }
            let sfen = format!("{} b {hand} 1", ranks.join("/"));
            let Ok(pos) = Position::from_sfen(&sfen) else {
                continue;
            };
            positions += 1;
            let found = pos.mate_in_1();
            assert_eq!(found.is_some(), brute_mate_within(&pos, 1), "{sfen}");
            if let Some(m) = found {
                let mut after = pos.clone();
                after.play(m).unwrap();
                assert!(after.is_checkmate(), "{sfen}: {m}");
                mates += 1;
            }
        }
        assert!(mates > 1_000, "{mates}");
    }

    /// The walk's positions: whenever the quick test says the king can step away after a
    /// check, it can (a legal king move exists once the check is played), and whenever a
    /// check leaves the defender no move, the quick test says so too.
    #[test]
    fn a_king_that_steps_away_is_never_mated() {
        let (mut checks, mut quick, mut mates) = (0, 0, 0);
        walk_positions(|pos| {
            let Some(room) = pos.king_room() else {
                return;
            };
            for m in pos.checking_moves() {
                checks += 1;
                let steps = pos.king_steps_away_after(&room, m);
                let mut after = pos.clone();
                after.play_unchecked(m);
                let king = after.kings[after.turn.index()].unwrap();
                let king_moves = after.legal_moves().iter().any(|r| r.from() == Some(king));
                assert!(!steps || king_moves, "{pos}: {m}");
                quick += usize::from(steps);
                mates += usize::from(!after.has_legal_moves());
            }
        });
        // The test saw enough of each kind to mean something.
        assert!(
            checks > 5_000 && quick > checks / 3 && mates > 100,
            "{checks} {quick} {mates}"
        );
    }

    /// The walk's positions: whenever the quick test says a piece from hand can be
    /// dropped between, one such drop is a legal reply once the check is played; it
    /// answers many checks, and never one that mates.
    #[test]
    fn a_check_answered_from_hand_is_never_mate() {
        let (mut checks, mut quick) = (0, 0);
        walk_positions(|pos| {
            let Some(king) = pos.kings[(!pos.turn).index()] else {
                return;
            };
            for m in pos.checking_moves() {
                checks += 1;
                if !pos.interposed_from_hand(king, m) {
                    continue;
                }
                quick += 1;
                let mut after = pos.clone();
                after.play_unchecked(m);
                let checkers = after.checkers;
                let checker = checkers.single_square().expect("a single check");
                let between = crate::attacks::between(king, checker);
                let drops = after.legal_moves();
                assert!(
                    drops
                        .iter()
                        .any(|r| r.from().is_none() && between.contains(r.to())),
                    "{pos}: {m}"
                );
            }
        });
        assert!(checks > 5_000 && quick > checks / 10, "{checks} {quick}");
    }
}
