// HTTP overhead: GET /me (auth, rate limit with admission leases over PostgreSQL, usage record) through the real server
// process, against a bare uWS handler measured in the same run. autocannon, 64 connections.
import autocannon from 'autocannon';
import { createApiKey } from '../billing/api-keys.ts';
import { withBenchServer } from './bench-server.ts';
import { cpuShareMeter, machineLine } from './machine.ts';
import { startBare } from './bare-server.ts';
import { inRounds, median, ROUNDS } from './rounds.ts';

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

function fire(url: string, keys?: string[], seconds = DURATION_S): Promise<Result> {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
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
  return `${name.padEnd(25)} ${Math.round(r.perSecond).toString().padStart(7)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   (${r.requests} requests, non-2xx ${r.non2xx}, errors ${r.errors})`;
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
      const me = `${server.base}/api/external/v1/me`;
      await fire(`${bare.url}`); // warm-up
      await fire(me, keys); // warm-up: JIT, connections
      const rounds = await inRounds(async () => {
        const reference = await fire(bare.url);
        // Every key renews its admission lease (10 s) right before the measured run, as under steady load.
        await fire(me, keys, 2);
        const cpu = cpuShareMeter(server.child.pid!);
        return { bare: reference, me: await fire(me, keys), cpu: cpu() };
      });
      const perSecond = median(rounds, (r) => r.me.perSecond);
      const p99 = median(rounds, (r) => r.me.p99);
      return [
        machineLine(),
        `autocannon: ${CONNECTIONS} connections, ${DURATION_S} s each, ${KEYS} pro keys round-robin; ${ROUNDS} rounds of bare handler then /me`,
        ...rounds.flatMap((r, i) => [line(`${i + 1}: bare uWS handler`, r.bare), line(`${i + 1}: GET /me (full stack)`, r.me), `   ${r.cpu}`]),
        `median of ${ROUNDS} rounds: GET /me ${Math.round(perSecond)} req/s, p99 ${p99} ms; bare ${Math.round(median(rounds, (r) => r.bare.perSecond))} req/s; ` +
          `/me to bare ${median(rounds, (r) => r.me.perSecond / r.bare.perSecond).toFixed(3)} of its throughput (target >= 8000 req/s, p99 < 25 ms)`,
      ].join('\n');
    } finally {
      bare.stop();
    }
  });
}
