// Gyoku's web page: watch the server's games live, play, ask the impasse calculator,
// judge a record. No build step: ES modules on the JSON API (`/api/...`), served by
// `gyoku serve` from its own binary. The board is drawn here (lishogi's shogiground is
// GPL-3.0; Gyoku is MIT).

import { refreshAccount, showAccount } from './account.js';
import { showGame } from './game.js';
import { showGames } from './games.js';
import { showEventsPage } from './events.js';
import { showPlayerPage, showRatingsPage } from './league.js';
import { settings, t } from './i18n.js';
import { leave, page, showError } from './page.js';
import { charsEl } from './pieces.js';
import { showMySeat, showPlayForm, showSeat } from './play.js';
import { showTestsPage } from './tests.js';
import { showCalculator, showJudge } from './tools.js';

function route() {
  leave();
  const hash = location.hash.slice(1) || '/';
  document.documentElement.lang = settings.lang;
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = t(e.dataset.t); });
  document.getElementById('lang').textContent = settings.lang === 'ja' ? 'English' : '日本語';
  document.getElementById('glyphs').replaceChildren(settings.glyphs === 'kanji' ? 'P' : charsEl('歩'));
  page.playing = null;
  document.title = 'Gyoku';
  refreshAccount();
  if (hash.startsWith('/game/')) showGame(decodeURIComponent(hash.slice(6)));
  // `/player/` before `/play`, which it starts with.
  else if (hash.startsWith('/player/')) showPlayerPage(hash.slice(8));
  else if (hash.startsWith('/play')) showPlayForm().catch(showError);
  else if (hash.startsWith('/seat/')) showSeat(hash.slice(6));
  else if (hash.startsWith('/my/')) showMySeat(hash.slice(4));
  else if (hash.startsWith('/calculator')) showCalculator();
  else if (hash.startsWith('/judge')) showJudge();
  else if (hash.startsWith('/ratings')) showRatingsPage();
  else if (hash.startsWith('/account')) showAccount();
  else if (hash.startsWith('/events')) showEventsPage(hash.slice(7));
  else if (hash.startsWith('/tests')) showTestsPage(hash.slice(6));
  else showGames();
}

document.getElementById('brand-mark').replaceWith(charsEl('玉'));
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
