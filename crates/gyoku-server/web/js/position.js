// Positions as the page holds them: read from SFEN, a USI move played, written back to
// SFEN. No DOM: `node --test` runs `position.test.js` on it.

export const HAND_ORDER = ['R', 'B', 'G', 'S', 'N', 'L', 'P'];

export const START_SFEN = 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1';

export function parseSfen(sfen) {
  const [rows, turn, hands, number] = sfen.split(' ');
  const board = rows.split('/').map((row) => {
    const out = [];
    let promoted = false;
    for (const ch of row) {
      if (ch === '+') { promoted = true; continue; }
      if (/[1-9]/.test(ch)) { for (let i = 0; i < +ch; i++) out.push(null); continue; }
      const up = ch.toUpperCase();
      out.push({ color: ch === up ? 'b' : 'w', piece: (promoted ? '+' : '') + up });
      promoted = false;
    }
    return out;
  });
  const hand = { b: {}, w: {} };
  let n = '';
  for (const ch of hands === '-' ? '' : hands) {
    if (/[0-9]/.test(ch)) { n += ch; continue; }
    const up = ch.toUpperCase();
    hand[ch === up ? 'b' : 'w'][up] = +(n || 1);
    n = '';
  }
  return { board, turn, hand, number: +number || 1 };
}

export const square = (s) => [s.charCodeAt(1) - 97, 9 - +s[0]];

export function applyUsi(pos, usi) {
  const p = { board: pos.board.map((r) => r.slice()), turn: pos.turn, number: (pos.number || 1) + 1,
    hand: { b: { ...pos.hand.b }, w: { ...pos.hand.w } } };
  const me = p.turn;
  if (usi[1] === '*') {
    const [r, c] = square(usi.slice(2, 4));
    p.board[r][c] = { color: me, piece: usi[0] };
    p.hand[me][usi[0]] -= 1;
    if (!p.hand[me][usi[0]]) delete p.hand[me][usi[0]];
  } else {
    const [fr, fc] = square(usi.slice(0, 2));
    const [tr, tc] = square(usi.slice(2, 4));
    const moving = p.board[fr][fc];
    const taken = p.board[tr][tc];
    if (taken) {
      const base = taken.piece.replace('+', '');
      p.hand[me][base] = (p.hand[me][base] || 0) + 1;
    }
    p.board[fr][fc] = null;
    p.board[tr][tc] = { color: moving.color, piece: usi.endsWith('+') ? `+${moving.piece}` : moving.piece };
  }
  p.turn = me === 'b' ? 'w' : 'b';
  return p;
}

// The SFEN of a position as `parseSfen` reads it.
export function toSfen(pos) {
  const rows = pos.board.map((row) => {
    let out = '';
    let empty = 0;
    for (const p of row) {
      if (!p) { empty++; continue; }
      if (empty) { out += empty; empty = 0; }
      const base = p.piece.replace('+', '');
      out += (p.piece.startsWith('+') ? '+' : '') + (p.color === 'b' ? base : base.toLowerCase());
    }
    return empty ? out + empty : out;
  });
  const hand = ['b', 'w'].map((c) => HAND_ORDER.map((k) => {
    const n = pos.hand[c][k] || 0;
    return n ? `${n > 1 ? n : ''}${c === 'b' ? k : k.toLowerCase()}` : '';
  }).join('')).join('');
  return `${rows.join('/')} ${pos.turn} ${hand || '-'} ${pos.number || 1}`;
}
