// The music of a Doom WAD (Freedoom's, Debian's freedoom package): each level's tune is a lump
// named D_<name> holding a standard MIDI file. A WAD is a 12-byte header (its kind, the number of
// lumps, where the directory starts) and a directory of 16-byte entries (a lump's offset, size and
// name, NUL-padded to 8 bytes), all little-endian.
import fs from 'node:fs';

const HEADER_BYTES = 12;
const ENTRY_BYTES = 16;
const NAME_BYTES = 8;
const MUSIC_PREFIX = 'D_';
const MIDI_MAGIC = 'MThd';

export interface WadTune {
  /** The lump's name, e.g. D_E1M1. */
  name: string;
  midi: Buffer;
}

/** The WAD's tunes stored as standard MIDI files (a tune in Doom's own MUS format is left out), in directory order. */
export function wadTunes(wadFile: string): WadTune[] {
  const wad = fs.readFileSync(wadFile);
  const kind = wad.toString('latin1', 0, 4);
  if (wad.length < HEADER_BYTES || (kind !== 'IWAD' && kind !== 'PWAD')) throw new Error(`${wadFile}: not a WAD (${JSON.stringify(kind)})`);
  const lumps = wad.readInt32LE(4);
  const directory = wad.readInt32LE(8);
  const tunes: WadTune[] = [];
  for (let i = 0; i < lumps; i++) {
    const entry = directory + i * ENTRY_BYTES;
    const offset = wad.readInt32LE(entry);
    const size = wad.readInt32LE(entry + 4);
    const name = wad.toString('latin1', entry + 8, entry + 8 + NAME_BYTES).replace(/\0.*$/s, '');
    const midi = wad.subarray(offset, offset + size);
    if (name.startsWith(MUSIC_PREFIX) && midi.toString('latin1', 0, 4) === MIDI_MAGIC) tunes.push({ name, midi });
  }
  return tunes;
}
