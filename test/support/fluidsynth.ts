// MIDI files rendered to WAV by FluidSynth, with the FluidR3 General MIDI sound font (fluidsynth,
// fluid-soundfont-gm) unless another is named: the scored songs and the tuning set's accompaniments
// sound alike.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

const SOUND_FONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';
/**
 * General MIDI sound fonts that sound unlike FluidR3 (a small sampled set, an FM chip's, csound's,
 * MuseScore's): the same scores rendered with them say how far a figure depends on one renderer's
 * sound. Packages timgm6mb-soundfont, opl3-soundfont, csound-soundfont,
 * musescore-general-soundfont-small.
 */
export const OTHER_SOUND_FONTS = [
  '/usr/share/sounds/sf2/TimGM6mb.sf2',
  '/usr/share/sounds/sf2/OPL-3_FM_128M.sf2',
  '/usr/share/sounds/sf2/sf_GMbank.sf2',
  '/usr/share/sounds/sf3/MuseScore_General_Lite.sf3',
];
/** The renders' sample rate, Hz. */
export const RENDER_SAMPLE_RATE = 44100;

/** Whether `soundFont` (FluidR3 unless named) is installed. */
export function soundFontPresent(soundFont = SOUND_FONT): boolean {
  return fs.existsSync(soundFont);
}

/** `midiFile` rendered to `wav`, unless `wav` exists; written whole or not at all. False when FluidSynth fails or is absent. */
export function renderMidi(midiFile: string, wav: string, soundFont = SOUND_FONT): boolean {
  if (fs.existsSync(wav)) return true;
  const partial = `${wav}.${process.pid}.partial`;
  const result = spawnSync('fluidsynth', ['-ni', '-q', '-r', String(RENDER_SAMPLE_RATE), '-T', 'wav', '-F', partial, soundFont, midiFile]);
  if (result.status !== 0 || !fs.existsSync(partial)) return false;
  fs.renameSync(partial, wav);
  return true;
}
