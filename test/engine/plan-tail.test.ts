// An edit's search tracks plans that play the same from H on as one that missed after the others
// (engine/plan/anchored-edit.ts): tailKey must tell apart what plays from H on, and only that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tailKey } from '../../engine/plan/anchored-edit.ts';

const HIT_SECONDS = 14.9;

test('plans that differ only before H share their tail', () => {
  const ending = { sourceStart: 175.3, length: 12.86 };
  const oneLeadIn = [{ sourceStart: 145.08, length: 17.14 }, ending];
  const twoRunLeadIn = [{ sourceStart: 147.3, length: 8.25 }, { sourceStart: 153.34, length: 8.88 }, ending];
  const shortLeadIn = [{ sourceStart: 73.97, length: 1.58 }, { sourceStart: 146.66, length: 15.56 }, ending];
  assert.equal(tailKey(oneLeadIn, HIT_SECONDS), tailKey(twoRunLeadIn, HIT_SECONDS));
  assert.equal(tailKey(oneLeadIn, HIT_SECONDS), tailKey(shortLeadIn, HIT_SECONDS));
});

test('plans that play something else after H have another tail', () => {
  const plan = [{ sourceStart: 145.08, length: 17.14 }, { sourceStart: 175.3, length: 12.86 }];
  const otherEnding = [{ sourceStart: 145.08, length: 19.36 }, { sourceStart: 177.53, length: 10.64 }];
  const peakRunCutSooner = [{ sourceStart: 145.08, length: 17.14 }, { sourceStart: 180, length: 12.86 }];
  const oneRun = [{ sourceStart: 145.08, length: 30 }];
  for (const other of [otherEnding, peakRunCutSooner, oneRun]) assert.notEqual(tailKey(plan, HIT_SECONDS), tailKey(other, HIT_SECONDS));
});

test('the run that plays H is the one whose span holds it, also when H is on a join', () => {
  const runs = [{ sourceStart: 10, length: 5 }, { sourceStart: 40, length: 10 }, { sourceStart: 90, length: 15 }];
  // H = 5 is the second run's first instant: the tail is where that run stops, then the third run.
  assert.equal(tailKey(runs, 5), tailKey([{ sourceStart: 0, length: 2 }, { sourceStart: 43, length: 7 }, { sourceStart: 90, length: 15 }], 2));
  assert.notEqual(tailKey(runs, 5), tailKey(runs, 4.99));
  // H past the last run's start: the last run's end alone.
  assert.equal(tailKey(runs, 29), '105000');
});
