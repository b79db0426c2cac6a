// What every page shares: the main element, the live streams and timers a page leaves
// behind, the game on screen and the seat played from it (`window.gyoku`, which the
// end-to-end test reads).

import { el } from './dom.js';
import { errorText } from './i18n.js';

// The page's state: the game on screen (`clockView`: its view and when it came, counted
// down between views), the seat played from this page (`playing`, null when watching),
// the event streams and timers to stop on leaving, and `show(view)`, which draws a game
// (set by game.js).
export const page = {
  clockView: null,
  playing: null,
  streams: [],
  timers: [],
  show: (_view) => {},
};
window.gyoku = page;

export const main = () => document.getElementById('main');

export function leave() {
  page.streams.forEach((s) => s.close());
  page.timers.forEach((x) => clearInterval(x));
  page.streams = [];
  page.timers = [];
}

export function showError(e) {
  main().append(el('p', { class: 'error', id: 'error' }, errorText(e)));
}
