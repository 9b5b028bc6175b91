// The dashboard in headless Chromium (issue 18), at phone width (375 px): sign in with a one-time
// password and choose a new one, create a key and use it against the API, revoke it and see 401,
// find the request in the usage page and the chart, search and play a preview, build a clip on
// the waveform and download it, read its license's certificate and download its JSON; a second
// account sees none of it; a call without the CSRF token is refused; five wrong passwords slow the
// form down. Every page loads nothing from another origin, logs no console error and gets no
// failed response but those a step causes on purpose (listed as it does), works with the
// keyboard, has a label for every field and no sideways scrolling. Screenshots of each page go to
// test-output/.
import { test, before, after } from 'node:test';
import { skipUnless } from './support/requirements.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from './support/server.ts';
import { chromiumMissing, launchChromium } from './support/chromium.ts';
import { API } from './support/http.ts';
import { climaxPiece, drumPattern } from './support/synth.ts';
import { ingestSignals } from './support/ingest.ts';
import { newAccount, TEST_PASSWORD } from './support/dashboard.ts';
import { createAccount } from '../billing/accounts.ts';
import { parseJwkSet, verifyCertificate } from '../billing/license-signature.ts';

const missing = skipUnless(!chromiumMissing(), 'chromium (apt-get install chromium)');
const OUTPUT_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../test-output');
const PHONE = { width: 375, height: 812 };
const STEP_TIMEOUT_MS = 30_000;
// A page with content is tens of KB as PNG; a blank one a few KB.
const MIN_SCREENSHOT_BYTES = 15_000;

let server: TestServer;
let browser: Browser;
const problems: string[] = [];
/** Failed responses a step causes on purpose, as "STATUS PATH"; any other is a problem. */
const expectedFailures = new Set<string>();

before(async () => {
  if (missing) return;
  server = await startTestServer();
  await ingestSignals({
    sql: server.service.database.sql, pool: server.service.engine, storage: server.service.storage,
    tracks: [
      { file: 'rise.mp3', signal: climaxPiece(120, 45, 25), metadata: { title: 'Rising Drums', artist: 'Test Artist', genre: 'Rock', moods: ['Energetic'], energy_level: 'high' } },
      { file: 'groove.mp3', signal: drumPattern(100, 40), metadata: { title: 'Steady Groove', artist: 'Test Artist', genre: 'Funk', moods: ['Groovy'] } },
    ],
  });
  browser = await launchChromium();
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A phone-sized context whose pages report other-origin requests, CSP violations and script errors. */
async function phone(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: PHONE });
  context.on('page', (page) => watch(page));
  return context;
}

function watch(page: Page) {
  const origin = new URL(server.base).origin;
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) problems.push(`request to another origin: ${r.url()}`);
  });
  const expected = (status: number | string, url: string) => expectedFailures.has(`${status} ${new URL(url).pathname}`);
  page.on('response', (r) => {
    if (r.status() >= 400 && !expected(r.status(), r.url())) problems.push(`${r.status()} for ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // Chromium logs each failed response once more, as "Failed to load resource: ... status of 404".
    const failed = /^Failed to load resource: the server responded with a status of (\d+)/.exec(m.text());
    if (failed && expected(failed[1], m.location().url)) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
}

async function screenshot(page: Page, name: string) {
  const file = path.join(OUTPUT_DIR, `dashboard-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  assert.ok(fs.statSync(file).size > MIN_SCREENSHOT_BYTES, `${file} is ${fs.statSync(file).size} bytes: an empty page?`);
}

/** Fields without a label, and whether the page scrolls sideways at phone width. */
async function checkPage(page: Page) {
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, button, canvas, audio')]
    .filter((e) => !(e as HTMLInputElement).labels?.length && !e.getAttribute('aria-label') && !(e.textContent ?? '').trim() && (e as HTMLElement).offsetParent !== null)
    .map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(unlabelled, [], `${page.url()}: fields without a label`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= PHONE.width, `${page.url()} is ${width} px wide at ${PHONE.width} px`);
}

/** Signs in with the keyboard alone: Tab between the fields, Enter to send. */
async function signInByKeyboard(page: Page, email: string, password: string) {
  await page.goto(`${server.base}/dashboard/login`);
  await page.keyboard.press('Tab'); // the skip link
  await page.keyboard.press('Tab');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
}

/** The key the page shows once, after it changed from `before`: all of it in view, none cut off or scrolled away. */
async function shownKey(page: Page, before = ''): Promise<string> {
  await page.waitForFunction((old) => {
    const value = document.getElementById('new-key-value')!.textContent ?? '';
    return value.startsWith('mla_') && value !== old;
  }, before, { timeout: STEP_TIMEOUT_MS });
  const shown = page.getByLabel('Key', { exact: true });
  const fits = await shown.evaluate((e) => {
    const box = e.getBoundingClientRect();
    return e.scrollWidth <= e.clientWidth && e.scrollHeight <= e.clientHeight && box.left >= 0 && box.right <= document.documentElement.clientWidth;
  });
  assert.ok(fits, 'the whole key is in view');
  return (await shown.textContent())!;
}

const me = (key: string) => fetch(`${server.base}${API}/me`, { headers: { authorization: `Bearer ${key}` } });

test('the whole dashboard at phone width: sign in, keys, usage, chart, catalog, clip, licenses', { skip: missing, timeout: 180_000 }, async () => {
  const created = (await createAccount(server.service.database.sql, { email: 'browser@example.com', tier: 'starter' }))!;
  const context = await phone();
  const page = await context.newPage();

  await signInByKeyboard(page, 'browser@example.com', created.password);
  await page.waitForURL(/\/dashboard\/password$/);
  await screenshot(page, 'password');
  await page.getByLabel('Current password').fill(created.password);
  await page.getByLabel('New password (at least 10 characters)').fill('my browser password');
  await page.getByLabel('New password again').fill('my browser password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForURL(/\/dashboard$/);

  // Keys: made, shown once, used against the API, revoked after the confirmation.
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('Browser app');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await shownKey(page);
  assert.match(key, /^mla_[A-Za-z0-9_-]{43}$/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await page.getByText(/Copied|Selected/).waitFor();
  await checkPage(page);
  await screenshot(page, 'keys-created');
  assert.equal((await me(key)).status, 200);
  await page.reload();
  assert.ok(!(await page.content()).includes(key), 'the key is not shown again');
  await page.getByRole('button', { name: 'Revoke key Browser app' }).click();
  await page.getByRole('button', { name: 'Revoke key', exact: true }).click();
  await page.getByText('Key "Browser app" revoked.').waitFor();
  assert.equal((await me(key)).status, 401);
  await page.getByRole('button', { name: 'Create key' }).focus();
  await page.getByLabel('Name').fill('Catalog key');
  await page.keyboard.press('Enter');
  const catalogKey = await shownKey(page, key);
  assert.equal((await me(catalogKey)).status, 200);
  await screenshot(page, 'keys');

  // Usage: the API calls above, filtered by endpoint.
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.locator('#usage tbody tr').first().waitFor();
  await page.getByLabel('Endpoint').selectOption('/me');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('2 requests match.').waitFor();
  assert.equal(await page.locator('#usage tbody tr').count(), 2);
  await checkPage(page);
  await screenshot(page, 'usage');

  // Overview: today's bar of the chart counts them.
  await page.getByRole('link', { name: 'Overview' }).click();
  const today = new Date().toISOString().slice(0, 10);
  await page.locator(`#chart rect[data-day="${today}"]`).waitFor({ state: 'attached' });
  assert.ok(Number(await page.locator(`#chart rect[data-day="${today}"]`).getAttribute('data-requests')) >= 2);
  assert.equal(await page.locator('#tier').textContent(), 'starter');
  await checkPage(page);
  await screenshot(page, 'overview');

  // Catalog: search, play a preview, plan a clip on the waveform, download it.
  await page.getByRole('link', { name: 'Catalog' }).click();
  await page.getByLabel('Charge to key').selectOption({ label: /Catalog key/ } as never).catch(() => page.getByLabel('Charge to key').selectOption({ index: 0 }));
  await page.getByLabel('Describe the music').fill('energetic drums');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('heading', { name: 'Rising Drums' }).waitFor();
  const preview = page.getByLabel('Preview of Rising Drums');
  await preview.click(); // a user gesture for the page's audio
  const played = await preview.evaluate(async (audio: HTMLAudioElement) => {
    await audio.play();
    await new Promise((resolve) => setTimeout(resolve, 600));
    return audio.currentTime;
  });
  assert.ok(played > 0.1, `the preview played ${played} s`);
  await page.getByRole('button', { name: 'Build a clip of Rising Drums' }).click();
  await page.waitForFunction(() => (document.getElementById('waveform')?.getAttribute('aria-label') ?? '').includes('climax at'), undefined, { timeout: STEP_TIMEOUT_MS });
  await page.getByLabel('Duration (s)').fill('12');
  await page.getByLabel('Hit point (s, optional)').fill('6');
  await page.getByRole('button', { name: 'Preview plan' }).click();
  await page.getByText(/^A 12 s excerpt: the track from [\d.:]+ s? ?to [\d.:]+/).waitFor();
  const shaded = await page.evaluate(() => {
    const canvas = document.getElementById('waveform') as HTMLCanvasElement;
    const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let blue = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 2] > 150 && pixels[i] < 120) blue++;
    return blue;
  });
  assert.ok(shaded > 1000, 'the plan is drawn on the waveform');
  // An edit's plan says whether the climax plays at H (hit_point_landing).
  await page.getByLabel('Mode').selectOption('edit');
  await page.getByRole('button', { name: 'Preview plan' }).click();
  const editPlan = page.getByText(/^A 12 s edit: .*The climax plays [\d.]+ s into the clip: (right at the hit point|not at the hit point: .*)\./);
  await editPlan.waitFor({ timeout: STEP_TIMEOUT_MS });
  assert.doesNotMatch(await editPlan.textContent() ?? '', /track_end|bar_line|hit_point|_seconds/, 'no API words in the plan');
  // A request the API refuses, told in the page's words.
  expectedFailures.add('400 /dashboard/api/catalog/clip-plan');
  await page.getByLabel('Duration (s)').fill('400');
  await page.getByRole('button', { name: 'Preview plan' }).click();
  await page.getByText('The duration must be from 10 to 300, got 400.').waitFor();
  await page.getByLabel('Duration (s)').fill('12');
  await page.getByLabel('Mode').selectOption('segment');
  await page.getByRole('button', { name: 'Download clip' }).click();
  const info = await page.getByText(/^Clip ready: 12 s, license lic_/).textContent({ timeout: STEP_TIMEOUT_MS });
  const licenseId = /license (lic_\S+),/.exec(info!)![1];
  assert.match(await page.locator('#clip-audio').getAttribute('src') ?? '', /^blob:/);
  await checkPage(page);
  await screenshot(page, 'catalog');

  // Licenses: the download's license, one of it, linked to its certificate's page.
  await page.getByRole('link', { name: 'Licenses' }).click();
  await page.getByText('1 license.', { exact: true }).waitFor();
  await checkPage(page);
  await screenshot(page, 'licenses');
  await page.getByRole('link', { name: `Certificate of license ${licenseId}` }).click();
  await page.getByRole('heading', { name: `License ${licenseId}` }).waitFor();
  await page.getByText('Rising Drums by Test Artist').waitFor();
  await page.getByText('12 s starting at').waitFor();
  await page.getByText('worldwide').waitFor();
  // Its JSON downloads as signed: the same document the API answers, valid against the published key.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the certificate (JSON)' }).click()]);
  assert.equal(download.suggestedFilename(), `${licenseId}.json`);
  const saved = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  const served = await page.evaluate(async (id) => (await fetch(`/dashboard/api/licenses/${id}`)).json(), licenseId);
  assert.deepEqual(saved, served);
  const keys = parseJwkSet(await (await fetch(`${server.base}/.well-known/music-license-key`)).text());
  assert.deepEqual(verifyCertificate(saved, keys), { valid: true, keyId: saved.key_id });
  await checkPage(page);
  await screenshot(page, 'certificate');
  // The site's icon: named by the pages, and at /favicon.ico for anything else opened here.
  for (const icon of ['/dashboard/assets/favicon.svg', '/favicon.ico']) {
    const response = await page.request.get(`${server.base}${icon}`);
    assert.equal(response.status(), 200, icon);
    assert.equal(response.headers()['content-type'], 'image/svg+xml', icon);
  }
  await page.goBack();

  // A call without the CSRF token, from the page itself.
  expectedFailures.add('403 /dashboard/api/keys');
  const refused = await page.evaluate(async () => (await fetch('/dashboard/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"sneaky"}' })).status);
  assert.equal(refused, 403);

  // Another account sees none of it, in its own browser context.
  await newAccount(server.service.database.sql, 'other@example.com');
  const otherContext = await phone();
  const other = await otherContext.newPage();
  await signInByKeyboard(other, 'other@example.com', TEST_PASSWORD);
  await other.waitForURL(/\/dashboard$/);
  for (const [pageName, table] of [['API keys', '#keys'], ['Usage', '#usage'], ['Licenses', '#licenses']]) {
    await other.getByRole('link', { name: pageName }).click();
    await other.waitForLoadState('networkidle');
    assert.equal(await other.locator(`${table} tbody tr`).count(), 0, `${pageName} of another account`);
  }
  expectedFailures.add(`404 /dashboard/api/licenses/${licenseId}`);
  const certificate = await other.goto(`${server.base}/dashboard/api/licenses/${licenseId}`);
  assert.equal(certificate?.status(), 404);
  await other.goto(`${server.base}/dashboard/certificate?id=${licenseId}`);
  await other.getByText('Not found: it may have been removed.').waitFor();
  // A process tag is base64url: an id with a '-' is an id like any other (here of no license).
  const dashed = 'lic_ab-cd_EF_1';
  expectedFailures.add(`404 /dashboard/api/licenses/${dashed}`);
  await other.goto(`${server.base}/dashboard/certificate?id=${dashed}`);
  await other.getByText('Not found: it may have been removed.').waitFor();
  await otherContext.close();

  // Sign out: the pages send back to the sign-in page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/dashboard\/login$/);
  await page.goto(`${server.base}/dashboard/keys`);
  assert.match(page.url(), /\/dashboard\/login$/);
  await context.close();
  assert.deepEqual(problems, []);
});

test('five wrong passwords in the sign-in form: the next attempt is told to wait', { skip: missing }, async () => {
  expectedFailures.add('401 /dashboard/api/login');
  expectedFailures.add('429 /dashboard/api/login');
  await newAccount(server.service.database.sql, 'slow@example.com');
  const context = await phone();
  const page = await context.newPage();
  await page.goto(`${server.base}/dashboard/login`);
  await checkPage(page);
  await screenshot(page, 'login');
  const message = page.getByRole('alert');
  for (let i = 0; i < 5; i++) {
    await page.getByLabel('Email').fill('slow@example.com');
    await page.getByLabel('Password').fill(`wrong guess ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForFunction((n) => document.getElementById('login-message')!.textContent === 'wrong email or password' && (window as any).__tries !== n, i);
    await page.evaluate((n) => ((window as any).__tries = n), i);
    await page.getByLabel('Password').fill('');
  }
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(/^too many failed sign-in attempts; try again in \d+ s$/).waitFor();
  assert.match(await message.textContent() ?? '', /try again in (29|30) s/);
  await screenshot(page, 'login-throttled');
  assert.match(page.url(), /\/dashboard\/login$/);
  await context.close();
  assert.deepEqual(problems, []);
});
