// `node --test crates/gyoku-server/web/js/`: the mistakes a game's evaluations show.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BLUNDER, MISTAKE, mistakes } from './evals.js';

const at = (scores) => scores.map((score, ply) => ({ ply, score }));

// Each case: Black's-side evaluations after each ply, who moved first, and the mistakes
// worst first as `ply:side:loss` (`??` a blunder).
const CASES = [
  // Black's third move (ply 3) gives 400 away; White's ply 4 gives back 900 (a blunder).
  [[0, 10, 20, -380, 520], 'b', ['4:w:900??', '3:b:400']],
  // Small swings are no mistakes; a missing score skips both moves beside it.
  [[0, -250, 40, null, -900], 'b', []],
  // White moves first (a handicap): ply 1 is White's.
  [[0, 350, 300], 'w', ['1:w:350']],
  // A mate counts as 2000 either way: a won game thrown into a mate loses 4000, no more.
  [[30000, -30000], 'b', ['1:b:4000??']],
];

test('mistakes are the moves that lost the most, by the mover\'s side', () => {
  for (const [scores, first, want] of CASES) {
    const got = mistakes(at(scores), first).map((m) => `${m.ply}:${m.side}:${m.loss}${m.blunder ? '??' : ''}`);
    assert.deepEqual(got, want, `${scores} (${first} first)`);
  }
  assert.ok(MISTAKE < BLUNDER);
});
