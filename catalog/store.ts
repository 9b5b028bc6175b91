// The content-addressed catalog store: files named by their SHA-256 under DATA_DIR/catalog,
// written atomically (temporary file, then rename), never modified afterwards.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

export function sha256Hex(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/**
 * What a stored file is: `audio` the original as delivered, `master` a clip master made from it,
 * `download` a full-download MP3 made from a WAV or FLAC original, `preview` a track's preview.
 */
export type StoreKind = 'audio' | 'master' | 'download' | 'preview';

/** Every kind holds MP3s but `audio`, whose files carry their format's extension (`wav`, `flac`). */
export function storePath(storeDir: string, sha256: string, kind: StoreKind, extension = 'mp3'): string {
  return path.join(storeDir, kind, sha256.slice(0, 2), `${sha256}.${extension}`);
}

/** Stores the bytes (once); returns their SHA-256. */
export function putFile(storeDir: string, bytes: Uint8Array, kind: StoreKind, extension = 'mp3'): string {
  const sha256 = sha256Hex(bytes);
  const file = storePath(storeDir, sha256, kind, extension);
  if (fs.existsSync(file)) return sha256;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temporary, bytes);
  fs.renameSync(temporary, file);
  return sha256;
}

export function trackIdOf(audioSha256: string): string {
  return `trk_${audioSha256.slice(0, 16)}`;
}

/** The shape of every id trackIdOf makes: anything else names no track. */
export const TRACK_ID = /^trk_[0-9a-f]{16}$/;
