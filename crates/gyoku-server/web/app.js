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
    play: 'Play', playTitle: 'Play a game', opponent: 'Opponent', person: 'another person (send a link)',
    fouls: 'Illegal moves', foulsPreset: 'as the rules say', foulsRefuse: 'refused (friendly)', foulsLose: 'lose the game (tournament)',
    totalTime: 'Main time (seconds)', byoyomi: 'Byoyomi (seconds)', increment: 'Increment (seconds, instead of byoyomi)',
    color: 'Your side', random: 'by lot', startSfen: 'Start position (SFEN, empty for the usual start)', maxMoves: 'Move limit (empty: the rules\' own, 0: none)',
    yourName: 'Your name', startGame: 'Start the game', invite: 'Send this link to your opponent:', join: 'Join the game',
    invited: 'You are invited to a game.', waiting: 'Waiting for the opponent…', resign: 'Resign', declare: 'Declare (入玉宣言)',
    promote: 'Promote?', promoteYes: 'Promote', promoteNo: 'Do not promote', refused: 'Refused: {kind} — {move}. Play another move.',
    lostBy: 'Illegal: {kind} — {move}. Under tournament rules the game is lost.', yourTurn: 'Your move', theirTurn: 'Opponent to move',
    you: 'You play {side}', youWin: 'You win', youLose: 'You lose', youDraw: 'Draw', replay: 'No contest: replayed with colours swapped.',
    byo: 'byoyomi', proposeImpasse: 'Propose impasse count', acceptImpasse: 'Accept impasse count',
    impasseProposed: 'Impasse count proposed', proposed: 'Your opponent proposes to count the impasse now.',
    nextGame: 'The replay has started: go to it →',
    editBoard: 'Set up on the board', emptyBoard: 'Empty board', startBoard: 'Start position',
    foulsLoseNote: 'Tournament rules: a foul you can make on a real board (two pawns on a file, a pawn-drop mate, leaving your king in check, a piece with no move) loses the game at once.',
    foulsRefuseNote: 'Friendly rules: a foul (two pawns on a file, a pawn-drop mate, leaving your king in check, a piece with no move) is refused and named; play another move.',
    foulsPresetNote: 'Under the rules chosen, fouls {what}.', foulsLoseWord: 'lose the game', foulsRefuseWord: 'are refused',
    checkYes: 'in check', checkNo: '—', vs: 'vs',
    noKing: 'No king for {sides}: the position is counted leniently (a game cannot start from it).',
    invitedBy: '{from} invites you to a game under {rules} rules, {time}; you play {side}. Fouls {fouls}.',
    flip: 'Flip board', rematch: 'Rematch (colours swapped)', newGame: 'New game',
    confirmResign: 'Resign this game?', confirmYes: 'Yes', confirmNo: 'Cancel',
    declareWins: 'Declaring now wins: {points} points, {zone} pieces in the zone. Declare?',
    declareNoContest: 'Declaring now gives a no contest ({points} points): the game is replayed with colours swapped. Declare?',
    declareDraw: 'Declaring now gives a draw ({points} points). Declare?',
    declareLoses: 'Declaring now loses: {why}. Declare anyway?',
    declareUnknown: 'Declare (入玉宣言) now?',
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
    play: '対局する', playTitle: '対局を始める', opponent: '相手', person: '人（リンクを送る）',
    fouls: '反則', foulsPreset: 'ルールどおり', foulsRefuse: '指し直し（フレンドリー）', foulsLose: '反則負け（公式戦）',
    totalTime: '持ち時間（秒）', byoyomi: '秒読み（秒）', increment: 'フィッシャー加算（秒、秒読みの代わり）',
    color: '手番', random: '振り駒', startSfen: '開始局面（SFEN、空欄は平手）', maxMoves: '最大手数（空欄はルールどおり、0は無制限）',
    yourName: '名前', startGame: '対局開始', invite: 'このリンクを相手に送ってください：', join: '対局に参加',
    invited: '対局に招待されています。', waiting: '相手を待っています…', resign: '投了', declare: '入玉宣言',
    promote: '成りますか？', promoteYes: '成る', promoteNo: '成らない', refused: '指せません：{kind}（{move}）。別の手を指してください。',
    lostBy: '反則：{kind}（{move}）。公式戦ルールでは反則負けです。', yourTurn: 'あなたの手番', theirTurn: '相手の手番',
    you: 'あなたは{side}', youWin: 'あなたの勝ち', youLose: 'あなたの負け', youDraw: '引き分け', replay: '無勝負：先後を入れ替えて指し直します。',
    byo: '秒読み', proposeImpasse: '持将棋を提案', acceptImpasse: '持将棋に同意',
    impasseProposed: '持将棋を提案中', proposed: '相手が持将棋（点数計算）を提案しています。',
    nextGame: '指し直し局が始まりました →',
    editBoard: '盤面を編集', emptyBoard: '駒を全部取り除く', startBoard: '平手の初期配置',
    foulsLoseNote: '公式戦ルール：実際の盤で指せる反則（二歩、打ち歩詰め、王手放置、行き所のない駒）は即座に反則負けです。',
    foulsRefuseNote: 'フレンドリールール：反則（二歩、打ち歩詰め、王手放置、行き所のない駒）は受け付けられず、理由が表示されます。別の手を指してください。',
    foulsPresetNote: '選んだルールでは、反則は{what}。', foulsLoseWord: '反則負けです', foulsRefuseWord: '指し直しです',
    checkYes: '王手', checkNo: '—', vs: '対',
    noKing: '{sides}の玉がありません：点数は寛容に数えます（この局面から対局はできません）。',
    invitedBy: '{from}さんからの対局の招待：{rules}ルール、{time}、あなたは{side}です。反則は{fouls}。',
    flip: '盤面反転', rematch: '先後を入れ替えて再戦', newGame: '新しい対局',
    confirmResign: '投了しますか？', confirmYes: 'はい', confirmNo: 'キャンセル',
    declareWins: '今宣言すると勝ちです（{points}点、敵陣に{zone}枚）。宣言しますか？',
    declareNoContest: '今宣言すると無勝負（{points}点）で、先後を入れ替えて指し直しです。宣言しますか？',
    declareDraw: '今宣言すると引き分けです（{points}点）。宣言しますか？',
    declareLoses: '今宣言すると負けです：{why}。それでも宣言しますか？',
    declareUnknown: '入玉宣言しますか？',
  },
};

// What a declaration or an agreed count would bring now (the calculator's verdicts).
const VERDICTS = {
  win: ['wins', '勝ち'], lose: ['loses', '負け'], no_contest: ['no contest (replayed)', '無勝負（指し直し）'],
  draw: ['draw', '引き分け'], black: ['Black wins', '先手勝ち'], white: ['White wins', '後手勝ち'],
  not_available: ['not possible', 'なし'],
};

// The API's refusals and errors, in words (the API keeps its codes).
const ERRORS = {
  not_your_turn: ['It is not your turn.', 'あなたの手番ではありません。'],
  not_playing: ['This seat is not playing a game now.', 'この席は対局中ではありません。'],
  no_answer: ['The server did not answer in time; try again.', 'サーバーが時間内に応答しませんでした。もう一度お試しください。'],
  refused: ['The server refused it.', 'サーバーが受け付けませんでした。'],
  invitation_taken: ['This invitation was used already.', 'この招待は使用済みです。'],
  no_such_seat: ['No such seat (a server restart forgets them).', 'その席はありません（サーバー再起動で消えます）。'],
  no_such_game: ['No such game.', 'その対局はありません。'],
  too_many_seats: ['Too many games are open; finish one first.', '未終局の対局が多すぎます。先に終局してください。'],
  engines_busy: ['The engines are busy; try again later.', 'エンジンが混み合っています。しばらくしてからお試しください。'],
  too_many_requests: ['Too many requests at once; wait a moment.', '同時リクエストが多すぎます。少しお待ちください。'],
  busy: ['The server is busy; try again.', 'サーバーが混み合っています。もう一度お試しください。'],
  storage_unavailable: ['The server cannot read its games now.', 'サーバーが棋譜を読めません。'],
  cross_origin: ['Refused: this request came from another site.', '他のサイトからの操作は受け付けません。'],
  invalid_record: ['This is not a record Gyoku can read.', '読める棋譜ではありません。'],
  too_large: ['The file is too large.', 'ファイルが大きすぎます。'],
  invalid_sfen: ['This position does not read.', '局面を読めません。'],
  invalid_move: ['This move does not read.', '指し手を読めません。'],
  illegal_move: ['This move is illegal.', '反則手です。'],
  invalid_time: ['This time control cannot be played.', 'この持ち時間では対局できません。'],
};

// An error in words: the API's message in English, the table's words in Japanese.
function errorText(e) {
  const i = (e && e.info) || {};
  if (settings.lang === 'ja' && ERRORS[i.code]) return ERRORS[i.code][1];
  if (i.message) return i.message;
  return e && e.message ? e.message : String(e);
}

// A player's name as people read it: a web player's seat suffix (`@web12b`) left out.
const shownName = (n) => String(n || '').replace(/@web\d+[bw]?$/, '');

// A time control in words: "10 min + 10 s byoyomi", "5 min + 3 s increment".
function timeText(time) {
  if (!time) return '';
  const ja = settings.lang === 'ja';
  const main = time.total % 60 === 0 ? (ja ? `${time.total / 60}分` : `${time.total / 60} min`) : (ja ? `${time.total}秒` : `${time.total} s`);
  if (time.byoyomi) return ja ? `${main} 秒読み${time.byoyomi}秒` : `${main} + ${time.byoyomi} s byoyomi`;
  if (time.increment) return ja ? `${main} 加算${time.increment}秒` : `${main} + ${time.increment} s increment`;
  return main;
}

// A game's title: the players and the time control.
function gameTitle(v) {
  const vs = settings.lang === 'ja' ? '対' : 'vs';
  const time = timeText(v.time);
  return `${shownName(v.black)} ${vs} ${shownName(v.white)}${time ? ` · ${time}` : ''}`;
}

// Why a declaration fails now, in words.
const DECL_FAILURES = {
  king_not_entered: ['your king has not entered the zone', '玉が敵陣に入っていません'],
  zone_count: ['fewer than 10 of your pieces are in the zone', '敵陣の駒が10枚未満です'],
  in_check: ['your king is in check', '王手がかかっています'],
  points: ['not enough points', '点数が足りません'],
  after_move_limit: ['the move limit has passed', '手数制限を過ぎています'],
  no_time: ['no time is left', '持ち時間がありません'],
  no_rule: ['these rules have no declaration', 'このルールには宣言がありません'],
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
  suspended: ['suspended', '中断'], automatic_impasse: ['impasse (counted automatically)', '持将棋（自動判定）'],
  forfeit: ['forfeit', '反則負け'], garbage: ['a line that is no move', '不正な送信'], crash: ['the engine crashed', 'エンジン異常終了'],
  hang: ['the engine hung', 'エンジン無応答'], flood: ['the engine flooded', 'エンジン過剰出力'], illegal_action: ['an illegal action', '反則行為'],
  abnormal: ['a player left', '接続切れ'],
};

const FOULS = {
  nifu: ['nifu (two pawns on a file)', '二歩'],
  uchifuzume: ['uchifuzume (pawn-drop mate)', '打ち歩詰め'],
  dead_piece: ['a piece with no move', '行き所のない駒'],
  not_in_hand: ['not in hand', '持ち駒にない駒'],
  king_in_check: ['leaves the king in check', '王手放置'],
  bad_movement: ['the piece cannot move so', '動けない動き'],
};

const KANJI = { P: '歩', L: '香', N: '桂', S: '銀', G: '金', B: '角', R: '飛', K: '玉',
  '+P': 'と', '+L': '杏', '+N': '圭', '+S': '全', '+B': '馬', '+R': '龍' };
const HAND_ORDER = ['R', 'B', 'G', 'S', 'N', 'L', 'P'];
const PRESETS = ['csa', 'jsa', 'jsa-amateur', '81dojo', 'lishogi', 'friendly', 'try', 'shogi-wars', 'saw', 'none'];

const settings = {
  lang: localStorage.getItem('gyoku.lang') || ((navigator.language || '').startsWith('ja') ? 'ja' : 'en'),
  // Kanji or letters: as chosen, else as the browser's first language (kanji in Japanese).
  glyphs: localStorage.getItem('gyoku.glyphs')
    || ((localStorage.getItem('gyoku.lang') || navigator.language || '').startsWith('ja') ? 'kanji' : 'letters'),
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
  // A JSON body says so (the server refuses one that does not); a record file goes as it is.
  const headers = typeof body === 'string' ? { 'Content-Type': 'application/json' } : {};
  const res = await fetch(path, { method, body, headers });
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

const square = (s) => [s.charCodeAt(1) - 97, 9 - +s[0]];

function applyUsi(pos, usi) {
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

// A piece as the page draws it: kanji (玉 for Black's king, 王 for White's) or letters.
const glyph = (piece, color) => {
  if (settings.glyphs !== 'kanji') return piece;
  return piece === 'K' && color === 'w' ? '王' : KANJI[piece];
};

const RANKS_KANJI = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

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
    return el('span', attrs, glyph(k) + (n > 1 ? n : ''));
  });
  return el('div', { class: `hand hand-${color}`, id: `hand-${color}` },
    el('span', { class: 'who' }, `${color === 'b' ? '☗' : '☖'}${sideName(color)}`), items);
}

// The board, Black at the bottom; `last` (USI) and `check` marked.
// The board with its coordinates (files 9-1 above, ranks 一-九 or a-i beside), the hands
// above and below; `flipped` turns it round, White's side at the bottom.
function boardEl(pos, last, check, ui, flipped) {
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
      grid.append(el('div', attrs, p ? el('span', {}, glyph(p.piece, p.color)) : ''));
    }
  }
  const order = (xs) => (flipped ? xs.slice().reverse() : xs);
  const files = el('div', { class: 'files', id: 'files' },
    order([9, 8, 7, 6, 5, 4, 3, 2, 1]).map((f) => el('span', {}, String(f))));
  const rankNames = settings.glyphs === 'kanji' ? RANKS_KANJI : 'abcdefghi'.split('');
  const ranks = el('div', { class: 'ranks', id: 'ranks' }, order(rankNames).map((x) => el('span', {}, x)));
  const [top, bottom] = flipped ? ['b', 'w'] : ['w', 'b'];
  return el('div', { class: `boardwrap${flipped ? ' flipped' : ''}` }, handEl(pos, top, ui), files,
    el('div', { class: 'boardrow' }, grid, ranks), handEl(pos, bottom, ui));
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
  if (d.failed) parts.push(word(DECL_FAILURES, d.failed));
  if (d.cause) parts.push(word(REASONS, d.cause));
  return parts.join(' · ');
}

function impasseEl(r, foldable) {
  const yesNo = (b) => t(b ? 'yes' : 'no');
  const counts = el('table', { class: 'counts', id: 'counts' },
    el('tr', {}, el('th', {}, t('side')), el('th', {}, t('entered')), el('th', {}, t('zone')),
      el('th', {}, t('total')), el('th', {}, t('declaration')), el('th', {}, t('inCheck'))),
    ['black', 'white'].map((s) => el('tr', { 'data-side': s }, el('td', {}, sideName(s)),
      el('td', {}, yesNo(r[s].entered)), el('td', {}, String(r[s].zone_count)),
      el('td', {}, String(r[s].total_points)), el('td', {}, String(r[s].declaration_points)),
      el('td', {}, t(r[s].in_check ? 'checkYes' : 'checkNo')))));
  const verdicts = el('table', { class: 'verdicts', id: 'verdicts' },
    el('tr', {}, el('th', {}, t('rules')), el('th', {}, t('ifDeclares', { side: sideName(r.turn) })),
      el('th', {}, t('agreement')), el('th', {}, t('endedBy'))),
    Object.entries(r.verdicts).map(([name, v]) => el('tr', { 'data-preset': name },
      el('td', {}, name),
      el('td', {}, v.declaration_failure
        ? `${word(VERDICTS, v.declaration)}: ${word(DECL_FAILURES, v.declaration_failure)}` : word(VERDICTS, v.declaration)),
      el('td', {}, word(VERDICTS, v.agreement)), el('td', {}, v.ended ? word(REASONS, v.ended) : '-'))));
  if (!foldable) return el('div', { class: 'impasse', id: 'impasse' }, el('h3', {}, t('impasse')), counts, verdicts);
  // On a game's page the panel is folded until a king enters the zone, or it is opened.
  const attrs = { class: 'impasse', id: 'impasse' };
  const opened = browsing.impasseOpen;
  if (opened === true || (opened === null && (r.black.entered || r.white.entered))) attrs.open = 'open';
  const summary = el('summary', {}, t('impasse'));
  // The reader's own choice (a click on the title) is kept across the live views.
  summary.addEventListener('click', () => { browsing.impasseOpen = !panel.open; });
  const panel = el('details', attrs, summary, counts, verdicts);
  return panel;
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
  main().append(el('p', { class: 'error', id: 'error' }, errorText(e)));
}

async function showGames() {
  const table = el('table', { class: 'list', id: 'game-list' });
  main().replaceChildren(el('h2', {}, t('gamesTitle')), table);
  const load = async () => {
    const { games } = await api('GET', '/api/games');
    table.replaceChildren(
      el('tr', {}, ['game', 'status', 'result', 'moves'].map((k) => el('th', {}, t(k)))),
      ...games.map((g) => el('tr', { 'data-id': g.id },
        el('td', {}, el('a', { href: `#/game/${encodeURIComponent(g.id)}`, title: g.id },
          `${shownName(g.black)} ${t('vs')} ${shownName(g.white)}`), el('span', { class: 'rules' }, ` · ${g.rules}`)),
        el('td', {}, t(g.status)),
        el('td', {}, g.result ? `${resultWord(g.result)} (${word(REASONS, g.reason)})` : ''),
        el('td', {}, String(g.moves)))));
    if (!games.length) table.append(el('tr', {}, el('td', {}, t('noGames'))));
  };
  await load().catch(showError);
  timers.push(setInterval(() => load().catch(() => {}), 3000));
}

// A result code in words.
const resultWord = (r) => (r === 'draw' ? t('draw') : r === 'no_contest' ? t('noContest') : t('wins', { side: sideName(r) }));

// --- clocks ------------------------------------------------------------------------------

// The clock of the view shown last, counted down on this page between views.
var clockView = null; // `var`: the end-to-end test reads it

function mmss(ms) {
  const sec = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, '0')}`;
}

function clockLine(color) {
  const v = clockView;
  if (!v || !v.view.clock) return '';
  const c = v.view.clock;
  let left = c[color === 'b' ? 'black_ms' : 'white_ms'];
  const running = c.running && c.running[0] === color;
  if (running) left -= (c.elapsed_ms || 0) + (performance.now() - v.at);
  let text = mmss(left);
  if (c.byoyomi_ms) {
    const byo = left < 0 ? c.byoyomi_ms + left : c.byoyomi_ms;
    text += left <= 0 ? ` · ${t('byo')} ${mmss(byo)}` : ` + ${c.byoyomi_ms / 1000}s`;
  }
  if (c.increment_ms) text += ` + ${c.increment_ms / 1000}s/move`;
  return `${color === 'b' ? '☗' : '☖'}${sideName(color)} ${shownName(v.view[color === 'b' ? 'black' : 'white'])}: ${text}${running ? ' ●' : ''}`;
}

function tickClocks() {
  for (const c of ['b', 'w']) {
    const e = document.getElementById(`clock-${c}`);
    if (e) e.textContent = clockLine(c);
  }
}
setInterval(tickClocks, 200);

// The move counts of every view shown, in order (the end-to-end test reads it).
window.gyokuShown = [];

// --- a game, watched or played ---------------------------------------------------------------

// The seat being played from this page (null when watching), and the move being made.
var playing = null; // `var`: the end-to-end test reads it

// A view older than the one shown (an answer overtaken by a live event) is not shown.
function older(v) {
  const shown = clockView && clockView.view;
  if (!shown || shown.id !== v.id) return false;
  return v.moves.length < shown.moves.length
    || (v.moves.length === shown.moves.length && shown.status !== 'playing' && v.status === 'playing');
}

// What the game page shows: which game, the ply stepped to (null: the latest, following
// the game), and whether the board is turned round (null: as the seat's side says).
const browsing = { id: null, ply: null, flipped: null, impasseOpen: null };

// The plies a game can be stepped through: its moves, and the foul that ended it.
function pliesOf(v) {
  const plies = v.moves.map((m) => ({ usi: m.usi, label: `${m.ply} ${m.ki2}`, foul: false }));
  const d = v.outcome && v.outcome.detail;
  if (d && d.foul && d.move) {
    plies.push({ usi: d.move, label: `${plies.length + 1} ${d.move} (${word(FOULS, d.foul)})`, foul: true });
  }
  return plies;
}

// The position after `ply` plies (0: the start).
function positionAt(v, plies, ply) {
  let pos = parseSfen(v.start_sfen);
  for (const p of plies.slice(0, ply)) pos = applyUsi(pos, p.usi);
  return pos;
}

const FORMATS = [['kif', 'KIF'], ['kifu', 'KIFU'], ['ki2', 'KI2'], ['csa', 'CSA'], ['jkf', 'JKF'], ['usi', 'USI']];

function renderGame(v) {
  if (older(v)) return;
  if (!clockView || clockView.view !== v) window.gyokuShown.push(v.moves.length);
  clockView = { view: v, at: performance.now() };
  if (browsing.id !== v.id) Object.assign(browsing, { id: v.id, ply: null, flipped: null, impasseOpen: null });
  const plies = pliesOf(v);
  const seat = playing && playing.seat.games.includes(v.id) ? playing : null;
  const flipped = browsing.flipped !== null ? browsing.flipped : !!(seat && seat.seat.color === 'white');
  const stepping = browsing.ply !== null && browsing.ply < plies.length;
  const shownPly = stepping ? browsing.ply : plies.length;
  const pos = stepping || plies.length > v.moves.length ? positionAt(v, plies, shownPly) : parseSfen(v.sfen);
  const last = shownPly > 0 ? plies[shownPly - 1].usi : null;
  const step = (ply) => {
    browsing.ply = Math.max(0, Math.min(ply, plies.length));
    if (browsing.ply === plies.length) browsing.ply = null;
    renderGame(v);
  };
  const moves = el('div', { class: 'moves', id: 'moves' },
    plies.map((m, i) => el('span', { 'data-ply': i + 1, class: `${m.foul ? 'foul ' : ''}${i + 1 === shownPly ? 'current' : ''}`,
      onclick: () => step(i + 1) }, m.label)));
  const slider = el('input', { type: 'range', id: 'step-slider', min: '0', max: String(plies.length), value: String(shownPly),
    'aria-label': t('ply') });
  slider.addEventListener('input', () => step(+slider.value));
  const nav = el('div', { class: 'stepper', id: 'stepper' },
    el('button', { type: 'button', id: 'step-first', title: t('start'), onclick: () => step(0) }, '|◀'),
    el('button', { type: 'button', id: 'step-prev', onclick: () => step(shownPly - 1) }, '◀'),
    slider,
    el('button', { type: 'button', id: 'step-next', onclick: () => step(shownPly + 1) }, '▶'),
    el('button', { type: 'button', id: 'step-last', onclick: () => step(plies.length) }, '▶|'),
    el('span', { class: 'plyno', id: 'ply-shown' }, `${shownPly} / ${plies.length}`),
    el('button', { type: 'button', id: 'flip', title: t('flip'), onclick: () => { browsing.flipped = !flipped; renderGame(v); } }, t('flip')));
  const downloads = el('p', { class: 'downloads', id: 'downloads' }, `${t('download')}: `,
    FORMATS.flatMap(([f, label]) => [el('a', { href: `/api/games/${encodeURIComponent(v.id)}/record?format=${f}`,
      download: '', 'data-format': f }, label), ' ']));
  const panel = el('div', { class: 'panel' },
    el('h2', { id: 'game-title' }, gameTitle(v)),
    el('p', { class: 'status', id: 'game-status' }, `${t('rules')}: ${v.rules} · ${t(v.status)}`
      + (v.status === 'playing' ? ` · ${t('toMove', { side: sideName(v.turn) })}` : '')),
    el('p', { class: 'clock', id: 'clock-w' }, ''),
    el('p', { class: 'clock', id: 'clock-b' }, ''),
    seat ? controlsEl(v, seat) : null,
    el('p', { class: 'ending', id: 'ending' }, endingText(v.outcome)),
    el('h3', {}, t('moves')), nav, moves, downloads, impasseEl(v.impasse, true),
    el('img', { class: 'chart', id: 'chart', alt: t('chart'),
      src: `/api/games/${encodeURIComponent(v.id)}/chart.svg?moves=${v.moves.length}` }));
  const ui = seat && !stepping ? boardUi(v, seat, pos) : undefined;
  main().replaceChildren(el('div', { class: 'game', id: 'game', 'data-moves': v.moves.length, 'data-shown': shownPly },
    el('div', {}, boardEl(pos, last, !stepping && v.in_check, ui, flipped), seat && seat.promoting ? promoteEl(seat) : null), panel));
  const current = moves.querySelector('.current');
  if (current && stepping) current.scrollIntoView({ block: 'nearest' });
  else moves.scrollTop = moves.scrollHeight;
  tickClocks();
}

// Arrow keys step through the game on screen.
document.addEventListener('keydown', (e) => {
  if (!clockView || !document.getElementById('stepper')) return;
  if (e.target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.target.tagName) && e.target.type !== 'range') return;
  const v = clockView.view;
  const n = pliesOf(v).length;
  const at = browsing.ply === null ? n : browsing.ply;
  let ply = null;
  if (e.key === 'ArrowLeft') ply = at - 1;
  else if (e.key === 'ArrowRight') ply = at + 1;
  else if (e.key === 'Home') ply = 0;
  else if (e.key === 'End') ply = n;
  if (ply === null) return;
  e.preventDefault();
  browsing.ply = Math.max(0, Math.min(ply, n));
  if (browsing.ply === n) browsing.ply = null;
  renderGame(v);
});

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

// --- playing from the page ----------------------------------------------------------------

const myTurn = (v, seat) => v.status === 'playing' && seat.seat.phase === 'playing' && v.turn === seat.seat.color;

function controlsEl(v, seat) {
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
    el('p', { class: 'note', id: 'fouls-rule' }, t(v.fouls === 'lose' ? 'foulsLoseNote' : 'foulsRefuseNote')),
    el('p', {},
      button('resign', t('resign'), mine, () => ask(seat, t('confirmResign'), () => act(seat, 'resign'))), ' ',
      button('declare', t('declare'), mine && v.allows.declaration,
        () => ask(seat, declareQuestion(v), () => act(seat, 'declare'))), ' ',
      impasseButton(v, seat, button)),
    seat.asking ? confirmEl(seat) : null,
    seat.seat.proposal && seat.seat.proposal !== you
      ? el('p', { id: 'proposal' }, t('proposed')) : null,
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
  const engine = theirs.includes('@web') ? theirs.split('@web')[0] : null;
  const opponent = engine && (window.gyokuEngines || []).includes(engine) ? engine : 'person';
  const query = (color, autostart) => {
    const q = { opponent, rules: v.rules, total: v.time.total, byoyomi: v.time.byoyomi, increment: v.time.increment,
      color, fouls: v.fouls, name: mine.split('@web')[0] };
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
  if (clockView) renderGame(clockView.view);
}

function confirmEl(seat) {
  const { question, then } = seat.asking;
  const close = () => { seat.asking = null; if (clockView) renderGame(clockView.view); };
  return el('div', { class: 'confirm', id: 'confirm', role: 'alertdialog' },
    el('p', { id: 'confirm-text' }, question), ' ',
    el('button', { type: 'button', id: 'confirm-yes', onclick: () => { seat.asking = null; then(); } }, t('confirmYes')), ' ',
    el('button', { type: 'button', id: 'confirm-no', onclick: close }, t('confirmNo')));
}

// Propose an impasse count, or accept the opponent's: only under rules with an agreement,
// and only when the calculator says one may be counted now.
function impasseButton(v, seat, button) {
  if (!v.allows.impasse_count) return null;
  const you = seat.seat.color;
  const theirs = seat.seat.proposal && seat.seat.proposal !== you;
  const verdict = v.impasse.verdicts[v.rules];
  const countable = verdict && verdict.agreement !== 'not_available';
  const enabled = v.status === 'playing' && seat.seat.phase === 'playing' && countable && seat.seat.proposal !== you;
  return button('impasse', t(theirs ? 'acceptImpasse' : seat.seat.proposal === you ? 'impasseProposed' : 'proposeImpasse'),
    enabled, () => act(seat, 'impasse'));
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

function boardUi(v, seat, pos) {
  const mine = myTurn(v, seat);
  const color = seat.seat.color[0];
  const rerender = () => renderGame(v);
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

function promoteEl(seat) {
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
    if (r.game) renderGame(r.game);
  } catch (e) {
    const i = e.info || {};
    seat.error = i.code === 'illegal_move'
      ? t('refused', { kind: word(FOULS, i.kind), move: i.move })
      : errorText(e);
    if (clockView) renderGame(clockView.view);
  }
}

async function act(seat, what) {
  seat.error = null;
  try {
    const r = await api('POST', `/api/seats/${seat.token}/${what}`, '{}');
    seat.seat = r.seat;
    if (r.game) renderGame(r.game);
  } catch (e) {
    seat.error = errorText(e);
    if (clockView) renderGame(clockView.view);
  }
}

async function showPlayForm() {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  const opts = await api('GET', '/api/play');
  const field = (id, label, input) => el('div', {}, el('label', { for: id }, label), input);
  const select = (id, values, chosen) => el('select', { id }, values.map(([v, label]) => {
    const o = el('option', { value: v }, label);
    if (v === chosen) o.selected = true;
    return o;
  }));
  const opponent = select('opponent', opts.opponents.map((o) => [o, o === 'person' ? t('person') : o]), q.get('opponent') || opts.opponents[0]);
  const rules = select('play-rules', opts.presets.map((p) => [p, p]), q.get('rules') || 'csa');
  const fouls = select('fouls', [['', t('foulsPreset')], ['refuse', t('foulsRefuse')], ['lose', t('foulsLose')]], q.get('fouls') || '');
  // Before the game: what a foul will do, under the rules and the choice made.
  const foulsNote = el('p', { class: 'note', id: 'fouls-note' });
  const sayFouls = () => {
    const chosen = fouls.value || (opts.fouls || {})[rules.value] || 'lose';
    foulsNote.textContent = t(chosen === 'lose' ? 'foulsLoseNote' : 'foulsRefuseNote');
  };
  fouls.addEventListener('change', sayFouls);
  const num = (id, v) => el('input', { type: 'number', id, min: '0', value: v });
  const total = num('total', q.get('total') || '600');
  const byoyomi = num('byoyomi-input', q.get('byoyomi') || '10');
  const increment = num('increment', q.get('increment') || '0');
  const color = select('color', [['black', t('black')], ['white', t('white')], ['random', t('random')]], q.get('color') || 'black');
  const sfen = el('input', { type: 'text', id: 'start-sfen', value: q.get('sfen') || '' });
  const maxMoves = el('input', { type: 'number', id: 'max-moves', min: '0', value: q.get('max_moves') || '' });
  const name = el('input', { type: 'text', id: 'name', value: localStorage.getItem('gyoku.name') || '' });
  const out = el('div', {});
  const start = async () => {
    out.replaceChildren();
    localStorage.setItem('gyoku.name', name.value);
    const body = { opponent: opponent.value, rules: rules.value, color: color.value, name: name.value || 'guest',
      time: { total: +total.value, byoyomi: +byoyomi.value, increment: +increment.value } };
    if (fouls.value) body.fouls = fouls.value;
    if (sfen.value.trim()) body.sfen = sfen.value.trim();
    if (maxMoves.value !== '') body.max_moves = +maxMoves.value;
    try {
      const r = await api('POST', '/api/play', JSON.stringify(body));
      location.hash = `#/seat/${r.token}`;
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, errorText(e))); }
  };
  main().replaceChildren(el('h2', {}, t('playTitle')),
    field('opponent', t('opponent'), opponent), field('play-rules', t('rules'), rules),
    field('fouls', t('fouls'), fouls), foulsNote, field('total', t('totalTime'), total),
    field('byoyomi-input', t('byoyomi'), byoyomi), field('increment', t('increment'), increment),
    field('color', t('color'), color), field('start-sfen', t('startSfen'), sfen),
    field('max-moves', t('maxMoves'), maxMoves), field('name', t('yourName'), name),
    el('p', {}, el('button', { type: 'button', id: 'start' }, t('startGame'))), out);
  document.getElementById('start').addEventListener('click', start);
  rules.addEventListener('change', sayFouls);
  sayFouls();
  window.gyokuEngines = opts.engines;
  if (q.get('name')) name.value = q.get('name');
  if (q.get('autostart') === '1') start();
}

async function showSeat(token) {
  main().replaceChildren(el('p', { class: 'status' }, '…'));
  let r;
  try { r = await api('GET', `/api/seats/${token}`); } catch (e) { main().replaceChildren(); showError(e); return; }
  // An invitation's link is used once: joining gives this browser a seat of its own, whose
  // secret the link does not carry (kept in this browser's storage).
  const mine = localStorage.getItem(`gyoku.joined.${token}`);
  if (r.seat.phase === 'taken') {
    if (mine) { location.replace(`#/seat/${mine}`); return; }
    if (r.seat.game_id) { location.replace(`#/game/${encodeURIComponent(r.seat.game_id)}`); return; }
  }
  if (r.seat.phase === 'invited') {
    const name = el('input', { type: 'text', id: 'name', value: localStorage.getItem('gyoku.name') || '' });
    const terms = r.seat.invitation;
    const says = terms ? el('p', { id: 'invitation' }, t('invitedBy', {
      from: terms.from, rules: terms.rules, time: timeText(terms.time), side: sideName(r.seat.color),
      fouls: t(terms.fouls === 'lose' ? 'foulsLoseWord' : 'foulsRefuseWord') })) : null;
    main().replaceChildren(el('h2', {}, t('invited')), says, el('label', { for: 'name' }, t('yourName')), name,
      el('p', {}, el('button', { type: 'button', id: 'join', onclick: async () => {
        localStorage.setItem('gyoku.name', name.value);
        try {
          const j = await api('POST', `/api/seats/${token}/join`, JSON.stringify({ name: name.value || 'guest' }));
          localStorage.setItem(`gyoku.joined.${token}`, j.token);
          location.replace(`#/seat/${j.token}`);
        } catch (e) { showError(e); }
      } }, t('join'))));
    return;
  }
  const seat = { token, seat: r.seat, selected: null, promoting: null, error: null };
  playing = seat;
  let followed = null;
  const follow = (id) => {
    if (followed === id) return;
    followed = id;
    streams.forEach((x) => x.close());
    streams = [];
    const es = new EventSource(`/api/games/${encodeURIComponent(id)}/events`);
    es.addEventListener('game', (e) => {
      const v = JSON.parse(e.data);
      renderGame(v);
      if (v.status !== 'playing') refresh();
    });
    streams.push(es);
  };
  const invite = r.seat.invite ? `${location.origin}${location.pathname}#/seat/${r.seat.invite}` : null;
  const waiting = () => main().replaceChildren(el('p', { id: 'waiting' }, t('waiting')),
    invite ? el('p', {}, t('invite'), el('input', { type: 'text', id: 'invite', readonly: 'readonly', value: invite })) : null);
  const refresh = async () => {
    try {
      const x = await api('GET', `/api/seats/${token}`);
      seat.seat = x.seat;
      const shown = clockView && clockView.view;
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
    if (!seat.next || playing !== seat) return;
    seat.next = null;
    clockView = null;
    refresh();
  };
  if (r.game) { renderGame(r.game); follow(r.game.id); } else waiting();
  // A game not yet started, a replay after a no-contest: the seat is asked again.
  timers.push(setInterval(async () => {
    if (seat.next) return;
    if (!seat.seat.game_id || seat.seat.phase !== 'playing' || (clockView && clockView.view.status !== 'playing')) {
      refresh();
    } else if (clockView && clockView.view.allows.impasse_count) {
      // A proposal is not a stored change: the seat is asked for it.
      try {
        const x = await api('GET', `/api/seats/${token}`);
        if (x.seat.proposal !== seat.seat.proposal) { seat.seat = x.seat; renderGame(clockView.view); }
      } catch (e) { /* the next poll tries again */ }
    }
  }, 1000));
}

// The SFEN of a position as `parseSfen` reads it.
function toSfen(pos) {
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

const EDIT_PIECES = ['K', 'R', 'B', 'G', 'S', 'N', 'L', 'P', '+R', '+B', '+S', '+N', '+L', '+P'];

// The board editor: a palette (both sides' pieces, an eraser), the board, both hands with
// − and + buttons, the side to move. `changed(pos)` after every edit.
function editorEl(edit, changed) {
  const redraw = () => { slot.replaceChildren(body()); changed(edit.pos); };
  const tool = (id, label, selected) => el('button', { type: 'button', class: `tool${selected ? ' selected' : ''}`,
    'data-tool': id, onclick: () => { edit.tool = id; slot.replaceChildren(body()); } }, label);
  const body = () => {
    const palette = el('div', { class: 'palette', id: 'palette' },
      ['b', 'w'].map((c) => el('div', {}, `${c === 'b' ? '☗' : '☖'} `,
        EDIT_PIECES.map((k) => tool(`${c}${k}`, glyph(k, c), edit.tool === `${c}${k}`)))),
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
      HAND_ORDER.map((k) => el('span', { class: 'count' }, glyph(k),
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

const START_SFEN = 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1';

function showCalculator() {
  const q = new URLSearchParams(location.hash.split('?')[1] || '');
  const sfen = el('input', { type: 'text', id: 'sfen', value: q.get('sfen') || 'startpos' });
  const moves = el('input', { type: 'text', id: 'moves-input', value: q.get('moves') || '' });
  const out = el('div', { id: 'result' });
  const editing = el('div', { id: 'editing' });
  let lenient = false;
  const run = async () => {
    out.replaceChildren();
    try {
      const r = await api('POST', '/api/impasse', JSON.stringify({ sfen: sfen.value.trim(), moves: moves.value.trim(), lenient }));
      out.replaceChildren(el('div', { class: 'game' }, lenient ? null : boardEl(parseSfen(r.sfen), null, r[r.turn].in_check),
        el('div', { class: 'panel' }, impasseEl(r))));
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, errorText(e))); }
  };
  // The editor starts from the position asked about (its moves played), and every edit
  // asks again (leniently: a position being set up may lack a king for a while).
  const edit = async () => {
    let start = sfen.value.trim();
    try {
      const r = await api('POST', '/api/impasse', JSON.stringify({ sfen: start, moves: moves.value.trim(), lenient: true }));
      start = r.sfen;
    } catch (e) { start = START_SFEN; }
    lenient = true;
    moves.value = '';
    const state = { pos: parseSfen(start), tool: null };
    // A board without a king is counted leniently, and the page says so.
    const warning = el('p', { class: 'note', id: 'king-warning' });
    const sayKings = (pos) => {
      const missing = ['b', 'w'].filter((c) => !pos.board.some((row) => row.some((p) => p && p.piece === 'K' && p.color === c)));
      warning.textContent = missing.length ? t('noKing', { sides: missing.map(sideName).join(settings.lang === 'ja' ? '・' : ' and ') }) : '';
    };
    editing.replaceChildren(editorEl(state, (pos) => { sfen.value = toSfen(pos); sayKings(pos); run(); }), warning);
    sayKings(state.pos);
    sfen.value = toSfen(state.pos);
    run();
  };
  main().replaceChildren(el('h2', {}, t('calculator')),
    el('label', { for: 'sfen' }, t('sfen')), sfen,
    el('label', { for: 'moves-input' }, t('movesInput')), moves,
    el('p', {}, el('button', { type: 'button', id: 'calculate', onclick: run }, t('calculate')), ' ',
      el('button', { type: 'button', id: 'edit', onclick: edit }, t('editBoard'))), editing, out);
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
    } catch (e) { out.append(el('p', { class: 'error', id: 'error' }, errorText(e))); }
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
  playing = null;
  if (hash.startsWith('/game/')) showGame(decodeURIComponent(hash.slice(6)));
  else if (hash.startsWith('/play')) showPlayForm().catch(showError);
  else if (hash.startsWith('/seat/')) showSeat(hash.slice(6));
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
