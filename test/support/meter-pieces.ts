// Synthetic pieces in a given meter, with known beats and bars: a chord per bar (sustained, a new
// root each bar, so the harmony changes on the bar line), its tones arpeggiated one per beat, a bass
// note and a kick on the downbeat, lighter hits on the other beats, a hat on every beat. A bar may
// fall into groups (6 as 3 + 3, 7 as 4 + 3): each group's first beat gets a medium accent.
import { RATE, addKick, addNoiseHit, addTone, noise } from './synth.ts';

/** Chords (Hz: root, third, fifth) in turn, one per bar: C, A minor, F, G, D minor, E minor. */
const CHORDS = [
  [261.6, 329.6, 392.0],
  [220.0, 261.6, 329.6],
  [174.6, 220.0, 261.6],
  [196.0, 246.9, 293.7],
  [146.8, 174.6, 220.0],
  [164.8, 196.0, 246.9],
];

export interface MeterPiece {
  mono: Float32Array;
  beatSeconds: number[];
  barSeconds: number[];
}

export interface MeterPieceOptions {
  /** Bars each chord lasts (1: the harmony changes on every bar line). */
  barsPerChord?: number;
  /** Whether the downbeat and group starts are struck harder than the other beats (false: a kick of the same weight on every beat). */
  accented?: boolean;
  leadIn?: number;
  seed?: number;
}

/** A piece of `seconds` at `bpm` in bars of `groups` summed beats (e.g. [3, 3] for 6 as two threes), from `leadIn` seconds. */
export function meterPiece(bpm: number, seconds: number, groups: number[], { barsPerChord = 1, accented = true, leadIn = 0.5, seed = 11 }: MeterPieceOptions = {}): MeterPiece {
  const out = new Float32Array(Math.round(seconds * RATE));
  const random = noise(seed);
  const beat = 60 / bpm;
  const beatsPerBar = groups.reduce((a, b) => a + b, 0);
  const groupStarts = new Set(groups.map((_, g) => groups.slice(0, g).reduce((a, b) => a + b, 0)));
  const piece: MeterPiece = { mono: out, beatSeconds: [], barSeconds: [] };
  for (let i = 0, t = leadIn; t < seconds - 0.3; i++, t = leadIn + i * beat) {
    const position = i % beatsPerBar;
    const bar = Math.floor(i / beatsPerBar);
    const chord = CHORDS[Math.floor(bar / barsPerChord) % CHORDS.length];
    piece.beatSeconds.push(t);
    if (position === 0) piece.barSeconds.push(t);
    if (position === 0 && bar % barsPerChord === 0) {
      const chordSeconds = Math.min(barsPerChord * beatsPerBar * beat, seconds - t);
      for (const hz of chord) addTone(out, t, hz, chordSeconds, 0.08, chordSeconds);
      addTone(out, t, chord[0] / 4, chordSeconds * 0.9, 0.3, chordSeconds / 2);
    }
    if (!accented) {
      addKick(out, t, 0.5);
    } else if (position === 0) {
      addKick(out, t, 0.7);
    } else if (groupStarts.has(position)) {
      addKick(out, t, 0.4);
    } else {
      addNoiseHit(out, t, 0.1, 0.15, random, false);
    }
    addTone(out, t, chord[position % chord.length] * 2, beat * 0.8, 0.06, beat / 3);
    addNoiseHit(out, t, 0.04, 0.06, random, true);
  }
  return piece;
}
