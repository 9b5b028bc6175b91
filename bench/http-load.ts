// A lean closed-loop HTTP/1.1 load generator for large response bodies: keep-alive sockets read
// into one reused buffer (net's `onread`), with only the status line and Content-Length parsed.
// autocannon parses bodies in JavaScript (~100 MP3 responses/s here) and node:http allocates
// every body chunk (~300 MB/s here); either made the client, not the server, the limit of the
// download benchmarks. Bounded by time; stops by itself.
import net from 'node:net';

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  bytesPerSecond: number;
}

const READ_BUFFER = Buffer.alloc(1 << 20);
const HEADER_END = Buffer.from('\r\n\r\n');

export async function load(options: {
  url: string;
  connections: number;
  seconds: number;
  request: () => { method: string; headers: Record<string, string>; body?: string };
}): Promise<LoadResult> {
  const target = new URL(options.url);
  const latencies: number[] = [];
  let non2xx = 0;
  let bytes = 0;
  const deadline = performance.now() + options.seconds * 1000;

  const connection = () =>
    new Promise<void>((resolve, reject) => {
      let head = Buffer.alloc(0); // header bytes of the current response, until its blank line
      let bodyLeft = -1; // -1: reading the header
      let started = 0;
      const socket = net.connect({
        host: target.hostname,
        port: Number(target.port),
        onread: {
          buffer: READ_BUFFER,
          callback(n: number, buf: Uint8Array): boolean {
            let offset = 0;
            while (offset < n) {
              if (bodyLeft < 0) {
                head = Buffer.concat([head, buf.subarray(offset, n)]);
                const end = head.indexOf(HEADER_END);
                if (end < 0) return true;
                const text = head.subarray(0, end).toString('latin1');
                const status = Number(text.slice(9, 12));
                if (status < 200 || status >= 300) non2xx++;
                const length = /\r\ncontent-length: *(\d+)/i.exec(text);
                if (!length) {
                  socket.destroy(new Error('response without Content-Length'));
                  return false;
                }
                bodyLeft = Number(length[1]);
                const consumedFromChunk = end + 4 - (head.length - (n - offset));
                offset += consumedFromChunk;
                head = Buffer.alloc(0);
              }
              const take = Math.min(bodyLeft, n - offset);
              bodyLeft -= take;
              bytes += take;
              offset += take;
              if (bodyLeft === 0) {
                latencies.push(performance.now() - started);
                bodyLeft = -1;
                if (performance.now() >= deadline) {
                  socket.destroy(); // the response was read in full
                  return false;
                }
                send();
              }
            }
            return true;
          },
        },
      });
      const send = () => {
        const { method, headers, body } = options.request();
        const payload = body ?? '';
        let text = `${method} ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`;
        for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
        started = performance.now();
        socket.write(text + '\r\n' + payload);
      };
      socket.on('connect', send);
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });

  const started = performance.now();
  await Promise.all(Array.from({ length: options.connections }, connection));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  // To a tenth of a millisecond: a plan's p99 is a few milliseconds, and whole ones hid a change of 20%.
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return { requests: latencies.length, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), non2xx, bytesPerSecond: bytes / elapsed };
}
