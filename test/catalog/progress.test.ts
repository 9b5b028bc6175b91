// The ingest's progress line: the bar, the count, the rate so far and the time left at that rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLine } from '../../catalog/progress.ts';

test('the progress line shows the rate so far and the time left at that rate', () => {
  assert.equal(progressLine('ingesting', 0, 40, 0), `ingesting [${'.'.repeat(30)}] 0/40`);
  assert.equal(progressLine('ingesting', 10, 40, 20), `ingesting [${'#'.repeat(8)}${'.'.repeat(22)}] 10/40, 30/min, 1 min 0 s left`);
  assert.equal(progressLine('ingesting', 3, 1000, 90), `ingesting [${'.'.repeat(30)}] 3/1000, 2.0/min, 8 h 19 min left`);
  assert.equal(progressLine('ingesting', 40, 40, 75), `ingesting [${'#'.repeat(30)}] 40/40, 32/min, done in 1 min 15 s`);
});
