// Applies the versioned SQL files of ./migrations in order, once each. One transaction under an
// advisory lock, so several server processes starting against one database at once are safe.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_ID = 727_001; // arbitrary, constant: identifies "our migrations" among advisory locks

export async function migrate(sql: postgres.Sql): Promise<string[]> {
  const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const applied = new Set((await tx<{ version: string }[]>`SELECT version FROM schema_migrations`).map((r) => r.version));
    const done: string[] = [];
    for (const file of files) {
      if (applied.has(file)) continue;
      await tx.unsafe(fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await tx`INSERT INTO schema_migrations (version) VALUES (${file})`;
      done.push(file);
    }
    return done;
  });
}
