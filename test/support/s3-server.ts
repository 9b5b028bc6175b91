// A real S3 API server for tests (s3rver, over HTTP on a free port, objects in a temporary
// directory) with one bucket, and the storage settings that point at it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import S3rver from 's3rver';
import type { StorageLocation } from '../../catalog/storage/open-storage.ts';

export const TEST_BUCKET = 'mla-test';
/** s3rver's own access key and secret: it checks request signatures against them. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  endpoint: string;
  directory: string;
  /** STORAGE_URL, AWS_* and S3_FORCE_PATH_STYLE for a process that stores in this bucket under `prefix`. */
  env(prefix?: string): Record<string, string>;
  /** The same for a Config in this process (the SDK's credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, set here). */
  location(prefix?: string, cacheBytes?: number): StorageLocation;
  stop(): Promise<void>;
}

export async function startTestS3(): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: TEST_BUCKET }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
  return {
    endpoint,
    directory,
    env: (prefix = 'catalog') => ({
      STORAGE_URL: `s3://${TEST_BUCKET}/${prefix}`,
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: '1',
    }),
    location: (prefix = 'catalog', cacheBytes = 64 * 1024 * 1024) => ({ url: `s3://${TEST_BUCKET}/${prefix}`, endpoint, region: 'us-east-1', forcePathStyle: true, cacheBytes }),
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A TCP port that accepts connections and never answers: a store that hangs. */
export async function silentEndpoint(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A local port nothing listens on: a store that refuses connections. */
export async function refusedEndpoint(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
