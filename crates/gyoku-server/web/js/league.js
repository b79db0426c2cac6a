// The league: the rating list (computed by the server from its stored games, as
// Floodgate's mk_rate does) and the scheduled rounds (next round, who waits).

import { api, el, svg } from './dom.js';
import { REASONS, resultWord, t, word } from './i18n.js';
import { main, page, showError } from './page.js';

/** The scheduled games, when each next round starts and who waits: a block for the games
 *  page (empty when nothing is scheduled). */
export function roundsEl() {
  const box = el('div', { id: 'rounds' });
  const load = async () => {
    const { rounds } = await api('GET', '/api/rounds');
    box.replaceChildren(...rounds.map((r) => el('p', { class: 'round', 'data-game': r.game },
      el('b', {}, r.game), ' · ',
      t('nextRound', { at: r.next || '—' }), ' · ',
      t('waitingFor', { n: r.waiting.length }),
      r.paired_at ? [' · ', t('lastPaired', { at: r.paired_at })] : '',
      (r.playing || []).length ? [' · ', t('playingNow', { names: r.playing.join(', ') })] : '',
      (r.away || []).length ? [' · ', t('awayNow', { names: r.away.join(', ') })] : '',
      r.waiting.length ? `: ${r.waiting.join(', ')}` : '')));
  };
  load().catch(() => {});
  page.timers.push(setInterval(() => load().catch(() => {}), 3000));
  return box;
}

/** The accounts' Glicko-2 list. */
function peopleRows(people) {
  if (!people.length) return [el('tr', {}, el('td', {}, t('noPeople')))];
  return [
    el('tr', {}, ['rank', 'player', 'rate', 'gamesPlayed', 'winsCol', 'draws', 'lossesCol', 'lastGame'].map((k) => el('th', {}, t(k)))),
    ...people.map((p, i) => el('tr', { 'data-person': p.name },
      el('td', {}, String(i + 1)),
      el('td', {}, el('a', { href: `#/player/${encodeURIComponent(p.name)}` }, p.name)),
      el('td', { class: 'glicko' }, `${Math.round(p.rating)} ± ${Math.round(p.deviation)}`),
      el('td', {}, String(p.games)), el('td', {}, String(p.win)), el('td', {}, String(p.draw)), el('td', {}, String(p.loss)),
      el('td', {}, p.last_game || ''))),
  ];
}

export async function showRatings() {
  const table = el('table', { class: 'list', id: 'rating-list' });
  const people = el('table', { class: 'list', id: 'people-list' });
  const when = el('p', { class: 'note', id: 'ratings-at' });
  main().replaceChildren(
    el('h2', {}, t('peopleTitle')), people, el('p', { class: 'note' }, t('peopleNote')),
    el('h2', {}, t('ratingsTitle')), when, table, el('p', { class: 'note' }, t('ratingsNote')));
  // The server computes the list again every few minutes: the page follows it.
  const load = async () => {
    const { computed_at: at, players, people: rated } = await api('GET', '/api/ratings');
    people.replaceChildren(...peopleRows(rated || []));
    when.textContent = at ? t('ratingsAt', { at }) : t('ratingsNone');
    let rank = 0;
    table.replaceChildren(
      el('tr', {}, ['rank', 'player', 'rate', 'winsCol', 'lossesCol', 'lastGame'].map((k) => el('th', {}, t(k)))),
      ...players.map((p) => el('tr', { 'data-player': p.id, class: p.rated ? 'rated' : 'unrated' },
        el('td', {}, p.rated ? String(++rank) : '—'),
        el('td', { title: p.id }, el('a', { href: `#/player/${encodeURIComponent(p.name)}` }, p.name)),
        el('td', {}, p.rated ? String(p.rate) : t('unrated')),
        el('td', {}, p.win.toFixed(1)),
        el('td', {}, p.loss.toFixed(1)),
        el('td', {}, p.last_game))));
  };
  await load();
  page.timers.push(setInterval(() => load().catch(() => {}), 5000));
}

export function showRatingsPage() {
  showRatings().catch(showError);
}

/** `YYYY/MM/DD HH:MM:SS` as milliseconds. */
const when = (at) => Date.parse(at.replace(/\//g, '-').replace(' ', 'T'));

/** A time on the chart's axis: its day, or its hour when every point is of one day. */
function stamp(at, history) {
  const oneDay = history.every((p) => p.at.slice(0, 10) === history[0].at.slice(0, 10));
  return oneDay ? at.slice(0, 16) : at.slice(0, 10);
}

/** A player's rating over time: a line through each rate the list gave it. */
export function ratingChart(history, id = 'rating-chart', byGame = false) {
  const w = 640;
  const h = 220;
  const pad = 44;
  // Game by game (the first point the rating before any game), or over time.
  const times = history.map((p, i) => (byGame ? i : when(p.at)));
  const rates = history.map((p) => p.rate);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const lo = Math.min(...rates) - 20;
  const hi = Math.max(...rates) + 20;
  const x = (ms) => pad + (t1 > t0 ? ((ms - t0) / (t1 - t0)) * (w - 2 * pad) : (w - 2 * pad) / 2);
  const y = (r) => h - pad + ((lo - r) / (hi - lo)) * (h - 2 * pad);
  const points = history.map((p, i) => `${x(times[i]).toFixed(1)},${y(p.rate).toFixed(1)}`).join(' ');
  const label = (tx, ty, text, anchor) => svg('text', { x: tx, y: ty, 'text-anchor': anchor, 'font-size': 12 }, text);
  return svg('svg', { id, viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': t('ratingChart'), class: 'chart' },
    svg('line', { x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, stroke: '#999' }),
    svg('line', { x1: pad, y1: pad, x2: pad, y2: h - pad, stroke: '#999' }),
    svg('polyline', { points, fill: 'none', stroke: '#b03030', 'stroke-width': 2 }),
    ...history.map((p, i) => svg('circle', { cx: x(times[i]).toFixed(1), cy: y(p.rate).toFixed(1), r: 3, fill: '#b03030' },
      svg('title', {}, `${p.at}: ${p.rate}`))),
    label(pad - 6, y(hi - 20) + 4, String(hi - 20), 'end'),
    label(pad - 6, y(lo + 20) + 4, String(lo + 20), 'end'),
    label(pad, h - pad + 16, byGame ? '0' : stamp(history[0].at, history), 'start'),
    label(w - pad, h - pad + 16, byGame ? t('afterGames', { n: history.length - 1 })
      : stamp(history[history.length - 1].at, history), 'end'));
}

async function showPlayer(name) {
  await drawPlayer(name);
  // The list is computed again every few minutes, games end: the page follows.
  page.timers.push(setInterval(() => drawPlayer(name).catch(() => {}), 5000));
}

async function drawPlayer(name) {
  const p = await api('GET', `/api/players/${encodeURIComponent(name)}`);
  const r = p.rating;
  const counted = p.results;
  const played = counted.win + counted.loss + counted.draw + counted.no_contest;
  main().replaceChildren(
    el('h2', {}, name),
    el('p', { class: 'status', id: 'player-rating' },
      r ? [r.rated ? t('ratedAt', { rate: r.rate }) : t('unrated'), ' · '] : p.glicko ? '' : [t('notListed'), ' · '],
      t('playerScore', { games: played, win: counted.win, loss: counted.loss, draw: counted.draw })),
    p.history.length ? el('div', {}, el('h3', {}, t('ratingChart')), ratingChart(p.history)) : '',
    p.glicko ? glickoEl(p.glicko) : '',
    el('h3', {}, t('byReason')),
    el('table', { class: 'list', id: 'player-reasons' },
      el('tr', {}, ['result', 'reasonCol', 'gamesCol'].map((k) => el('th', {}, t(k)))),
      ...p.by_reason.map((b) => el('tr', {},
        el('td', {}, t(`outcome_${b.outcome}`)), el('td', {}, word(REASONS, b.reason)), el('td', {}, String(b.games))))),
    el('h3', {}, t('recentGames')),
    el('table', { class: 'list', id: 'player-games' },
      el('tr', {}, ['started', 'game', 'status', 'yourResult', 'result', 'moves'].map((k) => el('th', {}, t(k)))),
      ...p.games.map((g) => el('tr', { 'data-id': g.id },
        el('td', {}, g.started_at || ''),
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(g.id)}` }, `${g.black} ${t('vs')} ${g.white}`)),
        el('td', {}, t(g.status)),
        el('td', { class: 'side-result' }, sideResult(g, name)),
        el('td', {}, g.result ? `${resultWord(g.result)} (${word(REASONS, g.reason)})` : ''),
        el('td', {}, String(g.moves))))));
}

/** A finished game's result from `name`'s side (won, lost, drawn, no contest). */
function sideResult(g, name) {
  if (g.status !== 'finished') return '';
  if (!g.result || g.result === 'no_contest') return t('outcome_no_contest');
  if (g.result === 'draw') return t('outcome_draw');
  const mine = (g.result === 'black' && g.black === name) || (g.result === 'white' && g.white === name);
  return t(mine ? 'outcome_win' : 'outcome_loss');
}

/** A web account's Glicko-2 rating: now, its chart game by game, and each rated game. */
function glickoEl(g) {
  const chart = [{ at: t('newPlayer'), rate: 1500 }, ...g.history.map((h) => ({ at: h.at, rate: Math.round(h.rating) }))];
  return el('div', { id: 'player-glicko' },
    el('p', { class: 'status', id: 'glicko-now' }, t('glicko', { rating: Math.round(g.rating), rd: Math.round(g.deviation) }), ' · ',
      t('playerScore', { games: g.games, win: g.win, loss: g.loss, draw: g.draw })),
    el('h3', {}, t('glickoChart')), ratingChart(chart, 'glicko-chart', true),
    el('h3', {}, t('ratedGames')),
    el('table', { class: 'list', id: 'glicko-history' },
      el('tr', {}, ['when', 'opponentCol', 'yourResult', 'ratingAfter'].map((k) => el('th', {}, t(k)))),
      ...g.history.slice().reverse().map((h) => el('tr', { 'data-id': h.game },
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(h.game)}` }, h.at)),
        el('td', {}, el('a', { href: `#/player/${encodeURIComponent(h.opponent)}` }, h.opponent)),
        el('td', {}, t(`outcome_${h.result}`)),
        el('td', {}, `${h.rating.toFixed(1)} ± ${h.deviation.toFixed(1)}`)))));
}

export function showPlayerPage(name) {
  showPlayer(decodeURIComponent(name)).catch(showError);
}
