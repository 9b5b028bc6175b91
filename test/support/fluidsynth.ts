// MIDI files rendered to WAV by FluidSynth with the FluidR3 General MIDI sound font (fluidsynth,
// fluid-soundfont-gm): the scored songs and the tuning set's accompaniments sound alike.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

const SOUND_FONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';
/** The renders' sample rate, Hz. */
export const RENDER_SAMPLE_RATE = 44100;

/** Whether the sound font is installed. */
export function soundFontPresent(): boolean {
  return fs.existsSync(SOUND_FONT);
}

/** `midiFile` rendered to `wav`, unless `wav` exists; written whole or not at all. False when FluidSynth fails or is absent. */
export function renderMidi(midiFile: string, wav: string): boolean {
  if (fs.existsSync(wav)) return true;
  const partial = `${wav}.${process.pid}.partial`;
  const result = spawnSync('fluidsynth', ['-ni', '-q', '-r', String(RENDER_SAMPLE_RATE), '-T', 'wav', '-F', partial, SOUND_FONT, midiFile]);
  if (result.status !== 0 || !fs.existsSync(partial)) return false;
  fs.renameSync(partial, wav);
  return true;
}
