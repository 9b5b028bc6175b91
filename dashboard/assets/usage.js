// Usage: the account's request history, newest first, paged and filtered by key, endpoint, status.
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { el, row, show, when } from './dom.js';
import { createPager } from './pager.js';
import { count, errorText } from './wording.js';

const PAGE_SIZE = 25;
const LABELS = ['Time', 'Key', 'Endpoint', 'Status', 'Credits', 'ms'];
await renderLayout();
const keySelect = document.getElementById('filter-key');
const endpointSelect = document.getElementById('filter-endpoint');
const status = document.getElementById('filter-status');
const message = document.getElementById('usage-message');

const { keys } = await request('/dashboard/api/keys');
keySelect.append(...keys.map((k) => el('option', { value: String(k.id) }, `${k.name} (${k.prefix}…)`)));

function endpointChoices(endpoints) {
  const chosen = endpointSelect.value;
  endpointSelect.replaceChildren(el('option', { value: '' }, 'All endpoints'), ...endpoints.map((e) => el('option', { value: e }, e)));
  endpointSelect.value = endpoints.includes(chosen) ? chosen : '';
}

async function load(offset, limit) {
  const query = new URLSearchParams({ limit: String(limit), offset: String(offset) });
  if (keySelect.value) query.set('key_id', keySelect.value);
  if (endpointSelect.value) query.set('endpoint', endpointSelect.value);
  if (status.value.trim()) query.set('status', status.value.trim());
  try {
    const page = await request(`/dashboard/api/usage?${query}`);
    endpointChoices(page.endpoints);
    document.querySelector('#usage tbody').replaceChildren(...page.usage.map((u) => row(LABELS, [
      when(u.timestamp), `${u.key.name} (${u.key.prefix}…)`, el('code', {}, u.endpoint), String(u.status_code), String(u.credits_consumed), String(u.response_time_ms),
    ])));
    document.getElementById('usage-summary').textContent = `${count(page.total_count, 'request matches', 'requests match')}.`;
    show(message, '', 'success');
    return page.total_count;
  } catch (err) {
    show(message, errorText(err));
    return 0;
  }
}

const pager = createPager(PAGE_SIZE, load);
document.getElementById('usage-filter').addEventListener('submit', (event) => {
  event.preventDefault();
  pager.reload();
});
await pager.reload();
