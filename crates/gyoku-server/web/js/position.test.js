// `node --test crates/gyoku-server/web/js/`: the page's position model against SFEN cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applyUsi, parseSfen, START_SFEN, toSfen } from './position.js';

// SFENs the page reads and writes back unchanged: the start, hands with counts, promoted
// pieces, White to move, an empty board.
const ROUND_TRIPS = [
  START_SFEN,
  'lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2',
  '8l/1+R5k1/4+Bp1p1/p1p1p1p1p/9/P1P1P1P1P/1P1P1P1P1/2G6/L1S1K1SNL b 2GSNL2Pbgsn3p 87',
  '9/9/9/9/9/9/9/9/9 b - 1',
  '4k4/9/4P4/9/9/9/9/9/4K4 w 18P 1',
];

test('SFENs read and write back unchanged', () => {
  for (const sfen of ROUND_TRIPS) assert.equal(toSfen(parseSfen(sfen)), sfen);
});

// Moves played from a position, and the SFEN after them (as `gyoku` writes it).
const GAMES = [
  [START_SFEN, ['7g7f', '3c3d', '8h2b+', '3a2b', 'B*4e'],
    'lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6'],
  ['4k4/9/9/9/9/9/9/4r4/4K4 b - 1', ['5i5h'], '4k4/9/9/9/9/9/9/4K4/9 w R 2'],
  ['4k4/9/9/9/9/9/2p6/9/4K4 w - 1', ['7g7h+'], '4k4/9/9/9/9/9/9/2+p6/4K4 b - 2'],
];

test('moves are played as the rules move pieces: captures to hand, drops, promotions', () => {
  for (const [start, moves, after] of GAMES) {
    let pos = parseSfen(start);
    for (const m of moves) pos = applyUsi(pos, m);
    assert.equal(toSfen(pos), after, `${start} ${moves.join(' ')}`);
  }
});

test('a captured promoted piece goes to hand unpromoted', () => {
  const pos = applyUsi(parseSfen('4k4/9/9/9/9/9/9/4+r4/4K4 b - 1'), '5i5h');
  assert.deepEqual(pos.hand.b, { R: 1 });
  assert.equal(pos.turn, 'w');
});
