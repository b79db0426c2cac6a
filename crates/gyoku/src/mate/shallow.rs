//! Mates in one and three, by direct search: every check, every reply.

use std::ops::ControlFlow;

use crate::{Move, Position};

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
        let mut pos = self.clone();
        pos.find_mate_in_1()
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
        let mut pos = self.clone();
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

    fn find_mate_in_1(&mut self) -> Option<Move> {
        let checks = self.checking_moves();
        self.mate_among(&checks)
    }

    /// The first of `checks` (the side to move's) after which the other side has no move.
    pub(super) fn mate_among(&mut self, checks: &[Move]) -> Option<Move> {
        checks.iter().copied().find(|&m| {
            let undo = self.play_undoable(m);
            let mated = !self.has_legal_moves();
            self.undo(undo);
            mated
        })
    }

    /// With the defender to move: `None` when some reply escapes a mate in one;
    /// `Some(None)` when there is no reply at all (mated already); otherwise a reply and
    /// its mate.
    fn every_reply_mated_in_1(&mut self) -> Option<Option<(Move, Move)>> {
        let replies = self.legal_moves();
        let mut line = None;
        for reply in replies {
            let undo = self.play_undoable(reply);
            let mate = self.find_mate_in_1();
            self.undo(undo);
            let mate = mate?;
            line.get_or_insert((reply, mate));
        }
        Some(line)
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
            // White attacks.
            ("4k4/9/9/9/9/9/4p4/9/4K4 w g 1", Some("G*5h"), Some(1)),
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
}
