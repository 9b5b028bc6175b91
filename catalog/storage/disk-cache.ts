// A node's bounded local copy of the objects it reads from the bucket: files in one directory,
// at most `maxBytes` in all, the least recently used removed first. It fills on first use; a copy
// is the object's bytes, whole (written atomically), since objects never change. A restarted node
// adopts the copies it finds, oldest first, so it starts warm where it left off.
//
// A path handed out stays valid until `maxBytes` of other objects have been fetched after it: the
// engine and a full download open it at once, so a cache of a few hundred MB is never that close
// to its reader. An object larger than the whole cache is kept alone beside it, until the next
// object is cached. A copy found gone or of the wrong size when asked for (removed by hand, or a
// disk that lost it) is fetched again. A copy that cannot be written (a full or unwritable disk)
// makes the read StorageUnavailable: the node's store is unavailable, not the object.
import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { writeAtomically } from './file-storage.ts';
import { StorageUnavailable } from './catalog-storage.ts';

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
    // Evicted: the copy goes from the disk too (a copy found bad is removed where it is found).
    dispose: (entry, _name, reason) => {
      if (reason === 'evict') fs.rm(entry.file, { force: true }, () => {});
    },
  });
  for (const { file, size } of filesOldestFirst(dir)) {
    const name = path.relative(dir, file);
    files.set(name, { file, size });
    if (!files.has(name)) fs.rmSync(file, { force: true }); // larger than the whole cache
  }
  const filling = new Map<string, Promise<string>>();
  let oversized: string | undefined; // the file of the last object too large for the cache, kept until the next is cached
  let hits = 0;
  let misses = 0;

  async function store(name: string, bytes: Uint8Array): Promise<string> {
    const file = path.join(dir, name);
    try {
      await writeAtomically(file, bytes);
    } catch (err) {
      throw new StorageUnavailable(file, err);
    }
    files.set(name, { file, size: bytes.byteLength });
    if (oversized !== undefined && oversized !== file) fs.rm(oversized, { force: true }, () => {});
    oversized = files.has(name) ? undefined : file; // the LRU refuses an entry larger than its maximum
    return file;
  }

  /** The cached copy's file, if it is still on the disk whole. */
  async function cachedFile(name: string): Promise<string | undefined> {
    const cached = files.get(name);
    if (!cached) return undefined;
    const size = await fs.promises.stat(cached.file).then((stat) => stat.size, () => undefined);
    if (size === cached.size) return cached.file;
    files.delete(name);
    await fs.promises.rm(cached.file, { force: true });
    return undefined;
  }

  return {
    async path(name, fetch) {
      const cached = await cachedFile(name);
      if (cached) {
        hits++;
        return cached;
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
