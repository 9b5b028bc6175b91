// API keys: create one with a name (the whole key shown once, wrapped to fit, with a copy button), list them,
// revoke one after a confirmation dialog.
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { el, row, show, when } from './dom.js';
import { errorText } from './wording.js';

await renderLayout();
const tbody = document.querySelector('#keys tbody');
const message = document.getElementById('keys-message');
const dialog = document.getElementById('confirm-revoke');
const LABELS = ['Name', 'Prefix', 'Created', 'Last used', 'Status', 'Actions'];
const NO_KEYS = 'No keys yet.';

function confirmRevoke(key) {
  document.getElementById('revoke-text').textContent = `"${key.name}" (${key.prefix}…) stops working at once, for every program using it. This cannot be undone.`;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'revoke'), { once: true }));
}

async function revoke(key) {
  if (!(await confirmRevoke(key))) return;
  try {
    await request(`/dashboard/api/keys/${key.id}/revoke`, { method: 'POST' });
    show(message, `Key "${key.name}" revoked.`, 'success');
    await load();
  } catch (err) {
    show(message, errorText(err));
  }
}

function keyRow(key) {
  const action = key.status === 'active' ? el('button', { type: 'button', className: 'danger' }, 'Revoke') : '';
  if (action) {
    action.setAttribute('aria-label', `Revoke key ${key.name}`);
    action.addEventListener('click', () => revoke(key));
  }
  return row(LABELS, [key.name, el('code', {}, key.prefix), when(key.created_at), when(key.last_used_at), el('span', { className: `status-${key.status}` }, key.status), action]);
}

async function load() {
  const { keys } = await request('/dashboard/api/keys');
  tbody.replaceChildren(...keys.map(keyRow));
  if (keys.length === 0) show(message, NO_KEYS, 'success');
  else if (message.textContent === NO_KEYS) show(message, '', 'success');
}

const form = document.getElementById('create-key');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = document.getElementById('key-name').value.trim();
  const createMessage = document.getElementById('create-message');
  if (!name) return show(createMessage, 'Give the key a name.');
  try {
    const created = await request('/dashboard/api/keys', { method: 'POST', body: { name } });
    form.reset();
    show(createMessage, '', 'success');
    const box = document.getElementById('new-key');
    document.getElementById('new-key-value').textContent = created.key;
    box.hidden = false;
    box.focus();
    await load();
  } catch (err) {
    show(createMessage, errorText(err));
  }
});

document.getElementById('copy-key').addEventListener('click', async () => {
  const key = document.getElementById('new-key-value');
  const status = document.getElementById('copy-message');
  try {
    await navigator.clipboard.writeText(key.textContent);
    status.textContent = 'Copied.';
  } catch {
    // No clipboard permission (plain http): the key selected for Ctrl+C.
    const range = document.createRange();
    range.selectNodeContents(key);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    status.textContent = document.execCommand('copy') ? 'Copied.' : 'Selected: press Ctrl+C to copy.';
  }
});

await load();
