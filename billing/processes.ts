// Server processes and their heartbeats. Each process registers a row and beats it every second;
// reservations and in-flight Idempotency-Keys carry the process id. A process whose heartbeat is
// older than STALE_SECONDS is dead (kill -9, power loss): any process's sweep refunds its
// reservations and releases its keys, so a crash is settled within seconds of the next start,
// not minutes.
import os from 'node:os';
import type { Sql } from '../db/connect.ts';

export const HEARTBEAT_MS = 1_000;
// Five missed beats: a live process under load (or a short database hiccup) stays well inside it.
export const STALE_SECONDS = 5;
const SWEEP_MS = 2_000;
// Reservations from before heartbeats (no process id) keep the old rule: no request runs this long.
const UNOWNED_RESERVATION_SECONDS = 10 * 60;

export interface ProcessRegistration {
  id: number;
  /** Stops beating and removes this process's row (after its requests have finished). */
  close(): Promise<void>;
}

export async function registerProcess(sql: Sql, log: (message: string, err?: unknown) => void): Promise<ProcessRegistration> {
  const [row] = await sql`INSERT INTO server_processes (host, pid) VALUES (${os.hostname()}, ${process.pid}) RETURNING id`;
  const id: number = row.id;
  await settleDeadProcesses(sql);
  let failing = false;
  const report = (what: string) => (err: unknown) => {
    if (!failing) log(`${what} failed (will keep trying)`, err);
    failing = true;
  };
  const beat = setInterval(() => {
    // A row swept while the database was unreachable comes back: this process is alive.
    sql`INSERT INTO server_processes (id, host, pid) VALUES (${id}, ${os.hostname()}, ${process.pid})
        ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`.then(() => (failing = false), report('heartbeat'));
  }, HEARTBEAT_MS);
  const sweep = setInterval(() => settleDeadProcesses(sql).catch(report('sweep of dead processes')), SWEEP_MS);
  beat.unref();
  sweep.unref();
  return {
    id,
    async close() {
      clearInterval(beat);
      clearInterval(sweep);
      await sql`DELETE FROM server_processes WHERE id = ${id}`;
    },
  };
}

/**
 * Refunds the reservations and releases the in-flight Idempotency-Keys of processes without a
 * recent heartbeat, and forgets those processes. Returns the number of reservations refunded.
 */
export async function settleDeadProcesses(sql: Sql): Promise<number> {
  const rows = await sql`
    WITH live AS (SELECT id FROM server_processes WHERE heartbeat_at >= now() - make_interval(secs => ${STALE_SECONDS})),
    forgotten AS (DELETE FROM server_processes WHERE id NOT IN (SELECT id FROM live)),
    settled AS (
      DELETE FROM credit_reservations
       WHERE CASE WHEN process_id IS NULL THEN created_at < now() - make_interval(secs => ${UNOWNED_RESERVATION_SECONDS})
                  ELSE process_id NOT IN (SELECT id FROM live) END
       RETURNING key_id, amount),
    released AS (DELETE FROM idempotency_keys WHERE status IS NULL AND process_id NOT IN (SELECT id FROM live)),
    per_key AS (SELECT key_id, sum(amount)::integer AS amount, count(*)::integer AS n FROM settled GROUP BY key_id)
    UPDATE api_keys k SET credits = k.credits + per_key.amount
      FROM per_key WHERE k.id = per_key.key_id
    RETURNING per_key.n`;
  return rows.reduce((sum, r) => sum + r.n, 0);
}
