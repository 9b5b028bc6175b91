// Overview: the account's tier, its active keys' credits and limits, requests today and this
// month, and the 30-day chart (with the same figures as a table).
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { number, row, show } from './dom.js';
import { drawUsageChart } from './chart.js';
import { errorText } from './wording.js';

await renderLayout();
try {
  const overview = await request('/dashboard/api/overview');
  document.getElementById('tier').textContent = overview.tier;
  document.getElementById('credits').textContent = number(overview.keys.reduce((sum, k) => sum + k.credits, 0));
  document.getElementById('requests-today').textContent = number(overview.requests_today);
  document.getElementById('requests-month').textContent = number(overview.requests_this_month);
  document.getElementById('chart').replaceChildren(drawUsageChart(overview.daily));
  const dayLabels = ['Day (UTC)', 'Requests', 'Credits'];
  document.querySelector('#chart-table tbody').replaceChildren(...overview.daily.map((d) => row(dayLabels, [d.day, String(d.requests), String(d.credits)])));
  const labels = ['Name', 'Tier', 'Credits left', 'Monthly allowance', 'Per minute', 'Per day'];
  document.querySelector('#key-limits tbody').replaceChildren(...overview.keys.map((k) => row(labels, [
    k.name, k.tier, number(k.credits), k.monthly_allowance === 0 ? 'none (one-time credits)' : number(k.monthly_allowance),
    number(k.rate_limit.requests_per_minute), number(k.rate_limit.requests_per_day),
  ])));
  if (overview.keys.length === 0) show(document.getElementById('overview-message'), 'No active keys yet: create one on the API keys page.', 'success');
} catch (err) {
  show(document.getElementById('overview-message'), errorText(err));
}
