// GET /docs in headless Chromium: the reference page renders every operation of the OpenAPI
// document, loads nothing from another origin, breaks no Content-Security-Policy rule, and its
// "try it" sends a real request to this server and shows the reply. A screenshot is kept in
// test-output/ (an empty page fails: too little text, too small an image).
import { test, before, after } from 'node:test';
import { skipUnless } from './support/requirements.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from './support/server.ts';
import { chromiumMissing, launchChromium } from './support/chromium.ts';
import { openApiDocument } from '../server/openapi/document.ts';

const missing = skipUnless(!chromiumMissing(), 'chromium (apt-get install chromium)');
const OUTPUT_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../test-output');
const RENDER_TIMEOUT_MS = 30_000;
// A rendered reference page is hundreds of KB as PNG; a blank one a few KB.
const MIN_SCREENSHOT_BYTES = 30_000;
const MIN_PAGE_TEXT = 2_000;

let server: TestServer;
let browser: Browser;

before(async () => {
  if (missing) return;
  server = await startTestServer();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

function summaries(): string[] {
  return Object.values(openApiDocument.paths).flatMap((item) => [item.get, item.post].filter((op) => op !== undefined).map((op) => op!.summary));
}

/** Watches a page for requests to other origins, CSP violations and script errors. */
function watch(page: Page, origin: string) {
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'data:') foreign.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { foreign, errors };
}

test('the reference page renders every endpoint from this origin alone', { skip: missing }, async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const seen = watch(page, server.base);
  const response = await page.goto(`${server.base}/docs`);
  assert.equal(response?.status(), 200);
  assert.match(response!.headers()['content-security-policy'], /default-src 'none'; script-src 'self'/);
  const wanted = summaries();
  await page.waitForFunction((all) => all.every((s) => document.body.innerText.includes(s)), wanted, { timeout: RENDER_TIMEOUT_MS })
    .catch(() => {});
  const text = await page.evaluate(() => document.body.innerText);
  assert.deepEqual(wanted.filter((s) => !text.includes(s)), [], 'operations missing from the page');
  assert.ok(text.length > MIN_PAGE_TEXT, `the page shows only ${text.length} characters`);
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  const shot = path.join(OUTPUT_DIR, 'docs-page.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(fs.statSync(shot).size > MIN_SCREENSHOT_BYTES, `screenshot ${shot} is ${fs.statSync(shot).size} bytes: an empty page?`);
  assert.deepEqual(seen.foreign, [], 'requests to other origins');
  assert.deepEqual(seen.errors, [], 'console errors (CSP violations among them)');
  await page.close();
});

test('"try it": GET /me from the page with a real key, against this server', { skip: missing }, async () => {
  const key = await server.newKey('starter');
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const seen = watch(page, server.base);
  await page.goto(`${server.base}/docs`);
  await page.getByText('The calling key: tier, credits, allowance, limits').first().click({ timeout: RENDER_TIMEOUT_MS });
  await page.getByRole('button', { name: /Test Request.*get \/me/i }).first().click();
  // The request modal has its own bearer token field: the last one on the page.
  await page.getByPlaceholder('Token').last().fill(key);
  const reply = page.waitForResponse((r) => r.url() === `${server.base}/api/external/v1/me`, { timeout: RENDER_TIMEOUT_MS });
  await page.getByRole('button', { name: /^Send/ }).first().click();
  const me = await reply;
  assert.equal(me.status(), 200);
  assert.equal(me.request().headers().authorization, `Bearer ${key}`);
  assert.equal((await me.json()).tier, 'starter');
  await page.getByText('"credits_remaining"').first().waitFor({ timeout: RENDER_TIMEOUT_MS });
  await page.screenshot({ path: path.join(OUTPUT_DIR, 'docs-try-it.png') });
  assert.deepEqual(seen.foreign, [], 'requests to other origins');
  await page.close();
});
