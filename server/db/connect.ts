// Opens the service's database: DATABASE_URL when set, otherwise the embedded PostgreSQL in DATA_DIR.
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrate } from './migrate.ts';

export type Sql = postgres.Sql;

export interface Database {
  sql: Sql;
  /** True when this process runs the embedded server. */
  embedded: boolean;
  close(): Promise<void>;
}

export function connectSql(url: string, max = 16): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connection: { TimeZone: 'UTC', application_name: 'music-licensing-api' },
    // int8 ids and counts as JS numbers: ours stay far below 2^53.
    types: { int8: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } },
  });
}

export async function openDatabase(options: { databaseUrl?: string; dataDir: string; maxConnections?: number }): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(path.join(options.dataDir));
  const url = options.databaseUrl ?? embedded!.url;
  const sql = connectSql(url, options.maxConnections);
  try {
    await migrate(sql);
  } catch (err) {
    await sql.end({ timeout: 1 });
    await embedded?.stop();
    throw err;
  }
  return {
    sql,
    embedded: embedded !== undefined,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
