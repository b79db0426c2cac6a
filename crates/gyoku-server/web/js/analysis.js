// A finished game's engine analysis: asked for with a button, followed until done, shown
// as an evaluation graph (Black's side), the engine's best move at the ply on screen, and
// the moves that lost the most (mistakes and blunders by the evaluation's drop).

import { api, el, svg } from './dom.js';
import { errorText, sideName, t } from './i18n.js';
import { clip, mistakes } from './evals.js';
import { page } from './page.js';

/** Whether the server analyses games (`GET /api/play`'s `analysis`), asked once. */
let available = null;
function analyses() {
  if (available === null) available = api('GET', '/api/play').then((o) => !!o.analysis).catch(() => false);
  return available;
}

/** The analyses fetched, by game: `{status, analysis}` as `GET /api/games/{id}/analysis`. */
const known = new Map();
/** The games being followed until their analysis is done. */
const following = new Set();

/** An evaluation as shown: `+35`, `-120`, `mate` for ±30000. */
export function scoreText(score) {
  if (score === null || score === undefined) return '—';
  if (Math.abs(score) >= 30000) return score > 0 ? t('mateFor', { side: sideName('b') }) : t('mateFor', { side: sideName('w') });
  return `${score > 0 ? '+' : ''}${score}`;
}

/** The evaluation graph: Black's advantage up, each ply a step; the ply on screen marked;
 *  a click steps there. */
function graphEl(positions, shown, step) {
  const [w, h, pad] = [640, 160, 8];
  const n = Math.max(1, positions.length - 1);
  const x = (i) => pad + (i / n) * (w - 2 * pad);
  const y = (s) => h / 2 - (clip(s) / 2000) * (h / 2 - pad);
  const pts = positions.filter((p) => p.score !== null && p.score !== undefined)
    .map((p) => `${x(p.ply).toFixed(1)},${y(p.score).toFixed(1)}`);
  const g = svg('svg', { id: 'eval-graph', viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': t('evalGraph'), class: 'chart' },
    svg('rect', { x: 0, y: 0, width: w, height: h / 2, fill: '#f4f4f4' }),
    svg('line', { x1: 0, y1: h / 2, x2: w, y2: h / 2, stroke: '#999' }),
    svg('polyline', { points: pts.join(' '), fill: 'none', stroke: '#3050b0', 'stroke-width': 2 }),
    svg('line', { id: 'eval-now', x1: x(shown), y1: 0, x2: x(shown), y2: h, stroke: '#b03030' }));
  g.addEventListener('click', (e) => {
    const box = g.getBoundingClientRect();
    const at = Math.round(((e.clientX - box.left) / box.width * w - pad) / (w - 2 * pad) * n);
    step(Math.max(0, Math.min(n, at)));
  });
  return g;
}

/** Asks the server again while the analysis of `subject` runs, and draws again (`redraw`)
 *  when it moves. */
function follow(subject, redraw) {
  if (following.has(subject.key)) return;
  following.add(subject.key);
  const tick = async () => {
    try {
      const a = await api('GET', subject.get());
      const before = known.get(subject.key);
      known.set(subject.key, a);
      if (JSON.stringify(before) !== JSON.stringify(a)) redraw();
      if (a.status === 'queued' || a.status === 'running') { setTimeout(tick, 1000); return; }
    } catch (_) { setTimeout(tick, 3000); return; }
    following.delete(subject.key);
  };
  tick();
}

/** The analysis panel of a finished game `v`, at ply `shown`: the button, or where it
 *  stands, the graph, the best move there, the mistakes. `step(ply)` steps the game. */
export function analysisEl(v, shown, step) {
  if (v.status !== 'finished') return null;
  const path = `/api/games/${encodeURIComponent(v.id)}/analysis`;
  const subject = {
    key: v.id,
    get: () => path,
    ask: () => api('POST', path),
    moves: v.moves.map((m) => m.usi),
    first: (v.start_sfen.split(' ')[1] || 'b') === 'w' ? 'w' : 'b',
  };
  const redraw = () => {
    const now = page.clockView && page.clockView.view;
    if (now && now.id === v.id) page.show(now);
  };
  if (!known.has(v.id)) {
    analyses().then((yes) => { if (yes) follow(subject, redraw); });
    return el('div', { id: 'analysis' });
  }
  return analysisPanel(subject, shown, step, redraw);
}

/** A judged record's analysis panel: `r` as `POST /api/judge` gives it, `upload` the file
 *  (sent again to ask for the analysis, under `rules`). */
export function recordAnalysisEl(r, upload, rules, shown, step, redraw) {
  const id = `judged ${r.start_sfen} ${r.moves.join(' ')}`;
  const subject = {
    key: id,
    get: () => `/api/analyses/${encodeURIComponent(keys.get(id))}`,
    ask: async () => {
      const a = await api('POST', `/api/judge/analysis?rules=${encodeURIComponent(rules)}`, upload);
      keys.set(id, a.key);
      return a;
    },
    moves: r.moves,
    first: (r.start_sfen.split(' ')[1] || 'b') === 'w' ? 'w' : 'b',
  };
  if (!known.has(id)) {
    analyses().then((yes) => { if (yes) { known.set(id, { status: 'none', analysis: null }); redraw(); } });
    return el('div', { id: 'analysis' });
  }
  return analysisPanel(subject, shown, step, redraw);
}

/** The analysis keys of the records judged on this page, by record. */
const keys = new Map();

function analysisPanel(subject, shown, step, redraw) {
  const a = known.get(subject.key);
  const box = el('div', { id: 'analysis' }, el('h3', {}, t('analysis')));
  if (a.status === 'none' || a.status === 'failed') {
    const out = el('span', {});
    const ask = el('button', { type: 'button', id: 'analyse' }, t('analyse'));
    ask.addEventListener('click', async () => {
      try {
        known.set(subject.key, await subject.ask());
        follow(subject, redraw);
        redraw();
      } catch (e) { out.replaceChildren(el('span', { class: 'error', id: 'analysis-error' }, ` ${errorText(e)}`)); }
    });
    box.append(el('p', {}, ask, out));
    if (a.status === 'failed') box.append(el('p', { class: 'error' }, a.analysis.error || ''));
    return box;
  }
  const positions = a.analysis.positions;
  const total = subject.moves.length + 1;
  box.append(el('p', { class: 'note', id: 'analysis-status' }, a.status === 'done'
    ? t('analysedBy', { engine: a.analysis.engine, ms: a.analysis.movetime_ms })
    : t('analysing', { n: positions.length, of: total })));
  if (!positions.length) return box;
  box.append(graphEl(positions, shown, step));
  // At the ply on screen: the evaluation there, and what the engine would have played
  // (the best move of the position before it, against the move played).
  const here = positions.find((p) => p.ply === shown);
  const before = positions.find((p) => p.ply === shown - 1);
  box.append(el('p', { id: 'eval-here' }, `${t('evalAt', { ply: shown })}: ${here ? scoreText(here.score) : '…'}`));
  if (before && before.best) {
    const played = subject.moves[shown - 1];
    box.append(el('p', { id: 'best-move' }, t('bestAt', { ply: shown, best: before.best, played: played || '—' }),
      before.pv ? el('span', { class: 'note' }, ` (${before.pv})`) : ''));
  }
  const bad = mistakes(positions, subject.first).slice(0, 8);
  if (bad.length) {
    box.append(el('p', { id: 'mistakes' }, `${t('mistakes')}: `, ...bad.flatMap((m) => [
      el('a', { href: '#', 'data-ply': m.ply, class: m.blunder ? 'blunder' : 'mistake',
        onclick: (e) => { e.preventDefault(); step(m.ply); } },
      `${m.ply}${m.blunder ? '??' : '?'} ${sideName(m.side)} −${m.loss}`), ' '])));
  }
  return box;
}
