// A node's bounded local copy of the objects it reads from the bucket: files in one directory,
// at most `maxBytes` in all, the least recently used removed first. It fills on first use; a copy
// is the object's bytes, whole (written atomically), since objects never change. A restarted node
// adopts the copies it finds, oldest first, so it starts warm where it left off.
//
// A path handed out stays valid until `maxBytes` of other objects have been fetched after it: the
// engine opens it at once, so a cache of a few hundred MB is never that close to its reader.
import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { writeAtomically } from './file-storage.ts';

export interface DiskCache {
  /** The local file of `name`: the cached copy, or one written from `fetch()` (concurrent misses of one name share one fetch). */
  path(name: string, fetch: () => Promise<Uint8Array>): Promise<string>;
  /** Caches bytes already at hand (an object just uploaded) and returns their file. */
  add(name: string, bytes: Uint8Array): Promise<string>;
  stats(): { files: number; bytes: number; hits: number; misses: number };
}

/** Every file under `dir` (a temporary file left by a crash is removed), oldest first. */
function filesOldestFirst(dir: string): { file: string; size: number; mtimeMs: number }[] {
  if (!fs.existsSync(dir)) return [];
  const found: { file: string; size: number; mtimeMs: number }[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (file.endsWith('.tmp')) {
      fs.rmSync(file, { force: true });
      continue;
    }
    const { size, mtimeMs } = fs.statSync(file);
    found.push({ file, size, mtimeMs });
  }
  return found.sort((a, b) => a.mtimeMs - b.mtimeMs);
}

export function openDiskCache(dir: string, maxBytes: number): DiskCache {
  const files = new LRUCache<string, { file: string; size: number }>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (entry) => Math.max(1, entry.size),
    // Evicted or replaced: the copy goes from the disk too.
    dispose: (entry, _name, reason) => {
      if (reason !== 'set') fs.rm(entry.file, { force: true }, () => {});
    },
  });
  for (const { file, size } of filesOldestFirst(dir)) files.set(path.relative(dir, file), { file, size });
  const filling = new Map<string, Promise<string>>();
  let hits = 0;
  let misses = 0;

  async function store(name: string, bytes: Uint8Array): Promise<string> {
    const file = path.join(dir, name);
    await writeAtomically(file, bytes);
    // An object larger than the whole cache is still served from its file: it is removed with the next object cached.
    files.set(name, { file, size: bytes.byteLength });
    return file;
  }

  return {
    path(name, fetch) {
      const cached = files.get(name);
      if (cached) {
        hits++;
        return Promise.resolve(cached.file);
      }
      const pending = filling.get(name);
      if (pending) return pending;
      misses++;
      const fill = fetch()
        .then((bytes) => store(name, bytes))
        .finally(() => filling.delete(name));
      filling.set(name, fill);
      return fill;
    },
    add: store,
    stats: () => ({ files: files.size, bytes: files.calculatedSize ?? 0, hits, misses }),
  };
}
