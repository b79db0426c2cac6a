// The games on the server.

import { api, el } from './dom.js';
import { REASONS, resultWord, RULES, t, word } from './i18n.js';
import { roundsEl } from './league.js';
import { main, page, showError } from './page.js';

export async function showGames() {
  const table = el('table', { class: 'list', id: 'game-list' });
  main().replaceChildren(el('h2', {}, t('gamesTitle')), roundsEl(), table);
  const load = async () => {
    const { games } = await api('GET', '/api/games');
    table.replaceChildren(
      el('tr', {}, ['game', 'status', 'result', 'moves'].map((k) => el('th', {}, t(k)))),
      ...games.map((g) => el('tr', { 'data-id': g.id },
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(g.id)}`, title: g.id },
          `${g.black} ${t('vs')} ${g.white}`), el('span', { class: 'rules' }, ` · ${word(RULES, g.rules)}`)),
        el('td', {}, t(g.status)),
        el('td', {}, g.result ? `${resultWord(g.result)} (${word(REASONS, g.reason)})` : ''),
        el('td', {}, String(g.moves)))));
    // Nothing here yet: where to start.
    if (!games.length) {
      table.append(el('tr', {}, el('td', { colspan: '4', id: 'no-games' }, t('noGames'), ' ',
        el('a', { href: '#/play', id: 'start-playing' }, t('startPlaying')), ' · ',
        el('a', { href: '#/calculator' }, t('calculator')), ' · ', el('a', { href: '#/judge' }, t('judge')))));
    }
  };
  await load().catch(showError);
  page.timers.push(setInterval(() => load().catch(() => {}), 3000));
}
