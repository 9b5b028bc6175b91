// Catalog: search as the API does, play previews, and build a clip: preview its plan on the
// waveform and download it, charged to the account's key chosen above (by id: the page never
// has a key's secret).
import { request } from './api.js';
import { renderLayout } from './layout.js';
import { el, show } from './dom.js';
import { drawWaveform } from './waveform.js';
import { count, errorText, planText, trackTime } from './wording.js';

// Spec 2.6's parent genres: what filters.genres accepts.
const GENRES = ['Acoustic', 'Ambient', 'Beats', 'Blues', 'Brass & Marching Band', "Children's Music", 'Cinematic', 'Classical', 'Comedy', 'Country', 'Dance', 'Disco', 'Downtempo', 'Easy Listening', 'Electronic', 'Electronica', 'Experimental', 'Fanfares', 'Folk', 'Funk', 'Hip Hop', 'House', 'Jazz', 'Latin', 'Metal', 'Pop', 'Punk', 'R&B', 'Reggae', 'Religious Music', 'Rock', 'Singer-Songwriter', 'Soul', 'Special Occasions', 'World'];
const RESULTS_PER_SEARCH = 20;

await renderLayout();
const keySelect = document.getElementById('paying-key');
const searchMessage = document.getElementById('search-message');
const clipMessage = document.getElementById('clip-message');
const canvas = document.getElementById('waveform');
document.getElementById('genre').append(...GENRES.map((g) => el('option', { value: g }, g)));

const { keys } = await request('/dashboard/api/keys');
const active = keys.filter((k) => k.status === 'active');
keySelect.append(...active.map((k) => el('option', { value: String(k.id) }, `${k.name} (${k.prefix}…, ${count(k.credits, 'credit')})`)));
if (active.length === 0) show(searchMessage, 'You have no active key: create one on the API keys page first.');

const keyed = (path) => `/dashboard/api/catalog${path}${path.includes('?') ? '&' : '?'}key_id=${encodeURIComponent(keySelect.value)}`;
const state = { track: undefined, analysis: undefined };

function filters() {
  const f = {};
  const value = (id) => document.getElementById(id).value.trim();
  if (value('genre')) f.genres = [value('genre')];
  if (value('energy')) f.energy_level = value('energy');
  if (value('vocals')) f.has_vocals = value('vocals') === 'true';
  if (value('min-bpm')) f.min_bpm = Number(value('min-bpm'));
  if (value('max-bpm')) f.max_bpm = Number(value('max-bpm'));
  return f;
}

/** The preview link as a path of this origin (the API's base URL may name another host). */
function previewPath(url) {
  const parsed = new URL(url, location.href);
  return parsed.pathname + parsed.search;
}

function trackItem(track) {
  const build = el('button', { type: 'button', className: 'secondary' }, 'Build a clip');
  build.setAttribute('aria-label', `Build a clip of ${track.title}`);
  build.addEventListener('click', () => openBuilder(track));
  const facts = [track.artist, track.genre, track.bpm && `${Math.round(track.bpm)} BPM`, `${Math.round(track.duration_seconds)} s`].filter(Boolean).join(' · ');
  const audio = track.preview_url ? el('audio', { controls: true, preload: 'none', src: previewPath(track.preview_url), 'aria-label': `Preview of ${track.title}` }) : undefined;
  return el('li', { dataset: { trackId: track.id } }, el('h3', {}, track.title), el('p', { className: 'meta' }, facts), audio, build);
}

document.getElementById('search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const query = document.getElementById('query').value.trim();
  if (!query) return show(searchMessage, 'Describe the music you need.');
  try {
    const result = await request(keyed('/search'), { method: 'POST', body: { query, limit: RESULTS_PER_SEARCH, filters: filters() } });
    document.getElementById('results').replaceChildren(...result.tracks.map(trackItem));
    document.getElementById('results-summary').textContent = `${count(result.total_count, 'track matches', 'tracks match')}; ${count(result.credits_remaining, 'credit')} left on this key.`;
    show(searchMessage, '', 'success');
  } catch (err) {
    show(searchMessage, errorText(err));
  }
});

async function openBuilder(track) {
  state.track = track;
  const builder = document.getElementById('builder');
  builder.hidden = false;
  document.getElementById('builder-track').textContent = `${track.title} by ${track.artist}`;
  document.getElementById('clip-result').hidden = true;
  document.getElementById('plan-summary').textContent = '';
  try {
    state.analysis = await request(keyed(`/tracks/${encodeURIComponent(track.id)}/analysis`), { csrf: true });
    drawWaveform(canvas, state.analysis);
    canvas.setAttribute('aria-label', `Waveform of ${track.title}: ${trackTime(state.analysis.duration_seconds)} long, its climax at ${trackTime(state.analysis.peak_seconds)}`);
  } catch (err) {
    show(clipMessage, errorText(err));
  }
  builder.focus();
}

function clipBody() {
  const body = { track_id: state.track.id, duration_seconds: Number(document.getElementById('duration').value), mode: document.getElementById('mode').value };
  const hit = document.getElementById('hit-point').value.trim();
  if (hit !== '') body.hit_point_seconds = Number(hit);
  return body;
}

document.getElementById('preview-plan').addEventListener('click', async () => {
  try {
    const plan = await request(keyed('/clip-plan'), { method: 'POST', body: clipBody() });
    drawWaveform(canvas, state.analysis, plan);
    document.getElementById('plan-summary').textContent = planText(plan);
    show(clipMessage, '', 'success');
  } catch (err) {
    show(clipMessage, errorText(err));
  }
});

document.getElementById('clip-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = document.getElementById('download');
  button.disabled = true;
  try {
    const response = await request(keyed('/download-track'), { method: 'POST', body: clipBody(), raw: true });
    const url = URL.createObjectURL(await response.blob());
    document.getElementById('clip-audio').src = url;
    const save = document.getElementById('clip-save');
    save.href = url;
    save.download = `${state.track.title}.mp3`;
    const creditsLeft = count(Number(response.headers.get('X-Credits-Remaining')), 'credit');
    document.getElementById('clip-info').textContent = `Clip ready: ${response.headers.get('X-Track-Duration')} s, license ${response.headers.get('X-License-Id')}, ${creditsLeft} left on this key.`;
    document.getElementById('clip-result').hidden = false;
    show(clipMessage, '', 'success');
  } catch (err) {
    show(clipMessage, errorText(err));
  } finally {
    button.disabled = false;
  }
});
