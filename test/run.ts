// `npm test`: runs every test file with node:test against a real PostgreSQL. Uses DATABASE_URL when
// given; otherwise starts a throw-away embedded PostgreSQL for the run and removes it afterwards.
// Each test file creates its own database on that server (support/database.ts).
//   npm test -- rate-limits                              the files whose path contains "rate-limits"
//   npm test -- rate-limits --test-name-pattern=burst    only their tests whose name matches
// Arguments that start with "-" go to node's test runner as they are; the others pick files.
// The files share a directory, MLA_TEST_DEMO_RENDERS, where each demo track is rendered once
// (support/rendered-demo.ts): a new one for the run, removed after it, unless one is given (then it
// is kept, for reruns; empty it when the demo renderer or the MP3 encoder changes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startEmbeddedPostgres } from '../db/embedded-postgres.ts';

const root = path.dirname(new URL(import.meta.url).pathname);

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const runnerOptions = args.filter((arg) => arg.startsWith('-'));
  const filter = args.filter((arg) => !arg.startsWith('-'));
  // Matched against the path below test/, so the checkout's own location never matches.
  const files = testFiles(root).filter((f) => filter.length === 0 || filter.some((part) => path.relative(root, f).includes(part))).sort();
  // With no file named, node --test would look for test files itself, everywhere.
  if (files.length === 0) throw new Error(`no test file's path contains ${filter.map((part) => `"${part}"`).join(' or ')}`);
  let adminUrl = process.env.DATABASE_URL;
  let scratch: string | undefined;
  let stopDatabase = async () => {};
  if (!adminUrl) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mla-test-'));
    fs.chmodSync(scratch, 0o755); // the embedded server may run as the 'postgres' user
    const db = await startEmbeddedPostgres(scratch, { throwaway: true });
    adminUrl = db.url;
    stopDatabase = db.stop;
  }
  const givenRenders = process.env.MLA_TEST_DEMO_RENDERS;
  if (givenRenders) fs.mkdirSync(givenRenders, { recursive: true });
  const renders = givenRenders || fs.mkdtempSync(path.join(os.tmpdir(), 'mla-test-renders-'));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...runnerOptions, ...files], {
      stdio: 'inherit',
      env: { ...process.env, TEST_ADMIN_DATABASE_URL: adminUrl, MLA_TEST_DEMO_RENDERS: renders },
    });
    const stop = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await stopDatabase();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    if (!givenRenders) fs.rmSync(renders, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
