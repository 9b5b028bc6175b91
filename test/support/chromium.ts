// Debian's chromium for browser tests, driven by playwright-core (no browser downloads): .ci/run
// installs it with apt-get. The flags suit a root user on a closed network.
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Why browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return fs.existsSync(CHROMIUM_PATH) ? undefined : `${CHROMIUM_PATH} not found: install it with "apt-get install -y chromium" (.ci/run does)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS });
}
