// Playing from the page: the seat's controls, the moves the board offers, asking before
// an action that ends the game, and what is sent.

import { api, el } from './dom.js';
import { DECL_FAILURES, errorText, FOUL_NOTES, FOULS, sideName, t, word } from './i18n.js';
import { page } from './page.js';
import { square } from './position.js';

const myTurn = (v, seat) => v.status === 'playing' && seat.seat.phase === 'playing' && v.turn === seat.seat.color;

export function controlsEl(v, seat) {
  const mine = myTurn(v, seat);
  const you = seat.seat.color;
  const result = seat.seat.game_id === v.id ? seat.seat.result : null;
  const button = (id, label, enabled, onclick) => {
    const attrs = { type: 'button', id, onclick };
    if (!enabled) attrs.disabled = 'disabled';
    return el('button', attrs, label);
  };
  return el('div', { class: 'controls', id: 'controls' },
    el('p', { id: 'you' }, t('you', { side: sideName(you) }), v.status === 'playing' ? ' · ' : '',
      el('strong', { id: 'turn' }, v.status === 'playing' ? t(mine ? 'yourTurn' : 'theirTurn') : '')),
    el('p', { class: 'note', id: 'fouls-rule' }, t(FOUL_NOTES[v.fouls] || 'foulsLoseNote')),
    el('p', {},
      button('resign', t('resign'), mine, () => ask(seat, t('confirmResign'), () => act(seat, 'resign'))), ' ',
      button('declare', t('declare'), mine && v.allows.declaration,
        () => ask(seat, declareQuestion(v), () => act(seat, 'declare'))), ' ',
      impasseButton(v, seat, button), ' ',
      sennichiteButton(v, seat, button), ' ',
      claimButton(v, seat, button)),
    claimable(v, seat)
      ? el('p', { id: 'foul-made' }, t('foulMade', { kind: word(FOULS, v.pending_foul.kind), move: v.pending_foul.move })) : null,
    awayEl(v, seat, button),
    seat.asking ? confirmEl(seat) : null,
    seat.seat.proposal && seat.seat.proposal !== you
      ? el('p', { id: 'proposal' }, t(seat.seat.proposal_kind === 'sennichite' ? 'proposedSennichite' : 'proposed')) : null,
    seat.error ? el('p', { class: 'error', id: 'play-error' }, seat.error) : null,
    // A no contest is announced in one phrase, not as a draw as well.
    v.outcome && v.outcome.result === 'no_contest'
      ? el('p', { class: 'result', id: 'result' }, t('replay'))
      : result ? el('p', { class: 'result', id: 'result' },
        result === '#WIN' ? t('youWin') : result === '#LOSE' ? t('youLose') : t('youDraw')) : null,
    v.status === 'finished' && !seat.next ? afterGameEl(v, seat) : null,
    seat.next ? el('p', {}, el('a', { href: '#', id: 'next-game', onclick: (e) => { e.preventDefault(); seat.goNext(); } }, t('nextGame'))) : null);
}

// After the game: a rematch with colours swapped (it starts at once), or a new game with
// the same settings to change first.
function afterGameEl(v, seat) {
  const mine = seat.seat.color === 'black' ? v.black : v.white;
  const theirs = seat.seat.color === 'black' ? v.white : v.black;
  const theirKind = seat.seat.color === 'black' ? v.white_kind : v.black_kind;
  const opponent = theirKind === 'engine' && (window.gyokuEngines || []).includes(theirs) ? theirs : 'person';
  const query = (color, autostart) => {
    const q = { opponent, rules: v.rules, total: v.time.total, byoyomi: v.time.byoyomi, increment: v.time.increment,
      color, fouls: v.fouls, name: mine };
    if (v.start_sfen !== 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1') q.sfen = v.start_sfen;
    if (autostart) q.autostart = '1';
    return `#/play?${new URLSearchParams(q)}`;
  };
  const swapped = seat.seat.color === 'black' ? 'white' : 'black';
  return el('p', { class: 'after', id: 'after-game' },
    el('a', { href: query(swapped, true), id: 'rematch', class: 'button' }, t('rematch')), ' ',
    el('a', { href: query(seat.seat.color, false), id: 'new-game', class: 'button' }, t('newGame')));
}

// What declaring now would bring, in words, from the calculator's verdict for the side to
// move (the declarer) under the game's rules.
function declareQuestion(v) {
  const verdict = v.impasse && v.impasse.verdicts ? v.impasse.verdicts[v.rules] : null;
  const me = v.impasse ? v.impasse[v.turn] : null;
  if (!verdict || !me) return t('declareUnknown');
  const args = { points: me.declaration_points, zone: me.zone_count };
  switch (verdict.declaration) {
    case 'win': return t('declareWins', args);
    case 'no_contest': return t('declareNoContest', args);
    case 'draw': return t('declareDraw', args);
    case 'lose': return t('declareLoses', { why: word(DECL_FAILURES, verdict.declaration_failure) });
    default: return t('declareUnknown');
  }
}

// Asks before an action that ends the game: the question in the page, Yes or Cancel.
function ask(seat, question, then) {
  seat.asking = { question, then };
  if (page.clockView) page.show(page.clockView.view);
}

function confirmEl(seat) {
  const { question, then } = seat.asking;
  const close = () => { seat.asking = null; if (page.clockView) page.show(page.clockView.view); };
  return el('div', { class: 'confirm', id: 'confirm', role: 'alertdialog' },
    el('p', { id: 'confirm-text' }, question), ' ',
    el('button', { type: 'button', id: 'confirm-yes', onclick: () => { seat.asking = null; then(); } }, t('confirmYes')), ' ',
    el('button', { type: 'button', id: 'confirm-no', onclick: close }, t('confirmNo')));
}

// Propose an impasse count, or accept the opponent's: only under rules with an agreement,
// and only when the calculator says one may be counted now.
function impasseButton(v, seat, button) {
  if (!v.allows.impasse_count) return null;
  const verdict = v.impasse.verdicts[v.rules];
  const countable = verdict && verdict.agreement !== 'not_available';
  return proposalButton(v, seat, button, 'impasse', countable,
    ['proposeImpasse', 'impasseProposed', 'acceptImpasse']);
}

// Propose a sennichite by agreement, or accept the opponent's: only under rules that allow
// one (the JSA's since 2019-10-01), and only once the position has repeated.
function sennichiteButton(v, seat, button) {
  if (!v.allows.sennichite_agreement) return null;
  return proposalButton(v, seat, button, 'sennichite', v.allows.sennichite,
    ['proposeSennichite', 'sennichiteProposed', 'acceptSennichite']);
}

// The other person's page is gone: a countdown of the grace, then a claim of the game.
function awayEl(v, seat, button) {
  const away = seat.away;
  if (!away || away.here || v.status !== 'playing' || seat.seat.phase !== 'playing') return null;
  return el('p', { id: 'opponent-away' },
    away.claimable ? t('opponentGone') : t('opponentLeft', { n: away.seconds_left }), ' ',
    away.claimable ? button('claim-absence', t('claimAbsence'), true, () => act(seat, 'claim-absence')) : null);
}

// Under fouls that stand only when claimed: the opponent has just made a foul.
const claimable = (v, seat) => v.status === 'playing' && seat.seat.phase === 'playing' && v.pending_foul
  && v.pending_foul.by !== seat.seat.color;

// Claim the foul the opponent has just made (shown only then, and only until one's move).
function claimButton(v, seat, button) {
  if (!claimable(v, seat)) return null;
  return button('claim', t('claimFoul'), true, () => act(seat, 'claim'));
}

// A proposal's button: propose, proposed (waiting for the opponent), or accept theirs.
function proposalButton(v, seat, button, kind, allowed, [propose, proposed, accept]) {
  const you = seat.seat.color;
  const by = seat.seat.proposal_kind === kind ? seat.seat.proposal : null;
  const enabled = v.status === 'playing' && seat.seat.phase === 'playing' && allowed && by !== you;
  return button(kind, t(by && by !== you ? accept : by === you ? proposed : propose),
    enabled, () => act(seat, kind));
}

// The moves the board offers: the legal ones, and the fouls that real pieces can make
// (they lose or are refused, as the rules say). Nothing else is ever sent.
const offered = (v) => [...(v.legal || []), ...Object.keys(v.physical_fouls || {})];

// Where the selected piece may go.
function targetsOf(v, selected) {
  const out = new Set();
  if (!selected) return out;
  for (const m of offered(v)) if (m.startsWith(selected)) out.add(m.slice(2, 4));
  return out;
}

export function boardUi(v, seat, pos) {
  const mine = myTurn(v, seat);
  const color = seat.seat.color[0];
  const rerender = () => page.show(v);
  return {
    selected: seat.selected,
    color,
    targets: targetsOf(v, seat.selected),
    onHand: (c, piece, dragStart) => {
      if (!mine || c !== color) return;
      seat.selected = `${piece}*`;
      seat.error = null;
      if (!dragStart) rerender();
    },
    onSquare: (name, dropped, dragStart) => {
      if (!mine) return;
      const [r, c] = square(name);
      const here = pos.board[r][c];
      const own = here && here.color === color;
      if (dragStart || !seat.selected) {
        if (own) {
          seat.selected = name;
          seat.error = null;
          if (!dragStart) rerender();
        }
        return;
      }
      if (seat.selected === name) { seat.selected = null; rerender(); return; }
      const usi = `${seat.selected}${name}`;
      const choices = offered(v).filter((m) => m === usi || m === `${usi}+`);
      if (choices.length === 0) {
        // A square the piece cannot reach: the piece there is selected, or none; nothing is sent.
        seat.selected = own && !dropped ? name : null;
        rerender();
        return;
      }
      seat.selected = null;
      if (choices.length === 2) {
        seat.promoting = usi;
        rerender();
      } else {
        sendMove(seat, choices[0]);
      }
    },
  };
}

export function promoteEl(seat) {
  const choose = (yes) => {
    const usi = seat.promoting + (yes ? '+' : '');
    seat.promoting = null;
    sendMove(seat, usi);
  };
  return el('div', { class: 'promote', id: 'promote' }, t('promote'), ' ',
    el('button', { type: 'button', id: 'promote-yes', onclick: () => choose(true) }, t('promoteYes')), ' ',
    el('button', { type: 'button', id: 'promote-no', onclick: () => choose(false) }, t('promoteNo')));
}

async function sendMove(seat, usi) {
  seat.error = null;
  try {
    const r = await api('POST', `/api/seats/${seat.token}/move`, JSON.stringify({ move: usi }));
    seat.seat = r.seat;
    if (r.game) page.show(r.game);
  } catch (e) {
    const i = e.info || {};
    seat.error = i.code === 'illegal_move'
      ? t('refused', { kind: word(FOULS, i.kind), move: i.move })
      : errorText(e);
    if (page.clockView) page.show(page.clockView.view);
  }
}

async function act(seat, what) {
  seat.error = null;
  try {
    const r = await api('POST', `/api/seats/${seat.token}/${what}`, '{}');
    seat.seat = r.seat;
    if (r.game) page.show(r.game);
  } catch (e) {
    seat.error = errorText(e);
    if (page.clockView) page.show(page.clockView.view);
  }
}
