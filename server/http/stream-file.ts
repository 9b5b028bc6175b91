// Streams a file into a uWS response with backpressure (tryEnd/onWritable, as the uWS video
// streamer example): reading pauses while the client is slow, so a slow client holds at most
// one chunk in memory, and many concurrent downloads stay bounded.
import fs from 'node:fs';
import type { HttpResponse } from 'uWebSockets.js';

const CHUNK_BYTES = 256 * 1024;

/** Resolves when the whole file was handed to uWS ('done') or the client went away ('aborted'). */
export function streamFile(res: HttpResponse, path: string, size: number, signal: AbortSignal, writeHead: () => void): Promise<'done' | 'aborted'> {
  return new Promise((resolve) => {
    const stream = fs.createReadStream(path, { highWaterMark: CHUNK_BYTES });
    let headWritten = false;
    let settled = false;
    const finish = (how: 'done' | 'aborted') => {
      if (settled) return;
      settled = true;
      stream.destroy();
      resolve(how);
    };
    signal.addEventListener('abort', () => finish('aborted'), { once: true });
    stream.on('error', () => {
      // A read error after the status went out cannot become an error response: cut the connection.
      if (!signal.aborted) res.close();
      finish('aborted');
    });
    stream.on('data', (chunk) => {
      const buffer = chunk as Buffer;
      const bytes = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
      if (signal.aborted) return finish('aborted');
      let ok = false;
      let done = false;
      let lastOffset = 0;
      res.cork(() => {
        if (!headWritten) {
          writeHead();
          headWritten = true;
        }
        lastOffset = res.getWriteOffset();
        [ok, done] = res.tryEnd(bytes, size);
      });
      if (done) return finish('done');
      if (ok) return;
      stream.pause();
      res.onWritable((offset) => {
        const [retryOk, retryDone] = res.tryEnd(bytes.slice(offset - lastOffset), size);
        if (retryDone) finish('done');
        else if (retryOk) stream.resume();
        return retryOk;
      });
    });
  });
}
