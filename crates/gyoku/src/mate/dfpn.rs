//! Df-pn: depth-first proof-number search (Nagai 2002), with the 1 + ε thresholds of
//! Pawlewicz and Lew (2007).
//!
//! An OR node is a position with the attacker to move, who plays checks only; an AND node
//! one with the defender to move, who plays every legal reply. A node's proof number is how
//! many more leaves must be proved to show a mate, its disproof number how many to show
//! there is none: an OR node takes the least proof number of its children and the sum of
//! their disproof numbers, an AND node the reverse. The search goes down the most proving
//! child while both numbers stay under thresholds, keeps what it learns in the table, and
//! comes back up when a threshold is reached.
//!
//! A check starts with as many leaves to prove as the defender has replies, so that the
//! check that leaves the fewest is tried first. A proof is kept with its proof pieces
//! (証明駒, Seo's): what of the attacker's hand the mate needs — the pieces it drops less
//! those it takes, over every reply of the defender's, and, where a check could be blocked,
//! all the attacker holds of each kind the defender holds none of — so that it serves
//! every position of the board in which the attacker holds at least those.
//!
//! A position met again on the current path is a disproof (the attacker's checks go round;
//! perpetual check loses), but one that holds on that path only. Such a disproof, any that
//! rests on one, and any numbers read from one are never put in the table, where another
//! path could read them (the graph-history interaction that makes naive df-pn unsound):
//! the node that searched the child keeps them for as long as it is being searched, which
//! is while the path above stays the same. A root disproved that way is disproved on the
//! only path it has: "no mate" is then proved.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use super::table::{Basis, Entry, INFINITE, Table};
use crate::{Color, Hand, Move, Position, Role, Square, Undo};

/// A child of the node being searched: its move, its key, and what is known of it before
/// the table has anything.
struct Child {
    mv: Move,
    /// The position's hash, for the path.
    hash: u64,
    /// The board's key and the hands, for the table.
    key: u64,
    hands: [Hand; 2],
    first: Entry,
    /// What the last search of this child returned, kept for as long as the node is being
    /// searched: numbers that hold on this path only (a repetition's disproof, or numbers
    /// read from one) are never put in the table, where another path would read them
    /// wrongly, but they hold while the path above stays the same.
    settled: Option<Entry>,
    /// How the child's plies count towards its parent's: 1 for a move, -1 for the
    /// capture of a futile interposition, which with the interposition counts for none.
    step: i16,
    /// For a defender's drop between a distant checker and the king, the checker's square
    /// and the drop's: the attacker's reply may take it as a futile interposition.
    interposed: Option<(Square, Square)>,
    /// For an attacker's capture, the kind it puts in hand.
    taken: Option<Role>,
    /// Whether the child has been expanded before in this search (the table holds its
    /// unsettled numbers, or this node searched it): its checks that mate at once, and its
    /// replies after which a check does, are known and need not be looked for again.
    seen: bool,
}

/// One search: the table it writes, its budget and the current path.
pub(super) struct DfPn<'a> {
    pub table: &'a mut Table,
    pub attacker: Color,
    pub nodes: u64,
    pub node_limit: u64,
    pub max_plies: u32,
    pub cancel: Option<&'a AtomicBool>,
    /// Tsume mode: a drop between a distant checker and the king that the checker takes,
    /// and that is mated without the piece taken, is futile (無駄合) and not counted.
    pub futile_drops: bool,
    path: HashSet<u64>,
}

/// A node's numbers, read from its children.
struct Summary {
    entry: Entry,
    /// The child to search next.
    best: usize,
    /// The second best child's proof number (OR) or disproof number (AND).
    second: u32,
}

impl<'a> DfPn<'a> {
    pub(super) fn new(
        table: &'a mut Table,
        attacker: Color,
        node_limit: u64,
        max_plies: u32,
        cancel: Option<&'a AtomicBool>,
    ) -> DfPn<'a> {
        DfPn {
            table,
            attacker,
            nodes: 0,
            node_limit,
            max_plies,
            cancel,
            futile_drops: false,
            path: HashSet::new(),
        }
    }

    /// Whether the budget is spent or the search was cancelled.
    fn out_of_budget(&self) -> bool {
        self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(1024)
                && self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)))
    }

    /// Searches `pos` (the attacker to move) until it is proved, disproved, or the budget
    /// is spent; what it found is in the table under the position's key.
    pub(super) fn search(&mut self, pos: &mut Position) -> Entry {
        self.search_from(pos, None)
    }

    /// [`DfPn::search`] from a position that follows the defender's drop between a
    /// distant checker and the king (`interposed`, as [`DfPn::mid`] takes it).
    pub(super) fn search_from(
        &mut self,
        pos: &mut Position,
        interposed: Option<(Square, Square)>,
    ) -> Entry {
        // After an interposition the capture that does not count takes the root one ply
        // back: it starts one ply in, its caller having allowed one more.
        let ply = u32::from(interposed.is_some());
        loop {
            let entry = self.mid(pos, INFINITE, INFINITE, ply, interposed, true);
            if entry.pn == 0 || entry.dn == 0 || self.stopped() {
                return entry;
            }
        }
    }

    fn stopped(&self) -> bool {
        self.nodes >= self.node_limit || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Multiple iterative deepening: searches `pos` until its proof number reaches `th_pn`
    /// or its disproof number `th_dn`. `interposed` is the checker's square and the drop's
    /// when the defender's last move was a drop between a distant checker and the king;
    /// `fresh`, whether the position has not been expanded before in this search.
    fn mid(
        &mut self,
        pos: &mut Position,
        th_pn: u32,
        th_dn: u32,
        ply: u32,
        interposed: Option<(Square, Square)>,
        fresh: bool,
    ) -> Entry {
        let hash = pos.hash();
        let (key, hands) = (pos.board_key, pos.hands);
        let start = self.nodes;
        self.nodes += 1;
        if ply >= self.max_plies {
            // In tsume mode a defender whose every reply is a futile interposition is mated
            // here, with no ply to spare; so is one whose last reply was one, if taking it
            // mates.
            if self.futile_drops {
                let mated = if pos.turn == self.attacker {
                    interposed.is_some_and(|line| futile_capture_mates(pos, line))
                } else {
                    mated_by_convention(pos)
                };
                if mated {
                    let plies = if pos.turn == self.attacker { -1 } else { 0 };
                    return Entry {
                        key,
                        hands,
                        ..proof(plies, hands[self.attacker.index()])
                    };
                }
            }
            // Too deep to say: no mate within the plies left (none).
            return Entry {
                key,
                hands,
                plies: 0,
                ..disproof(Basis::DepthLimit)
            };
        }
        let or = pos.turn == self.attacker;
        let mut children = match self.expand(pos, or, interposed, fresh) {
            Ok(children) => children,
            Err(settled) => {
                let entry = self.kept(Entry {
                    key,
                    hands,
                    ..settled
                });
                self.table.put(entry, self.attacker);
                return entry;
            }
        };
        // What a proof of this node needs beyond its replies' proofs.
        let guard = if or {
            Hand::EMPTY
        } else {
            self.interposable(pos)
        };
        self.path.insert(hash);
        for child in &mut children {
            (child.first, child.seen) = self.first_known(child, ply);
        }
        let result = loop {
            let summary = self.summarize(&children, or, ply, guard);
            let entry = self.kept(Entry {
                key,
                hands,
                work: u32::try_from(self.nodes - start).unwrap_or(u32::MAX),
                ..summary.entry
            });
            if entry.pn == 0
                || entry.dn == 0
                || entry.pn >= th_pn
                || entry.dn >= th_dn
                || self.out_of_budget()
            {
                break entry;
            }
            let child = &children[summary.best];
            let known = Self::value(child);
            let (child_pn, child_dn) = if or {
                (
                    th_pn.min(widen(summary.second)),
                    shrink(th_dn, entry.dn, known.dn),
                )
            } else {
                (
                    shrink(th_pn, entry.pn, known.pn),
                    th_dn.min(widen(summary.second)),
                )
            };
            let (mv, step, hint, fresh) = (child.mv, child.step, child.interposed, !child.seen);
            let found = if step < 0 {
                let undo = futile_capture(pos, mv);
                let ply = ply.saturating_sub(1);
                let found = self.mid(pos, child_pn, child_dn, ply, None, fresh);
                futile_restore(pos, undo);
                found
            } else {
                let undo = pos.play_undoable(mv);
                let found = self.mid(pos, child_pn, child_dn, ply + 1, hint, fresh);
                pos.undo(undo);
                found
            };
            let child = &mut children[summary.best];
            child.settled = Some(found);
            child.seen = true;
        };
        self.path.remove(&hash);
        if !result.of_path {
            self.table.put(result, self.attacker);
        }
        result
    }

    /// `entry` as it is kept: in tsume mode, where what the defender holds decides which
    /// interpositions are futile, a proof needs all the attacker holds.
    fn kept(&self, mut entry: Entry) -> Entry {
        if self.futile_drops && entry.is_proof() {
            entry.proof_hand = entry.hands[self.attacker.index()];
        }
        entry
    }

    /// What a proof of `pos` (the defender to move, in check) needs of the attacker's
    /// hand beyond its replies' proofs: nothing when every checker touches the king (no
    /// drop can block it); else all the attacker holds of each kind the defender holds
    /// none of, so that no position the proof serves gives the defender a piece to
    /// interpose that it did not have here.
    fn interposable(&self, pos: &Position) -> Hand {
        let defender = !self.attacker;
        let Some(king) = pos.kings[defender.index()] else {
            return Hand::EMPTY;
        };
        let contact =
            crate::attacks::king_attacks(king) | crate::attacks::knight_attacks(defender, king);
        if (pos.checkers & !contact).is_empty() {
            return Hand::EMPTY;
        }
        let (held, theirs) = (
            pos.hands[self.attacker.index()],
            pos.hands[defender.index()],
        );
        let mut guard = Hand::EMPTY;
        for role in Role::HAND {
            if !theirs.has(role) {
                guard = with_count(guard, role, held.count(role));
            }
        }
        guard
    }

    /// The proof pieces of the attacker's position before `child`, from the child's.
    fn before(child: &Child, after: Hand) -> Hand {
        if child.step < 0 {
            // The piece taken was handed back: the hands are as they were.
            return after;
        }
        before_move(child.mv, child.taken, after)
    }

    /// The children of a node, or the node's settled value when one child settles it (a
    /// check that mates; a reply after which there is no check) or there are none.
    ///
    /// A `fresh` node's checks are each tried for a mate at once, and its replies each for
    /// a check that mates at once (the replies so proved are put in the table). A node
    /// expanded before in this search had none of the first, or it would be proved, and
    /// the table has the second: they are not looked for again, which is most of a
    /// revisit's cost.
    fn expand(
        &mut self,
        pos: &mut Position,
        or: bool,
        interposed: Option<(Square, Square)>,
        fresh: bool,
    ) -> Result<Vec<Child>, Entry> {
        let moves = if or {
            pos.checking_moves()
        } else {
            pos.legal_moves()
        };
        if moves.is_empty() {
            // No check: no mate. No reply: mated (the check was legal, so no pawn drop).
            return Err(if or {
                disproof(Basis::Position)
            } else {
                proof(0, self.interposable(pos))
            });
        }
        // A distant checker whose line a drop may block (tsume mode), and the king.
        let blockable = if self.futile_drops && !or {
            distant_checker(pos)
        } else {
            None
        };
        let mut children = Vec::with_capacity(moves.len() + 1);
        if or && interposed.is_some() {
            for &mv in &moves {
                // The checker's capture of a drop that blocked it, as a futile interposition:
                // the position after it with the piece handed back, the two plies not counted
                // (first: a mate this way is shorter than any other check's).
                if interposed == mv.from().map(|from| (from, mv.to())) {
                    let undo = futile_capture(pos, mv);
                    let (hash, key, hands) = (pos.hash(), pos.board_key, pos.hands);
                    let mated = mated_by_convention(pos);
                    futile_restore(pos, undo);
                    if mated {
                        // Mated at once: the interposition did not delay the mate at all.
                        return Err(proof(-1, pos.hands[self.attacker.index()]));
                    }
                    children.push(Child {
                        mv,
                        hash,
                        key,
                        hands,
                        first: unknown(1, 1),
                        settled: None,
                        step: -1,
                        interposed: None,
                        taken: None,
                        seen: false,
                    });
                }
            }
        }
        for mv in moves {
            // A drop between a distant checker and the king (tsume mode).
            let blocked = blockable
                .filter(|&(checker, king)| {
                    mv.is_drop() && crate::attacks::between(checker, king).contains(mv.to())
                })
                .map(|(checker, _)| (checker, mv.to()));
            let taken = if or { taken_by(pos, mv) } else { None };
            let undo = pos.play_undoable(mv);
            let (hash, key, hands) = (pos.hash(), pos.board_key, pos.hands);
            // Its entry is read once the children are known: start the wait now.
            self.table.prefetch(key);
            // A check the defender cannot answer mates; a reply after which the attacker
            // has no check escapes. Otherwise a check starts with as many leaves to prove
            // as the defender has replies (as cshogi's df-pn does: the check that leaves
            // the fewest is tried first; on the table of tests/data/mate this halved the
            // 90th percentile time), a reply with 1 and 1 (counting the checks there
            // searched more nodes).
            let first = if or {
                let replies = pos.count_legal_moves();
                let mated = if self.futile_drops {
                    fresh && mated_by_convention(pos)
                } else {
                    replies == 0
                };
                if mated {
                    proof(0, self.interposable(pos))
                } else {
                    unknown(u32::try_from(replies.max(1)).unwrap_or(INFINITE), 1)
                }
            } else if !fresh {
                unknown(1, 1)
            } else {
                // A reply after which the attacker has no check escapes; one after which a
                // check mates at once is proved without a node of its own (as cshogi's
                // df-pn does) — unless it may be a futile interposition, whose capture
                // counts for nothing and so may mate sooner still.
                if let Some(proof_hand) =
                    blocked.is_none().then(|| self.mate_at_once(pos)).flatten()
                {
                    let first = self.kept(Entry {
                        key,
                        hands,
                        ..proof(1, proof_hand)
                    });
                    self.table.put(first, self.attacker);
                    first
                } else if !pos.has_check() {
                    disproof(Basis::Position)
                } else {
                    unknown(1, 1)
                }
            };
            pos.undo(undo);
            let child = Child {
                mv,
                hash,
                key,
                hands,
                first,
                settled: None,
                step: 1,
                interposed: blocked,
                taken,
                seen: false,
            };
            if or && first.is_proof() {
                return Err(proof(1, Self::before(&child, first.proof_hand)));
            }
            if !or && first.dn == 0 {
                return Err(disproof(Basis::Position));
            }
            children.push(child);
        }
        Ok(children)
    }

    /// Whether the attacker, to move, mates at once by a check from close by (next to
    /// the defender's king, or a knight's), and if so the proof pieces of that mate: most
    /// mates in one are such, and their proofs need the fewest pieces (a mate from afar is
    /// found by the search itself). Only the checks that may mate are tried
    /// ([`Position::find_close_mate_in_1`]).
    fn mate_at_once(&self, pos: &mut Position) -> Option<Hand> {
        let mate = pos.find_close_mate_in_1()?;
        let taken = taken_by(pos, mate);
        let undo = pos.play_undoable(mate);
        let after = self.interposable(pos);
        pos.undo(undo);
        Some(before_move(mate, taken, after))
    }

    /// What is first known of a child of a node at `ply`: repeated on the path, in the
    /// table (a proof only if its mate fits in the plies left, a disproof within a depth
    /// only if as few are left), or its first guess; and whether it was expanded before
    /// (the table has its unsettled numbers, which only an expansion puts there). Read
    /// once, when the node is expanded: the path above stays the same while the node is
    /// searched, and what a search of the child finds is kept in the child.
    fn first_known(&self, child: &Child, ply: u32) -> (Entry, bool) {
        if self.path.contains(&child.hash) {
            return (disproof(Basis::Repetition), false);
        }
        let child_ply = i64::from(ply) + i64::from(child.step);
        let left = i64::from(self.max_plies) - child_ply;
        let holds = |e: &Entry| {
            if e.is_proof() {
                i64::from(e.plies) <= left
            } else if e.dn == 0 && e.basis == Basis::DepthLimit {
                left <= i64::from(e.plies)
            } else {
                true
            }
        };
        match self.table.get(child.key, child.hands, self.attacker) {
            Some(e) if holds(&e) => (e, e.pn > 0 && e.dn > 0),
            _ => (
                Some(child.first).filter(holds).unwrap_or(unknown(1, 1)),
                false,
            ),
        }
    }

    /// What is known of a child: what its last search found, or what was first known.
    #[inline]
    fn value(child: &Child) -> Entry {
        child.settled.unwrap_or(child.first)
    }

    /// The node's numbers from its children's; `guard` is what a proof of an AND node
    /// needs beyond its children's proofs ([`DfPn::interposable`]).
    fn summarize(&self, children: &[Child], or: bool, ply: u32, guard: Hand) -> Summary {
        // OR: pn = min, dn = sum; AND: pn = sum, dn = min. `least` is the number minimised.
        let mut best = 0;
        let mut least = u32::MAX;
        let mut second = u32::MAX;
        let mut sum: u32 = 0;
        // For a proof (OR) the shortest mate among proved children, for an AND node the
        // longest; for a disproof whether it rests only on path-dependent ones.
        let mut plies: Option<i16> = None;
        // The proof pieces: the shortest proved child's (OR), all the children's (AND).
        let mut proof_hand = guard;
        // The bases of the disproved children: the weakest (OR), and the firmest (AND: a
        // disproof of the position before one within the plies left, before one of the
        // path).
        let mut weakest = Basis::Position;
        let mut firmest: Option<(u8, Entry)> = None;
        let mut of_path = false;
        for (i, child) in children.iter().enumerate() {
            let value = Self::value(child);
            let counted = value.plies.saturating_add(child.step);
            of_path |= value.of_path || (value.dn == 0 && value.basis == Basis::Repetition);
            let (minimised, summed) = if or {
                (value.pn, value.dn)
            } else {
                (value.dn, value.pn)
            };
            if minimised < least {
                second = least;
                least = minimised;
                best = i;
            } else if minimised < second {
                second = minimised;
            }
            sum = sum.saturating_add(summed).min(INFINITE - 1);
            if or && value.pn == 0 && plies.is_none_or(|p| counted < p) {
                plies = Some(counted);
                proof_hand = Self::before(child, value.proof_hand);
            }
            if !or {
                plies = Some(plies.map_or(counted, |p| p.max(counted)));
                proof_hand = most(proof_hand, value.proof_hand);
            }
            if value.dn == 0 {
                weakest = weakest.max(value.basis);
                let rank = match value.basis {
                    _ if value.of_path => 2,
                    Basis::Position => 0,
                    Basis::DepthLimit => 1,
                    Basis::Repetition => 2,
                };
                if firmest.is_none_or(|(r, _)| rank < r) {
                    firmest = Some((rank, value));
                }
            }
        }
        // A disproof within the plies left is kept with them: it holds wherever as many or
        // fewer are left.
        let left = i64::from(self.max_plies) - i64::from(ply);
        let left = i16::try_from(left).unwrap_or(if left < 0 { i16::MIN } else { i16::MAX });
        let (pn, dn) = if or { (least, sum) } else { (sum, least) };
        let entry = if pn == 0 {
            proof(plies.unwrap_or(0), proof_hand)
        } else if dn == 0 {
            // OR: every child is disproved, and the disproof is as weak as the weakest. AND:
            // one disproved child suffices, the firmest.
            let (basis, of_path) = if or {
                (weakest, of_path)
            } else {
                firmest.map_or((Basis::Repetition, true), |(_, e)| (e.basis, e.of_path))
            };
            Entry {
                plies: left,
                of_path: of_path || basis == Basis::Repetition,
                ..disproof(basis)
            }
        } else {
            Entry {
                of_path,
                ..unknown(pn, dn)
            }
        };
        Summary {
            entry,
            best,
            second,
        }
    }

    /// The mate the table proves from `pos` (which it must prove): the attacker's
    /// shortest, the defender's longest, proved again where the table lost an entry.
    pub(super) fn line(&mut self, pos: &Position) -> Option<Vec<Move>> {
        let mut pos = pos.clone();
        let mut line = Vec::new();
        let mut path = Vec::new();
        let found = loop {
            if line.len() > self.max_plies as usize {
                break None;
            }
            let or = pos.turn == self.attacker;
            let moves = if or {
                pos.checking_moves()
            } else {
                pos.legal_moves()
            };
            if moves.is_empty() {
                break (!or && pos.is_check()).then_some(line);
            }
            path.push(pos.hash());
            self.path = path.iter().copied().collect();
            let ply = u32::try_from(line.len() + 1).unwrap_or(u32::MAX);
            // The defender's every reply must be proved; the attacker's first proved
            // check will do, searched again only when the table lost them all.
            let mut chosen = self.choose(&mut pos, &moves, or, ply, !or);
            if chosen.is_none() && or {
                chosen = self.choose(&mut pos, &moves, or, ply, true);
            }
            let Some(mv) = chosen else {
                break None;
            };
            pos.play_unchecked(mv);
            line.push(mv);
        };
        self.path.clear();
        found
    }

    /// Among `moves`, the attacker's proved move to the shortest mate, or the defender's
    /// reply with the longest (`None` if some reply is not proved). With `research`, a
    /// move the table knows nothing proved of is searched again.
    fn choose(
        &mut self,
        pos: &mut Position,
        moves: &[Move],
        or: bool,
        ply: u32,
        research: bool,
    ) -> Option<Move> {
        let mut chosen: Option<(Move, i16)> = None;
        let left = i64::from(self.max_plies) - i64::from(ply);
        let fits = |e: &Entry| e.is_proof() && i64::from(e.plies) <= left;
        for &mv in moves {
            let undo = pos.play_undoable(mv);
            let mut known = if or && !pos.has_legal_moves() {
                Some(proof(0, Hand::EMPTY))
            } else {
                self.table.get(pos.board_key, pos.hands, self.attacker)
            };
            if research && !known.is_some_and(|e| fits(&e)) && !self.stopped() {
                known = Some(self.mid(pos, INFINITE, INFINITE, ply, None, true));
            }
            pos.undo(undo);
            match known {
                Some(e) if fits(&e) => {
                    let better =
                        chosen.is_none_or(|(_, p)| if or { e.plies < p } else { e.plies > p });
                    if better {
                        chosen = Some((mv, e.plies));
                    }
                }
                _ if !or => return None,
                _ => {}
            }
        }
        chosen.map(|(mv, _)| mv)
    }
}

/// A child's threshold: the parent's, less what the other children already contribute.
#[inline]
fn shrink(threshold: u32, total: u32, child: u32) -> u32 {
    if threshold >= INFINITE {
        INFINITE
    } else {
        threshold - (total - child.min(total))
    }
}

/// The square of the only checker of the side to move and its king's, when the checker is
/// distant (some square lies between them).
fn distant_checker(pos: &Position) -> Option<(Square, Square)> {
    let checker = pos.checkers.single_square()?;
    let king = pos.kings[pos.turn.index()]?;
    crate::attacks::between(checker, king)
        .is_nonempty()
        .then_some((checker, king))
}

/// Plays the attacker's capture `mv` of a futile interposition and gives the piece it took
/// back to the defender's hand: the interposition changed nothing but where the checker
/// stands. (The piece must not help the mate; handing it back, rather than removing it,
/// asks a little more of the mate and makes every piece interposed on one square lead to
/// one position.)
fn futile_capture(pos: &mut Position, mv: Move) -> (Undo, Option<Role>) {
    let us = pos.turn;
    let taken = taken_by(pos, mv);
    let undo = pos.play_undoable(mv);
    if let Some(role) = taken {
        pos.hands[us.index()].remove(role);
        pos.hands[(!us).index()].add(role);
        pos.hand_key = pos
            .hand_key
            .wrapping_sub(crate::zobrist::hand(us, role))
            .wrapping_add(crate::zobrist::hand(!us, role));
    }
    (undo, taken)
}

/// Takes back [`futile_capture`].
fn futile_restore(pos: &mut Position, (undo, taken): (Undo, Option<Role>)) {
    if let Some(role) = taken {
        let us = !pos.turn;
        pos.hands[(!us).index()].remove(role);
        pos.hands[us.index()].add(role);
    }
    pos.undo(undo);
}

/// Whether the side to move, in check, is mated as tsume problems count it: it has no
/// legal move, or its every reply is a drop between a distant checker and the king that the
/// checker takes, leaving it mated so again with the piece back in its hand (無駄合).
pub(super) fn mated_by_convention(pos: &mut Position) -> bool {
    // The same position recurs down the line with other pieces interposed: each is
    // decided once.
    mated_once(pos, &mut std::collections::HashMap::new())
}

fn mated_once(pos: &mut Position, seen: &mut std::collections::HashMap<u64, bool>) -> bool {
    if let Some(&known) = seen.get(&pos.hash()) {
        return known;
    }
    let mated = mated_here(pos, seen);
    seen.insert(pos.hash(), mated);
    mated
}

fn mated_here(pos: &mut Position, seen: &mut std::collections::HashMap<u64, bool>) -> bool {
    let replies = pos.legal_moves();
    if replies.is_empty() {
        return pos.is_check();
    }
    let Some((checker, king)) = distant_checker(pos) else {
        return false;
    };
    let line = crate::attacks::between(checker, king);
    if !replies.iter().all(|r| r.is_drop() && line.contains(r.to())) {
        return false;
    }
    replies.iter().all(|&reply| {
        let undo = pos.play_undoable(reply);
        // The checker stands nearer the king after it takes: this ends.
        let mated = takes_and_mates(pos, (checker, reply.to()), &mut |pos| mated_once(pos, seen));
        pos.undo(undo);
        mated
    })
}

/// Whether the checker on `line.0`, taking the piece interposed on `line.1` (promoted or
/// not, as a check), leaves the defender mated by convention with the piece handed back.
fn futile_capture_mates(pos: &mut Position, line: (Square, Square)) -> bool {
    takes_and_mates(pos, line, &mut |pos| mated_by_convention(pos))
}

fn takes_and_mates(
    pos: &mut Position,
    (from, to): (Square, Square),
    mated: &mut dyn FnMut(&mut Position) -> bool,
) -> bool {
    [false, true].into_iter().any(|promote| {
        let capture = Move::Normal { from, to, promote };
        if !pos.is_legal(capture) || !pos.gives_check(capture) {
            return false;
        }
        let taken = futile_capture(pos, capture);
        let found = mated(pos);
        futile_restore(pos, taken);
        found
    })
}

/// A proof whose mate takes `plies` and needs `proof_hand` of the attacker's hand.
fn proof(plies: i16, proof_hand: Hand) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn: 0,
        dn: INFINITE,
        work: 1,
        proof_hand,
        plies,
        basis: Basis::Position,
        of_path: false,
    }
}

fn disproof(basis: Basis) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn: INFINITE,
        dn: 0,
        work: 1,
        proof_hand: Hand::EMPTY,
        plies: 0,
        of_path: basis == Basis::Repetition,
        basis,
    }
}

fn unknown(pn: u32, dn: u32) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn,
        dn,
        work: 1,
        proof_hand: Hand::EMPTY,
        plies: 0,
        basis: Basis::Position,
        of_path: false,
    }
}

/// The best child's other threshold: a little over the second best's number (the 1 + ε
/// trick of Pawlewicz and Lew, ε = 1/4), so that the search does not switch back and forth
/// between two children of nearly equal numbers.
#[inline]
fn widen(second: u32) -> u32 {
    second.saturating_add(second / 4).saturating_add(1)
}

/// The kind `mv` puts in the mover's hand, if it captures.
fn taken_by(pos: &Position, mv: Move) -> Option<Role> {
    match mv {
        Move::Normal { to, .. } => pos
            .board
            .piece_at(to)
            .map(|p| p.role.unpromoted())
            .filter(|r| r.is_hand_role()),
        Move::Drop { .. } => None,
    }
}

/// The proof pieces before the attacker's move `mv` (taking `taken`, if it captures),
/// from those after it: a piece dropped is needed before, a piece taken is not.
fn before_move(mv: Move, taken: Option<Role>, after: Hand) -> Hand {
    let mut hand = after;
    match mv {
        Move::Drop { role, .. } => hand.add(role),
        Move::Normal { .. } => {
            if let Some(role) = taken.filter(|&r| hand.has(r)) {
                hand.remove(role);
            }
        }
    }
    hand
}

/// The most of each kind in `a` or `b`.
fn most(a: Hand, b: Hand) -> Hand {
    let mut hand = a;
    for role in Role::HAND {
        if b.count(role) > hand.count(role) {
            hand = with_count(hand, role, b.count(role));
        }
    }
    hand
}

/// `hand` with `count` of `role` (a count some hand of this search held).
fn with_count(mut hand: Hand, role: Role, count: u8) -> Hand {
    // A count read from a hand is within the kind's capacity.
    if hand.set(role, count).is_err() {
        debug_assert!(false, "{count} of {role:?}");
    }
    hand
}
