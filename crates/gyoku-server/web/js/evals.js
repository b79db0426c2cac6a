// A game's evaluations read as a player reads them: the moves that lost the most.
// Pure (no page, no words): `node --test` checks it.

/** A score kept within ±2000 (a mate counts as 2000: the graph and the drops stay readable). */
export const clip = (s) => Math.max(-2000, Math.min(2000, s));

/** The moves whose mover lost `MISTAKE` or more by the evaluation (clipped), worst first:
 *  `[{ply, side, loss, blunder}]`. `positions[i]` is the position after `i` plies, the
 *  first mover `first` (`b` or `w`). */
export const MISTAKE = 300;
export const BLUNDER = 800;
export function mistakes(positions, first) {
  const out = [];
  for (let i = 1; i < positions.length; i += 1) {
    const [a, b] = [positions[i - 1].score, positions[i].score];
    if (a === null || b === null || a === undefined || b === undefined) continue;
    const black = (first === 'b') === (i % 2 === 1);
    const loss = black ? clip(a) - clip(b) : clip(b) - clip(a);
    if (loss >= MISTAKE) out.push({ ply: i, side: black ? 'b' : 'w', loss, blunder: loss >= BLUNDER });
  }
  return out.sort((x, y) => y.loss - x.loss);
}

