// Service configuration from the environment; every variable is optional (README lists them).
import os from 'node:os';
import { databaseLocation, integerFromEnvironment as intFromEnv } from '../db/environment.ts';
import { clockAhead, type WindowClock } from '../billing/window-clock.ts';
import { storageLocation, type StorageLocation } from '../catalog/storage/open-storage.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  workers: number;
  publicBaseUrl: string | undefined;
  demoTracks: number | undefined;
  /** Enables the test-only paid route used to prove the credit mechanism. */
  testRoutes: boolean;
  usageFlushMs: number;
  previewSecret: string | undefined;
  /** Bytes of encoded clips kept in memory. */
  clipCacheBytes: number;
  /** Clip jobs allowed to wait for a worker; beyond that, 503 (undefined: 16 per worker). */
  engineMaxQueue: number | undefined;
  /** Plans each engine thread makes at start to warm its code (server/warm-engine.ts); 0: none. */
  engineWarmupPlans: number;
  /** PKCS#8 Ed25519 key signing license certificates (unset: one kept in the database). */
  licenseSigningKey: string | undefined;
  /** GET /metrics: off (undefined), on the API's port ('main', METRICS=1), or on its own port (METRICS_PORT; 0: any free one). */
  metrics: 'main' | number | undefined;
  /** The clock rate-limit windows are counted on: the real one, or RATE_LIMIT_CLOCK_OFFSET_MS ahead (tests). */
  windowClock: WindowClock;
  /** Where the catalog's audio lives: DATA_DIR, or the bucket STORAGE_URL names (catalog/storage/open-storage.ts). */
  storage: StorageLocation;
  /** Whether this node makes queued ingest jobs (INGEST_JOBS, default 1; 0: only serve). */
  ingestJobs: boolean;
  /**
   * Addresses of fronts (deploy/nginx.conf) whose X-Forwarded-For names the client, for limits kept
   * per client address (TRUSTED_PROXIES, comma-separated; default none: the peer's address).
   */
  trustedProxies: ReadonlySet<string>;
}

/** A fresh thread's plans reach their steady speed after about 1,000-1,200 (engine/warm-up.ts). */
export const DEFAULT_ENGINE_WARMUP_PLANS = 1200;

export function loadConfig(): Config {
  return {
    port: intFromEnv('PORT', 8080, 0),
    host: process.env.HOST || '0.0.0.0',
    ...databaseLocation(),
    workers: intFromEnv('WORKERS', os.availableParallelism(), 1),
    publicBaseUrl: process.env.PUBLIC_BASE_URL || undefined,
    demoTracks: process.env.DEMO_TRACKS ? intFromEnv('DEMO_TRACKS', 0, 0) : undefined,
    testRoutes: process.env.ENABLE_TEST_ROUTES === '1',
    usageFlushMs: intFromEnv('USAGE_FLUSH_MS', 100, 1),
    previewSecret: process.env.PREVIEW_SECRET || undefined,
    clipCacheBytes: intFromEnv('CLIP_CACHE_MB', 256, 0) * 1024 * 1024,
    engineMaxQueue: process.env.ENGINE_MAX_QUEUE ? intFromEnv('ENGINE_MAX_QUEUE', 0, 0) : undefined,
    engineWarmupPlans: intFromEnv('ENGINE_WARMUP_PLANS', DEFAULT_ENGINE_WARMUP_PLANS, 0),
    licenseSigningKey: process.env.LICENSE_SIGNING_KEY || undefined,
    metrics: process.env.METRICS_PORT ? intFromEnv('METRICS_PORT', 0, 0) : process.env.METRICS === '1' ? 'main' : undefined,
    windowClock: clockAhead(intFromEnv('RATE_LIMIT_CLOCK_OFFSET_MS', 0, 0)),
    storage: storageLocation(),
    ingestJobs: process.env.INGEST_JOBS !== '0',
    trustedProxies: new Set((process.env.TRUSTED_PROXIES ?? '').split(',').map((a) => a.trim()).filter(Boolean)),
  };
}
