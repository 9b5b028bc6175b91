// Streams a file into a uWS response with backpressure (tryEnd/onWritable, as the uWS video
// streamer example): reading pauses while the client is slow, so a slow client holds at most
// one chunk in memory, and many concurrent downloads stay bounded.
import fs from 'node:fs';
import type { HttpResponse } from 'uWebSockets.js';
import type { OpenedFile } from '../../catalog/track-files.ts';

const CHUNK_BYTES = 256 * 1024;

/** How a streamed file ended: whole, cut after its head went out, or never begun (the client left first). */
export type Streamed = 'done' | 'cut' | 'unsent';

/**
 * Resolves when the whole file was handed to uWS ('done') or the client went away ('cut', or
 * 'unsent' when that was before the head went out).
 * Reads the open file from its start and leaves it open: its taker closes it. A file that ends
 * before `size` bytes (cut short under us) ends the connection, as a read error does: the status
 * went out with the full Content-Length, so the client must see the body cut, not wait for it.
 */
export function streamFile(res: HttpResponse, file: OpenedFile, signal: AbortSignal, writeHead: () => void): Promise<Streamed> {
  const { size } = file;
  return new Promise((resolve) => {
    const stream = fs.createReadStream('', { fd: file.handle, start: 0, autoClose: false, highWaterMark: CHUNK_BYTES });
    let headWritten = false;
    let settled = false;
    const finish = (how: 'done' | 'aborted') => {
      if (settled) return;
      settled = true;
      stream.destroy();
      resolve(how === 'done' ? 'done' : headWritten ? 'cut' : 'unsent');
    };
    signal.addEventListener('abort', () => finish('aborted'), { once: true });
    const cut = () => {
      // A read error after the status went out cannot become an error response: cut the connection.
      if (!signal.aborted && !settled) res.close();
      finish('aborted');
    };
    stream.on('error', cut);
    stream.on('end', cut); // after the last byte the reply is done (finish ran), so this cuts only a short file
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
