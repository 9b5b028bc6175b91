// HTTP overhead: GET /me (auth, rate limit with admission leases over PostgreSQL, usage record) through the real server
// process, against a bare uWS handler measured in the same run. autocannon, 64 connections.
import autocannon from 'autocannon';
import { createApiKey } from '../server/auth/api-keys.ts';
import { withBenchServer } from './bench-server.ts';
import { machineLine } from './machine.ts';
import { startBare } from './bare-server.ts';

const CONNECTIONS = 64;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
// Pro keys (300/min each), used round-robin: at ~10,000 req/s each key sees ~75 requests a minute,
// a busy API client, well below its limit.
const KEYS = 8000;

interface Result {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function fire(url: string, keys?: string[]): Promise<Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: DURATION_S,
        requests: keys
          ? [{ setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${keys[next++ % keys.length]}` } }) }]
          : undefined,
      },
      (err: Error | null, result: any) => {
        if (err) return reject(err);
        resolve({
          requests: result.requests.total,
          perSecond: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors,
        });
      },
    );
  });
}

function line(name: string, r: Result): string {
  return `${name.padEnd(22)} ${Math.round(r.perSecond).toString().padStart(7)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   (${r.requests} requests, non-2xx ${r.non2xx}, errors ${r.errors})`;
}

export async function benchHttp(): Promise<string> {
  return withBenchServer({}, async ({ server, sql }) => {
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i += 16) {
      const batch = Array.from({ length: Math.min(16, KEYS - i) }, (_, j) => createApiKey(sql, { name: `bench-${i + j}`, tier: 'pro' }));
      for (const created of await Promise.all(batch)) keys.push(created.key);
    }
    const bare = await startBare();
    try {
      await fire(`${bare.url}`); // warm-up
      const reference = await fire(bare.url);
      // Warm-up right before the measured run: JIT, connections, and the keys' admission leases.
      await fire(`${server.base}/api/external/v1/me`, keys);
      const me = await fire(`${server.base}/api/external/v1/me`, keys);
      return [
        machineLine(),
        `autocannon: ${CONNECTIONS} connections, ${DURATION_S} s each, ${KEYS} pro keys round-robin`,
        line('bare uWS handler', reference),
        line('GET /me (full stack)', me),
        `ratio /me to bare: ${(me.perSecond / reference.perSecond).toFixed(3)} of its throughput; p99 ${me.p99} ms (target >= 8000 req/s, p99 < 25 ms)`,
      ].join('\n');
    } finally {
      bare.stop();
    }
  });
}
