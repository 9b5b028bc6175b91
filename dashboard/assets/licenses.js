// Licenses: those granted by the account's downloads, each linked to its certificate's page.
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { el, row, show, when } from './dom.js';
import { createPager } from './pager.js';
import { count, errorText, trackTime } from './wording.js';

const PAGE_SIZE = 20;
const LABELS = ['License', 'Track', 'Clip', 'Key', 'Granted'];
await renderLayout();
const message = document.getElementById('licenses-message');

function clipText(clip) {
  if (!clip) return 'full track';
  const hit = clip.hit_point_seconds === null ? '' : `, climax at ${clip.hit_point_seconds} s`;
  return `${clip.duration_seconds} s from ${trackTime(clip.start_seconds ?? 0)}${hit}`;
}

async function load(offset, limit) {
  try {
    const page = await request(`/dashboard/api/licenses?limit=${limit}&offset=${offset}`);
    document.querySelector('#licenses tbody').replaceChildren(...page.licenses.map((l) => row(LABELS, [
      el('a', { href: `/dashboard/certificate?id=${encodeURIComponent(l.license_id)}`, 'aria-label': `Certificate of license ${l.license_id}` }, l.license_id),
      `${l.title} by ${l.artist}`, clipText(l.clip), `${l.key.name} (${l.key.prefix}…)`, when(l.granted_at),
    ])));
    document.getElementById('licenses-summary').textContent = `${count(page.total_count, 'license')}.`;
    return page.total_count;
  } catch (err) {
    show(message, errorText(err));
    return 0;
  }
}

await createPager(PAGE_SIZE, load).reload();
