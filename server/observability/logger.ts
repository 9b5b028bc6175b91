// The service's log: pino JSON lines on stdout, written asynchronously (a request never waits on
// the terminal or a pipe), pretty-printed when stdout is a terminal. LOG_LEVEL sets the level
// (default info; "warn" drops the per-request lines, "silent" everything).
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Log } from '../http/error-reply.ts';

export type { Logger };

const DEFAULT_LEVEL = 'info';
const WRITE_BATCH_BYTES = 4096;
// How long a line may wait in the batch: a quiet server's lines still show at once to a reader.
const FLUSH_MS = 100;

export interface LoggerOptions {
  /** Default: LOG_LEVEL, else info. */
  level?: string;
  /** Where the lines go (tests); default stdout. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? (process.env.LOG_LEVEL || DEFAULT_LEVEL);
  if (!Object.hasOwn(pino.levels.values, level) && level !== 'silent') {
    throw new Error(`LOG_LEVEL must be one of ${Object.keys(pino.levels.values).join(', ')}, silent; got "${level}"`);
  }
  if (level === 'silent') return pino({ level, enabled: false });
  if (options.destination) return pino({ level }, options.destination);
  // pino-pretty runs in pino's transport thread, off the event loop.
  if (process.stdout.isTTY) return pino({ level, transport: { target: 'pino-pretty' } });
  // Written in batches of at least WRITE_BATCH_BYTES, or every FLUSH_MS when quieter: one write
  // per log line took a system call per request. pino flushes what is left at exit.
  return pino({ level }, pino.destination({ dest: 1, sync: false, minLength: WRITE_BATCH_BYTES, periodicFlush: FLUSH_MS }));
}

/**
 * The Log the rest of the service reports problems through (billing and the pipeline take a plain
 * function, not pino): a failure with its error (and stack) at error, a condition without at warn.
 */
export function problemLog(logger: Logger): Log {
  return (message, err) => {
    if (err === undefined) logger.warn(message);
    else logger.error({ err }, message);
  };
}
