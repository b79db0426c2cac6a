// The impasse calculator and the judge.

import { recordAnalysisEl } from './analysis.js';
import { boardEl, editorEl } from './board.js';
import { api, el } from './dom.js';
import { endingText, errorText, FOULS, RULES, settings, sideName, t, word } from './i18n.js';
import { impasseEl } from './impasse.js';
import { main } from './page.js';
import { applyUsi, parseSfen, START_SFEN, toSfen } from './position.js';

const PRESETS = ['csa', 'jsa', 'jsa-amateur', '81dojo', 'lishogi', 'friendly', 'try', 'shogi-wars', 'saw', 'none', 'csa24', 'csa24h', 'csa27h', 'wcsc', 'denryu', 'floodgate'];

export function showCalculator() {
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
      const r = await api('POST', '/api/impasse', JSON.stringify({ sfen: start, moves: moves.value.trim(), lenient: true, mate_nodes: 0 }));
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

export function showJudge() {
  const rules = el('select', { id: 'rules' }, PRESETS.map((p) => el('option', { value: p }, word(RULES, p))));
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
  // A record pasted as text (sent as UTF-8; the reader finds the format).
  const text = el('textarea', { id: 'record-text', rows: '8', cols: '60', spellcheck: 'false' });
  const judgeText = el('button', { type: 'button', id: 'judge-text', onclick: () => {
    if (!text.value.trim()) return;
    upload = new TextEncoder().encode(text.value).buffer;
    judge();
  } }, t('judgeText'));
  rules.addEventListener('change', judge);
  main().replaceChildren(el('h2', {}, t('judge')), el('label', { for: 'rules' }, t('rules')), rules, drop,
    el('div', { class: 'paste' }, el('label', { for: 'record-text' }, t('pasteRecord')), el('br'), text, el('br'), judgeText), out);
}

function showJudged(out, v, upload) {
  const r = v.records[0];
  const positions = [parseSfen(r.start_sfen)];
  r.moves.forEach((m) => positions.push(applyUsi(positions[positions.length - 1], m)));
  const view = el('div', { class: 'boardslot' });
  const slider = el('input', { type: 'range', id: 'ply', min: '0', max: String(r.moves.length), value: String(r.moves.length) });
  const label = el('span', { id: 'ply-label' });
  const list = el('div', { class: 'moves', id: 'moves' },
    r.moves.map((m, i) => el('span', { 'data-ply': i + 1, onclick: () => { slider.value = String(i + 1); show(); } }, `${i + 1} ${(settings.glyphs !== 'kanji' ? r.moves_western : r.moves_ki2)[i]}`)),
    r.foul ? el('span', { class: 'foul', id: 'foul' }, t('foulAt', { ply: r.foul.ply, move: r.foul.move, kind: word(FOULS, r.foul.kind) })) : null);
  // The record's analysis, once asked for (on a server with an analysis engine).
  const analysisBox = el('div', {});
  const show = () => {
    const k = +slider.value;
    view.replaceChildren(boardEl(positions[k], k ? r.moves[k - 1] : null, false));
    analysisBox.replaceChildren(recordAnalysisEl(r, upload, v.rules, k, (ply) => { slider.value = String(ply); show(); }, show));
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
    // Why it differs, in the judge's words (English: the API's sentence).
    r.why ? el('p', { class: 'note', id: 'why' }, r.why) : '',
    r.damaged ? el('p', { class: 'note', id: 'damaged' }, t('damagedAt', { line: r.damaged.line, what: r.damaged.what })) : '',
    el('div', { class: 'game' }, el('div', {}, view, el('p', {}, slider, ' ', label)),
      el('div', { class: 'panel' }, el('h3', {}, t('moves')), list,
        el('p', {}, `${t('download')}: `, downloads), analysisBox))));
  slider.addEventListener('input', show);
  show();
}
