// The games on the server: those being played first, then the latest; filtered by a name
// (a player's, the game's) and a status, a page at a time.

import { api, el } from './dom.js';
import { REASONS, resultWord, RULES, t, timeText, word } from './i18n.js';
import { roundsEl } from './league.js';
import { main, page, showError } from './page.js';

const PAGE = 50;

// The filter and the page shown, kept while the list refreshes (and across visits).
const shown = { q: '', status: '', offset: 0 };

export async function showGames() {
  const table = el('table', { class: 'list', id: 'game-list' });
  const q = el('input', { type: 'search', id: 'game-filter', value: shown.q, placeholder: t('filterGames'),
    'aria-label': t('filterGames') });
  const status = el('select', { id: 'status-filter', 'aria-label': t('status') },
    [['', t('anyStatus')], ['playing', t('playing')], ['finished', t('finished')], ['suspended', t('suspended')]]
      .map(([v, label]) => { const o = el('option', { value: v }, label); if (v === shown.status) o.selected = true; return o; }));
  const counted = el('span', { class: 'note', id: 'game-count' });
  const prev = el('button', { type: 'button', id: 'page-prev' }, '◀');
  const next = el('button', { type: 'button', id: 'page-next' }, '▶');
  main().replaceChildren(el('h2', {}, t('gamesTitle')), roundsEl(),
    el('p', { class: 'filters' }, q, ' ', status, ' ', prev, ' ', counted, ' ', next), el('div', { class: 'scroll' }, table));
  const load = async () => {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(shown.offset), q: shown.q, status: shown.status });
    const { games, total } = await api('GET', `/api/games?${query}`);
    counted.textContent = total ? t('gamesShown', { from: shown.offset + 1, to: shown.offset + games.length, total }) : '';
    prev.disabled = shown.offset === 0;
    next.disabled = shown.offset + games.length >= total;
    table.replaceChildren(
      el('tr', {}, ['game', 'started', 'timeControl', 'status', 'result', 'moves'].map((k) => el('th', {}, t(k)))),
      ...games.map((g) => el('tr', { 'data-id': g.id },
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(g.id)}`, title: g.id },
          `${g.black} ${t('vs')} ${g.white}`), el('span', { class: 'rules' }, ` · ${word(RULES, g.rules)}`),
          el('br'), el('span', { class: 'note game-name' }, g.name)),
        el('td', { class: 'started' }, g.started_at),
        el('td', {}, timeText(g.time)),
        el('td', {}, t(g.status)),
        el('td', {}, g.result ? `${resultWord(g.result)} (${word(REASONS, g.reason)})` : ''),
        el('td', {}, String(g.moves)))));
    // Nothing here yet: where to start (a filter that keeps nothing says so).
    if (!games.length && !shown.q && !shown.status) {
      table.append(el('tr', {}, el('td', { colspan: '6', id: 'no-games' }, t('noGames'), ' ',
        el('a', { href: '#/play', id: 'start-playing' }, t('startPlaying')), ' · ',
        el('a', { href: '#/calculator' }, t('calculator')), ' · ', el('a', { href: '#/judge' }, t('judge')))));
    } else if (!games.length) {
      table.append(el('tr', {}, el('td', { colspan: '6', id: 'no-games' }, t('noneFiltered'))));
    }
  };
  const reload = () => load().catch(showError);
  let typing = null;
  q.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => { shown.q = q.value.trim(); shown.offset = 0; reload(); }, 250);
  });
  status.addEventListener('change', () => { shown.status = status.value; shown.offset = 0; reload(); });
  prev.addEventListener('click', () => { shown.offset = Math.max(0, shown.offset - PAGE); reload(); });
  next.addEventListener('click', () => { shown.offset += PAGE; reload(); });
  await reload();
  page.timers.push(setInterval(() => load().catch(() => {}), 3000));
}
