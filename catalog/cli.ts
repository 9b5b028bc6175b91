// `npm run catalog -- generate [--tracks N] [--seed S] [--out DIR]`, `ingest DIR`, `remove ID`, `list`.
import path from 'node:path';
import { parseArgs } from 'node:util';
import os from 'node:os';
import { databaseLocation, integerFromEnvironment } from '../db/environment.ts';
import { createEnginePool } from '../engine/pool.ts';
import { generateDemoCatalog, DEFAULT_SEED } from './demo/generate.ts';
import { ingestFolder, listTracks, removeTrack } from './ingest.ts';
import { progressBar } from './progress.ts';
import { openCommandDatabase, runCommand, usageError, type OnStop } from '../db/command-line.ts';
import { openCatalogStorage, storageLocation } from './storage/open-storage.ts';

const USAGE = `usage:
  npm run catalog -- generate [--tracks N] [--seed S] [--out DIR]   render a demo catalog folder (MP3s + metadata.json)
  npm run catalog -- ingest DIR                                      add a folder of MP3s with metadata.json or metadata.csv
  npm run catalog -- remove TRACK_ID                                 withdraw a track (downloads give 404)
  npm run catalog -- list`;

async function main(argv: string[], onStop: OnStop): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { tracks: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } } });
  const [command, argument] = positionals;
  const config = { ...databaseLocation(), workers: integerFromEnvironment('WORKERS', os.availableParallelism(), 1) };
  if (command === 'generate') {
    const tracks = Number(values.tracks ?? 24);
    const seed = Number(values.seed ?? DEFAULT_SEED);
    if (!Number.isInteger(tracks) || tracks < 1) return fail('--tracks must be a positive integer');
    if (!Number.isInteger(seed)) return fail('--seed must be an integer');
    const dir = path.resolve(values.out ?? path.join(config.dataDir, 'generated'));
    await generateDemoCatalog({ dir, tracks, seed, onProgress: progressBar('rendering') });
    console.log(`wrote ${tracks} tracks and metadata.json to ${dir}; add them with: npm run catalog -- ingest ${dir}`);
    return 0;
  }
  if (!['ingest', 'remove', 'list'].includes(command)) return fail(`unknown command "${command ?? ''}"`);
  if ((command === 'ingest' || command === 'remove') && !argument) return fail(`${command} needs ${command === 'ingest' ? 'a folder' : 'a track id'}`);
  const db = await openCommandDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, maxConnections: 4 }, onStop);
  try {
    if (command === 'list') {
      for (const t of await listTracks(db.sql)) {
        console.log([t.id, shownName(t.title), shownName(t.artist), shownName(t.genre ?? '-'), `${t.duration_seconds.toFixed(1)} s`, t.bpm ? `${t.bpm} bpm` : '-', t.key ?? '-', t.energy_level ?? '-', t.removed ? 'REMOVED' : ''].join('\t'));
      }
      return 0;
    }
    if (command === 'remove') {
      if (!(await removeTrack(db.sql, argument))) return fail(`no track "${argument}" in the catalog (or already removed)`);
      console.log(`removed ${argument}`);
      return 0;
    }
    const pool = createEnginePool({ threads: config.workers });
    const storage = await openCatalogStorage(storageLocation(), config.dataDir);
    try {
      const report = await ingestFolder({ sql: db.sql, pool, dir: path.resolve(argument), storage, onProgress: progressBar('ingesting') });
      for (const t of report.ingested) console.log(`ingested  ${t.id}  ${shownName(t.file)}`);
      for (const t of report.unchanged) console.log(`unchanged ${t.id}  ${shownName(t.file)}`);
      for (const t of report.rejected) console.log(`rejected  ${shownName(t.file)}: ${shownName(t.reason)}`);
      console.log(`${report.ingested.length} ingested, ${report.unchanged.length} unchanged, ${report.rejected.length} rejected`);
      return report.rejected.length ? 3 : 0;
    } finally {
      await storage.close();
      await pool.close();
    }
  } finally {
    await db.close();
  }
}

// Direction overrides, and with them the control characters (a newline, an escape sequence), that
// a file name or a title may hold: printed as escapes.
const DIRECTION_OVERRIDES = /[\u202a-\u202e\u2066-\u2069]/gu;
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** A name, title or reason as a report prints it: as it is, or quoted with escapes when it holds a control character, so that one entry stays one line and nothing reaches the terminal as a command. */
function shownName(text: string): string {
  return UNPRINTABLE.test(text) ? JSON.stringify(text).replace(DIRECTION_OVERRIDES, (c) => `\\u${c.charCodeAt(0).toString(16)}`) : text;
}

function fail(message: string): number {
  return usageError(message, USAGE);
}

runCommand(main);
