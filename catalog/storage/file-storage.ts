// The catalog's objects as files under one directory (DATA_DIR/catalog): one node, or nodes on one
// machine. Written atomically (a temporary file, then a rename), so a reader never sees part of one.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { type CatalogStorage, objectName, StoredObjectMissing, type StoredKind } from './catalog-storage.ts';
import { sha256Hex, storePath } from '../store.ts';

/** Writes `bytes` to `file` through a temporary file beside it, so `file` appears whole or not at all. */
export async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.promises.writeFile(temporary, bytes);
    await fs.promises.rename(temporary, file);
  } catch (err) {
    await fs.promises.rm(temporary, { force: true }); // a full disk keeps no part of it
    throw err;
  }
}

export function fileStorage(storeDir: string): CatalogStorage {
  const fileOf = (sha256: string, kind: StoredKind, extension?: string) => storePath(storeDir, sha256, kind, extension);
  const exists = (file: string) => fs.promises.access(file).then(() => true, () => false);
  return {
    description: `files in ${storeDir}`,
    async put(bytes, kind, extension) {
      const sha256 = sha256Hex(bytes);
      const file = fileOf(sha256, kind, extension);
      if (!(await exists(file))) await writeAtomically(file, bytes);
      return sha256;
    },
    has: (sha256, kind, extension) => exists(fileOf(sha256, kind, extension)),
    async localPath(sha256, kind, extension) {
      const file = fileOf(sha256, kind, extension);
      if (!(await exists(file))) throw new StoredObjectMissing(objectName(sha256, kind, extension));
      return file;
    },
    remove: (sha256, kind, extension) => fs.promises.rm(fileOf(sha256, kind, extension), { force: true }),
    shared: undefined,
    close: async () => {},
  };
}
