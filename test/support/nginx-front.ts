// Starts Debian's nginx with the repository's front config (deploy/nginx.conf) in front of a
// test server: the config as shipped, with only its node address, listening port and file paths
// changed for a scratch directory.
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const NGINX = '/usr/sbin/nginx';
const START_TIMEOUT_MS = 10_000;

export interface NginxFront {
  port: number;
  base: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`deploy/nginx.conf no longer has "${from}"`);
  return text.replace(from, to);
}

/** nginx with deploy/nginx.conf, its upstream the given nodes (host:port). */
export async function startNginxFront(nodes: string[]): Promise<NginxFront> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-nginx-'));
  const port = await freePort();
  let conf = fs.readFileSync(path.join(root, 'deploy/nginx.conf'), 'utf8');
  conf = replaceOnce(conf, '    server 127.0.0.1:3000 max_fails=1 fail_timeout=2s;\n', nodes.map((node) => `    server ${node} max_fails=1 fail_timeout=2s;\n`).join(''));
  conf = replaceOnce(conf, 'listen 80 reuseport;', `listen 127.0.0.1:${port};`);
  conf = replaceOnce(conf, 'error_log /var/log/nginx/api-error.log warn;', `error_log ${dir}/error.log warn;`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};\n`).join('');
  conf = replaceOnce(conf, 'http {\n', `http {\n${temp}`);
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `pid ${dir}/nginx.pid; daemon off;`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start: ${output}${fs.existsSync(`${dir}/error.log`) ? fs.readFileSync(`${dir}/error.log`, 'utf8') : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
