// The few bucket operations the catalog needs, each with a deadline, and the bucket's failures
// sorted into the two that matter to a caller: the object is not there (StoredObjectMissing), or
// the store cannot be reached or answered in time (StorageUnavailable: retry later). Never a hang.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { StoredObjectMissing, StorageUnavailable } from './catalog-storage.ts';

/** How long one operation may take in all, retries included, before the store counts as unavailable. */
export const OPERATION_DEADLINE_MS = 10_000;
/**
 * The slowest an object's body may arrive once its reply has begun: a read's deadline grows by its
 * size at this rate, so a large original is not refused for taking longer than a preview does.
 */
const MIN_BODY_BYTES_PER_SECOND = 1_000_000;
/** How long a connection to the store may take to open. */
const CONNECTION_TIMEOUT_MS = 2_000;
/** Attempts per operation (the SDK backs off between them). */
const MAX_ATTEMPTS = 2;

export interface BucketOptions {
  bucket: string;
  /** Prepended to every object name ('' or ending in '/'). */
  prefix: string;
  /** AWS_ENDPOINT_URL: an S3-compatible server (MinIO, R2, Ceph, s3rver); unset: AWS itself. */
  endpoint?: string;
  /** AWS_REGION (default us-east-1). */
  region?: string;
  /** S3_FORCE_PATH_STYLE=1: http://host/bucket/key instead of http://bucket.host/key. */
  forcePathStyle: boolean;
  /** How long one operation may take in all (default OPERATION_DEADLINE_MS). */
  deadlineMs?: number;
  /** Explicit credentials; unset: the SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface Bucket {
  get(name: string): Promise<Uint8Array>;
  /** The object's bytes, or undefined when there is none. */
  find(name: string): Promise<Uint8Array | undefined>;
  has(name: string): Promise<boolean>;
  put(name: string, bytes: Uint8Array): Promise<void>;
  remove(name: string): Promise<void>;
  close(): void;
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

export function openBucket(options: BucketOptions): Bucket {
  const deadlineMs = options.deadlineMs ?? OPERATION_DEADLINE_MS;
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    maxAttempts: MAX_ATTEMPTS,
    // Checksums only where the operation requires them: with the SDK's defaults a PutObject body is
    // sent in aws-chunked framing that some S3-compatible servers store as part of the object.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: Math.min(CONNECTION_TIMEOUT_MS, deadlineMs), requestTimeout: deadlineMs },
  });
  const key = (name: string) => options.prefix + name;

  /**
   * Runs one operation on `name` under the deadline (which `extend` may lengthen once the size of
   * what is coming is known); a missing object and an unreachable store become their own errors.
   */
  async function run<T>(name: string, operation: (abortSignal: AbortSignal, extend: (ms: number) => void) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const abort = () => controller.abort(new DOMException(`no answer within the deadline`, 'TimeoutError'));
    let timer = setTimeout(abort, deadlineMs);
    const extend = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(abort, ms);
    };
    try {
      return await operation(controller.signal, extend);
    } catch (err) {
      if (isMissing(err)) throw new StoredObjectMissing(key(name));
      throw new StorageUnavailable(key(name), err);
    } finally {
      clearTimeout(timer);
    }
  }

  const get = (name: string) =>
    run(name, async (abortSignal, extend) => {
      const reply = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: key(name) }), { abortSignal });
      extend(deadlineMs + ((reply.ContentLength ?? 0) / MIN_BODY_BYTES_PER_SECOND) * 1000);
      return reply.Body!.transformToByteArray();
    });

  return {
    get,
    async find(name) {
      try {
        return await get(name);
      } catch (err) {
        if (err instanceof StoredObjectMissing) return undefined;
        throw err;
      }
    },
    async has(name) {
      try {
        await run(name, (abortSignal) => client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: key(name) }), { abortSignal }));
        return true;
      } catch (err) {
        if (err instanceof StoredObjectMissing) return false;
        throw err;
      }
    },
    put: (name, bytes) =>
      run(name, async (abortSignal) => {
        await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: key(name), Body: bytes, ContentLength: bytes.byteLength }), { abortSignal });
      }),
    remove: (name) =>
      run(name, async (abortSignal) => {
        await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key(name) }), { abortSignal });
      }),
    close: () => client.destroy(),
  };
}
