// The HMAC key of preview links. From PREVIEW_SECRET when set; otherwise made once and kept in the
// database, so every node behind one load balancer honours the links any of them signed. A node
// that kept its secret in DATA_DIR/preview-secret (before the secret moved to the database) offers
// that one, so the links it issued stay good if it is the first to start.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../db/connect.ts';

const PURPOSE = 'preview-links';

export async function loadPreviewSecret(sql: Sql, configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const kept = path.join(dataDir, 'preview-secret');
  const offered = fs.existsSync(kept) ? fs.readFileSync(kept, 'utf8').trim() : crypto.randomBytes(32).toString('base64url');
  await sql`INSERT INTO service_secrets (purpose, secret) VALUES (${PURPOSE}, ${offered}) ON CONFLICT (purpose) DO NOTHING`;
  const [row] = await sql<{ secret: string }[]>`SELECT secret FROM service_secrets WHERE purpose = ${PURPOSE}`;
  return row.secret;
}
