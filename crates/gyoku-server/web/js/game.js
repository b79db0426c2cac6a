// One game on screen, watched or played: the clocks, stepping through the moves, the
// downloads, and following it live.

import { analysisEl } from './analysis.js';
import { boardEl } from './board.js';
import { api, el } from './dom.js';
import { endingText, FOULS, gameTitle, RULES, settings, sideName, t, word } from './i18n.js';
import { impasseEl } from './impasse.js';
import { main, page, showError } from './page.js';
import { applyUsi, parseSfen } from './position.js';
import { boardUi, controlsEl, promoteEl } from './seat.js';

function mmss(ms) {
  const sec = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, '0')}`;
}

function clockLine(color) {
  const v = page.clockView;
  if (!v || !v.view.clock) return '';
  const c = v.view.clock;
  let left = c[color === 'b' ? 'black_ms' : 'white_ms'];
  const running = c.running && c.running[0] === color;
  if (running) left -= (c.elapsed_ms || 0) + (performance.now() - v.at);
  let text = mmss(left);
  if (c.byoyomi_ms) {
    const byo = left < 0 ? c.byoyomi_ms + left : c.byoyomi_ms;
    text += left <= 0 ? ` · ${t('byo')} ${mmss(byo)}` : ` + ${c.byoyomi_ms / 1000}s`;
  }
  // Byoyomi periods and thinking units left (issue 41), where the game has them.
  const periods = c[color === 'b' ? 'black_periods' : 'white_periods'];
  if (periods > 1) text += ` ×${periods}`;
  const units = c[color === 'b' ? 'black_units' : 'white_units'];
  if (c.unit_ms) text += ` · ${t('unitsLeft', { n: units, s: c.unit_ms / 1000 })}`;
  if (c.increment_ms) text += ` + ${c.increment_ms / 1000}s/move`;
  return `${color === 'b' ? '☗' : '☖'}${sideName(color)} ${v.view[color === 'b' ? 'black' : 'white']}: ${text}${running ? ' ●' : ''}`;
}

function tickClocks() {
  for (const c of ['b', 'w']) {
    const e = document.getElementById(`clock-${c}`);
    if (e) e.textContent = clockLine(c);
  }
}

setInterval(tickClocks, 200);

// The move counts of every view shown, in order (the end-to-end test reads it).
window.gyokuShown = [];

// A view older than the one shown (an answer overtaken by a live event) is not shown.
function older(v) {
  const shown = page.clockView && page.clockView.view;
  if (!shown || shown.id !== v.id) return false;
  return v.moves.length < shown.moves.length
    || (v.moves.length === shown.moves.length && shown.status !== 'playing' && v.status === 'playing');
}

// What the game page shows: which game, the ply stepped to (null: the latest, following
// the game), and whether the board is turned round (null: as the seat's side says).
const browsing = { id: null, ply: null, flipped: null, impasseOpen: null };

// The plies a game can be stepped through: its moves (in Western notation with letters on
// the pieces, in Japanese with kanji), and the foul that ended it.
function pliesOf(v) {
  const western = settings.glyphs !== 'kanji';
  const plies = v.moves.map((m) => ({ usi: m.usi, label: `${m.ply} ${western ? m.western : m.ki2}`, foul: false, eval: m.eval }));
  const d = v.outcome && v.outcome.detail;
  if (d && d.foul && d.move) {
    plies.push({ usi: d.move, label: `${plies.length + 1} ${d.move} (${word(FOULS, d.foul)})`, foul: true });
  }
  return plies;
}

// The position after `ply` plies (0: the start).
function positionAt(v, plies, ply) {
  let pos = parseSfen(v.start_sfen);
  for (const p of plies.slice(0, ply)) pos = applyUsi(pos, p.usi);
  return pos;
}

const FORMATS = [['kif', 'KIF'], ['kifu', 'KIFU'], ['ki2', 'KI2'], ['csa', 'CSA'], ['jkf', 'JKF'], ['usi', 'USI']];

export function renderGame(v) {
  if (older(v)) return;
  if (!page.clockView || page.clockView.view !== v) window.gyokuShown.push(v.moves.length);
  page.clockView = { view: v, at: performance.now() };
  if (browsing.id !== v.id) Object.assign(browsing, { id: v.id, ply: null, flipped: null, impasseOpen: null });
  const plies = pliesOf(v);
  const seat = page.playing && page.playing.seat.games.includes(v.id) ? page.playing : null;
  const flipped = browsing.flipped !== null ? browsing.flipped : !!(seat && seat.seat.color === 'white');
  const stepping = browsing.ply !== null && browsing.ply < plies.length;
  const shownPly = stepping ? browsing.ply : plies.length;
  const pos = stepping || plies.length > v.moves.length ? positionAt(v, plies, shownPly) : parseSfen(v.sfen);
  const last = shownPly > 0 ? plies[shownPly - 1].usi : null;
  const step = (ply) => {
    browsing.ply = Math.max(0, Math.min(ply, plies.length));
    if (browsing.ply === plies.length) browsing.ply = null;
    renderGame(v);
  };
  const moves = el('div', { class: 'moves', id: 'moves' },
    plies.map((m, i) => el('span', { 'data-ply': i + 1, class: `${m.foul ? 'foul ' : ''}${i + 1 === shownPly ? 'current' : ''}`,
      // An engine's evaluation (Black's side, centipawns), shown beside its move.
      ...(m.eval !== undefined && m.eval !== null ? { 'data-eval': `${m.eval > 0 ? '+' : ''}${m.eval}`, title: t('evaluation') } : {}),
      onclick: () => step(i + 1) }, m.label)));
  const slider = el('input', { type: 'range', id: 'step-slider', min: '0', max: String(plies.length), value: String(shownPly),
    'aria-label': t('ply') });
  slider.addEventListener('input', () => step(+slider.value));
  const nav = el('div', { class: 'stepper', id: 'stepper' },
    el('button', { type: 'button', id: 'step-first', title: t('start'), onclick: () => step(0) }, '|◀'),
    el('button', { type: 'button', id: 'step-prev', onclick: () => step(shownPly - 1) }, '◀'),
    slider,
    el('button', { type: 'button', id: 'step-next', onclick: () => step(shownPly + 1) }, '▶'),
    el('button', { type: 'button', id: 'step-last', onclick: () => step(plies.length) }, '▶|'),
    el('span', { class: 'plyno', id: 'ply-shown' }, `${shownPly} / ${plies.length}`),
    el('button', { type: 'button', id: 'flip', title: t('flip'), onclick: () => { browsing.flipped = !flipped; renderGame(v); } }, t('flip')));
  const downloads = el('p', { class: 'downloads', id: 'downloads' }, `${t('download')}: `,
    FORMATS.flatMap(([f, label]) => [el('a', { href: `/api/games/${encodeURIComponent(v.id)}/record?format=${f}`,
      download: '', 'data-format': f }, label), ' ']));
  const panel = el('div', { class: 'panel' },
    el('h2', { id: 'game-title' }, gameTitle(v)),
    el('p', { class: 'status', id: 'game-status' }, `${t('rules')}: ${word(RULES, v.rules)} · ${t(v.status)}`
      + (v.status === 'playing' ? ` · ${t('toMove', { side: sideName(v.turn) })}` : '')),
    el('p', { class: 'clock', id: 'clock-w' }, ''),
    el('p', { class: 'clock', id: 'clock-b' }, ''),
    seat ? controlsEl(v, seat) : null,
    el('p', { class: 'ending', id: 'ending' }, endingText(v.outcome)),
    el('h3', {}, t('moves')), nav, moves, downloads, analysisEl(v, shownPly, step), impasseEl(v.impasse, browsing),
    el('img', { class: 'chart', id: 'chart', alt: t('chart'),
      src: `/api/games/${encodeURIComponent(v.id)}/chart.svg?moves=${v.moves.length}` }));
  // The tab says whose move it is to the player, and which game to a watcher.
  const mine = seat && v.status === 'playing' && seat.seat.phase === 'playing' && v.turn === seat.seat.color;
  document.title = seat && v.status === 'playing'
    ? `${mine ? '● ' : ''}${t(mine ? 'yourTurn' : 'theirTurn')} · Gyoku` : `${gameTitle(v)} · Gyoku`;
  const ui = seat && !stepping ? boardUi(v, seat, pos) : undefined;
  main().replaceChildren(el('div', { class: 'game', id: 'game', 'data-moves': v.moves.length, 'data-shown': shownPly },
    el('div', {}, boardEl(pos, last, !stepping && v.in_check, ui, flipped), seat && seat.promoting ? promoteEl(seat) : null), panel));
  const current = moves.querySelector('.current');
  if (current && stepping) current.scrollIntoView({ block: 'nearest' });
  else moves.scrollTop = moves.scrollHeight;
  tickClocks();
}

export async function showGame(id) {
  main().replaceChildren(el('p', { class: 'status' }, '…'));
  try {
    const v = await api('GET', `/api/games/${encodeURIComponent(id)}`);
    renderGame(v);
    if (v.status !== 'finished') {
      const es = new EventSource(`/api/games/${encodeURIComponent(id)}/events`);
      es.addEventListener('game', (e) => renderGame(JSON.parse(e.data)));
      es.onerror = () => { if (es.readyState === EventSource.CLOSED) page.streams = page.streams.filter((s) => s !== es); };
      page.streams.push(es);
    }
  } catch (e) { main().replaceChildren(); showError(e); }
}

// Arrow keys step through the game on screen.
document.addEventListener('keydown', (e) => {
  if (!page.clockView || !document.getElementById('stepper')) return;
  if (e.target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.target.tagName) && e.target.type !== 'range') return;
  const v = page.clockView.view;
  const n = pliesOf(v).length;
  const at = browsing.ply === null ? n : browsing.ply;
  let ply = null;
  if (e.key === 'ArrowLeft') ply = at - 1;
  else if (e.key === 'ArrowRight') ply = at + 1;
  else if (e.key === 'Home') ply = 0;
  else if (e.key === 'End') ply = n;
  if (ply === null) return;
  e.preventDefault();
  browsing.ply = Math.max(0, Math.min(ply, n));
  if (browsing.ply === n) browsing.ply = null;
  renderGame(v);
});

page.show = renderGame;
