// The catalog storage STORAGE_URL names: unset, files under DATA_DIR/catalog; s3://BUCKET/PREFIX,
// that bucket, configured by the AWS SDK's standard variables (AWS_ENDPOINT_URL, AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and S3_FORCE_PATH_STYLE=1, read through a local cache of
// STORAGE_CACHE_MB (default 2048) in DATA_DIR/storage-cache. The server and the catalog CLI both
// open it here, so an ingest run with the service's environment writes where the service reads.
import path from 'node:path';
import type { CatalogStorage } from './catalog-storage.ts';
import { fileStorage } from './file-storage.ts';

const DEFAULT_CACHE_MB = 2048;

export interface StorageLocation {
  /** s3://BUCKET/PREFIX, or undefined for files in DATA_DIR. */
  url: string | undefined;
  endpoint: string | undefined;
  region: string | undefined;
  forcePathStyle: boolean;
  cacheBytes: number;
}

/** The storage location the environment names; a malformed STORAGE_URL or STORAGE_CACHE_MB is an error that says so. */
export function storageLocation(env: NodeJS.ProcessEnv = process.env): StorageLocation {
  const url = env.STORAGE_URL || undefined;
  if (url !== undefined) bucketAndPrefix(url);
  const cacheMb = env.STORAGE_CACHE_MB === undefined || env.STORAGE_CACHE_MB === '' ? DEFAULT_CACHE_MB : Number(env.STORAGE_CACHE_MB);
  if (!Number.isFinite(cacheMb) || cacheMb < 0) throw new Error(`STORAGE_CACHE_MB must be a number of megabytes, not "${env.STORAGE_CACHE_MB}"`);
  return {
    url,
    endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === '1' || env.S3_FORCE_PATH_STYLE === 'true',
    cacheBytes: Math.round(cacheMb * 1024 * 1024),
  };
}

/** BUCKET and PREFIX ('' or ending in '/') of s3://BUCKET/PREFIX. */
export function bucketAndPrefix(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`STORAGE_URL must be s3://BUCKET or s3://BUCKET/PREFIX, not "${url}"`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: match[1], prefix: prefix ? `${prefix}/` : '' };
}

/** The storage `location` names. The AWS SDK is loaded only for a bucket (a third of a second of every start otherwise). */
export async function openCatalogStorage(location: StorageLocation, dataDir: string): Promise<CatalogStorage> {
  if (location.url === undefined) return fileStorage(path.join(dataDir, 'catalog'));
  const { s3Storage } = await import('./s3-storage.ts');
  return s3Storage({
    ...bucketAndPrefix(location.url),
    endpoint: location.endpoint,
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    cacheDir: path.join(dataDir, 'storage-cache'),
    cacheBytes: location.cacheBytes,
  });
}
