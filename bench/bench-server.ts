// The set-up every HTTP benchmark shares: a scratch PostgreSQL, a data dir, the real server
// process started on them, and the tear-down of all three.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectSql, type Sql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { spawnServer, type SpawnedServer } from '../test/support/server.ts';
import { scratchDatabase } from './scratch-database.ts';

export interface BenchServer {
  server: SpawnedServer;
  sql: Sql;
  dataDir: string;
}

export async function withBenchServer(env: Record<string, string>, run: (bench: BenchServer) => Promise<string>): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-bench-'));
  fs.chmodSync(dataDir, 0o755);
  const db = await scratchDatabase();
  const sql = connectSql(db.url, 4);
  try {
    await migrate(sql);
    // The service's default log level unless LOG_LEVEL says otherwise (tests spawn theirs at warn).
    const server = await spawnServer({ DATABASE_URL: db.url, DATA_DIR: dataDir, DEMO_TRACKS: '0', LOG_LEVEL: process.env.LOG_LEVEL || 'info', ...env }, 300_000);
    try {
      return await run({ server, sql, dataDir });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    await sql.end();
    await db.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
