// Service configuration from the environment; every variable is optional (README lists them).
import path from 'node:path';
import os from 'node:os';

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
}

function intFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

export function loadConfig(): Config {
  return {
    port: intFromEnv('PORT', 8080, 0),
    host: process.env.HOST || '0.0.0.0',
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: path.resolve(process.env.DATA_DIR || './data'),
    workers: intFromEnv('WORKERS', os.availableParallelism(), 1),
    publicBaseUrl: process.env.PUBLIC_BASE_URL || undefined,
    demoTracks: process.env.DEMO_TRACKS ? intFromEnv('DEMO_TRACKS', 0, 0) : undefined,
    testRoutes: process.env.ENABLE_TEST_ROUTES === '1',
    usageFlushMs: intFromEnv('USAGE_FLUSH_MS', 100, 1),
    previewSecret: process.env.PREVIEW_SECRET || undefined,
    clipCacheBytes: intFromEnv('CLIP_CACHE_MB', 256, 0) * 1024 * 1024,
    engineMaxQueue: process.env.ENGINE_MAX_QUEUE ? intFromEnv('ENGINE_MAX_QUEUE', 0, 0) : undefined,
  };
}
