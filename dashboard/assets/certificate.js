// One license's signed certificate as a page: what was licensed, what the license covers, the
// signature, and the signed document itself to download (the same JSON GET /licenses/{id} returns).
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { el, show, when } from './dom.js';
import { errorText, trackTime } from './wording.js';

await renderLayout();
const id = new URLSearchParams(location.search).get('id') ?? '';
const message = document.getElementById('certificate-message');

/** A definition list's entries: [term, value] with value text, a node, or a list of texts. */
function fill(list, entries) {
  list.replaceChildren(...entries.flatMap(([term, value]) => [
    el('dt', {}, term),
    el('dd', {}, Array.isArray(value) ? el('ul', {}, ...value.map((item) => el('li', {}, item))) : value),
  ]));
}

function clipText(clip) {
  if (!clip) return 'The full track';
  const hit = clip.hit_point_seconds === null ? '' : `, its climax at ${clip.hit_point_seconds} s`;
  return `${clip.duration_seconds} s starting at ${trackTime(clip.start_seconds ?? 0)} of the track${hit}`;
}

try {
  if (!/^lic_[A-Za-z0-9_-]+$/.test(id)) throw new Error('This page needs a license id: open it from the licenses page.');
  const signed = await request(`/dashboard/api/licenses/${encodeURIComponent(id)}`);
  const c = signed.certificate;
  document.getElementById('certificate-title').textContent = `License ${c.license_id}`;
  document.title = `License ${c.license_id} · Music Licensing dashboard`;
  fill(document.getElementById('certificate-facts'), [
    ['Track', `${c.title} by ${c.artist}`],
    ['Track id', el('code', {}, c.track_id)],
    ['Clip', clipText(c.clip)],
    ['Granted', when(c.granted_at)],
    ['To the key', el('code', {}, `${c.key_prefix}…`)],
    ['Issuer', c.issuer],
  ]);
  fill(document.getElementById('certificate-scope'), [
    ['License', c.scope.license],
    ['Term', c.scope.term],
    ['Territory', c.scope.territory],
    ['Audience', c.scope.audience],
    ['Covered uses', c.scope.covered_uses],
    ['Not covered', c.scope.excluded_uses],
  ]);
  fill(document.getElementById('certificate-signature'), [
    ['Algorithm', signed.algorithm],
    ['Key id', el('code', {}, signed.key_id)],
    ['Signature', el('code', {}, signed.signature)],
    ['Format', el('code', {}, c.format)],
  ]);
  const download = document.getElementById('certificate-download');
  download.href = URL.createObjectURL(new Blob([`${JSON.stringify(signed, null, 2)}\n`], { type: 'application/json' }));
  download.download = `${c.license_id}.json`;
  document.getElementById('certificate').hidden = false;
} catch (err) {
  show(message, errorText(err));
}
