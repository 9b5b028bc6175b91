// Encoded clips kept by bytes (LRU), keyed by the track's audio, the mode, the duration and the hit point;
// identical requests that arrive while a clip is being made share the one engine job. With a
// shared store (the bucket of several nodes), a clip this node has not got is looked for there
// before it is made, and a clip made here is put there for the others.
import { LRUCache } from 'lru-cache';
import type { ClipValue } from '../engine/worker.ts';
import type { SharedObjects } from '../catalog/storage/catalog-storage.ts';
import { findSharedClip, encodeSharedClip, sharedClipName, type ClipKeyParts } from './shared-clips.ts';

export interface ClipCache {
  get(key: ClipKeyParts, make: () => Promise<ClipValue>): Promise<ClipValue>;
  /** The cached clip, if any, without making one. */
  peek(key: ClipKeyParts): ClipValue | undefined;
  /** shared: requests that joined a clip being made; fromStore: clips another node made, read from the shared store. */
  stats(): { entries: number; bytes: number; hits: number; misses: number; shared: number; fromStore: number };
}

/** A clip request's key in this process's caches (clips and plans). */
export function clipKey(audioSha256: string, mode: string, durationSeconds: number, hitPointSeconds: number | undefined): string {
  return `${audioSha256}:${mode}:${durationSeconds}:${hitPointSeconds ?? '-'}`;
}

const memoryKey = (key: ClipKeyParts) => clipKey(key.audioSha256, key.mode, key.durationSeconds, key.hitPointSeconds);

export function createClipCache(maxBytes: number, store?: SharedObjects, log: (message: string, err?: unknown) => void = () => {}): ClipCache {
  const cache = new LRUCache<string, ClipValue>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (clip) => clip.mp3.byteLength + 256 });
  const making = new Map<string, Promise<ClipValue>>();
  let hits = 0, misses = 0, shared = 0, fromStore = 0;

  /** The clip from the shared store, else made here and offered to the store (not waited for: the client need not wait on the bucket). */
  async function fetchOrMake(key: ClipKeyParts, make: () => Promise<ClipValue>): Promise<ClipValue> {
    if (!store) return make();
    const name = sharedClipName(key);
    const found = await findSharedClip(store, name, log);
    if (found) {
      fromStore++;
      return found;
    }
    const clip = await make();
    store.put(name, encodeSharedClip(clip)).catch((err) => log(`shared clip ${name}: not stored`, err));
    return clip;
  }

  return {
    get(parts, make) {
      const key = memoryKey(parts);
      const cached = cache.get(key);
      if (cached) {
        hits++;
        return Promise.resolve(cached);
      }
      const pending = making.get(key);
      if (pending) {
        shared++;
        return pending;
      }
      misses++;
      const job = fetchOrMake(parts, make)
        .then((clip) => {
          if (maxBytes > 0) cache.set(key, clip);
          return clip;
        })
        .finally(() => making.delete(key));
      making.set(key, job);
      return job;
    },
    peek(parts) {
      const cached = cache.get(memoryKey(parts));
      if (cached) hits++;
      return cached;
    },
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize ?? 0, hits, misses, shared, fromStore }),
  };
}
