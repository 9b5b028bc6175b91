// A command run by runCommand whose work, in flight when a signal stops it, fails as its database
// closes in the ways postgres.js can: a rejected promise nobody holds, and a throw from a timer.
// Prints "ready" once stoppable, and "undone" when its undo has finished.
import { runCommand } from '../../db/command-line.ts';

const UNDO_MS = 200; // an undo that takes a while, as stopping a database does

runCommand(async (_argv, onStop) => {
  let closeDatabase!: () => void;
  const databaseClosed = new Promise<void>((resolve) => (closeDatabase = resolve));
  onStop(async () => {
    closeDatabase();
    await new Promise((resolve) => setTimeout(resolve, UNDO_MS));
    console.log('undone');
  });
  void databaseClosed.then(() => Promise.reject(new Error('write CONNECTION_CLOSED')));
  void databaseClosed.then(() => setImmediate(() => {
    throw new Error('read ECONNRESET');
  }));
  console.log('ready');
  await new Promise(() => setInterval(() => {}, 1000)); // the work: it would run until the signal
  return 0;
});
