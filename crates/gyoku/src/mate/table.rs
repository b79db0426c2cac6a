//! The transposition table of the df-pn search: a fixed number of entries, allocated
//! once, grouped in buckets; a full bucket gives up its least searched entry that is not
//! a proof.
//!
//! Entries are found by the board (with the side to move) and then compared by hands, so
//! that one proof serves every position that differs from it only in the attacker having
//! more in hand and the defender less (優越関係, the superiority of hands): what mates
//! with fewer pieces mates with more. A disproof serves the other way round.
//!
//! A proof is kept with its proof pieces (証明駒): the attacker's pieces in hand the mate
//! needs, fewer than it holds where it drops less than it has, so that it serves every
//! position of the board whose attacker holds at least those. The defender's hand need not
//! be compared: within one search pieces move but never appear, so on one board the
//! attacker holding more of a kind is the defender holding less.

/// Proof and disproof numbers are capped below this; it stands for "proved" (as a
/// disproof number) or "disproved" (as a proof number).
pub(super) const INFINITE: u32 = u32::MAX / 2;

/// What the table knows of a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry {
    /// The board's key, with the side to move (not the hands).
    pub key: u64,
    /// The hands, by colour index.
    pub hands: [Hand; 2],
    /// The proof number: 0 when the attacker mates.
    pub pn: u32,
    /// The disproof number: 0 when the attacker cannot.
    pub dn: u32,
    /// How many nodes were searched under this entry: what is kept when a bucket is full.
    pub work: u32,
    /// For a proof, the attacker's pieces in hand it needs (at most what it holds): it
    /// proves every position of this board whose attacker holds at least these.
    pub proof_hand: Hand,
    /// For a proof, the plies of the mate it found (in tsume mode -1 for an attacker's
    /// position whose mate is the capture of a futile interposition, which with the
    /// interposition counts for nothing).
    pub plies: i16,
    /// What a disproof rests on.
    pub basis: Basis,
    /// Whether the numbers were read from a child repeated on the path, or from one whose
    /// numbers were: true on this path only, so never put in the table.
    pub of_path: bool,
}

/// What a disproof rests on, from the firmest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Basis {
    /// The position alone: true on every path.
    #[default]
    Position,
    /// A position repeated on the path it was found on: true on that path.
    Repetition,
    /// The depth limit: a mate may lie deeper.
    DepthLimit,
}

impl Entry {
    pub(super) fn is_proof(&self) -> bool {
        self.pn == 0
    }
}

use crate::{Color, Hand};

const BUCKET: usize = 4;

/// An entry as the table keeps it: [`Entry`] without `of_path` (such entries are never
/// kept), 32 bytes. A proof keeps its proof pieces in place of the attacker's hand.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    hands: [Hand; 2],
    pn: u32,
    dn: u32,
    work: u32,
    plies: i16,
    basis: Basis,
    /// The search that wrote it (see [`Table::clear`]).
    generation: u8,
}

impl Slot {
    fn of(entry: &Entry, attacker: Color, generation: u8) -> Slot {
        debug_assert!(!entry.of_path, "a path's numbers are never kept");
        let mut hands = entry.hands;
        if entry.is_proof() {
            debug_assert!(hands[attacker.index()].covers(entry.proof_hand));
            hands[attacker.index()] = entry.proof_hand;
        }
        Slot {
            key: entry.key,
            hands,
            pn: entry.pn,
            dn: entry.dn,
            work: entry.work,
            plies: entry.plies,
            basis: entry.basis,
            generation,
        }
    }

    /// The entry for the position with `hands`, which this slot serves.
    fn entry(&self, hands: [Hand; 2], attacker: Color) -> Entry {
        Entry {
            key: self.key,
            hands,
            pn: self.pn,
            dn: self.dn,
            work: self.work,
            proof_hand: self.hands[attacker.index()],
            plies: self.plies,
            basis: self.basis,
            of_path: false,
        }
    }
}

/// `BUCKET` slots on two cache lines of their own: a lookup waits on memory once (the
/// lookups were most of the search's time, measured with `perf`).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Bucket([Slot; BUCKET]);

/// Entries, `BUCKET` to a bucket.
pub(super) struct Table {
    buckets: Vec<Bucket>,
    /// Entries of another generation are empty.
    generation: u8,
}

impl Table {
    /// A table of about `bytes` bytes (at least one bucket).
    pub(super) fn with_bytes(bytes: usize) -> Table {
        let buckets = (bytes / std::mem::size_of::<Bucket>()).max(1);
        Table {
            buckets: vec![Bucket::default(); buckets],
            generation: 1,
        }
    }

    /// The bytes the entries take.
    pub(super) fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets every entry: a new generation (the entries are written over only once in
    /// 255 searches, so a search of a few nodes does not pay for a large table).
    pub(super) fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.buckets.fill(Bucket::default());
            self.generation = 1;
        }
    }

    fn bucket(&self, key: u64) -> usize {
        // The high bits pick the bucket: the low ones of a Zobrist key are as good, but the
        // product spreads any key evenly over a bucket count that is not a power of two.
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// What is known of the board `key` with `hands`, `attacker` attacking: its own entry,
    /// or a proof or disproof of the same board that the hands carry over to it.
    pub(super) fn get(&self, key: u64, hands: [Hand; 2], attacker: Color) -> Option<Entry> {
        let (a, d) = (attacker.index(), (!attacker).index());
        let generation = self.generation;
        // The best: a proof (its shortest mate), else the position's own entry, else a
        // disproof of a position with more in the attacker's hand.
        let mut found: Option<(u8, &Slot)> = None;
        for e in &self.buckets[self.bucket(key)].0 {
            if e.key != key || e.work == 0 || e.generation != generation {
                continue;
            }
            let rank = if e.pn == 0 {
                if !hands[a].covers(e.hands[a]) {
                    continue;
                }
                0
            } else if e.hands == hands {
                1
            } else if e.dn == 0 && e.hands[a].covers(hands[a]) && hands[d].covers(e.hands[d]) {
                2
            } else {
                continue;
            };
            let better = found.is_none_or(|(r, f)| rank < r || (rank == 0 && e.plies < f.plies));
            if better {
                found = Some((rank, e));
            }
        }
        found.map(|(_, e)| e.entry(hands, attacker))
    }

    /// Asks the processor to bring the bucket of `key` into the cache ahead of a
    /// [`Table::get`], so that the wait on memory overlaps the caller's work (measured
    /// with `perf`: most of a lookup's time was that wait; prefetching the children's
    /// entries while the node is expanded took a tenth to a fifth off the df-pn's time on
    /// `tests/data/mate`).
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket = std::ptr::from_ref(&self.buckets[self.bucket(key)]).cast::<i8>();
            // SAFETY: a prefetch is a hint that reads nothing into the program and cannot
            // fault; both addresses lie within the bucket, which is two cache lines of 64
            // bytes (`a_bucket_is_two_cache_lines`), so the pointer arithmetic stays in
            // bounds. SSE, which `_mm_prefetch` needs, is part of every x86_64 target.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(bucket);
                _mm_prefetch::<_MM_HINT_T0>(bucket.add(64));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Keeps `entry` (never one of a path's numbers) of a search by `attacker`: over its
    /// own slot (a proof over the position's unsettled numbers too), else over the
    /// bucket's least searched entry that is not a proof.
    pub(super) fn put(&mut self, entry: Entry, attacker: Color) {
        let generation = self.generation;
        let slot_of = Slot::of(&entry, attacker, generation);
        let i = self.bucket(entry.key);
        let bucket = &mut self.buckets[i].0;
        let live = |e: &Slot| e.work > 0 && e.generation == generation;
        if let Some(slot) = bucket.iter_mut().find(|e| {
            live(e) && e.key == entry.key && (e.hands == entry.hands || e.hands == slot_of.hands)
        }) {
            *slot = Slot {
                work: slot.work.max(entry.work),
                ..slot_of
            };
            return;
        }
        let keep = |e: &Slot| {
            if !live(e) {
                0
            } else if e.pn == 0 {
                u64::from(u32::MAX) + u64::from(e.work)
            } else {
                u64::from(e.work)
            }
        };
        if let Some(slot) = bucket.iter_mut().min_by_key(|e| keep(e)) {
            *slot = slot_of;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;

    #[test]
    fn a_bucket_is_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Slot>(), 32);
        assert_eq!(std::mem::size_of::<Bucket>(), 128);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
        assert_eq!(Table::with_bytes(1 << 20).bytes(), 1 << 20);
    }

    #[test]
    fn a_full_bucket_keeps_proofs_and_the_most_searched() {
        let mut table = Table::with_bytes(1);
        assert_eq!(table.buckets.len(), 1);
        let entry = |key, work, pn| Entry {
            key,
            hands: [Hand::EMPTY; 2],
            pn,
            dn: 1,
            work,
            proof_hand: Hand::EMPTY,
            plies: 0,
            basis: Basis::Position,
            of_path: false,
        };
        let get = |table: &Table, key| table.get(key, [Hand::EMPTY; 2], Color::Black);
        table.put(entry(1, 5, 0), Color::Black);
        table.put(entry(2, 1, 3), Color::Black);
        table.put(entry(3, 9, 3), Color::Black);
        table.put(entry(4, 2, 3), Color::Black);
        table.put(entry(5, 4, 3), Color::Black);
        assert!(get(&table, 1).is_some(), "a proof stays");
        assert!(get(&table, 2).is_none(), "the least searched goes");
        assert!(get(&table, 3).is_some() && get(&table, 4).is_some());
        table.put(entry(3, 1, 7), Color::Black);
        assert_eq!(get(&table, 3).map(|e| (e.pn, e.work)), Some((7, 9)));
        // A new search forgets them all, proofs too, 255 times over and after.
        for _ in 0..300 {
            table.clear();
            assert!(get(&table, 1).is_none() && get(&table, 3).is_none());
            table.put(entry(1, 5, 0), Color::Black);
            assert!(get(&table, 1).is_some());
        }
    }

    /// A proof carries over to more in the attacker's hand (and so less in the
    /// defender's), down to its proof pieces; a disproof to less and more; neither the
    /// other way.
    #[test]
    fn hands_carry_proofs_up_and_disproofs_down() {
        let hand = |roles: &[Role]| {
            let mut h = Hand::EMPTY;
            for &r in roles {
                h.add(r);
            }
            h
        };
        let base = [hand(&[Role::Gold, Role::Pawn]), hand(&[Role::Pawn])];
        let stored = |pn, dn, proof_hand| Entry {
            key: 7,
            hands: base,
            pn,
            dn,
            work: 1,
            proof_hand,
            plies: 3,
            basis: Basis::Position,
            of_path: false,
        };
        let richer = [hand(&[Role::Gold, Role::Silver, Role::Pawn]), Hand::EMPTY];
        let golden = [hand(&[Role::Gold]), hand(&[Role::Pawn, Role::Pawn])];
        let poorer = [Hand::EMPTY, hand(&[Role::Pawn, Role::Pawn, Role::Gold])];
        // Proved with the gold and the pawn it holds.
        let mut table = Table::with_bytes(1 << 12);
        table.put(stored(0, INFINITE, base[0]), Color::Black);
        let found = table.get(7, richer, Color::Black).unwrap();
        assert_eq!((found.pn, found.plies, found.hands), (0, 3, richer));
        assert!(table.get(7, golden, Color::Black).is_none());
        assert!(table.get(7, poorer, Color::Black).is_none());
        // Proved with the gold alone: it serves the position with no pawn too.
        let mut table = Table::with_bytes(1 << 12);
        table.put(stored(0, INFINITE, hand(&[Role::Gold])), Color::Black);
        let found = table.get(7, golden, Color::Black).unwrap();
        assert_eq!((found.pn, found.proof_hand), (0, hand(&[Role::Gold])));
        assert!(table.get(7, poorer, Color::Black).is_none());
        // White attacking, with the pawn alone: the hands' roles swap.
        let mut table = Table::with_bytes(1 << 12);
        table.put(stored(0, INFINITE, base[1]), Color::White);
        assert!(table.get(7, richer, Color::White).is_none());
        assert!(table.get(7, poorer, Color::White).is_some());
        // A disproof, the other way round.
        let mut table = Table::with_bytes(1 << 12);
        table.put(stored(INFINITE, 0, Hand::EMPTY), Color::Black);
        assert_eq!(table.get(7, golden, Color::Black).map(|e| e.dn), Some(0));
        assert!(table.get(7, richer, Color::Black).is_none());
    }

    /// A proof takes the place of the position's unsettled numbers, and is found before
    /// them.
    #[test]
    fn a_proof_replaces_the_numbers_it_settles() {
        let mut table = Table::with_bytes(128);
        let hands = [Hand::EMPTY; 2];
        let open = Entry {
            key: 9,
            hands,
            pn: 2,
            dn: 3,
            work: 4,
            proof_hand: Hand::EMPTY,
            plies: 0,
            basis: Basis::Position,
            of_path: false,
        };
        table.put(open, Color::Black);
        table.put(
            Entry {
                pn: 0,
                dn: INFINITE,
                plies: 5,
                ..open
            },
            Color::Black,
        );
        let slots = table.buckets[0].0.iter().filter(|e| e.work > 0).count();
        assert_eq!(slots, 1);
        assert_eq!(table.get(9, hands, Color::Black).map(|e| e.pn), Some(0));
    }
}
