// The board drawn: pieces (kanji or letters), hands, coordinates, a playable board's
// marks, and the editor for setting up a position.

import { el } from './dom.js';
import { sideName, t } from './i18n.js';
import { pieceEl, rankEl } from './pieces.js';
import { HAND_ORDER, parseSfen, square, START_SFEN } from './position.js';

// `ui` (optional) makes the board playable: `selected` (a square, or `P*` for a piece in
// hand), `targets` (squares it may go to), `onSquare(name)`, `onHand(color, piece)`.
function handEl(pos, color, ui) {
  const items = HAND_ORDER.filter((k) => pos.hand[color][k]).map((k) => {
    const n = pos.hand[color][k];
    const attrs = { class: 'inhand', 'data-piece': k, 'data-color': color };
    if (ui) {
      if (ui.selected === `${k}*` && ui.color === color) attrs.class += ' selected';
      attrs.onclick = () => ui.onHand(color, k);
      attrs.draggable = 'true';
      attrs.ondragstart = () => ui.onHand(color, k, true);
    }
    return el('span', attrs, pieceEl(k, color), n > 1 ? el('span', { class: 'n' }, String(n)) : null);
  });
  return el('div', { class: `hand hand-${color}`, id: `hand-${color}` },
    el('span', { class: 'who' }, `${color === 'b' ? '☗' : '☖'}${sideName(color)}`), items);
}

// The board, Black at the bottom; `last` (USI) and `check` marked.
// The board with its coordinates (files 9-1 above, ranks 一-九 or a-i beside), the hands
// above and below; `flipped` turns it round, White's side at the bottom.
export function boardEl(pos, last, check, ui, flipped) {
  const grid = el('div', { class: 'board', id: 'board' });
  const to = last ? last.slice(2, 4) : null;
  const from = last && last[1] !== '*' ? last.slice(0, 2) : null;
  for (let i = 0; i < 9; i++) {
    for (let j = 0; j < 9; j++) {
      const r = flipped ? 8 - i : i;
      const c = flipped ? 8 - j : j;
      const name = `${9 - c}${'abcdefghi'[r]}`;
      const p = pos.board[r][c];
      const classes = ['cell'];
      if (name === to || name === from) classes.push('last');
      if (p) {
        // A piece faces its owner: White's upside down unless the board is turned round.
        classes.push((p.color === 'w') !== !!flipped ? 'white' : 'black');
        if (p.piece.startsWith('+')) classes.push('promoted');
        if (check && p.piece === 'K' && p.color === pos.turn) classes.push('check');
      }
      const attrs = { 'data-square': name };
      if (ui) {
        if (ui.selected === name) classes.push('selected');
        if (ui.targets && ui.targets.has(name)) classes.push('target');
        attrs.onclick = () => ui.onSquare(name);
        attrs.ondragover = (e) => e.preventDefault();
        attrs.ondrop = (e) => { e.preventDefault(); ui.onSquare(name, true); };
        if (p) {
          attrs.draggable = 'true';
          attrs.ondragstart = () => ui.onSquare(name, false, true);
        }
      }
      attrs.class = classes.join(' ');
      grid.append(el('div', attrs, p ? pieceEl(p.piece, p.color) : ''));
    }
  }
  const order = (xs) => (flipped ? xs.slice().reverse() : xs);
  const files = el('div', { class: 'files', id: 'files' },
    order([9, 8, 7, 6, 5, 4, 3, 2, 1]).map((f) => el('span', {}, String(f))));
  const ranks = el('div', { class: 'ranks', id: 'ranks' }, order([0, 1, 2, 3, 4, 5, 6, 7, 8]).map(rankEl));
  const [top, bottom] = flipped ? ['b', 'w'] : ['w', 'b'];
  return el('div', { class: `boardwrap${flipped ? ' flipped' : ''}` }, handEl(pos, top, ui), files,
    el('div', { class: 'boardrow' }, grid, ranks), handEl(pos, bottom, ui));
}

const EDIT_PIECES = ['K', 'R', 'B', 'G', 'S', 'N', 'L', 'P', '+R', '+B', '+S', '+N', '+L', '+P'];

// The board editor: a palette (both sides' pieces, an eraser), the board, both hands with
// − and + buttons, the side to move. `changed(pos)` after every edit.
export function editorEl(edit, changed) {
  const redraw = () => { slot.replaceChildren(body()); changed(edit.pos); };
  const tool = (id, label, selected) => el('button', { type: 'button', class: `tool${selected ? ' selected' : ''}`,
    'data-tool': id, onclick: () => { edit.tool = id; slot.replaceChildren(body()); } }, label);
  const body = () => {
    const palette = el('div', { class: 'palette', id: 'palette' },
      ['b', 'w'].map((c) => el('div', {}, `${c === 'b' ? '☗' : '☖'} `,
        EDIT_PIECES.map((k) => tool(`${c}${k}`, pieceEl(k, c), edit.tool === `${c}${k}`)))),
      tool('erase', '✕', edit.tool === 'erase'));
    const ui = {
      selected: null,
      onHand: () => {},
      onSquare: (name) => {
        const [r, c] = square(name);
        if (edit.tool === 'erase') edit.pos.board[r][c] = null;
        else if (edit.tool) edit.pos.board[r][c] = { color: edit.tool[0], piece: edit.tool.slice(1) };
        redraw();
      },
    };
    const hands = ['b', 'w'].map((c) => el('div', { class: 'handedit' }, `${c === 'b' ? '☗' : '☖'}${sideName(c)}: `,
      HAND_ORDER.map((k) => el('span', { class: 'count' }, pieceEl(k, c),
        el('button', { type: 'button', id: `hand-${c}-${k}-minus`, onclick: () => {
          edit.pos.hand[c][k] = Math.max(0, (edit.pos.hand[c][k] || 0) - 1);
          redraw();
        } }, '−'),
        el('span', { id: `hand-${c}-${k}` }, String(edit.pos.hand[c][k] || 0)),
        el('button', { type: 'button', id: `hand-${c}-${k}-plus`, onclick: () => {
          edit.pos.hand[c][k] = Math.min(18, (edit.pos.hand[c][k] || 0) + 1);
          redraw();
        } }, '+')))));
    const turn = el('select', { id: 'edit-turn' }, ['b', 'w'].map((c) => {
      const o = el('option', { value: c }, t('toMove', { side: sideName(c) }));
      if (edit.pos.turn === c) o.selected = true;
      return o;
    }));
    turn.addEventListener('change', () => { edit.pos.turn = turn.value; redraw(); });
    const reset = (sfen) => () => { edit.pos = parseSfen(sfen); redraw(); };
    return el('div', { class: 'editor', id: 'editor' }, palette, boardEl(edit.pos, null, false, ui), hands,
      el('p', {}, turn, ' ',
        el('button', { type: 'button', id: 'empty-board', onclick: reset('9/9/9/9/9/9/9/9/9 b - 1') }, t('emptyBoard')), ' ',
        el('button', { type: 'button', id: 'start-board', onclick: reset(START_SFEN) }, t('startBoard'))));
  };
  const slot = el('div', {}, body());
  return slot;
}
