// The league: the rating list (computed by the server from its stored games, as
// Floodgate's mk_rate does) and the scheduled rounds (next round, who waits).

import { api, el } from './dom.js';
import { t } from './i18n.js';
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
      r.waiting.length ? `: ${r.waiting.join(', ')}` : '')));
  };
  load().catch(() => {});
  page.timers.push(setInterval(() => load().catch(() => {}), 3000));
  return box;
}

export async function showRatings() {
  const table = el('table', { class: 'list', id: 'rating-list' });
  const when = el('p', { class: 'note', id: 'ratings-at' });
  main().replaceChildren(el('h2', {}, t('ratingsTitle')), when, table, el('p', { class: 'note' }, t('ratingsNote')));
  // The server computes the list again every few minutes: the page follows it.
  const load = async () => {
    const { computed_at: at, players } = await api('GET', '/api/ratings');
    when.textContent = at ? t('ratingsAt', { at }) : t('ratingsNone');
    let rank = 0;
    table.replaceChildren(
      el('tr', {}, ['rank', 'player', 'rate', 'winsCol', 'lossesCol', 'lastGame'].map((k) => el('th', {}, t(k)))),
      ...players.map((p) => el('tr', { 'data-player': p.id, class: p.rated ? 'rated' : 'unrated' },
        el('td', {}, p.rated ? String(++rank) : '—'),
        el('td', { title: p.id }, p.name),
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
