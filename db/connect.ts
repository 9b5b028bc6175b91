// Opens the service's database: DATABASE_URL when set, otherwise the embedded PostgreSQL in DATA_DIR.
import postgres from 'postgres';
import { APPLICATION_NAME, startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrate } from './migrate.ts';

export type Sql = postgres.Sql;

export interface Database {
  sql: Sql;
  /**
   * Connections with synchronous_commit off, for writes that are safe to lose in a crash because
   * a later synchronous commit or the start-up sweep covers them: rate-limit counters, credit
   * reservations (a lost reservation is also a lost deduction) and refunds (a lost refund leaves
   * its reservation row, which the sweep refunds). The final charge and its license stay on `sql`;
   * its flush also makes every earlier write of the request durable (WAL order).
   */
  relaxedSql: Sql;
  /** True when this process runs the embedded server. */
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * `url` may name a Unix socket directory as libpq does, `?host=/dir` (postgres.js itself only
 * takes a socket as an option): the embedded server is reached that way, since over loopback TCP
 * the sender pays for the receiver's network stack too.
 */
export function connectSql(url: string, max = 16, options: { synchronousCommit?: boolean } = {}): Sql {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  let socket: string | undefined;
  if (socketDir?.startsWith('/')) {
    socket = `${socketDir}/.s.PGSQL.${parsed.port || 5432}`;
    parsed.searchParams.delete('host');
  }
  return postgres(parsed.toString(), {
    ...(socket ? { path: socket } : {}),
    max,
    onnotice: () => {},
    connection: {
      TimeZone: 'UTC',
      application_name: APPLICATION_NAME,
      ...(options.synchronousCommit === false ? { synchronous_commit: 'off' } : {}),
    },
    // int8 ids and counts as JS numbers: ours stay far below 2^53.
    types: { int8: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } },
  });
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  maxConnections?: number;
  /**
   * The API server only: adopt an embedded PostgreSQL orphaned by a crash of ours, and stop it at
   * close(). Tools leave it off: a tool that attached to a running database never stops it.
   */
  adoptOrphan?: boolean;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir, { adoptOrphan: options.adoptOrphan ?? false });
  const url = options.databaseUrl ?? embedded!.url;
  const sql = connectSql(url, options.maxConnections);
  const relaxedSql = connectSql(url, options.maxConnections, { synchronousCommit: false });
  try {
    await migrate(sql);
  } catch (err) {
    await Promise.all([sql.end({ timeout: 1 }), relaxedSql.end({ timeout: 1 })]);
    await embedded?.stop();
    throw err;
  }
  return {
    sql,
    relaxedSql,
    embedded: embedded !== undefined,
    async close() {
      await Promise.all([sql.end({ timeout: 5 }), relaxedSql.end({ timeout: 5 })]);
      await embedded?.stop();
    },
  };
}
