// Starts bench/bare-uws.ts as its own process (as the real server runs), for a reference measured
// in the same run as the server it is compared with.
import { spawn } from 'node:child_process';
import path from 'node:path';

export async function startBare(bodyBytes?: number): Promise<{ url: string; stop(): void }> {
  const args = ['--import', 'tsx', path.join(import.meta.dirname, 'bare-uws.ts'), ...(bodyBytes === undefined ? [] : [String(bodyBytes)])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`bare uWS server exited (${code})`)));
    child.stdout!.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}
