// Several nodes on one PostgreSQL and one S3 bucket (s3rver) behind nginx (deploy/nginx.conf):
// requests per second of 1, 2 and 3 nodes (uncached clips, cached clips, search) as ratios to one
// node, all measured in this run; a clip made on one node served by another from the bucket
// against the first node making it; and a cold node's first clip against a warm node's.
// Every node, nginx, s3rver and the load share this machine's cores: on a 2-core machine the
// ratios measure what spreading the load costs, not how it scales on machines of their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectSql } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import { createApiKey } from '../billing/api-keys.ts';
import { spawnServer, stopLeftovers, type SpawnedServer } from '../test/support/server.ts';
import { startNginxFront, type NginxFront } from '../test/support/nginx-front.ts';
import { startTestS3 } from '../test/support/s3-server.ts';
import { scratchDatabase } from './scratch-database.ts';
import { load, type LoadResult } from './http-load.ts';
import { machineLine } from './machine.ts';

const DEMO_TRACKS = 3;
const NODES = 3;
const CONNECTIONS = 16;
const RUN_SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CLIP_SECONDS = 10;
const API = '/api/external/v1';

interface Track { id: string; duration_seconds: number }

/** Milliseconds one POST takes, with its status. */
async function timed(url: string, key: string, body: object): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

export async function benchNodes(): Promise<string> {
  const db = await scratchDatabase();
  const sql = connectSql(db.url, 4);
  const s3 = await startTestS3();
  const dataDirs: string[] = [];
  const nodes: SpawnedServer[] = [];
  const fronts: NginxFront[] = [];
  const env = (demoTracks: number) => {
    dataDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'mla-bench-node-')));
    return { DATABASE_URL: db.url, DATA_DIR: dataDirs.at(-1)!, DEMO_TRACKS: String(demoTracks), LOG_LEVEL: 'warn', WORKERS: '1', ...s3.env('bench') };
  };
  try {
    await migrate(sql);
    // The first node builds the demo catalog into the bucket; the others find it there.
    nodes.push(await spawnServer(env(DEMO_TRACKS), 600_000));
    for (let n = 1; n < NODES; n++) nodes.push(await spawnServer(env(0)));
    await sql`INSERT INTO tiers VALUES ('bench', 10000000, 0, 10000000, NULL, true) ON CONFLICT DO NOTHING`;
    const { key } = await createApiKey(sql, { name: 'bench', tier: 'bench' });
    const tracks = await sql<Track[]>`SELECT id, duration_seconds FROM tracks ORDER BY id`;
    let counter = 0;
    // Each request a clip no node has made: a new hit point.
    const uncached = () => {
      const track = tracks[counter % tracks.length];
      const hit = 1 + ((counter++ * 0.7391) % (CLIP_SECONDS - 2));
      return { track_id: track.id, duration_seconds: CLIP_SECONDS, hit_point_seconds: Math.round(hit * 1000) / 1000, mode: 'segment' };
    };
    const cached = () => ({ track_id: tracks[counter++ % tracks.length].id, duration_seconds: CLIP_SECONDS });
    const search = () => ({ query: ['calm piano', 'night drive', 'epic trailer', 'happy ukulele'][counter++ % 4], limit: 10 });
    const fire = (base: string, route: string, body: () => object): Promise<LoadResult> =>
      load({ url: `${base}${API}${route}`, connections: CONNECTIONS, seconds: RUN_SECONDS, request: () => ({ method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body()) }) });

    const lines = [machineLine(), `${NODES} nodes (WORKERS=1 each), nginx, s3rver and the load on this machine; ${CONNECTIONS} connections, ${RUN_SECONDS} s per figure`];
    const perNodes: Record<string, number>[] = [];
    for (let count = 1; count <= NODES; count++) {
      const front = await startNginxFront(nodes.slice(0, count).map((node) => new URL(node.base).host));
      fronts.push(front);
      await fire(front.base, '/download-track', cached); // warm-up: every node caches the few cached clips and its audio
      const figures = {
        uncached: (await fire(front.base, '/download-track', uncached)).perSecond,
        cached: (await fire(front.base, '/download-track', cached)).perSecond,
        search: (await fire(front.base, '/search', search)).perSecond,
      };
      perNodes.push(figures);
      const ratio = (figure: keyof typeof figures) => (figures[figure] / perNodes[0][figure]).toFixed(2);
      lines.push(`${count} node${count > 1 ? 's' : ''}: uncached ${CLIP_SECONDS} s clips ${figures.uncached.toFixed(1)}/s (${ratio('uncached')} of one node), cached ${figures.cached.toFixed(0)}/s (${ratio('cached')}), search ${figures.search.toFixed(0)}/s (${ratio('search')})`);
    }

    // A clip made on node A, then asked of node B: B takes it from the bucket.
    const reuse = { track_id: tracks[0].id, duration_seconds: 20, hit_point_seconds: 7.25, mode: 'edit' };
    const made = await timed(`${nodes[0].base}${API}/download-track`, key, reuse);
    await new Promise((r) => setTimeout(r, 500)); // A puts the clip in the bucket after its reply
    const reused = await timed(`${nodes[1].base}${API}/download-track`, key, reuse);
    lines.push(`cross-node reuse: a 20 s edit made on node A in ${made.ms.toFixed(0)} ms (${made.status}); node B served it from the bucket in ${reused.ms.toFixed(0)} ms (${reused.status})`);

    // A node started now (its cache empty) against a warm node, each making a new clip.
    const cold = await spawnServer(env(0));
    nodes.push(cold);
    const coldFirst = await timed(`${cold.base}${API}/download-track`, key, uncached());
    const warmFirst = await timed(`${nodes[2].base}${API}/download-track`, key, uncached());
    lines.push(`first clip: a cold node (audio fetched from the bucket, nothing cached) ${coldFirst.ms.toFixed(0)} ms (${coldFirst.status}), a warm node ${warmFirst.ms.toFixed(0)} ms (${warmFirst.status})`);
    return lines.join('\n');
  } finally {
    for (const front of fronts) await front.stop();
    await stopLeftovers(nodes);
    await s3.stop();
    await sql.end();
    await db.dispose();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}
