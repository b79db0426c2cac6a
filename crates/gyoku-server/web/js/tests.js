// Engine tests spread over workers (`gyoku test create`, `gyoku worker`): the list, and
// one test followed live — its progress, its SPRT between its bounds, Elo, the pairs, the
// workers (with the games the referee judged otherwise than they said), the batches out
// and the latest games, each with its record.

import { api, el } from './dom.js';
import { REASONS, t, word } from './i18n.js';
import { main, page, showError } from './page.js';
import { eloText, llrShare, pentaText } from './sprt.js';

const link = (name) => el('a', { href: `#/tests/${encodeURIComponent(name)}` }, name);

/** `LLR 1.23 (−2.94, 2.94) H1` or the games played when the test has no SPRT. */
function sprtText(x) {
  if (!x.sprt) return '';
  const s = x.sprt;
  const decided = s.decision ? ` · ${t(`sprt_${s.decision}`)}` : '';
  return `LLR ${s.llr.toFixed(2)} (${s.lower.toFixed(2)}, ${s.upper.toFixed(2)})${decided}`;
}

async function showTestList() {
  const table = el('table', { class: 'list', id: 'test-list' });
  main().replaceChildren(el('h2', {}, t('testsTitle')), table);
  const { tests } = await api('GET', '/api/tests');
  if (!tests.length) {
    table.replaceWith(el('p', { class: 'note' }, t('noTests')));
    return;
  }
  table.replaceChildren(
    el('tr', {}, ['testCol', 'enginesCol', 'status', 'gamesCol', 'sprtCol', 'eloCol'].map((k) => el('th', {}, t(k)))),
    ...[...tests].reverse().map((x) => el('tr', { 'data-test': x.name },
      el('td', {}, link(x.name)),
      el('td', {}, `${x.engines[0]} – ${x.engines[1]}`),
      el('td', {}, t(`test_${x.status}`)),
      el('td', {}, `${x.games} / ${x.games_total}`),
      el('td', {}, sprtText(x)),
      el('td', {}, eloText(x.elo, x.elo_error)))));
}

function llrBar(s) {
  const share = llrShare(s.llr, s.lower, s.upper);
  const mark = el('span', { class: 'llr-mark' });
  // Set through the CSSOM: the page's policy refuses style attributes.
  mark.style.left = `${(share * 100).toFixed(1)}%`;
  mark.dataset.share = share.toFixed(3);
  return el('div', { class: 'llr', id: 'llr-bar', title: `LLR ${s.llr.toFixed(2)}` }, mark);
}

function workersEl(x) {
  return el('table', { class: 'list', id: 'test-workers' },
    el('tr', {}, ['workerCol', 'gamesCol', 'disagreementsCol', 'batchesCol', 'lapsedCol', 'seenCol'].map((k) => el('th', {}, t(k)))),
    ...x.workers.map((w) => el('tr', { 'data-worker': w.id, class: w.test_disagreements ? 'warn' : '' },
      el('td', {}, w.id, w.throttled_s ? el('span', { class: 'note' }, ` (${t('throttled', { s: w.throttled_s })})`) : ''),
      el('td', {}, String(w.test_games)),
      el('td', {}, String(w.test_disagreements)),
      el('td', {}, String(w.batches)),
      el('td', {}, String(w.lapsed_batches)),
      el('td', {}, w.seen_s_ago === undefined ? '' : t('secondsAgo', { s: w.seen_s_ago })))));
}

const engineWord = (x, e) => (e ? x.engines[Number(e.slice(6)) - 1] : t('draw'));

function gamesEl(x, name) {
  return el('table', { class: 'list', id: 'test-games' },
    el('tr', {}, ['game', 'black', 'result', 'reasonCol', 'workerCol', 'moves'].map((k) => el('th', {}, t(k)))),
    ...x.latest_games.map((g) => el('tr', { 'data-game': String(g.number), class: g.agrees ? '' : 'warn' },
      el('td', {}, el('a', { href: `/api/tests/${encodeURIComponent(name)}/games/${g.number}/record` }, String(g.number))),
      el('td', {}, engineWord(x, g.black)),
      el('td', {}, g.winner ? t('testWins', { name: engineWord(x, g.winner) }) : t('draw'),
        g.agrees ? '' : el('span', { class: 'note' }, ` (${t('workerSaid', { said: g.claimed_winner ? engineWord(x, g.claimed_winner) : t('draw') })})`)),
      el('td', {}, word(REASONS, g.reason)),
      el('td', {}, g.worker),
      el('td', {}, String(g.plies)))));
}

async function showTest(name) {
  const head = el('p', { class: 'status', id: 'test-status' });
  const body = el('div', {});
  main().replaceChildren(el('h2', {}, name), head, body);
  const load = async () => {
    const x = await api('GET', `/api/tests/${encodeURIComponent(name)}`);
    head.textContent = [
      `${x.engines[0]} – ${x.engines[1]}`, x.preset, x.time, t(`test_${x.status}`),
      t('gamesOf', { n: x.games, of: x.games_total }),
      t('perMinute', { n: x.games_per_minute.toFixed(1) }),
    ].join(' · ');
    const progress = el('progress', { id: 'test-progress', max: String(x.games_total), value: String(x.games) });
    body.replaceChildren(
      progress,
      x.sprt ? el('div', { id: 'test-sprt' }, el('p', {}, sprtText(x)), llrBar(x.sprt)) : '',
      el('p', { id: 'test-elo' }, `Elo ${eloText(x.elo, x.elo_error) || '—'}`,
        ` · ${t('pairsCol')} ${pentaText(x.pentanomial)}`,
        x.disagreements ? el('span', { class: 'warn', id: 'test-disagreements' }, ` · ${t('disagreementsN', { n: x.disagreements })}`) : ''),
      el('p', { class: 'note' }, t('digestIs', { d: x.digest.slice(0, 16) }), ` · ${t('batchesOut', { n: x.batches_out })}`),
      el('h3', {}, t('workersTitle')), workersEl(x),
      el('h3', {}, t('latestGames')), gamesEl(x, name));
  };
  await load();
  page.timers.push(setInterval(() => load().catch(() => {}), 2000));
}

export function showTestsPage(rest) {
  const name = decodeURIComponent(rest.replace(/^\/?/, ''));
  (name ? showTest(name) : showTestList()).catch(showError);
}
