// Encoded clips kept by bytes (LRU), keyed by the track's audio, the mode, the duration and the hit point;
// identical requests that arrive while a clip is being made share the one engine job.
import { LRUCache } from 'lru-cache';
import type { ClipValue } from '../engine/worker.ts';

export interface ClipCache {
  get(key: string, make: () => Promise<ClipValue>): Promise<ClipValue>;
  /** The cached clip, if any, without making one. */
  peek(key: string): ClipValue | undefined;
  stats(): { entries: number; bytes: number; hits: number; misses: number; shared: number };
}

export function clipKey(audioSha256: string, mode: string, durationSeconds: number, hitPointSeconds: number | undefined): string {
  return `${audioSha256}:${mode}:${durationSeconds}:${hitPointSeconds ?? '-'}`;
}

export function createClipCache(maxBytes: number): ClipCache {
  const cache = new LRUCache<string, ClipValue>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (clip) => clip.mp3.byteLength + 256 });
  const making = new Map<string, Promise<ClipValue>>();
  let hits = 0, misses = 0, shared = 0;
  return {
    get(key, make) {
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
      const job = make()
        .then((clip) => {
          if (maxBytes > 0) cache.set(key, clip);
          return clip;
        })
        .finally(() => making.delete(key));
      making.set(key, job);
      return job;
    },
    peek(key) {
      const cached = cache.get(key);
      if (cached) hits++;
      return cached;
    },
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize ?? 0, hits, misses, shared }),
  };
}
