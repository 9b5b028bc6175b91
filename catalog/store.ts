// The catalog's content addresses: objects are named by the SHA-256 of their bytes (storage/
// keeps them), and a track's id is made from its audio's.
import path from 'node:path';
import crypto from 'node:crypto';
import { objectName, type StoredKind } from './storage/catalog-storage.ts';

export function sha256Hex(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** The file of an object in a store directory (DATA_DIR/catalog), laid out as storage/catalog-storage.ts names objects. */
export function storePath(storeDir: string, sha256: string, kind: StoredKind, extension?: string): string {
  return path.join(storeDir, objectName(sha256, kind, extension));
}

export function trackIdOf(audioSha256: string): string {
  return `trk_${audioSha256.slice(0, 16)}`;
}

/** The shape of every id trackIdOf makes: anything else names no track. */
export const TRACK_ID = /^trk_[0-9a-f]{16}$/;
