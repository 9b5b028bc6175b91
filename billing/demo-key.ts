// The demo API key printed at start: created once, kept in DATA_DIR/demo-key so every start can print it.
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';
import { createApiKey, isActiveApiKey } from './api-keys.ts';

export async function ensureDemoKey(sql: Sql, dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'demo-key');
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (await isActiveApiKey(sql, key)) return key;
  }
  const { key } = await createApiKey(sql, { name: 'demo', tier: 'pro' });
  fs.writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}
