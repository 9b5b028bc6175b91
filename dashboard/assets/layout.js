// The header of every signed-in page: the pages, the account and a sign-out button.
import { currentSession, request } from './api.js';
import { el } from './dom.js';

const PAGES = [
  ['/dashboard', 'Overview'],
  ['/dashboard/keys', 'API keys'],
  ['/dashboard/usage', 'Usage'],
  ['/dashboard/licenses', 'Licenses'],
  ['/dashboard/catalog', 'Catalog'],
  ['/dashboard/password', 'Password'],
];

export async function renderLayout() {
  const header = document.querySelector('header.top');
  const session = await currentSession();
  const links = PAGES.map(([href, label]) => {
    const link = el('a', { href }, label);
    if (href === location.pathname) link.setAttribute('aria-current', 'page');
    return el('li', {}, link);
  });
  const signOut = el('button', { type: 'button', className: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', async () => {
    await request('/dashboard/api/logout', { method: 'POST' });
    location.assign('/dashboard/login');
  });
  header.replaceChildren(
    el('span', { className: 'brand' }, 'Music Licensing'),
    el('nav', { 'aria-label': 'Dashboard pages' }, el('ul', {}, ...links)),
    el('div', { className: 'account' }, el('span', {}, session.email), signOut),
  );
  return session;
}
