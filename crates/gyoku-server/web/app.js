// Gyoku's web page: watch the server's games live, ask the impasse calculator, judge a
// record. No build step: plain JavaScript on the JSON API (`/api/...`), served by
// `gyoku serve` from its own binary. The board is drawn here (lishogi's shogiground is
// GPL-3.0; Gyoku is MIT).
'use strict';

const I18N = {
  en: {
    games: 'Games', calculator: 'Impasse calculator', judge: 'Judge a record',
    gamesTitle: 'Games on this server', noGames: 'No games yet.',
    game: 'Game', black: 'Black', white: 'White', status: 'Status', result: 'Result',
    moves: 'Moves', playing: 'playing', finished: 'finished', suspended: 'suspended',
    toMove: '{side} to move', inCheck: 'check', side: 'Side', entered: 'Entered',
    zone: 'In the zone', total: 'Points', declaration: 'Declaration points', yes: 'yes', no: 'no',
    rules: 'Rules', ifDeclares: 'If {side} declares now', agreement: 'Agreement count',
    endedBy: 'Already over by', sfen: 'Position (SFEN, startpos or a handicap name)',
    movesInput: 'Moves to play first (USI, separated by spaces)', calculate: 'Calculate',
    drop: 'Drop a KIF, KI2, CSA, JKF or USI file here (any encoding), or choose one:',
    download: 'Download as', notOver: 'Not over yet', wins: '{side} wins', draw: 'Draw',
    noContest: 'No contest', atPly: 'at ply {ply}', foulAt: 'Foul at ply {ply}: {move} ({kind})',
    recorded: 'The record says: {end}.', agrees: 'Gyoku agrees.', differs: 'Gyoku differs.',
    used: '{side}: {used} used of {total}', live: 'live', ply: 'Ply', start: 'Start',
    impasse: 'Impasse', chart: 'Impasse points over the game', records: '{n} games in the file; the first is shown.',
  },
  ja: {
    games: '対局', calculator: '入玉計算', judge: '棋譜判定',
    gamesTitle: 'このサーバーの対局', noGames: '対局はまだありません。',
    game: '対局', black: '先手', white: '後手', status: '状態', result: '結果',
    moves: '手数', playing: '対局中', finished: '終局', suspended: '中断',
    toMove: '{side}番', inCheck: '王手', side: '', entered: '入玉',
    zone: '敵陣の駒', total: '点数', declaration: '宣言点', yes: '済', no: '未',
    rules: 'ルール', ifDeclares: '{side}が今宣言すると', agreement: '合意時の点数判定',
    endedBy: '既に終局', sfen: '局面（SFEN、startpos、駒落ち名）',
    movesInput: '先に指す手（USI、空白区切り）', calculate: '計算',
    drop: 'KIF・KI2・CSA・JKF・USI の棋譜をここにドロップ（文字コードは自動判別）、または選択：',
    download: 'ダウンロード', notOver: '終局していません', wins: '{side}の勝ち', draw: '引き分け',
    noContest: '無勝負', atPly: '{ply}手目', foulAt: '{ply}手目に反則：{move}（{kind}）',
    recorded: '棋譜の記載：{end}。', agrees: 'Gyoku の判定と一致。', differs: 'Gyoku の判定と相違。',
    used: '{side}：消費 {used}／持ち時間 {total}', live: '中継中', ply: '手数', start: '開始局面',
    impasse: '入玉', chart: '対局中の点数の推移', records: 'ファイルに {n} 局あります。最初の局を表示します。',
  },
};

const REASONS = {
  checkmate: ['checkmate', '詰み'], resignation: ['resignation', '投了'],
  time_up: ['time up', '時間切れ'], illegal_move: ['illegal move', '反則'],
  sennichite: ['sennichite (fourfold repetition)', '千日手'],
  perpetual_check: ['perpetual check', '連続王手の千日手'],
  declaration: ['declaration (entering king)', '入玉宣言'],
  failed_declaration: ['failed declaration', '宣言失敗'],
  impasse_agreement: ['impasse by agreement', '持将棋（合意）'],
  impasse_count: ['impasse count', '持将棋（点数）'], move_limit: ['move limit', '手数制限'],
  try: ['try', 'トライ'], forfeit: ['forfeit', '反則負け'], no_legal_move: ['no legal move', '指し手なし'],
  suspended: ['suspended', '中断'],
};

const FOULS = {
  nifu: ['nifu (two pawns on a file)', '二歩'],
  uchifuzume: ['uchifuzume (pawn-drop mate)', '打ち歩詰め'],
  dead_piece: ['a piece with no move', '行き所のない駒'],
  not_in_hand: ['not in hand', '持ち駒にない駒'],
  self_check: ['leaves the king in check', '王手放置'],
  bad_movement: ['the piece cannot move so', '動けない動き'],
};

const KANJI = { P: '歩', L: '香', N: '桂', S: '銀', G: '金', B: '角', R: '飛', K: '玉',
  '+P': 'と', '+L': '杏', '+N': '圭', '+S': '全', '+B': '馬', '+R': '龍' };
const HAND_ORDER = ['R', 'B', 'G', 'S', 'N', 'L', 'P'];
const PRESETS = ['csa', 'jsa', 'jsa-amateur', '81dojo', 'lishogi', 'friendly', 'try', 'shogi-wars', 'saw', 'none'];

const settings = {
  lang: localStorage.getItem('gyoku.lang') || ((navigator.language || '').startsWith('ja') ? 'ja' : 'en'),
  glyphs: localStorage.getItem('gyoku.glyphs') || 'kanji',
};

function t(key, args) {
  let s = (I18N[settings.lang] || I18N.en)[key] ?? I18N.en[key] ?? key;
  for (const [k, v] of Object.entries(args || {})) s = s.replace(`{${k}}`, v);
  return s;
}

const word = (table, code) => (table[code] ? table[code][settings.lang === 'ja' ? 1 : 0] : code);
const sideName = (c) => t(c === 'b' || c === 'black' ? 'black' : 'white');

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

async function api(method, path, body) {
  const res = await fetch(path, { method, body });
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: String(res.status), message: String(data) };
    const e = new Error(`${err.code}: ${err.message}`);
    e.info = err;
    throw e;
  }
  return data;
}

// --- positions ---------------------------------------------------------------------

function parseSfen(sfen) {
  const [rows, turn, hands] = sfen.split(' ');
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
  return { board, turn, hand };
}

const square = (s) => [s.charCodeAt(1) - 97, 9 - +s[0]];

function applyUsi(pos, usi) {
  const p = { board: pos.board.map((r) => r.slice()), turn: pos.turn,
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

const glyph = (piece) => (settings.glyphs === 'kanji' ? KANJI[piece] : piece);

function handEl(pos, color) {
  const items = HAND_ORDER.filter((k) => pos.hand[color][k]).map((k) => {
    const n = pos.hand[color][k];
    return el('span', { class: 'inhand' }, glyph(k) + (n > 1 ? n : ''));
  });
  return el('div', { class: `hand hand-${color}`, id: `hand-${color}` },
    el('span', { class: 'who' }, `${color === 'b' ? '☗' : '☖'}${sideName(color)}`), items);
}

// The board, Black at the bottom; `last` (USI) and `check` marked.
function boardEl(pos, last, check) {
  const grid = el('div', { class: 'board', id: 'board' });
  const to = last ? last.slice(2, 4) : null;
  const from = last && last[1] !== '*' ? last.slice(0, 2) : null;
  for (let r = 0; r < 9; r++) {
    for (let c = 0; c < 9; c++) {
      const name = `${9 - c}${'abcdefghi'[r]}`;
      const p = pos.board[r][c];
      const classes = ['cell'];
      if (name === to || name === from) classes.push('last');
      if (p) {
        classes.push(p.color === 'w' ? 'white' : 'black');
        if (p.piece.startsWith('+')) classes.push('promoted');
        if (check && p.piece === 'K' && p.color === pos.turn) classes.push('check');
      }
      grid.append(el('div', { class: classes.join(' '), 'data-square': name },
        p ? el('span', {}, glyph(p.piece)) : ''));
    }
  }
  return el('div', { class: 'boardwrap' }, handEl(pos, 'w'), grid, handEl(pos, 'b'));
}

// --- words for endings and the calculator ---------------------------------------------

function endingText(o) {
  if (!o || !o.result) return t('notOver');
  const who = o.result === 'draw' ? t('draw') : o.result === 'no_contest' ? t('noContest') : t('wins', { side: sideName(o.result) });
  const parts = [`${who} — ${word(REASONS, o.reason)} ${t('atPly', { ply: o.ply })}`];
  const d = o.detail || {};
  if (d.foul) parts.push(`${word(FOULS, d.foul)}: ${d.move}`);
  if (d.occurrences) parts.push(`×${d.occurrences}: ${d.repeated_sfen}`);
  if (d.count) parts.push(`${t('total')} ${d.count.total_points}, ${t('declaration')} ${d.count.declaration_points}, ${t('zone')} ${d.count.zone_count}`);
  if (d.points) parts.push(`${t('black')} ${d.points.black} / ${t('white')} ${d.points.white}`);
  if (d.limit) parts.push(`${d.limit}`);
  if (d.failed) parts.push(d.failed);
  return parts.join(' · ');
}

function impasseEl(r) {
  const yesNo = (b) => t(b ? 'yes' : 'no');
  const counts = el('table', { class: 'counts', id: 'counts' },
    el('tr', {}, el('th', {}, t('side')), el('th', {}, t('entered')), el('th', {}, t('zone')),
      el('th', {}, t('total')), el('th', {}, t('declaration')), el('th', {}, t('inCheck'))),
    ['black', 'white'].map((s) => el('tr', { 'data-side': s }, el('td', {}, sideName(s)),
      el('td', {}, yesNo(r[s].entered)), el('td', {}, String(r[s].zone_count)),
      el('td', {}, String(r[s].total_points)), el('td', {}, String(r[s].declaration_points)),
      el('td', {}, yesNo(r[s].in_check)))));
  const verdicts = el('table', { class: 'verdicts', id: 'verdicts' },
    el('tr', {}, el('th', {}, t('rules')), el('th', {}, t('ifDeclares', { side: sideName(r.turn) })),
      el('th', {}, t('agreement')), el('th', {}, t('endedBy'))),
    Object.entries(r.verdicts).map(([name, v]) => el('tr', { 'data-preset': name },
      el('td', {}, name),
      el('td', {}, v.declaration_failure ? `${v.declaration} (${v.declaration_failure})` : v.declaration),
      el('td', {}, v.agreement), el('td', {}, v.ended || '-'))));
  return el('div', { class: 'impasse', id: 'impasse' }, el('h3', {}, t('impasse')), counts, verdicts);
}

// --- pages -----------------------------------------------------------------------------

const main = () => document.getElementById('main');
let streams = [];
let timers = [];
function leave() {
  streams.forEach((s) => s.close());
  timers.forEach((x) => clearInterval(x));
  streams = [];
  timers = [];
}

function showError(e) {
  main().append(el('p', { class: 'error', id: 'error' }, e.message));
}

async function showGames() {
  const table = el('table', { class: 'list', id: 'game-list' });
  main().replaceChildren(el('h2', {}, t('gamesTitle')), table);
  const load = async () => {
    const { games } = await api('GET', '/api/games');
    table.replaceChildren(
      el('tr', {}, ['game', 'black', 'white', 'status', 'result', 'moves'].map((k) => el('th', {}, t(k)))),
      ...games.map((g) => el('tr', { 'data-id': g.id },
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(g.id)}` }, g.id)),
        el('td', {}, g.black), el('td', {}, g.white), el('td', {}, t(g.status)),
        el('td', {}, g.result ? `${g.result} (${word(REASONS, g.reason)})` : ''),
        el('td', {}, String(g.moves)))));
    if (!games.length) table.append(el('tr', {}, el('td', {}, t('noGames'))));
  };
  await load().catch(showError);
  timers.push(setInterval(() => load().catch(() => {}), 3000));
}

function clockText(v, color) {
  const startTurn = v.start_sfen.split(' ')[1];
  let used = 0;
  v.moves.forEach((m, i) => {
    const mover = (i % 2 === 0) === (startTurn === 'b') ? 'b' : 'w';
    if (mover === color) used += m.seconds || 0;
  });
  const total = `${v.time.total}s` + (v.time.byoyomi ? ` + ${v.time.byoyomi}s` : '') + (v.time.increment ? ` + ${v.time.increment}s/move` : '');
  return t('used', { side: sideName(color), used: `${used}s`, total });
}

// The move counts of every view shown, in order (the end-to-end test reads it).
window.gyokuShown = [];

function renderGame(v) {
  window.gyokuShown.push(v.moves.length);
  const pos = parseSfen(v.sfen);
  const last = v.moves.length ? v.moves[v.moves.length - 1].usi : null;
  const moves = el('div', { class: 'moves', id: 'moves' },
    v.moves.map((m) => el('span', { 'data-ply': m.ply }, `${m.ply} ${m.ki2}`)));
  const panel = el('div', { class: 'panel' },
    el('h2', {}, `${v.black} – ${v.white}`),
    el('p', { class: 'status', id: 'game-status' }, `${v.name} · ${v.rules} · ${t(v.status)}`
      + (v.status === 'playing' ? ` · ${t('toMove', { side: sideName(v.turn) })}` : '')),
    el('p', { class: 'clock', id: 'clock-b' }, clockText(v, 'b')),
    el('p', { class: 'clock', id: 'clock-w' }, clockText(v, 'w')),
    el('p', { class: 'ending', id: 'ending' }, endingText(v.outcome)),
    el('h3', {}, t('moves')), moves, impasseEl(v.impasse),
    el('img', { class: 'chart', id: 'chart', alt: t('chart'),
      src: `/api/games/${encodeURIComponent(v.id)}/chart.svg?moves=${v.moves.length}` }));
  main().replaceChildren(el('div', { class: 'game', id: 'game', 'data-moves': v.moves.length },
    boardEl(pos, last, v.in_check), panel));
  moves.scrollTop = moves.scrollHeight;
}

async function showGame(id) {
  main().replaceChildren(el('p', { class: 'status' }, '…'));
  try {
    const v = await api('GET', `/api/games/${encodeURIComponent(id)}`);
    renderGame(v);
    if (v.status !== 'finished') {
      const es = new EventSource(`/api/games/${encodeURIComponent(id)}/events`);
      es.addEventListener('game', (e) => renderGame(JSON.parse(e.data)));
      es.onerror = () => { if (es.readyState === EventSource.CLOSED) streams = streams.filter((s) => s !== es); };
      streams.push(es);
    }
  } catch (e) { main().replaceChildren(); showError(e); }
}

function showCalculator() {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  const sfen = el('input', { type: 'text', id: 'sfen', value: q.get('sfen') || 'startpos' });
  const moves = el('input', { type: 'text', id: 'moves-input', value: q.get('moves') || '' });
  const out = el('div', { id: 'result' });
  const run = async () => {
    out.replaceChildren();
    try {
      const r = await api('POST', '/api/impasse', JSON.stringify({ sfen: sfen.value.trim(), moves: moves.value.trim() }));
      out.replaceChildren(el('div', { class: 'game' }, boardEl(parseSfen(r.sfen), null, r[r.turn].in_check),
        el('div', { class: 'panel' }, impasseEl(r))));
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, e.message)); }
  };
  main().replaceChildren(el('h2', {}, t('calculator')),
    el('label', { for: 'sfen' }, t('sfen')), sfen,
    el('label', { for: 'moves-input' }, t('movesInput')), moves,
    el('p', {}, el('button', { type: 'button', id: 'calculate', onclick: run }, t('calculate'))), out);
  run();
}

function showJudge() {
  const rules = el('select', { id: 'rules' }, PRESETS.map((p) => el('option', { value: p }, p)));
  const file = el('input', { type: 'file', id: 'file' });
  const drop = el('div', { class: 'drop', id: 'drop' }, t('drop'), el('br'), file);
  const out = el('div', { id: 'judged' });
  let upload = null;
  const judge = async () => {
    if (!upload) return;
    out.replaceChildren();
    try {
      const v = await api('POST', `/api/judge?rules=${rules.value}`, upload);
      showJudged(out, v, upload);
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, e.message)); }
  };
  const take = async (f) => { upload = await f.arrayBuffer(); judge(); };
  file.addEventListener('change', () => file.files[0] && take(file.files[0]));
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer.files[0]) take(e.dataTransfer.files[0]);
  });
  rules.addEventListener('change', judge);
  main().replaceChildren(el('h2', {}, t('judge')), el('label', { for: 'rules' }, t('rules')), rules, drop, out);
}

function showJudged(out, v, upload) {
  const r = v.records[0];
  const positions = [parseSfen(r.start_sfen)];
  r.moves.forEach((m) => positions.push(applyUsi(positions[positions.length - 1], m)));
  const view = el('div', { class: 'boardslot' });
  const slider = el('input', { type: 'range', id: 'ply', min: '0', max: String(r.moves.length), value: String(r.moves.length) });
  const label = el('span', { id: 'ply-label' });
  const list = el('div', { class: 'moves', id: 'moves' },
    r.moves.map((m, i) => el('span', { 'data-ply': i + 1, onclick: () => { slider.value = String(i + 1); show(); } }, `${i + 1} ${r.moves_ki2[i]}`)),
    r.foul ? el('span', { class: 'foul', id: 'foul' }, t('foulAt', { ply: r.foul.ply, move: r.foul.move, kind: word(FOULS, r.foul.kind) })) : null);
  const show = () => {
    const k = +slider.value;
    view.replaceChildren(boardEl(positions[k], k ? r.moves[k - 1] : null, false));
    label.textContent = k ? `${t('ply')} ${k}` : t('start');
    list.querySelectorAll('span[data-ply]').forEach((s) => s.classList.toggle('current', +s.dataset.ply === k));
  };
  const downloads = ['kif', 'ki2', 'csa', 'jkf', 'usi'].map((f) => el('button', { type: 'button', 'data-format': f, onclick: async () => {
    const res = await fetch(`/api/convert?to=${f}`, { method: 'POST', body: upload });
    if (!res.ok) { out.append(el('p', { class: 'error' }, (await res.json()).error.message)); return; }
    const a = el('a', { href: URL.createObjectURL(await res.blob()), download: `game.${f}` });
    a.click();
  } }, f.toUpperCase()));
  out.replaceChildren(el('div', {},
    v.total > 1 ? el('p', {}, t('records', { n: v.total })) : null,
    el('p', { class: 'ending', id: 'ending' }, endingText(r)),
    el('p', { id: 'recorded' }, `${t('recorded', { end: r.recorded.end || '-' })} ${t(r.agrees ? 'agrees' : 'differs')}`),
    el('div', { class: 'game' }, el('div', {}, view, el('p', {}, slider, ' ', label)),
      el('div', { class: 'panel' }, el('h3', {}, t('moves')), list,
        el('p', {}, `${t('download')}: `, downloads)))));
  slider.addEventListener('input', show);
  show();
}

// --- routing and settings ----------------------------------------------------------------

function route() {
  leave();
  const hash = location.hash.slice(1) || '/';
  document.documentElement.lang = settings.lang;
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = t(e.dataset.t); });
  document.getElementById('lang').textContent = settings.lang === 'ja' ? 'English' : '日本語';
  document.getElementById('glyphs').textContent = settings.glyphs === 'kanji' ? 'P' : '歩';
  if (hash.startsWith('/game/')) showGame(decodeURIComponent(hash.slice(6)));
  else if (hash.startsWith('/calculator')) showCalculator();
  else if (hash.startsWith('/judge')) showJudge();
  else showGames();
}

document.getElementById('lang').addEventListener('click', () => {
  settings.lang = settings.lang === 'ja' ? 'en' : 'ja';
  localStorage.setItem('gyoku.lang', settings.lang);
  route();
});
document.getElementById('glyphs').addEventListener('click', () => {
  settings.glyphs = settings.glyphs === 'kanji' ? 'letters' : 'kanji';
  localStorage.setItem('gyoku.glyphs', settings.glyphs);
  route();
});
window.addEventListener('hashchange', route);
route();
