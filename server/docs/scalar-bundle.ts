// Scalar's standalone API-reference bundle, served from node_modules (never a CDN): read once,
// on the first request for it, and kept (4 MB).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package's exports do not list its browser build; it sits beside the main entry (dist/). */
export function scalarBundlePath(): string {
  return path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');
}

let bundle: Buffer | undefined;

export function scalarBundle(): Buffer {
  bundle ??= fs.readFileSync(scalarBundlePath());
  return bundle;
}
