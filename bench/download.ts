// Downloads over HTTP: uncached 30 s clips at concurrency 1, 4 and 16, cached clips, and full-track
// streaming, through the real server process; the engine-only clip time (the pool called
// directly, same machine, same run) is the reference for the HTTP overhead. The client is
// bench/http-load.ts (raw keep-alive sockets): autocannon cannot read MP3 bodies fast enough (see there).
import path from 'node:path';
import { load, type LoadResult } from './http-load.ts';
import { spreadHitPoint } from '../engine/hit-point-spread.ts';
import { createApiKey } from '../billing/api-keys.ts';
import { createEnginePool } from '../engine/pool.ts';
import { clipMasterPath } from '../catalog/track-files.ts';
import { fileStorage } from '../catalog/storage/file-storage.ts';
import { withBenchServer } from './bench-server.ts';
import { cpuShareMeter, machineLine } from './machine.ts';
import { timeTasks } from './timing.ts';
import { startBare } from './bare-server.ts';
import { inRounds, median, ROUNDS } from './rounds.ts';

const DEMO_TRACKS = 3;
const CLIP_SECONDS = 30;
const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
// DOWNLOAD_PARTS=cached (comma list of engine, uncached, cached, idempotent, full, plan) runs only those parts.
const PARTS = new Set((process.env.DOWNLOAD_PARTS ?? 'engine,uncached,cached,idempotent,full,plan').split(','));

interface Track {
  id: string;
  audio_sha256: string;
  audio_format: string;
  clip_master_sha256: string | null;
  duration_seconds: number;
  peak_seconds: number;
  analysis: Buffer;
}

let idempotencyKeys = 0;

/** `idempotent`: every request carries a new Idempotency-Key (a first request each time, never a replay). */
function fire(url: string, connections: number, keys: string[], body: () => object, seconds = RUN_SECONDS, idempotent = false): Promise<LoadResult> {
  let n = 0;
  return load({
    url,
    connections,
    seconds,
    request: () => {
      const headers: Record<string, string> = { authorization: `Bearer ${keys[n++ % keys.length]}`, 'content-type': 'application/json' };
      if (idempotent) headers['idempotency-key'] = `bench-${process.pid}-${idempotencyKeys++}`;
      return { method: 'POST', headers, body: JSON.stringify(body()) };
    },
  });
}

/** A hit point the track can meet with a 30 s clip, varied by i so no two requests share a cache entry. */
function feasibleHit(track: Track, i: number): number {
  const min = Math.max(0.5, track.peak_seconds - (track.duration_seconds - CLIP_SECONDS) + 0.5);
  const max = Math.min(CLIP_SECONDS - 0.5, track.peak_seconds - 0.5);
  return Math.round((min + ((i * 0.731) % 1) * (max - min)) * 1000) / 1000;
}

export async function benchDownload(): Promise<string> {
  return withBenchServer({ DEMO_TRACKS: String(DEMO_TRACKS) }, async ({ server, sql, dataDir }) => {
    const pool = createEnginePool();
    try {
      const tracks = await sql<Track[]>`SELECT id, audio_sha256, audio_format, clip_master_sha256, duration_seconds, peak_seconds, analysis FROM tracks ORDER BY id`;
      const keys: string[] = [];
      for (let i = 0; i < 1000; i += 16) {
        const batch = Array.from({ length: 16 }, (_, j) => createApiKey(sql, { name: `bench-${i + j}`, tier: 'pro' }));
        for (const created of await Promise.all(batch)) keys.push(created.key);
      }
      const url = `${server.base}/api/external/v1/download-track`;
      let counter = 0;
      const uncached = () => {
        const track = tracks[counter % tracks.length];
        return { track_id: track.id, duration_seconds: CLIP_SECONDS, hit_point_seconds: feasibleHit(track, counter++) };
      };

      // Engine only: the same work, the pool called in this process.
      const storage = fileStorage(path.join(dataDir, 'catalog'));
      let engineCounter = 10_000;
      const engineOnly = async () => (await timeTasks({
        'engine clip': async () => {
          const track = tracks[engineCounter % tracks.length];
          return pool.clip({ path: await clipMasterPath(storage, track), analysis: new Uint8Array(track.analysis), durationSeconds: CLIP_SECONDS, hitPointSeconds: feasibleHit(track, engineCounter++) });
        },
      }, 20)).get('engine clip')!;

      await fire(url, 4, keys, uncached); // warm-up: worker threads, caches of files and analyses
      const lines = [machineLine(), `server: real process, ${DEMO_TRACKS} demo tracks, 30 s clips with a hit point; raw keep-alive sockets, ${RUN_SECONDS} s per run`];
      const uncachedLine = (connections: number, r: LoadResult) =>
        `uncached clips, ${String(connections).padStart(2)} conn: ${r.perSecond.toFixed(1)} clips/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.requests} requests, non-2xx ${r.non2xx})`;
      if (PARTS.has('engine') && PARTS.has('uncached')) {
        // The reference, then one connection's clips over HTTP, in each round.
        const rounds = await inRounds(async () => ({ engine: await engineOnly(), http: await fire(url, 1, keys, uncached) }));
        for (const [i, { engine, http }] of rounds.entries()) {
          lines.push(`${i + 1}: engine-only clip (pool, in this process): mean ${engine.meanMs.toFixed(1)} ms, p50 ${engine.p50Ms.toFixed(1)} ms; ${uncachedLine(1, http)}`);
        }
        lines.push(`median of ${ROUNDS} rounds, uncached clip over HTTP, 1 conn: p50 ${median(rounds, (r) => r.http.p50)} ms, engine-only p50 ${median(rounds, (r) => r.engine.p50Ms).toFixed(1)} ms, ` +
          `HTTP p50 / engine p50 = ${median(rounds, (r) => r.http.p50 / r.engine.p50Ms).toFixed(2)} (target <= 1.2)`);
      } else if (PARTS.has('engine')) {
        const engine = await engineOnly();
        lines.push(`engine-only clip (pool, in this process): mean ${engine.meanMs.toFixed(1)} ms, p50 ${engine.p50Ms.toFixed(1)} ms`);
      }
      if (PARTS.has('uncached')) {
        for (const connections of PARTS.has('engine') ? [4, 16] : [1, 4, 16]) lines.push(uncachedLine(connections, await fire(url, connections, keys, uncached)));
      }
      if (PARTS.has('cached')) {
        // 30 s clips (the size the uncached runs use) and 10 s clips (the shortest).
        for (const seconds of [CLIP_SECONDS, 10]) {
          const track = tracks[0];
          const fixed = seconds === CLIP_SECONDS ? uncached() : { track_id: track.id, duration_seconds: seconds };
          const warm = await fire(url, 64, keys, () => fixed); // warm-up: the clip is cached, the keys hold admission leases
          // The reference: a bare uWS handler sending the same number of bytes, same client, run
          // right before the server in each round.
          const bytes = Math.round(warm.bytesPerSecond / warm.perSecond);
          const bare = await startBare(bytes);
          try {
            await fire(bare.url, 64, keys, () => fixed);
            const rounds = await inRounds(async () => {
              const reference = await fire(bare.url, 64, keys, () => fixed);
              await fire(url, 64, keys, () => fixed, 2); // the keys renew their admission leases (10 s), as under steady load
              const cpu = cpuShareMeter(server.child.pid!);
              return { bare: reference, cached: await fire(url, 64, keys, () => fixed), cpu: cpu() };
            });
            for (const [i, { cached, bare: reference, cpu }] of rounds.entries()) {
              lines.push(`${i + 1}: cached ${seconds} s clip, 64 conn: ${Math.round(cached.perSecond)} req/s (${(cached.bytesPerSecond / 1e6).toFixed(0)} MB/s), p50 ${cached.p50} ms, p99 ${cached.p99} ms (non-2xx ${cached.non2xx}); ` +
                `bare uWS handler, same bytes: ${Math.round(reference.perSecond)} req/s, p50 ${reference.p50} ms, p99 ${reference.p99} ms`, `   ${cpu}`);
            }
            lines.push(`median of ${ROUNDS} rounds, cached ${seconds} s clip (${(bytes / 1000).toFixed(0)} KB): ${Math.round(median(rounds, (r) => r.cached.perSecond))} req/s (target >= 3000 req/s), ` +
              `bare ${Math.round(median(rounds, (r) => r.bare.perSecond))} req/s, ratio ${median(rounds, (r) => r.cached.perSecond / r.bare.perSecond).toFixed(2)}`);
          } finally {
            bare.stop();
          }
        }
      }
      if (PARTS.has('idempotent')) {
        // The cost of an Idempotency-Key on every paid request: the same cached 10 s clip with and
        // without a new key per request, alternating in each round. With a key, a request claims
        // it and is charged through a reservation (its reply is kept), two more round trips.
        const fixed = { track_id: tracks[0].id, duration_seconds: 10 };
        await fire(url, 64, keys, () => fixed, 2, true);
        const rounds = await inRounds(async () => {
          await fire(url, 64, keys, () => fixed, 2);
          const plain = await fire(url, 64, keys, () => fixed);
          const keyed = await fire(url, 64, keys, () => fixed, RUN_SECONDS, true);
          return { plain, keyed };
        });
        for (const [i, { plain, keyed }] of rounds.entries()) {
          lines.push(`${i + 1}: cached 10 s clip, 64 conn, no key: ${Math.round(plain.perSecond)} req/s, p50 ${plain.p50} ms, p99 ${plain.p99} ms (non-2xx ${plain.non2xx}); ` +
            `a new Idempotency-Key each: ${Math.round(keyed.perSecond)} req/s, p50 ${keyed.p50} ms, p99 ${keyed.p99} ms (non-2xx ${keyed.non2xx})`);
        }
        lines.push(`median of ${ROUNDS} rounds, Idempotency-Key on every request: ${Math.round(median(rounds, (r) => r.keyed.perSecond))} req/s vs ${Math.round(median(rounds, (r) => r.plain.perSecond))} without, ` +
          `ratio ${median(rounds, (r) => r.keyed.perSecond / r.plain.perSecond).toFixed(2)}; p50 ${median(rounds, (r) => r.keyed.p50)} ms vs ${median(rounds, (r) => r.plain.p50)} ms`);
      }
      if (PARTS.has('plan')) {
        // POST /clip-plan for 30 s edits with a hit point, the analyses cached in the server: every
        // request a new H (a plan computed in the worker pool), then one request repeated (the plan cache).
        const planUrl = `${server.base}/api/external/v1/clip-plan`;
        let planCounter = 0;
        // H steps by the golden ratio's fraction: no (track, H) repeats within a bench (a step of 0.731 repeated after 3,000 requests, and the third round was served from the plan cache).
        const newPlan = () => ({ track_id: tracks[planCounter % tracks.length].id, mode: 'edit', duration_seconds: CLIP_SECONDS, hit_point_seconds: spreadHitPoint(planCounter++, CLIP_SECONDS) });
        await fire(planUrl, 1, keys, newPlan, 2);
        const rounds = await inRounds(async () => ({ fresh: await fire(planUrl, 1, keys, newPlan), cached: await fire(planUrl, 1, keys, () => ({ track_id: tracks[0].id, mode: 'edit', duration_seconds: CLIP_SECONDS, hit_point_seconds: 12 })) }));
        for (const [i, { fresh, cached }] of rounds.entries()) {
          lines.push(`${i + 1}: POST /clip-plan, edit 30 s with H, 1 conn: a new plan each ${fresh.perSecond.toFixed(0)} req/s, p50 ${fresh.p50} ms, p99 ${fresh.p99} ms (non-2xx ${fresh.non2xx}); the same plan ${cached.perSecond.toFixed(0)} req/s, p50 ${cached.p50} ms, p99 ${cached.p99} ms`);
        }
        lines.push(`median of ${ROUNDS} rounds, POST /clip-plan p99: a new plan each ${median(rounds, (r) => r.fresh.p99)} ms, the same plan ${median(rounds, (r) => r.cached.p99)} ms (target <= 5 ms)`);
      }
      if (PARTS.has('full')) {
        const full = await fire(url, 16, keys, () => ({ track_id: tracks[0].id }));
        lines.push(`full-track streaming, 16 conn: ${(full.bytesPerSecond / 1e6).toFixed(0)} MB/s, ${full.perSecond.toFixed(0)} downloads/s, p50 ${full.p50} ms, p99 ${full.p99} ms (non-2xx ${full.non2xx})`);
      }
      return lines.join('\n');
    } finally {
      await pool.close();
    }
  });
}
