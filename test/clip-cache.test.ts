// The clip cache (server/clip-cache.ts): a clip offered by a plan task that made it to hear it
// (a thin edit: engine/listened-plan.ts) is what the download of that body sends, without making
// it again; an offer never replaces a clip kept or being made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClipCache } from '../server/clip-cache.ts';
import type { ClipValue } from '../engine/worker.ts';

const clipOf = (byte: number): ClipValue => ({ mp3: new Uint8Array([byte]), plan: {} as ClipValue['plan'], samples: 1, method: 'splice' });
const neverMade = async (): Promise<never> => assert.fail('the clip was made again');

test('an offered clip is the one a download gets, without making it', async () => {
  const cache = createClipCache(1 << 20);
  const offered = clipOf(1);
  cache.offer('k', offered);
  assert.equal(await cache.get('k', neverMade), offered);
});

test('an offer does not replace a clip kept, nor one being made', async () => {
  const cache = createClipCache(1 << 20);
  const kept = await cache.get('kept', async () => clipOf(1));
  cache.offer('kept', clipOf(2));
  assert.equal(await cache.get('kept', neverMade), kept);

  let finish!: (clip: ClipValue) => void;
  const making = cache.get('making', () => new Promise((resolve) => (finish = resolve)));
  cache.offer('making', clipOf(3));
  const made = clipOf(4);
  finish(made);
  assert.equal(await making, made);
  assert.equal(await cache.get('making', neverMade), made);
});

test('a cache of no bytes keeps no offer', async () => {
  const cache = createClipCache(0);
  cache.offer('k', clipOf(1));
  assert.equal(cache.peek('k'), undefined);
});
