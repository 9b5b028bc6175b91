// What a catalog test stands on: a migrated test database, an engine pool of 2 threads and a
// scratch folder, made before its tests and removed after them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from './database.ts';
import { connectSql, type Sql } from '../../db/connect.ts';
import { migrate } from '../../db/migrate.ts';
import { createEnginePool, type EnginePool } from '../../engine/pool.ts';

export interface CatalogFixture {
  sql: Sql;
  pool: EnginePool;
  /** A scratch folder, removed by stop(). */
  root: string;
  stop(): Promise<void>;
}

export async function startCatalogFixture(prefix: string): Promise<CatalogFixture> {
  const db = await createTestDatabase();
  const sql = connectSql(db.url, 4);
  await migrate(sql);
  const pool = createEnginePool({ threads: 2 });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    sql,
    pool,
    root,
    async stop() {
      await pool.close();
      await sql.end();
      await db.drop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
