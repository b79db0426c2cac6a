// Starting a game from the page, and a seat's page (an invitation, waiting, the game).

import { me, refreshAccount } from './account.js';
import { api, el } from './dom.js';
import { renderGame } from './game.js';
import { errorText, FOUL_NOTES, FOUL_WORDS, RULES, settings, sideName, t, timeText, word } from './i18n.js';
import { main, page, showError } from './page.js';

// A seat's page that goes (closed, reloaded, gone to another site) says so: its person is
// away from then on, until the page asks again (a reload asks at once).
window.addEventListener('pagehide', () => {
  const seat = page.playing;
  if (seat && seat.seat && seat.seat.phase === 'playing') navigator.sendBeacon(`/api/seats/${seat.token}/leave`);
});

export async function showPlayForm() {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  // The form of the page before (another query's) goes at once: no click reaches it while
  // the server answers.
  main().replaceChildren(el('p', { class: 'status' }, '…'));
  const opts = await api('GET', '/api/play');
  await refreshAccount();
  const field = (id, label, input) => el('div', {}, el('label', { for: id }, label), input);
  const select = (id, values, chosen) => el('select', { id }, values.map(([v, label]) => {
    const o = el('option', { value: v }, label);
    if (v === chosen) o.selected = true;
    return o;
  }));
  const opponent = select('opponent', opts.opponents.map((o) => [o, o === 'person' ? t('person') : o]), q.get('opponent') || opts.opponents[0]);
  // An engine's levels (a fixed search each, whatever the clock), when it has some.
  const level = el('select', { id: 'level' });
  const levelField = field('level', t('level'), level);
  const sayLevels = () => {
    const levels = (opts.levels || {})[opponent.value] || [];
    level.replaceChildren(...levels.map((l) => {
      const o = el('option', { value: String(l.level) }, levelText(l));
      if (String(l.level) === q.get('level')) o.selected = true;
      return o;
    }));
    levelField.hidden = !levels.length;
  };
  opponent.addEventListener('change', sayLevels);
  sayLevels();
  const rules = select('play-rules', opts.presets.map((p) => [p, word(RULES, p)]), q.get('rules') || 'csa');
  const fouls = select('fouls', [['', t('foulsPreset')], ['refuse', t('foulsRefuse')], ['lose', t('foulsLose')],
    ['claim', t('foulsClaim')]], q.get('fouls') || '');
  // Before the game: what a foul will do, under the rules and the choice made.
  const foulsNote = el('p', { class: 'note', id: 'fouls-note' });
  const sayFouls = () => {
    const chosen = fouls.value || (opts.fouls || {})[rules.value] || 'lose';
    foulsNote.textContent = t(FOUL_NOTES[chosen] || 'foulsLoseNote');
  };
  fouls.addEventListener('change', sayFouls);
  const num = (id, v) => el('input', { type: 'number', id, min: '0', value: v });
  const total = num('total', q.get('total') || '600');
  const byoyomi = num('byoyomi-input', q.get('byoyomi') || '10');
  const increment = num('increment', q.get('increment') || '0');
  // Beside the byoyomi: periods (lishogi's 1-5) and thinking units (the NHK Cup's 考慮時間).
  const periods = num('periods', q.get('periods') || '1');
  const units = num('thinking-units', q.get('thinking_units') || '0');
  const unitSeconds = num('unit-seconds', q.get('unit_seconds') || '60');
  const color = select('color', [['black', t('black')], ['white', t('white')], ['random', t('random')]], q.get('color') || 'black');
  const sfen = el('input', { type: 'text', id: 'start-sfen', value: q.get('sfen') || '' });
  // A handicap chosen from the list is the start position's name (White, the stronger
  // side, moves first).
  const handicaps = opts.handicaps || [];
  const handicap = select('handicap', [['', t('evenGame')], ...handicaps.map((h) => [h.name,
    settings.lang === 'ja' ? h.japanese : `${h.name} (${h.japanese})`])],
  handicaps.some((h) => h.name === q.get('sfen')) ? q.get('sfen') : '');
  handicap.addEventListener('change', () => { sfen.value = handicap.value; });
  const maxMoves = el('input', { type: 'number', id: 'max-moves', min: '0', value: q.get('max_moves') || '' });
  const name = el('input', { type: 'text', id: 'name', value: localStorage.getItem('gyoku.name') || '' });
  const out = el('div', {});
  const start = async () => {
    out.replaceChildren();
    localStorage.setItem('gyoku.name', name.value);
    const body = { opponent: opponent.value, rules: rules.value, color: color.value, name: name.value || 'guest',
      time: { total: +total.value, byoyomi: +byoyomi.value, increment: +increment.value } };
    if (+periods.value > 1) body.time.periods = +periods.value;
    if (+units.value > 0) body.time.thinking_units = { count: +units.value, seconds: +unitSeconds.value };
    if (fouls.value) body.fouls = fouls.value;
    if (sfen.value.trim()) body.sfen = sfen.value.trim();
    if (maxMoves.value !== '') body.max_moves = +maxMoves.value;
    if (!levelField.hidden && level.value) body.level = +level.value;
    try {
      const r = await api('POST', '/api/play', JSON.stringify(body));
      location.hash = `#/my/${keepSeat(r.token)}`;
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, errorText(e))); }
  };
  main().replaceChildren(el('h2', {}, t('playTitle')),
    field('opponent', t('opponent'), opponent), levelField, field('play-rules', t('rules'), rules),
    field('fouls', t('fouls'), fouls), foulsNote, field('total', t('totalTime'), total),
    field('byoyomi-input', t('byoyomi'), byoyomi), field('periods', t('periods'), periods),
    field('thinking-units', t('thinkingUnits'), units), field('unit-seconds', t('unitSeconds'), unitSeconds),
    field('increment', t('increment'), increment),
    field('color', t('color'), color), field('handicap', t('handicap'), handicap), field('start-sfen', t('startSfen'), sfen),
    field('max-moves', t('maxMoves'), maxMoves),
    me.name ? el('p', { class: 'note', id: 'playing-as' }, t('playingAs', { name: me.name })) : field('name', t('yourName'), name),
    el('p', {}, el('button', { type: 'button', id: 'start' }, t('startGame'))), out);
  document.getElementById('start').addEventListener('click', start);
  rules.addEventListener('change', sayFouls);
  sayFouls();
  window.gyokuEngines = opts.engines;
  if (q.get('name')) name.value = q.get('name');
  if (q.get('autostart') === '1') start();
}

/** A level in words: its number and what it searches. */
function levelText(l) {
  const parts = [];
  if (l.movetime_ms) parts.push(t('levelMs', { ms: l.movetime_ms }));
  if (l.depth) parts.push(t('levelDepth', { n: l.depth }));
  if (l.nodes) parts.push(t('levelNodes', { n: l.nodes }));
  return `${t('levelN', { n: l.level })} (${parts.join(', ')})`;
}

// A seat's secret stays in this browser: its page's address carries a handle of this
// browser's own (`#/my/<handle>`), which means nothing anywhere else.
function keepSeat(token) {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const handle = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  localStorage.setItem(`gyoku.seat.${handle}`, token);
  return handle;
}

// `#/my/<handle>`: the seat this browser keeps under the handle.
export function showMySeat(handle) {
  const token = localStorage.getItem(`gyoku.seat.${handle}`);
  if (!token) {
    main().replaceChildren(el('p', { class: 'error', id: 'error' }, t('notYourSeat')));
    return;
  }
  showSeat(token);
}

export async function showSeat(token) {
  main().replaceChildren(el('p', { class: 'status' }, '…'));
  let r;
  try { r = await api('GET', `/api/seats/${token}`); } catch (e) { main().replaceChildren(); showError(e); return; }
  // An invitation's link is used once: joining gives this browser a seat of its own, whose
  // secret the link does not carry (kept in this browser's storage).
  const mine = localStorage.getItem(`gyoku.joined.${token}`);
  if (r.seat.phase === 'taken') {
    if (mine) { location.replace(`#/my/${mine}`); return; }
    if (r.seat.game_id) { location.replace(`#/game/${encodeURIComponent(r.seat.game_id)}`); return; }
  }
  if (r.seat.phase === 'invited') {
    const name = el('input', { type: 'text', id: 'name', value: localStorage.getItem('gyoku.name') || '' });
    const terms = r.seat.invitation;
    const says = terms ? el('p', { id: 'invitation' }, t('invitedBy', {
      from: terms.from, rules: word(RULES, terms.rules), time: timeText(terms.time), side: sideName(r.seat.color),
      fouls: t(FOUL_WORDS[terms.fouls] || 'foulsLoseWord') })) : null;
    main().replaceChildren(el('h2', {}, t('invited')), says, el('label', { for: 'name' }, t('yourName')), name,
      el('p', {}, el('button', { type: 'button', id: 'join', onclick: async () => {
        localStorage.setItem('gyoku.name', name.value);
        try {
          const j = await api('POST', `/api/seats/${token}/join`, JSON.stringify({ name: name.value || 'guest' }));
          const handle = keepSeat(j.token);
          localStorage.setItem(`gyoku.joined.${token}`, handle);
          location.replace(`#/my/${handle}`);
        } catch (e) { showError(e); }
      } }, t('join'))));
    return;
  }
  const seat = { token, seat: r.seat, selected: null, promoting: null, error: null };
  page.playing = seat;
  let followed = null;
  const follow = (id) => {
    if (followed === id) return;
    followed = id;
    page.streams.forEach((x) => x.close());
    page.streams = [];
    const es = new EventSource(`/api/games/${encodeURIComponent(id)}/events`);
    es.addEventListener('game', (e) => {
      const v = JSON.parse(e.data);
      renderGame(v);
      if (v.status !== 'playing') refresh();
    });
    page.streams.push(es);
  };
  const invite = r.seat.invite ? `${location.origin}${location.pathname}#/seat/${r.seat.invite}` : null;
  const waiting = () => main().replaceChildren(el('p', { id: 'waiting' }, t('waiting')),
    invite ? el('p', {}, t('invite'), el('input', { type: 'text', id: 'invite', readonly: 'readonly', value: invite })) : null);
  const refresh = async () => {
    try {
      const x = await api('GET', `/api/seats/${token}`);
      seat.seat = x.seat;
      const shown = page.clockView && page.clockView.view;
      if (x.game && shown && shown.id !== x.game.id && shown.status === 'finished' && seat.seat.games.includes(shown.id)) {
        // A replay after a no-contest: the ending stays in view a while, with a link on.
        if (!seat.next) {
          seat.next = x.game.id;
          setTimeout(seat.goNext, 8000);
        }
        renderGame(shown);
        return;
      }
      if (x.game) { renderGame(x.game); follow(x.game.id); } else waiting();
    } catch (e) { /* the next poll tries again */ }
  };
  seat.goNext = () => {
    if (!seat.next || page.playing !== seat) return;
    seat.next = null;
    page.clockView = null;
    refresh();
  };
  // Asked while the game is played: the server knows this page is here, and the page
  // learns whether the other person's is (a countdown once they are gone).
  const presence = async () => {
    try {
      const x = await api('GET', `/api/seats/${token}/presence`);
      const key = (o) => (!o ? '' : o.here ? 'here' : `${o.seconds_left}/${o.claimable}`);
      const changed = key(x.opponent) !== key(seat.away);
      seat.away = x.opponent;
      if (changed && page.clockView) renderGame(page.clockView.view);
    } catch (e) { /* the next poll tries again */ }
  };
  if (r.game) { renderGame(r.game); follow(r.game.id); } else waiting();
  // A game not yet started, a replay after a no-contest: the seat is asked again.
  page.timers.push(setInterval(async () => {
    if (seat.next) return;
    if (!seat.seat.game_id || seat.seat.phase !== 'playing' || (page.clockView && page.clockView.view.status !== 'playing')) {
      refresh();
      return;
    }
    presence();
    if (page.clockView && (page.clockView.view.allows.impasse_count || page.clockView.view.allows.sennichite_agreement)) {
      // A proposal is not a stored change: the seat is asked for it.
      try {
        const x = await api('GET', `/api/seats/${token}`);
        if (x.seat.proposal !== seat.seat.proposal || x.seat.proposal_kind !== seat.seat.proposal_kind) { seat.seat = x.seat; renderGame(page.clockView.view); }
      } catch (e) { /* the next poll tries again */ }
    }
  }, 1000));
}
