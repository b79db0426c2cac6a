// An engine test's figures read as its page shows them. Pure (no page, no words):
// `node --test` checks it.

/** Where the LLR stands between its bounds, from 0 (the lower: H0) to 1 (the upper: H1),
 *  kept within them. */
export function llrShare(llr, lower, upper) {
  if (!(upper > lower)) return 0.5;
  return Math.max(0, Math.min(1, (llr - lower) / (upper - lower)));
}

/** Elo with its 95 % margin: `+12.3 ± 4.5`; an empty string without one. */
export function eloText(elo, error) {
  if (typeof elo !== 'number' || typeof error !== 'number') return '';
  const sign = elo >= 0 ? '+' : '−';
  return `${sign}${Math.abs(elo).toFixed(1)} ± ${error.toFixed(1)}`;
}

/** The pentanomial counts as fastchess prints them: `[LL, LD, WL+DD, WD, WW]`. */
export function pentaText(pairs) {
  return Array.isArray(pairs) && pairs.length === 5 ? `[${pairs.join(', ')}]` : '';
}
