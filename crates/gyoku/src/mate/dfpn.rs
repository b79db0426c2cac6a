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
use crate::{Color, Hand, Move, Position};

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
}

/// One search: the table it writes, its budget and the current path.
pub(super) struct DfPn<'a> {
    pub table: &'a mut Table,
    pub attacker: Color,
    pub nodes: u64,
    pub node_limit: u64,
    pub max_plies: u32,
    pub cancel: Option<&'a AtomicBool>,
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
        loop {
            let entry = self.mid(pos, INFINITE, INFINITE, 0);
            if entry.pn == 0 || entry.dn == 0 || self.stopped() {
                return entry;
            }
        }
    }

    fn stopped(&self) -> bool {
        self.nodes >= self.node_limit || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Multiple iterative deepening: searches `pos` until its proof number reaches `th_pn`
    /// or its disproof number `th_dn`.
    fn mid(&mut self, pos: &mut Position, th_pn: u32, th_dn: u32, ply: u32) -> Entry {
        let hash = pos.hash();
        let (key, hands) = (pos.board_key, pos.hands);
        let start = self.nodes;
        self.nodes += 1;
        if ply >= self.max_plies {
            // Too deep to say: a disproof for this path only, and not kept.
            return Entry {
                key,
                hands,
                ..disproof(Basis::DepthLimit)
            };
        }
        let or = pos.turn == self.attacker;
        let mut children = match self.expand(pos, or) {
            Ok(children) => children,
            Err(settled) => {
                let entry = Entry {
                    key,
                    hands,
                    ..settled
                };
                self.table.put(entry);
                return entry;
            }
        };
        self.path.insert(hash);
        let result = loop {
            let summary = self.summarize(&children, or);
            let entry = Entry {
                key,
                hands,
                work: u32::try_from(self.nodes - start).unwrap_or(u32::MAX),
                ..summary.entry
            };
            if entry.pn == 0
                || entry.dn == 0
                || entry.pn >= th_pn
                || entry.dn >= th_dn
                || self.out_of_budget()
            {
                break entry;
            }
            let child = &children[summary.best];
            let known = self.value(child);
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
            let undo = pos.play_undoable(child.mv);
            let found = self.mid(pos, child_pn, child_dn, ply + 1);
            pos.undo(undo);
            children[summary.best].settled = Some(found);
        };
        self.path.remove(&hash);
        let firm_disproof = result.dn != 0 || result.basis == Basis::Position;
        if firm_disproof && !result.of_path {
            self.table.put(result);
        }
        result
    }

    /// The children of a node, or the node's settled value when one child settles it (a
    /// check that mates; a reply after which there is no check) or there are none.
    fn expand(&mut self, pos: &mut Position, or: bool) -> Result<Vec<Child>, Entry> {
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
                proof(0)
            });
        }
        let mut children = Vec::with_capacity(moves.len());
        for mv in moves {
            let undo = pos.play_undoable(mv);
            let (hash, key, hands) = (pos.hash(), pos.board_key, pos.hands);
            // A check the defender cannot answer mates; a reply after which the attacker
            // has no check escapes. Otherwise nothing is known yet: 1 and 1 (plain df-pn;
            // counting the replies or checks as first numbers, as df-pn+ does, searched
            // more nodes on the table of tests/data/mate).
            let first = if or {
                if pos.has_legal_moves() {
                    unknown(1, 1)
                } else {
                    proof(0)
                }
            } else if has_check(pos) {
                unknown(1, 1)
            } else {
                disproof(Basis::Position)
            };
            pos.undo(undo);
            if or && first.is_proof() {
                return Err(proof(1));
            }
            if !or && first.dn == 0 {
                return Err(disproof(Basis::Position));
            }
            children.push(Child {
                mv,
                hash,
                key,
                hands,
                first,
                settled: None,
            });
        }
        Ok(children)
    }

    /// What is known of a child: repeated on the path, settled by its last search, in
    /// the table, or its first guess.
    fn value(&self, child: &Child) -> Entry {
        if self.path.contains(&child.hash) {
            return disproof(Basis::Repetition);
        }
        if let Some(settled) = child.settled
            && (settled.pn == 0 || settled.dn == 0 || settled.of_path)
        {
            return settled;
        }
        self.table
            .get(child.key, child.hands, self.attacker)
            .or(child.settled)
            .unwrap_or(child.first)
    }

    fn summarize(&self, children: &[Child], or: bool) -> Summary {
        // OR: pn = min, dn = sum; AND: pn = sum, dn = min. `least` is the number minimised.
        let mut best = 0;
        let mut least = u32::MAX;
        let mut second = u32::MAX;
        let mut sum: u32 = 0;
        // For a proof (OR) the shortest mate among proved children, for an AND node the
        // longest; for a disproof whether it rests only on path-dependent ones.
        let mut plies: Option<u16> = None;
        // The bases of the disproved children: the weakest, and the firmest.
        let mut weakest = Basis::Position;
        let mut firmest = Basis::DepthLimit;
        let mut of_path = false;
        for (i, child) in children.iter().enumerate() {
            let value = self.value(child);
            of_path |= value.of_path || (value.dn == 0 && value.basis != Basis::Position);
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
            if or && value.pn == 0 {
                plies = Some(plies.map_or(value.plies, |p| p.min(value.plies)));
            }
            if !or {
                plies = Some(plies.unwrap_or(0).max(value.plies));
            }
            if value.dn == 0 {
                weakest = weakest.max(value.basis);
                firmest = firmest.min(value.basis);
            }
        }
        let (pn, dn) = if or { (least, sum) } else { (sum, least) };
        let entry = if pn == 0 {
            proof(plies.unwrap_or(0).saturating_add(1))
        } else if dn == 0 {
            // OR: every child is disproved, and the disproof is as weak as the weakest. AND:
            // one disproved child suffices, the firmest.
            disproof(if or { weakest } else { firmest })
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
        let mut chosen: Option<(Move, u16)> = None;
        for &mv in moves {
            let undo = pos.play_undoable(mv);
            let mut known = if or && !pos.has_legal_moves() {
                Some(proof(0))
            } else {
                self.table.get(pos.board_key, pos.hands, self.attacker)
            };
            if research && !known.is_some_and(|e| e.is_proof()) && !self.stopped() {
                known = Some(self.mid(pos, INFINITE, INFINITE, ply));
            }
            pos.undo(undo);
            match known {
                Some(e) if e.is_proof() => {
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

fn has_check(pos: &Position) -> bool {
    pos.for_each_check(|_| std::ops::ControlFlow::Break(()))
        .is_break()
}

fn proof(plies: u16) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn: 0,
        dn: INFINITE,
        work: 1,
        plies,
        basis: Basis::Position,
        of_path: false,
        generation: 0,
    }
}

fn disproof(basis: Basis) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn: INFINITE,
        dn: 0,
        work: 1,
        plies: 0,
        of_path: basis != Basis::Position,
        basis,
        generation: 0,
    }
}

fn unknown(pn: u32, dn: u32) -> Entry {
    Entry {
        key: 0,
        hands: [Hand::EMPTY; 2],
        pn,
        dn,
        work: 1,
        plies: 0,
        basis: Basis::Position,
        of_path: false,
        generation: 0,
    }
}

/// The best child's other threshold: a little over the second best's number (the 1 + ε
/// trick of Pawlewicz and Lew, ε = 1/4), so that the search does not switch back and forth
/// between two children of nearly equal numbers.
#[inline]
fn widen(second: u32) -> u32 {
    second.saturating_add(second / 4).saturating_add(1)
}
