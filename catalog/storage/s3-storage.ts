// The catalog's objects in an S3-compatible bucket, shared by every node, read through this
// node's bounded disk cache (disk-cache.ts). Rendered clips are shared under clips/ so that a clip
// one node made is found by the others.
import path from 'node:path';
import { type CatalogStorage, objectName, StoredObjectMissing } from './catalog-storage.ts';
import { openBucket, type BucketOptions } from './s3-objects.ts';
import { openDiskCache } from './disk-cache.ts';
import { sha256Hex } from '../store.ts';

/** Where rendered clips are shared in the bucket, beside the catalog's objects. */
const SHARED_CLIPS = 'clips/';

export interface S3StorageOptions extends BucketOptions {
  /** This node's copies of the objects it reads. */
  cacheDir: string;
  cacheBytes: number;
}

export function s3Storage(options: S3StorageOptions): CatalogStorage {
  const bucket = openBucket(options);
  const cache = openDiskCache(options.cacheDir, options.cacheBytes);
  return {
    description: `s3://${options.bucket}/${options.prefix}${options.endpoint ? ` at ${options.endpoint}` : ''}, cached in ${path.resolve(options.cacheDir)}`,
    async put(bytes, kind, extension) {
      const sha256 = sha256Hex(bytes);
      const name = objectName(sha256, kind, extension);
      if (!(await bucket.has(name))) await bucket.put(name, bytes);
      await cache.add(name, bytes);
      return sha256;
    },
    has: (sha256, kind, extension) => bucket.has(objectName(sha256, kind, extension)),
    localPath(sha256, kind, extension) {
      const name = objectName(sha256, kind, extension);
      return cache.path(name, async () => {
        // Objects are named by their SHA-256: a copy that does not hash to its name (cut short or
        // overwritten in the bucket) is never cached, and never served.
        const bytes = await bucket.get(name);
        if (sha256Hex(bytes) !== sha256) throw new StoredObjectMissing(options.prefix + name, 'damaged');
        return bytes;
      });
    },
    remove: (sha256, kind, extension) => bucket.remove(objectName(sha256, kind, extension)),
    shared: {
      get: (name) => bucket.find(SHARED_CLIPS + name),
      put: (name, bytes) => bucket.put(SHARED_CLIPS + name, bytes),
    },
    close: async () => bucket.close(),
  };
}
