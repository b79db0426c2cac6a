//! The state of the game along a record's lines (the main line and each variation), found
//! from checkpoints rather than by replaying the line from the start for every variation,
//! so that reading and writing many variations on long lines stays linear in the record.

use std::collections::HashMap;

use gyoku::{Position, Square};

use crate::Record;

/// Own moves between two checkpoints of a line.
const STEP: usize = 64;

/// The game after some moves of a line.
#[derive(Clone, Debug)]
pub(crate) struct LineState {
    /// The position (a move that is illegal there is not played, and the next ones are
    /// played from where it left off).
    pub pos: Position,
    /// Each side's total whole seconds over the moves (illegal ones included).
    pub totals: [u64; 2],
    /// The square the last move went to (for `同`).
    pub previous: Option<Square>,
}

impl LineState {
    fn play(&mut self, m: &crate::RecordMove) {
        let side = self.pos.turn().index();
        self.totals[side] = self.totals[side].saturating_add(m.time_ms.unwrap_or(0) / 1000);
        if self.pos.is_legal(m.mv) {
            self.pos.play_unchecked(m.mv);
        }
        self.previous = Some(m.mv.to());
    }
}

/// One line's checkpoints: how many moves it keeps of the line it branches from, and the
/// state after `keep + k * STEP` of its moves for each `k` computed so far.
#[derive(Debug)]
struct Checkpoints {
    keep: usize,
    states: Vec<LineState>,
}

/// Line states of one record, computed lazily and kept. Lines must not change once asked
/// about (readers ask only about lines they have finished).
#[derive(Debug, Default)]
pub(crate) struct LineStates {
    lines: HashMap<Option<usize>, Checkpoints>,
}

impl LineStates {
    /// The state after the first `n` moves of a line (`None`: the main line; `Some(i)`:
    /// variation `i` as [`Record::line_before`] composes it), `n` cut to the line's length.
    /// Also returns how many moves that is.
    pub fn after(&mut self, record: &Record, line: Option<usize>, n: usize) -> (LineState, usize) {
        // Up the chain while `n` lies in the part a line keeps of its parent.
        let mut line = line;
        loop {
            self.prepare(record, line);
            let keep = self.lines[&line].keep;
            match line {
                Some(i) if n <= keep => line = parent(record, i),
                _ => break,
            }
        }
        let own = own_moves(record, line);
        let cp = self.lines.get_mut(&line).expect("prepared");
        let k = (n - cp.keep).min(own.len());
        while cp.states.len() <= k / STEP {
            let j = cp.states.len();
            let mut st = cp.states[j - 1].clone();
            for m in &own[(j - 1) * STEP..j * STEP] {
                st.play(m);
            }
            cp.states.push(st);
        }
        let mut st = cp.states[k / STEP].clone();
        for m in &own[k / STEP * STEP..k] {
            st.play(m);
        }
        (st, cp.keep + k)
    }

    /// Makes sure `line` has its first checkpoint (the state before its own moves).
    fn prepare(&mut self, record: &Record, line: Option<usize>) {
        if self.lines.contains_key(&line) {
            return;
        }
        // The lines above `line` that need their first checkpoint, bottom up; then each
        // one's state from its (prepared) parent, top down: no recursion.
        let mut chain = vec![line];
        while let Some(Some(i)) = chain.last().copied() {
            let p = parent(record, i);
            if self.lines.contains_key(&p) || chain.len() > record.variations.len() + 1 {
                break;
            }
            chain.push(p);
        }
        for &l in chain.iter().rev() {
            if self.lines.contains_key(&l) {
                continue;
            }
            let first = match l {
                None => Checkpoints {
                    keep: 0,
                    states: vec![LineState {
                        pos: record.start.clone(),
                        totals: [0; 2],
                        previous: None,
                    }],
                },
                Some(i) => {
                    let p = parent(record, i);
                    let wanted = (record.variations[i].start as usize).saturating_sub(1);
                    let (state, keep) = match self.lines.contains_key(&p) {
                        true => self.after(record, p, wanted),
                        // A parent that could not be prepared (a cycle): no line.
                        false => (
                            LineState {
                                pos: record.start.clone(),
                                totals: [0; 2],
                                previous: None,
                            },
                            0,
                        ),
                    };
                    Checkpoints {
                        keep,
                        states: vec![state],
                    }
                }
            };
            self.lines.insert(l, first);
        }
    }
}

/// The line variation `i` branches from (a parent must come earlier).
fn parent(record: &Record, i: usize) -> Option<usize> {
    record.variations[i].parent.filter(|&p| p < i)
}

fn own_moves(record: &Record, line: Option<usize>) -> &[crate::RecordMove] {
    match line {
        None => &record.moves,
        Some(i) => &record.variations[i].moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, read_str};

    /// The state a plain replay of `line_before` gives: what the cache must equal.
    fn replayed(record: &Record, i: usize) -> (Position, [u64; 2], usize) {
        let mut st = LineState {
            pos: record.start.clone(),
            totals: [0; 2],
            previous: None,
        };
        let before = record.line_before(i);
        for m in &before {
            st.play(m);
        }
        (st.pos, st.totals, before.len())
    }

    #[test]
    fn checkpoints_give_what_a_replay_gives() {
        // A main line of 300 timed moves, siblings at many plies, and nested variations.
        let moves = ["５八玉(59)", "５二玉(51)", "５九玉(58)", "５一玉(52)"];
        let mut text = String::from("手数----指手---------消費時間--\n");
        for i in 0..300 {
            text.push_str(&format!(
                "{:4} {}   ( 0:0{}/00:00:00)\n",
                i + 1,
                moves[i % 4],
                i % 7
            ));
        }
        for ply in [300, 250, 130, 129, 64, 65, 1, 2, 3] {
            let mv = if ply % 2 == 1 {
                "７六歩(77)"
            } else {
                "３四歩(33)"
            };
            let next = if ply % 2 == 1 {
                "３四歩(33)"
            } else {
                "７六歩(77)"
            };
            text.push_str(&format!(
                "\n変化：{ply}手\n{ply:4} {mv}\n{:4} {next}\n",
                ply + 1
            ));
        }
        let record = read_str(&text, Format::Kif).unwrap().remove(0);
        assert!(record.variations.len() >= 9);
        assert!(record.moves.iter().any(|m| m.time_ms == Some(6000)));
        assert!(record.variations.iter().any(|v| v.parent.is_some()));
        let mut states = LineStates::default();
        // In a shuffled order, to exercise the cache both ways.
        let mut order: Vec<usize> = (0..record.variations.len()).collect();
        order.reverse();
        order.rotate_left(3);
        for i in order {
            let v = &record.variations[i];
            let wanted = (v.start as usize).saturating_sub(1);
            let (st, kept) = states.after(&record, v.parent, wanted);
            let (pos, totals, len) = replayed(&record, i);
            assert_eq!(kept, len, "variation {i}");
            assert!(st.pos.same_position(&pos), "variation {i}");
            assert_eq!(st.totals, totals, "variation {i}");
        }
        // Every prefix of the main line.
        for n in (0..=300).step_by(7) {
            let (st, kept) = states.after(&record, None, n);
            let mut pos = record.start.clone();
            for m in &record.moves[..n] {
                pos.play_unchecked(m.mv);
            }
            assert_eq!(kept, n);
            assert!(st.pos.same_position(&pos), "main line after {n}");
        }
    }
}
