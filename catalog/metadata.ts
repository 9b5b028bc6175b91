// The metadata sidecar of an ingest folder: metadata.json ({"tracks": [...]} or [...]) or
// metadata.csv (header row; list fields separated by ";"). Each entry names its file and gives
// title, artist and any Track fields; values are checked against the vocabularies of spec 2.6.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { ENERGY_LEVELS, INSTRUMENTS, MOODS, PARENT_GENRES } from './vocabulary.ts';

export interface TrackMetadata {
  file: string;
  title: string;
  artist: string;
  genre?: string;
  subgenres?: string[];
  moods?: string[];
  instruments?: string[];
  has_vocals?: boolean;
  energy_level?: 'low' | 'medium' | 'high';
  bpm?: number;
  key?: string;
  description?: string;
}

const LIST_FIELDS = ['subgenres', 'moods', 'instruments'] as const;
const KNOWN_FIELDS = new Set(['file', 'title', 'artist', 'genre', 'subgenres', 'moods', 'instruments', 'has_vocals', 'energy_level', 'bpm', 'key', 'description', 'ground_truth']);

function canonical(value: string, vocabulary: readonly string[]): string | undefined {
  return vocabulary.find((v) => v.toLowerCase() === value.trim().toLowerCase());
}

// csv-parse, not a line splitter: a quoted field may hold commas, "" escapes and newlines.
const CSV_OPTIONS = {
  bom: true,
  columns: (header: string[]) => header.map((name) => name.trim()),
  relax_column_count: true, // short rows leave fields out; cells beyond the header are ignored
  skip_empty_lines: true,
  skip_records_with_empty_values: true, // lines of blanks only
} as const;

/** The rows of a metadata.csv as raw entries: lists split on ";", has_vocals and bpm typed. */
function csvEntries(file: string): Record<string, unknown>[] {
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(fs.readFileSync(file, 'utf8'), CSV_OPTIONS);
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  return rows.map((row) => {
    const entry: Record<string, unknown> = {};
    for (const [name, cell] of Object.entries(row)) {
      const value = (cell ?? '').trim();
      if (value === '') continue;
      if ((LIST_FIELDS as readonly string[]).includes(name)) entry[name] = value.split(';').map((v) => v.trim()).filter(Boolean);
      else if (name === 'has_vocals') entry[name] = /^(true|yes|1)$/i.test(value) ? true : /^(false|no|0)$/i.test(value) ? false : value;
      else if (name === 'bpm') entry[name] = Number(value);
      else entry[name] = value;
    }
    return entry;
  });
}

function readRawEntries(dir: string): Record<string, unknown>[] {
  const json = path.join(dir, 'metadata.json');
  const csv = path.join(dir, 'metadata.csv');
  if (fs.existsSync(json)) {
    const parsed = JSON.parse(fs.readFileSync(json, 'utf8'));
    const entries = Array.isArray(parsed) ? parsed : parsed?.tracks;
    if (!Array.isArray(entries)) throw new Error(`${json}: expected an array of tracks or {"tracks": [...]}`);
    return entries;
  }
  if (fs.existsSync(csv)) return csvEntries(csv);
  throw new Error(`no metadata.json or metadata.csv in ${dir}`);
}

export interface MetadataResult {
  entries: Map<string, TrackMetadata>;
  /** file (or entry number) -> reason */
  rejected: Map<string, string>;
}

export function readMetadata(dir: string): MetadataResult {
  const entries = new Map<string, TrackMetadata>();
  const rejected = new Map<string, string>();
  readRawEntries(dir).forEach((raw, i) => {
    const name = typeof raw.file === 'string' && raw.file ? raw.file : `entry ${i + 1}`;
    try {
      entries.set(name, validateEntry(raw));
    } catch (err) {
      rejected.set(name, (err as Error).message);
    }
  });
  return { entries, rejected };
}

/** What no text of the catalog may hold: a NUL (PostgreSQL text cannot) or a lone surrogate (not Unicode text). */
const UNSTORABLE = /[\u0000\ud800-\udfff]/u;

function validateEntry(raw: Record<string, unknown>): TrackMetadata {
  for (const field of Object.keys(raw)) if (!KNOWN_FIELDS.has(field)) throw new Error(`unknown metadata field "${field}"`);
  const text = (field: string, required: boolean) => {
    const value = raw[field];
    if (value === undefined) {
      if (required) throw new Error(`metadata lacks "${field}"`);
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`"${field}" must be a non-empty string`);
    if (UNSTORABLE.test(value)) throw new Error(`"${field}" holds a NUL character or a lone surrogate`);
    return value.trim();
  };
  const list = (field: string, vocabulary?: readonly string[]) => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new Error(`"${field}" must be a list of strings`);
    if (value.some((v: string) => UNSTORABLE.test(v))) throw new Error(`"${field}" holds a NUL character or a lone surrogate`);
    if (!vocabulary) return value.map((v: string) => v.trim());
    // Known values are written as the vocabulary spells them; others are kept (spec: further values occur).
    return value.map((v: string) => canonical(v, vocabulary) ?? v.trim());
  };
  const entry: TrackMetadata = { file: text('file', true)!, title: text('title', true)!, artist: text('artist', true)! };
  const genre = text('genre', false);
  if (genre !== undefined) {
    const parent = canonical(genre, PARENT_GENRES);
    if (!parent) throw new Error(`genre "${genre}" is not a parent genre of spec 2.6`);
    entry.genre = parent;
  }
  entry.subgenres = list('subgenres');
  entry.moods = list('moods', MOODS);
  entry.instruments = list('instruments', INSTRUMENTS);
  if (raw.has_vocals !== undefined) {
    if (typeof raw.has_vocals !== 'boolean') throw new Error('"has_vocals" must be true or false');
    entry.has_vocals = raw.has_vocals;
  }
  const energy = text('energy_level', false);
  if (energy !== undefined) {
    const level = canonical(energy, ENERGY_LEVELS);
    if (!level) throw new Error(`energy_level "${energy}" must be low, medium or high`);
    entry.energy_level = level as TrackMetadata['energy_level'];
  }
  if (raw.bpm !== undefined) {
    if (typeof raw.bpm !== 'number' || !Number.isFinite(raw.bpm) || raw.bpm < 20 || raw.bpm > 300) throw new Error('"bpm" must be a number from 20 to 300');
    entry.bpm = raw.bpm;
  }
  const key = text('key', false);
  if (key !== undefined) {
    if (!/^[A-G](#|b)? (major|minor)$/.test(key)) throw new Error(`key "${key}" must look like "A minor" or "C# major"`);
    entry.key = key;
  }
  entry.description = text('description', false);
  return entry;
}
