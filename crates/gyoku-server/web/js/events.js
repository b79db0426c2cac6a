// Organised events (`gyoku serve --event-file`): the list, and one event's standings,
// crosstable and round-by-round pairings, followed live.

import { api, el } from './dom.js';
import { REASONS, t, word } from './i18n.js';
import { main, page, showError } from './page.js';

/** `1`, `2.5`. */
const pts = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

async function showEventList() {
  const table = el('table', { class: 'list', id: 'event-list' });
  main().replaceChildren(el('h2', {}, t('eventsTitle')), table);
  const { events } = await api('GET', '/api/events');
  if (!events.length) {
    table.replaceWith(el('p', { class: 'note' }, t('noEvents')));
    return;
  }
  table.replaceChildren(
    el('tr', {}, ['eventCol', 'formatCol', 'status', 'roundCol'].map((k) => el('th', {}, t(k)))),
    ...events.map((e) => el('tr', { 'data-event': e.name },
      el('td', {}, el('a', { href: `#/events/${encodeURIComponent(e.name)}` }, e.name)),
      el('td', {}, t(e.format === 'swiss' ? 'swiss' : 'roundRobin')),
      el('td', {}, t(`event_${e.status}`)),
      el('td', {}, `${e.round} / ${e.rounds}`))));
}

/** An end reason in words (a board's forfeit is the event's own: no game was played). */
function reasonWords(code) {
  if (!code) return '';
  return code === 'forfeit' ? t('reasonForfeit') : word(REASONS, code);
}

/** A board's result as its players read it: `1–0`, `0–1`, `½–½`, or the game under way. */
function resultEl(b) {
  if (b.result === null) {
    return b.playing
      ? el('a', { href: `#/game/${encodeURIComponent(b.game_id)}`, class: 'live' }, t('playing'))
      : t('notStarted');
  }
  const score = { black: '1–0', white: '0–1', draw: '½–½', both_absent: '0–0' }[b.result];
  const shown = b.game_id ? el('a', { href: `#/game/${encodeURIComponent(b.game_id)}` }, score) : score;
  const why = b.adjustments.length
    ? t('adjusted', { why: b.adjustments[b.adjustments.length - 1].reason })
    : reasonWords(b.reason);
  return el('span', {}, shown, why ? el('span', { class: 'note' }, ` (${why})`) : '');
}

function standingsEl(e) {
  const swiss = e.format === 'swiss';
  const heads = ['rank', 'player', 'pointsCol', 'gamesCol', 'wdl', ...(swiss ? ['buchholz'] : []), 'sb'];
  return el('table', { class: 'list', id: 'standings' },
    el('tr', {}, heads.map((k) => el('th', {}, t(k)))),
    ...e.standings.map((l) => el('tr', { 'data-player': l.name },
      el('td', {}, String(l.rank)),
      el('td', {}, el('a', { href: `#/player/${encodeURIComponent(l.name)}` }, l.name)),
      el('td', {}, pts(l.points)),
      el('td', {}, String(l.games)),
      el('td', {}, `${l.wins}/${l.draws}/${l.losses}`),
      ...(swiss ? [el('td', {}, pts(l.buchholz))] : []),
      el('td', {}, pts(l.sonneborn_berger)))));
}

// The crosstable in the standings' order (by rank), rows and columns alike.
function crosstableEl(e) {
  const byName = new Map(e.participants.map((name, i) => [name, i]));
  const order = [...e.standings.map((l) => byName.get(l.name)).filter((i) => i !== undefined),
    ...e.participants.map((_, i) => i).filter((i) => !e.standings.some((l) => byName.get(l.name) === i))];
  const cell = (i, j) => {
    if (i === j) return '·';
    const c = e.crosstable[i][j];
    return c.games ? pts(c.points) : '';
  };
  const line = (i) => e.standings.find((l) => l.name === e.participants[i]);
  return el('div', { class: 'scroll' }, el('table', { class: 'list cross', id: 'crosstable' },
    el('tr', {}, el('th', {}, t('rank')), el('th', {}, t('player')),
      ...order.map((_, k) => el('th', {}, String(k + 1))), el('th', {}, t('pointsCol'))),
    ...order.map((i) => el('tr', { 'data-player': e.participants[i] },
      el('td', {}, line(i) ? String(line(i).rank) : ''), el('td', {}, e.participants[i]),
      ...order.map((j) => el('td', {}, cell(i, j))),
      el('td', {}, line(i) ? pts(line(i).points) : '')))));
}

function pairingsEl(e) {
  return el('div', { id: 'pairings' }, ...[...e.pairings].reverse().map((r) => el('section', { 'data-round': r.round },
    el('h3', {}, t('roundN', { n: r.round }),
      r.paired_at ? el('span', { class: 'note paired-at' }, ` · ${t('pairedAt', { at: r.paired_at })}`) : ''),
    el('table', { class: 'list' },
      el('tr', {}, ['board', 'black', 'white', 'result'].map((k) => el('th', {}, t(k)))),
      ...r.boards.map((b) => el('tr', {},
        el('td', {}, String(b.board)), el('td', {}, b.black), el('td', {}, b.white),
        el('td', {}, resultEl(b))))),
    r.bye ? el('p', { class: 'note' }, t('bye', { name: r.bye })) : '')));
}

// The organiser's view: where each participant is now, and when the missing forfeit.
function peopleEl(e) {
  if (!e.people) return '';
  return el('div', {},
    e.forfeit_at ? el('p', { class: 'note', id: 'forfeit-at' }, t('forfeitAt', { at: e.forfeit_at })) : '',
    el('table', { class: 'list', id: 'people' },
      el('tr', {}, el('th', {}, t('player')), el('th', {}, t('presence'))),
      ...e.people.map((p) => el('tr', { 'data-player': p.name, 'data-state': p.state },
        el('td', {}, p.name), el('td', {}, t(`presence_${p.state}`))))));
}

async function showEvent(name) {
  const head = el('p', { class: 'status', id: 'event-status' });
  const body = el('div', {});
  main().replaceChildren(el('h2', {}, name), head, body);
  const load = async () => {
    const e = await api('GET', `/api/events/${encodeURIComponent(name)}`);
    head.textContent = [
      t(e.format === 'swiss' ? 'swiss' : 'roundRobin'),
      t('roundOf', { n: e.round, of: e.rounds }),
      t(`event_${e.status}`),
      e.ended ? t('endedBecause', { why: e.ended }) : '',
    ].filter(Boolean).join(' · ');
    body.replaceChildren(
      el('h3', {}, t('people')), peopleEl(e),
      el('h3', {}, t('standings')), standingsEl(e),
      el('h3', {}, t('crosstable')), crosstableEl(e),
      el('h3', {}, t('pairings')), pairingsEl(e));
  };
  await load();
  page.timers.push(setInterval(() => load().catch(() => {}), 3000));
}

export function showEventsPage(rest) {
  const name = decodeURIComponent(rest.replace(/^\/?/, ''));
  (name ? showEvent(name) : showEventList()).catch(showError);
}
