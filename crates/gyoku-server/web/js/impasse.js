// The impasse panel: each side's count and the verdict under every rule set. On a game's
// page it folds (`fold` keeps the reader's open or closed across live views).

import { el } from './dom.js';
import { DECL_FAILURES, REASONS, RULES, sideName, t, VERDICTS, word } from './i18n.js';

export function impasseEl(r, fold) {
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
      el('td', {}, word(RULES, name)),
      el('td', {}, v.declaration_failure
        ? `${word(VERDICTS, v.declaration)}: ${word(DECL_FAILURES, v.declaration_failure)}` : word(VERDICTS, v.declaration)),
      el('td', {}, word(VERDICTS, v.agreement)), el('td', {}, v.ended ? word(REASONS, v.ended) : '-'))));
  const mate = r.mate_by ? mateEl(r.mate_by) : null;
  if (!fold) return el('div', { class: 'impasse', id: 'impasse' }, el('h3', {}, t('impasse')), counts, mate, verdicts);
  // On a game's page the panel is folded until a king enters the zone, or it is opened.
  const attrs = { class: 'impasse', id: 'impasse' };
  const opened = fold.impasseOpen;
  if (opened === true || (opened === null && (r.black.entered || r.white.entered))) attrs.open = 'open';
  const summary = el('summary', {}, t('impasse'));
  // The reader's own choice (a click on the title) is kept across the live views.
  summary.addEventListener('click', () => { fold.impasseOpen = !panel.open; });
  const panel = el('details', attrs, summary, counts, mate, verdicts);
  return panel;
}

// Article 9's condition: whether each side can still mate the other's king by checks.
function mateEl(m) {
  const said = (s) => {
    const r = m[s];
    if (r.result === 'mate') return `${t('mateFound', { n: r.plies })}: ${r.line.slice(0, 12).join(' ')}${r.line.length > 12 ? ' …' : ''}`;
    return t(r.result === 'no_mate' ? 'mateNone' : 'mateUnknown');
  };
  return el('table', { class: 'mate', id: 'mate' },
    el('tr', {}, el('th', { colspan: '2' }, t('canMate', { n: m.nodes_each }))),
    ['black', 'white'].map((s) => el('tr', { 'data-side': s, 'data-result': m[s].result },
      el('td', {}, sideName(s)), el('td', {}, said(s)))));
}
