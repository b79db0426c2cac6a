// `node --test crates/gyoku-server/web/js/`: an engine test's figures as its page shows them.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { eloText, llrShare, pentaText } from './sprt.js';

test('the LLR bar runs from the lower bound to the upper, kept within them', () => {
  const [lower, upper] = [-2.94, 2.94];
  const cases = [[0, 0.5], [-2.94, 0], [2.94, 1], [1.47, 0.75], [10, 1], [-10, 0]];
  for (const [llr, share] of cases) assert.equal(llrShare(llr, lower, upper), share, String(llr));
  assert.equal(llrShare(1, 2, 2), 0.5);
});

test('Elo, its margin and the pairs read as fastchess prints them', () => {
  assert.equal(eloText(12.345, 4.56), '+12.3 ± 4.6');
  assert.equal(eloText(-3, 10), '−3.0 ± 10.0');
  assert.equal(eloText(null, 1), '');
  assert.equal(pentaText([1, 2, 3, 4, 5]), '[1, 2, 3, 4, 5]');
  assert.equal(pentaText(undefined), '');
});
