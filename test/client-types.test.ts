// client/api-types.ts is generated from the OpenAPI document: it must be what `npm run
// client:types` makes from today's document, so the client never lags the API it describes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CLIENT_TYPES_PATH, renderClientTypes } from '../server/openapi/client-types.ts';

test('the committed client types are those of the current document', async () => {
  const committed = fs.readFileSync(CLIENT_TYPES_PATH, 'utf8');
  assert.ok(committed === (await renderClientTypes()), 'client/api-types.ts is stale: run `npm run client:types` and commit it');
});
