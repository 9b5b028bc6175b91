// Changing the password (first of all after signing in with a one-time password).
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { show } from './dom.js';
import { errorText } from './wording.js';

const session = await renderLayout();
document.getElementById('must-change').hidden = !session.must_change_password;
const form = document.getElementById('password-form');
const message = document.getElementById('password-message');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const current = document.getElementById('current').value;
  const next = document.getElementById('new').value;
  if (next !== document.getElementById('confirm').value) return show(message, 'The two new passwords differ.');
  try {
    await request('/dashboard/api/password', { method: 'POST', body: { current_password: current, new_password: next } });
    form.reset();
    show(message, 'Password changed. Other sessions of this account are signed out.', 'success');
    if (session.must_change_password) location.assign('/dashboard');
  } catch (err) {
    show(message, errorText(err));
  }
});
