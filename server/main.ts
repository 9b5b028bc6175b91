// Entry point of `npm start`: starts the service and shuts it down gracefully on SIGINT/SIGTERM.
// stdout carries the JSON log (server/observability/logger.ts); the banner for whoever ran
// `npm start` (the demo key, a curl to try, the address) goes to stderr with the catalog's progress.
import { loadConfig } from './config.ts';
import { startService } from './service.ts';
import { ensureDemoKey } from '../billing/demo-key.ts';
import { ensureDemoAccount } from '../billing/demo-account.ts';
import { ensureDemoCatalog } from '../catalog/demo-catalog.ts';
import { createLogger } from './observability/logger.ts';
import { warmEngine } from './warm-engine.ts';

const logger = createLogger();

async function main() {
  const config = loadConfig();
  const service = await startService(config, logger);

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'signal again: exiting now');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const demoKey = await ensureDemoKey(service.database.sql, config.dataDir);
  const signIn = await ensureDemoAccount(service.database.sql, config.dataDir);
  await ensureDemoCatalog({ sql: service.database.sql, pool: service.engine, storage: service.storage, dataDir: config.dataDir, tracks: config.demoTracks });
  // The service already answers; the banner waits for warm threads, so a load test started on it
  // (or the first users after a deploy) meets the plans' steady speed.
  await warmEngine(service.database.sql, service.engine, logger, config.engineWarmupPlans, () => signals > 0);
  if (signals > 0) return; // shutting down: no banner saying the service is ready

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
