// A closed-loop HTTP load generator on node:http (llhttp, C) with keep-alive connections.
// autocannon parses response bodies in JavaScript and tops out near 100 responses/s for
// ~480 KB MP3 bodies on this machine (while serving the same bytes to curl runs at ~1,500/s),
// so downloads are measured with this instead. Bounded by time; stops by itself.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  bytesPerSecond: number;
}

export async function load(options: {
  url: string;
  connections: number;
  seconds: number;
  request: () => { method: string; headers: Record<string, string>; body?: string };
}): Promise<LoadResult> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let non2xx = 0;
  let bytes = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const { method, headers, body } = options.request();
      const started = performance.now();
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent }, (res) => {
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          latencies.push(performance.now() - started);
          if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
          resolve();
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { requests: latencies.length, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), non2xx, bytesPerSecond: bytes / elapsed };
}
