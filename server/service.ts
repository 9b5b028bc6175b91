// Assembles the running service: database, usage log, HTTP routes; and takes it down gracefully.
import type { Config } from './config.ts';
import { openDatabase, SERVER_CONNECTION_WAIT_MS, type Database } from '../db/connect.ts';
import { createCharger } from '../billing/ledger.ts';
import { registerProcess } from '../billing/processes.ts';
import { createSettleLater } from '../billing/settle-later.ts';
import { createClaimer, pruneIdempotencyKeys } from '../billing/idempotency.ts';
import { createUsageLog, pruneUsage } from '../billing/usage-log.ts';
import { apiRoute, assertNativeUws, buildApp, healthReply, immediate, listen, unauthenticated, type Route } from './http/app.ts';
import { createInFlight } from './http/in-flight.ts';
import type { EndpointDeps } from './http/endpoint.ts';
import { createAdmitter, type Admitter } from '../billing/admission.ts';
import { createEnginePool, type EnginePool } from '../engine/pool.ts';
import { meEndpoint } from './routes/me.ts';
import { usageEndpoint } from './routes/usage.ts';
import { testAnswerEndpoint, testPaidEndpoint } from './routes/test-paid.ts';
import { downloadTrackEndpoint } from './routes/download-track.ts';
import { previewHandler } from './routes/preview.ts';
import { createTrackLookup } from './tracks.ts';
import { reanalyseStoredAudio } from '../catalog/reanalyse.ts';
import { clipPlanEndpoint } from './routes/clip-plan.ts';
import { createClipCache } from './clip-cache.ts';
import { loadPreviewSecret } from '../catalog/preview-secret.ts';
import { searchEndpoint } from './routes/search.ts';
import { similarTracksEndpoint } from './routes/similar-tracks.ts';
import { trackAnalysisEndpoint } from './routes/track-analysis.ts';
import { licenseCertificateEndpoint, licenseListEndpoint } from './routes/licenses.ts';
import { LICENSE_KEY_PATH, licenseKeyReply } from './routes/license-key.ts';
import { loadSigningKey } from '../billing/license-signing-key.ts';
import { createCatalogSearch } from '../search/catalog-search.ts';
import { docsRoutes } from './routes/docs.ts';
import { dashboardRoutes } from './dashboard/dashboard-routes.ts';
import { createLogger, problemLog, type Logger } from './observability/logger.ts';
import { createMetrics, metricsRoute, serveMetricsApart } from './observability/metrics.ts';
import { registerSourceMetrics } from './observability/source-metrics.ts';
import { timedEngine } from './observability/timed-engine.ts';
import { createRequestObserver } from './observability/request-observer.ts';
import { openCatalogStorage } from '../catalog/storage/open-storage.ts';
import { startIngestWorker } from '../catalog/ingest-worker.ts';
import type { CatalogStorage } from '../catalog/storage/catalog-storage.ts';

export interface Service {
  port: number;
  /** HMAC key of preview links (tests and search sign with it). */
  previewSecret: string;
  database: Database;
  engine: EnginePool;
  /** Where the catalog's audio and previews are stored (and ingested to). */
  storage: CatalogStorage;
  admitter: Admitter;
  /** The port of GET /metrics when it has its own (METRICS_PORT). */
  metricsPort: number | undefined;
  /** Stops accepting, finishes in-flight requests, flushes usage, stops the database. */
  stop(): Promise<void>;
  /** Ends stop()'s wait for the requests in flight now: the rest of the shutdown (usage, refunds, the database) still runs. */
  hurry(): void;
}

const SHUTDOWN_GRACE_MS = 30_000;

export async function startService(config: Config, logger: Logger = createLogger()): Promise<Service> {
  assertNativeUws();
  const log = problemLog(logger);
  const metrics = config.metrics === undefined ? undefined : createMetrics();
  // The server is the one process that adopts an embedded database orphaned by its own crash.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, adoptOrphan: true, connectionWaitMs: SERVER_CONNECTION_WAIT_MS, openEveryConnection: true });
  const { sql } = database;
  // Registering settles the reservations and Idempotency-Keys of processes that died (kill -9).
  const registration = await registerProcess(sql, log);
  await pruneUsage(sql);
  const housekeeping = setInterval(() => {
    pruneUsage(sql).catch((err) => log('usage pruning failed', err));
    pruneIdempotencyKeys(sql).catch((err) => log('idempotency key pruning failed', err));
  }, 60_000);
  housekeeping.unref();

  const pool = createEnginePool({ threads: config.workers, idleTimeoutMs: 5 * 60_000, maxQueue: config.engineMaxQueue });
  const engine = metrics ? timedEngine(pool, metrics.registry) : pool;
  const usage = createUsageLog(sql, { flushMs: config.usageFlushMs, onError: (err) => log('usage flush failed; will retry', err) });
  const inFlight = createInFlight();
  const admitter = await createAdmitter(database.relaxedSql, sql, config.windowClock);
  const later = createSettleLater(log);
  const ledger = { sql, relaxedSql: database.relaxedSql, charger: createCharger(sql), claimer: createClaimer(database.relaxedSql), processId: registration.id, later };
  const deps: EndpointDeps = { admitter, ledger, usage, inFlight, log };
  const storage = await openCatalogStorage(config.storage, config.dataDir);
  const ingestWorker = config.ingestJobs ? await startIngestWorker({ sql, pool: engine, storage, log }) : undefined;
  const tracks = createTrackLookup(sql, (sha256) => reanalyseStoredAudio({ sql, engine, storage }, sha256));
  const secret = await loadPreviewSecret(sql, config.previewSecret, config.dataDir);
  const clips = createClipCache(config.clipCacheBytes, storage.shared, log);
  const search = createCatalogSearch(sql);
  const signingKey = await loadSigningKey(sql, config.licenseSigningKey);
  search.index.current().catch((err) => log('search index load failed; will retry on the next search', err));
  if (metrics) registerSourceMetrics(metrics.registry, { engine, clips, pools: { main: sql, relaxed: database.relaxedSql }, searchIndex: search.index });
  let boundPort = config.port;
  const baseUrl = () => config.publicBaseUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${boundPort}`;
  // Shared by the API and the dashboard's catalog page (one set of caches).
  const catalog = {
    search: searchEndpoint({ search, secret, baseUrl }),
    analysis: trackAnalysisEndpoint({ tracks }),
    clipPlan: clipPlanEndpoint({ tracks, engine }),
    download: downloadTrackEndpoint({ tracks, engine, clips, storage }),
  };
  const routes: Route[] = [
    apiRoute(deps, 'post', '/search', catalog.search),
    apiRoute(deps, 'get', '/tracks/:id/similar', similarTracksEndpoint({ search, secret, baseUrl })),
    apiRoute(deps, 'get', '/tracks/:id/analysis', catalog.analysis),
    apiRoute(deps, 'get', '/me', meEndpoint),
    apiRoute(deps, 'get', '/usage', usageEndpoint(sql, usage)),
    apiRoute(deps, 'post', '/download-track', catalog.download),
    apiRoute(deps, 'post', '/clip-plan', catalog.clipPlan),
    apiRoute(deps, 'get', '/licenses', licenseListEndpoint(sql)),
    apiRoute(deps, 'get', '/licenses/:id', licenseCertificateEndpoint(sql, signingKey)),
    { method: 'get', path: LICENSE_KEY_PATH, handler: immediate(licenseKeyReply(signingKey)) },
    { method: 'get', path: '/api/external/v1/previews/:file', handler: unauthenticated(previewHandler({ tracks, storage, secret }), log) },
    { method: 'get', path: '/healthz', handler: unauthenticated(() => health(database, engine), log) },
    ...docsRoutes(),
    ...dashboardRoutes(deps, signingKey, catalog, config.trustedProxies),
  ];
  if (config.testRoutes) routes.push(apiRoute(deps, 'post', '/_test/paid', testPaidEndpoint), apiRoute(deps, 'post', '/_test/answer', testAnswerEndpoint));
  if (metrics && config.metrics === 'main') routes.push(metricsRoute(metrics, log));

  const state = { draining: false };
  const observe = createRequestObserver(logger, metrics?.requests);
  const app = buildApp(routes, state, observe);
  const listener = await listen(app, config.host, config.port);
  boundPort = listener.port;
  const metricsListener = metrics && typeof config.metrics === 'number' ? await serveMetricsApart(metrics, config.host, config.metrics, log, observe) : undefined;
  logger.info({ port: listener.port, metrics_port: metricsListener?.port ?? (metrics ? listener.port : undefined), database: database.embedded ? 'embedded' : 'DATABASE_URL' }, 'listening');

  const step = (what: string, run: () => Promise<unknown>) => run().catch((err) => log(`shutdown: ${what} failed`, err));
  let stopping: Promise<void> | undefined;
  const hurried = new AbortController(); // a second signal: stop waiting for requests in flight
  return {
    port: listener.port,
    previewSecret: secret,
    database,
    engine,
    storage,
    admitter,
    metricsPort: metricsListener?.port,
    stop() {
      stopping ??= (async () => {
        logger.info({ in_flight: inFlight.count() }, 'stopping: finishing requests in flight, flushing usage');
        state.draining = true;
        listener.close();
        metricsListener?.close();
        clearInterval(housekeeping);
        const drained = await inFlight.drained(SHUTDOWN_GRACE_MS, hurried.signal);
        if (!drained) log(`shutdown: ${inFlight.count()} requests still running after ${SHUTDOWN_GRACE_MS} ms`);
        // Each step runs even if one before it failed (a database that is away): what cannot be
        // written now is logged, and the sweep of dead processes settles this one's reservations.
        await step('flushing usage', () => usage.close());
        await step('handing back leased admissions', () => admitter.close());
        const unsettled = await later.flush();
        if (unsettled > 0) log(`shutdown: ${unsettled} refunds or releases could not reach the database; the sweep of dead processes settles them`);
        later.close();
        await step('finishing the ingest job being made', async () => ingestWorker?.stop());
        await step('removing the heartbeat', () => registration.close());
        await engine.close();
        await step('closing the storage', () => storage.close());
        await database.close();
        logger.info('stopped');
      })();
      return stopping;
    },
    hurry: () => hurried.abort(),
  };
}

async function health(database: Database, engine: EnginePool) {
  const started = performance.now();
  let dbOk = true;
  try {
    await database.sql`SELECT 1`;
  } catch {
    dbOk = false;
  }
  const pool = engine.status();
  const poolOk = pool.threads > 0;
  return healthReply(dbOk && poolOk, {
    database: { status: dbOk ? 'ok' : 'unreachable', embedded: database.embedded, latency_ms: Math.round((performance.now() - started) * 100) / 100 },
    workers: { status: poolOk ? 'ok' : 'down', threads: pool.threads, queued: pool.queued, max_queue: pool.maxQueue, completed: pool.completed, utilization: Math.round(pool.utilization * 1000) / 1000 },
  });
}
