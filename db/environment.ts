// Where the database is, from the environment: shared by the server and every command-line tool.
import path from 'node:path';

export interface DatabaseLocation {
  /** An external PostgreSQL; undefined: the embedded one in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
}

export function databaseLocation(): DatabaseLocation {
  return {
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: path.resolve(process.env.DATA_DIR || './data'),
  };
}

/** An integer environment variable of at least `min`, or `fallback` when unset; anything else throws. */
export function integerFromEnvironment(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}
