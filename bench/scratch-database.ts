// A PostgreSQL for a benchmark run: DATABASE_URL when set, else a throw-away embedded one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';

export async function scratchDatabase(): Promise<{ url: string; dispose(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, dispose: async () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-bench-'));
  fs.chmodSync(dir, 0o755);
  const db = await startEmbeddedPostgres(dir);
  return {
    url: db.url,
    async dispose() {
      await db.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
