// People's accounts: register, log in and out, change the password. The session is a
// cookie the page never reads (HttpOnly); `GET /api/session` says who is logged in.

import { api, el } from './dom.js';
import { errorText, t } from './i18n.js';
import { main, showError } from './page.js';

/** Who is logged in (`null` for a guest), as the server last said; `accounts` is false on a
 *  server that keeps none. */
export const me = { name: null, accounts: false };

/** Asks the server who is logged in, and says so in the header. */
export async function refreshAccount() {
  try {
    const s = await api('GET', '/api/session');
    me.name = s.name;
    me.accounts = s.accounts;
  } catch (_) {
    me.name = null;
  }
  const link = document.getElementById('account-link');
  if (link) link.textContent = me.name ? me.name : t('logIn');
}

/** A labelled input. */
function input(id, label, type) {
  const i = el('input', { id, type, autocomplete: type === 'password' ? 'current-password' : 'username' });
  return [i, el('div', {}, el('label', { for: id }, label), i)];
}

/** A form: its fields, its button, and what the button does (its error shown under it). */
function form(id, title, fields, button, act) {
  const out = el('div', {});
  const go = el('button', { type: 'button', id }, button);
  go.addEventListener('click', async () => {
    out.replaceChildren();
    try { await act(); } catch (e) { out.append(el('p', { class: 'error', id: `${id}-error` }, errorText(e))); }
  });
  return el('section', { class: 'account-form' }, el('h3', {}, title), ...fields, el('p', {}, go), out);
}

async function showAccountPage() {
  await refreshAccount();
  if (!me.accounts) {
    main().replaceChildren(el('p', { class: 'note' }, t('noAccounts')));
    return;
  }
  if (me.name) {
    const [old, oldField] = input('old-password', t('passwordNow'), 'password');
    const [fresh, freshField] = input('new-password', t('newPassword'), 'password');
    const done = el('p', { class: 'status', id: 'password-changed' });
    const change = form('change-password', t('changePassword'), [oldField, freshField], t('changePassword'), async () => {
      await api('POST', '/api/account/password', JSON.stringify({ password: old.value, new_password: fresh.value }));
      old.value = '';
      fresh.value = '';
      done.textContent = t('passwordChanged');
    });
    const out = el('button', { type: 'button', id: 'log-out' }, t('logOut'));
    out.addEventListener('click', async () => {
      await api('DELETE', '/api/session');
      await refreshAccount();
      showAccountPage().catch(showError);
    });
    main().replaceChildren(
      el('h2', { id: 'logged-in' }, t('loggedInAs', { name: me.name })),
      el('p', {}, el('a', { href: `#/player/${encodeURIComponent(me.name)}`, id: 'my-page' }, t('myPage')), ' · ',
        el('a', { href: '#/play' }, t('play'))),
      el('p', { class: 'note' }, t('ratedNote')),
      change, done, el('p', {}, out));
    return;
  }
  const [regName, regNameField] = input('reg-name', t('accountName'), 'text');
  const [regPassword, regPasswordField] = input('reg-password', t('password'), 'password');
  regPassword.autocomplete = 'new-password';
  const [name, nameField] = input('login-name', t('accountName'), 'text');
  const [password, passwordField] = input('login-password', t('password'), 'password');
  const enter = async (path, n, p) => {
    await api('POST', path, JSON.stringify({ name: n.value.trim(), password: p.value }));
    await refreshAccount();
    showAccountPage().catch(showError);
  };
  main().replaceChildren(el('h2', {}, t('account')),
    el('p', { class: 'note' }, t('accountNote')),
    form('log-in', t('logIn'), [nameField, passwordField], t('logIn'), () => enter('/api/session', name, password)),
    form('register', t('register'), [regNameField, regPasswordField], t('register'),
      () => enter('/api/accounts', regName, regPassword)));
}

export function showAccount() {
  showAccountPage().catch(showError);
}
