// Document bitsets (server/search/doc-bitsets.ts), against plain sets of numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createValueBitsets, hasDoc, intersectInto, unionOf, wordsFor } from '../search/doc-bitsets.ts';

function docsIn(set: Uint32Array): number[] {
  const docs: number[] = [];
  for (let doc = 0; doc < set.length * 32 + 64; doc++) if (hasDoc(set, doc)) docs.push(doc);
  return docs;
}

test('value bitsets, unions and intersections select the same documents as plain sets', () => {
  const docs = 1000;
  const words = wordsFor(docs);
  assert.equal(words, 32);
  const sets = createValueBitsets();
  const plain = new Map<number, Set<number>>();
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let doc = 0; doc < docs; doc++) {
    for (let value = 0; value < 4; value++) {
      // value 3 stops at document 100, so its bitset stays shorter than the others
      if (random() < 0.3 && (value < 3 || doc < 100)) {
        sets.add(value, doc);
        (plain.get(value) ?? plain.set(value, new Set()).get(value)!).add(doc);
      }
    }
  }
  sets.remove(0, [...plain.get(0)!][0]);
  plain.get(0)!.delete([...plain.get(0)!][0]);
  assert.ok(sets.of(3)!.length < words, 'a short bitset is part of the test');
  assert.equal(sets.of(9), undefined);

  const union = unionOf([sets.of(0), sets.of(3), sets.of(9)], words);
  assert.deepEqual(docsIn(union), [...new Set([...plain.get(0)!, ...plain.get(3)!])].sort((a, b) => a - b));
  intersectInto(union, sets.of(1)!);
  assert.deepEqual(docsIn(union), [...plain.get(1)!].filter((d) => plain.get(0)!.has(d) || plain.get(3)!.has(d)).sort((a, b) => a - b));
  const all = unionOf([sets.of(2)], words);
  intersectInto(all, sets.of(3)!); // shorter: the words past its end are empty
  assert.deepEqual(docsIn(all), [...plain.get(2)!].filter((d) => plain.get(3)!.has(d)).sort((a, b) => a - b));
  assert.ok(docsIn(all).every((d) => d < 100));
});
