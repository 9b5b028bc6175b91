// Entry point of `npm start`: starts the service and shuts it down gracefully on SIGINT/SIGTERM.
// stdout carries the JSON log (server/observability/logger.ts); the banner for whoever ran
// `npm start` (the demo key, a curl to try, the address) goes to stderr with the catalog's progress.
import { loadConfig, type Config } from './config.ts';
import { startService, type Service } from './service.ts';
import { ensureDemoKey } from '../billing/demo-key.ts';
import { ensureDemoAccount } from '../billing/demo-account.ts';
import { ensureDemoCatalog } from '../catalog/demo-catalog.ts';
import { createLogger } from './observability/logger.ts';
import { warmEngine } from './warm-engine.ts';

const logger = createLogger();

// One Ctrl-C can arrive twice: from the terminal (the whole process group) and passed on by npm.
const SAME_SIGNAL_MS = 1_000;

async function main() {
  const config = loadConfig();
  // Handled from the start: a signal while the service starts (its database opening) waits for
  // it, then stops it; the first stops gracefully, a later one stops waiting for requests in
  // flight, and the shutdown still flushes usage and stops the database. Registered before the
  // start begins, so that the embedded database's import, which removes the signal handlers it
  // brings, keeps these.
  let starting: Promise<Service> = new Promise(() => {});
  let signals = 0;
  let firstAt = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals === 1) {
      firstAt = performance.now();
      logger.info({ signal }, 'shutting down');
      starting.then((service) => service.stop()).then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
      return;
    }
    if (performance.now() - firstAt < SAME_SIGNAL_MS) return;
    logger.warn({ signal }, 'signal again: no longer waiting for requests in flight');
    starting.then((service) => service.hurry(), () => {});
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  starting = startService(config, logger);
  const service = await starting;
  const stopping = () => signals > 0;
  try {
    await prepareDemo(config, service, stopping);
  } catch (err) {
    if (!stopping()) throw err; // else the shutdown ends the process: this failed as the database went
  }
}

/** The demo key, account and catalog, warm engine threads, then the banner (unless a signal came meanwhile). */
async function prepareDemo(config: Config, service: Service, stopping: () => boolean): Promise<void> {
  const demoKey = await ensureDemoKey(service.database.sql, config.dataDir);
  const signIn = await ensureDemoAccount(service.database.sql, config.dataDir);
  await ensureDemoCatalog({ sql: service.database.sql, pool: service.engine, storage: service.storage, dataDir: config.dataDir, tracks: config.demoTracks });
  // The service already answers; the banner waits for warm threads, so a load test started on it
  // (or the first users after a deploy) meets the plans' steady speed.
  await warmEngine(service.database.sql, service.engine, logger, config.engineWarmupPlans, stopping);
  if (stopping()) return; // shutting down: no banner saying the service is ready

  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  const base = `http://${host}:${service.port}`;
  console.error(`Demo API key (pro tier): ${demoKey}`);
  console.error(`Try: curl -H "Authorization: Bearer ${demoKey}" ${base}/api/external/v1/me`);
  console.error(signIn.password
    ? `Dashboard: ${base}/dashboard/login as ${signIn.email}, one-time password ${signIn.password} (you choose your own at the first sign-in)`
    : `Dashboard: ${base}/dashboard/login as ${signIn.email} with the password you chose (forgotten: npm run accounts -- reset-password --email ${signIn.email})`);
  // Last line: tests and scripts wait for it.
  console.error(`Music Licensing API listening on ${base}/api/external/v1 (database: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded, ' + config.dataDir})`);
}

main().catch((err) => {
  logger.fatal({ err }, 'start failed');
  process.exit(1);
});
