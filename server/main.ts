// Entry point of `npm start`: starts the service and shuts it down gracefully on SIGINT/SIGTERM.
import { loadConfig } from './config.ts';
import { startService } from './service.ts';
import { ensureDemoKey } from '../billing/demo-key.ts';
import { ensureDemoCatalog } from '../catalog/demo-catalog.ts';

async function main() {
  const config = loadConfig();
  const service = await startService(config);

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    console.log(`${signal}: finishing in-flight requests, flushing usage, stopping`);
    service.stop().then(
      () => process.exit(0),
      (err) => {
        console.error('shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const demoKey = await ensureDemoKey(service.database.sql, config.dataDir);
  await ensureDemoCatalog({ sql: service.database.sql, pool: service.engine, dataDir: config.dataDir, tracks: config.demoTracks });

  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  const base = `http://${host}:${service.port}`;
  console.log(`Demo API key (pro tier): ${demoKey}`);
  console.log(`Try: curl -H "Authorization: Bearer ${demoKey}" ${base}/api/external/v1/me`);
  // Last line: tests and scripts wait for it.
  console.log(`Music Licensing API listening on ${base}/api/external/v1 (database: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded, ' + config.dataDir})`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
