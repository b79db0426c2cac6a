// Pieces and rank names drawn as SVG from outlines the page carries (./glyphs.js), so that
// the board looks the same on a machine with no Japanese font. The text each one stands for
// is its `aria-label`.

import { GLYPHS } from './glyphs.js';
import { settings } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

const KANJI = { P: '歩', L: '香', N: '桂', S: '銀', G: '金', B: '角', R: '飛', K: '玉',
  '+P': 'と', '+L': '杏', '+N': '圭', '+S': '全', '+B': '馬', '+R': '龍' };

/** A piece's name as the page shows it: kanji (玉 for Black's king, 王 for White's) or
 *  letters (`+P` for a promoted pawn), as the reader chose. */
export function pieceText(piece, color) {
  if (settings.glyphs !== 'kanji') return piece;
  return piece === 'K' && color === 'w' ? '王' : KANJI[piece];
}

function svgEl(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// `text` laid out from its outlines in a 100-unit box: `size` units per em, centred on
// (`cx`, `cy`), narrowed to `maxWidth` if it is wider.
function textPaths(text, { size, cx, cy, maxWidth, fill }) {
  const chars = [...text];
  const width = chars.reduce((w, c) => w + GLYPHS[c].w, 0);
  const scale = Math.min(size / 1000, maxWidth / width);
  let x = 0;
  const paths = chars.map((c) => {
    const p = svgEl('path', { d: GLYPHS[c].d, transform: `translate(${x} 0)` });
    x += GLYPHS[c].w;
    return p;
  });
  const left = cx - (width * scale) / 2;
  const top = cy - (1000 * scale) / 2;
  return svgEl('g', { transform: `translate(${left} ${top}) scale(${scale})`, fill }, ...paths);
}

// A piece's outline: point up, wider at the base.
const SHAPE = 'M50 5L79 16L89 95H11L21 16Z';

/** A piece as an image: its five-sided shape and its name, red when promoted. The caller
 *  turns White's round (the `white` class of its square). */
export function pieceEl(piece, color) {
  const text = pieceText(piece, color);
  const fill = piece.startsWith('+') ? '#b00' : '#111';
  const letters = settings.glyphs !== 'kanji';
  const image = svgEl('svg', { viewBox: '0 0 100 100', 'aria-hidden': 'true', focusable: 'false' },
    svgEl('path', { d: SHAPE, class: 'shape' }),
    textPaths(text, { size: letters ? 62 : 60, cx: 50, cy: 58, maxWidth: 70, fill }));
  return labelled(image, text, 'piece');
}

function labelled(image, text, className) {
  const span = document.createElement('span');
  span.className = className;
  span.setAttribute('role', 'img');
  span.setAttribute('aria-label', text);
  span.append(image);
  return span;
}

/** Characters (any of those in ./glyphs.js) as an image the height of the text around it,
 *  labelled with their text. */
export function charsEl(text, className = 'chars') {
  const image = svgEl('svg', { viewBox: `0 0 ${100 * [...text].length} 100`, 'aria-hidden': 'true', focusable: 'false' },
    textPaths(text, { size: 100, cx: 50 * [...text].length, cy: 50, maxWidth: 100 * [...text].length, fill: 'currentColor' }));
  return labelled(image, text, className);
}

/** A rank's name as the page shows it: 一 to 九 as an image, or a letter (a to i). */
export function rankEl(index) {
  if (settings.glyphs !== 'kanji') return Object.assign(document.createElement('span'), { textContent: 'abcdefghi'[index] });
  return charsEl('一二三四五六七八九'[index], 'rank chars');
}
