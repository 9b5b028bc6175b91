// Metrics read from the service's parts when Prometheus scrapes (nothing on the request path):
// the engine's queue and threads, the clip cache, the database pools, the search index.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EnginePool } from '../../engine/pool.ts';
import type { ClipCache } from '../clip-cache.ts';
import { poolUse, type Sql } from '../../db/connect.ts';
import type { LiveSearchIndex } from '../../search/live-index.ts';

export interface MetricSources {
  engine: EnginePool;
  clips: ClipCache;
  /** The database pools by name. */
  pools: Record<string, Sql>;
  searchIndex: LiveSearchIndex;
}

export function registerSourceMetrics(registry: Registry, sources: MetricSources): void {
  const registers = [registry];
  const { engine, clips, pools, searchIndex } = sources;
  new Gauge({ name: 'mla_engine_queue_depth', help: 'Audio engine tasks waiting for a worker thread', registers, collect() {
    this.set(engine.status().queued);
  } });
  new Gauge({ name: 'mla_engine_threads', help: 'Audio engine worker threads', registers, collect() {
    this.set(engine.status().threads);
  } });
  new Gauge({ name: 'mla_engine_utilization', help: 'Share of the engine threads\' time spent on tasks since start (0-1, piscina)', registers, collect() {
    this.set(engine.status().utilization);
  } });
  registerClipCacheMetrics(registers, clips);
  new Gauge({ name: 'mla_db_connections', help: 'Open (or opening) connections of each database pool', labelNames: ['pool'] as const, registers, collect() {
    for (const [pool, sql] of Object.entries(pools)) this.set({ pool }, poolUse(sql).open);
  } });
  new Gauge({ name: 'mla_db_connections_max', help: 'Most connections each database pool may open', labelNames: ['pool'] as const, registers, collect() {
    for (const [pool, sql] of Object.entries(pools)) this.set({ pool }, poolUse(sql).max);
  } });
  new Gauge({ name: 'mla_search_index_tracks', help: 'Tracks in the in-memory search index', registers, async collect() {
    this.set((await searchIndex.current()).live());
  } });
}

function registerClipCacheMetrics(registers: Registry[], clips: ClipCache): void {
  // The cache counts since start; Prometheus counters are fed the difference since the last scrape.
  const seen = { hit: 0, miss: 0, shared: 0 };
  new Counter({ name: 'mla_clip_cache_lookups_total', help: 'Clip cache lookups: hit (in memory), shared (joined a clip being made), miss (made)', labelNames: ['outcome'] as const, registers, collect() {
    const { hits, misses, shared } = clips.stats();
    const now = { hit: hits, miss: misses, shared };
    for (const outcome of ['hit', 'miss', 'shared'] as const) {
      this.inc({ outcome }, now[outcome] - seen[outcome]);
      seen[outcome] = now[outcome];
    }
  } });
  new Gauge({ name: 'mla_clip_cache_hit_ratio', help: 'Share of clip cache lookups since start answered without making a clip (hit or shared; 0 before any)', registers, collect() {
    const { hits, misses, shared } = clips.stats();
    const lookups = hits + misses + shared;
    this.set(lookups === 0 ? 0 : (hits + shared) / lookups);
  } });
  new Gauge({ name: 'mla_clip_cache_bytes', help: 'Bytes of encoded clips in the clip cache', registers, collect() {
    this.set(clips.stats().bytes);
  } });
}
