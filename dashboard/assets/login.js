// Sign-in: the form's CSRF token comes with a cookie from /dashboard/api/login-token (double submit).
import { ApiFailure, request } from './api.js';
import { show } from './dom.js';

const form = document.getElementById('login');
const message = document.getElementById('login-message');
const tokenReady = request('/dashboard/api/login-token', { csrf: false });

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = form.email.value.trim();
  const password = form.password.value;
  if (!email || !password) return show(message, 'Enter your email and password.');
  const button = form.querySelector('button');
  button.disabled = true;
  try {
    const { csrf_token } = await tokenReady;
    const session = await request('/dashboard/api/login', { method: 'POST', body: { email, password }, csrfToken: csrf_token });
    location.assign(session.must_change_password ? '/dashboard/password' : '/dashboard');
  } catch (err) {
    show(message, err instanceof ApiFailure ? err.message : 'Could not reach the server; try again.');
    form.password.select();
  } finally {
    button.disabled = false;
  }
});
