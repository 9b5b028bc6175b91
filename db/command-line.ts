// What every `npm run <tool>` command shares: exit codes, error printing, and stopping on a signal.
import { openDatabase, type Database, type OpenDatabaseOptions } from './connect.ts';

/** Prints the problem and the usage; returns the exit code for a usage error. */
export function usageError(message: string, usage: string): number {
  console.error(`${message}\n${usage}`);
  return 2;
}

/** Registers what a command must undo if a signal stops it (the embedded database it started, first of all). */
export type OnStop = (undo: () => Promise<void>) => void;

/**
 * Opens the command's database, to be closed by a signal from the moment it starts opening: a
 * signal during the start or the migrations waits for them, then closes it (registered only once
 * open, an embedded PostgreSQL started by a tool stopped then was left running).
 */
export function openCommandDatabase(options: OpenDatabaseOptions, onStop: OnStop): Promise<Database> {
  const opening = openDatabase(options);
  onStop(async () => (await opening).close());
  return opening;
}

/** Exit codes of a process stopped by a signal: 128 + the signal's number. */
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Runs a command's main with the process arguments and exits with its code (1 on an unexpected
 * error). On SIGINT or SIGTERM sent to this process alone (a terminal's Ctrl-C reaches the
 * database's process too; `kill` does not), what main registered is undone, newest first, before
 * it exits: without it, Node's default exit would leave an embedded PostgreSQL running.
 */
export function runCommand(main: (argv: string[], onStop: OnStop) => Promise<number>): void {
  const undos: (() => Promise<void>)[] = [];
  let stopping = false; // then main's own end (an error, as its database goes) is not the exit
  const stop = async (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    stopping = true;
    console.error(`${signal}: stopping`);
    // Work still in flight fails as its database goes, in ways main no longer awaits: postgres.js
    // 3.4.9 can reject a promise nobody holds, or throw from a timer, when a connection closes under
    // a statement. Those failures are this stop's expected end, not the exit: the undos still run.
    process.on('unhandledRejection', ignoreWhileStopping);
    process.on('uncaughtException', ignoreWhileStopping);
    for (const undo of undos.reverse()) await undo().catch((err) => console.error(err instanceof Error ? err.message : err));
    process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(signal));
  main(process.argv.slice(2), (undo) => undos.push(undo)).then(
    (code) => stopping || process.exit(code),
    (err) => {
      if (stopping) return;
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}

function ignoreWhileStopping(): void {}
