// The outlines the page carries cover every character it draws pieces and ranks with
// (`node --test crates/gyoku-server/web/js/`).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GLYPHS } from './glyphs.js';

const PIECES = '歩香桂銀金角飛玉王と杏圭全馬龍';
const RANKS = '一二三四五六七八九';
const LETTERS = 'PLNSGBRK+';

test('every piece, rank and letter has an outline and a width', () => {
  for (const c of PIECES + RANKS + LETTERS) {
    assert.ok(GLYPHS[c], `no outline for ${c}`);
    assert.match(GLYPHS[c].d, /^M-?\d+ -?\d+/, `${c}'s outline is not a path`);
    assert.ok(GLYPHS[c].w > 0 && GLYPHS[c].w <= 1000, `${c}'s width ${GLYPHS[c].w}`);
  }
});

test('the kanji are full-width and the outlines are distinct', () => {
  for (const c of PIECES + RANKS) assert.equal(GLYPHS[c].w, 1000, c);
  const outlines = new Set(Object.values(GLYPHS).map((g) => g.d));
  assert.equal(outlines.size, Object.keys(GLYPHS).length);
});
