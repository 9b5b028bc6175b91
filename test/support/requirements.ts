// What a test needs from the machine (a Debian package, a tool on PATH). On a developer's machine
// without it the test is skipped with the install line; in CI (CI=true) it fails instead: .ci/run
// installs everything the suite uses, so a test that skips there would guard nothing.
import { spawnSync } from 'node:child_process';

export function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/** The skip option of a test that needs `what` (false when `present`); under CI=true a missing requirement throws. */
export function skipUnless(present: boolean, what: string): string | false {
  if (present) return false;
  const message = `needs ${what} (.ci/run installs it)`;
  if (process.env.CI === 'true') throw new Error(`${message}: not installed on this CI machine`);
  return message;
}
