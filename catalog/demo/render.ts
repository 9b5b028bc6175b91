// Renders a planned demo track to stereo PCM: chords, bass, drums and melody per section, with
// the climax as the loudest, densest passage, mastered to the loudness of its energy level.
import { seededRandom } from './random.ts';
import type { TrackPlan, SectionName } from './plan.ts';
import * as voice from './instruments.ts';
import { RATE, type Mix } from './instruments.ts';

const LEVEL: Record<SectionName, number> = { intro: 0.4, verse: 0.55, chorus: 0.72, build: 0.4, climax: 1, outro: 0.35 };
/** Target loudness (RMS dBFS) per energy level, before the soft clipper. */
const LOUDNESS_DB = { low: -25, medium: -18, high: -13 };

const PROGRESSIONS = {
  major: [[0, 'maj'], [7, 'maj'], [9, 'min'], [5, 'maj']],
  minor: [[0, 'min'], [8, 'maj'], [3, 'maj'], [10, 'maj']],
} as const;

function hz(midi: number): number {
  return 440 * 2 ** ((midi - 69) / 12);
}

function chordNotes(root: number, quality: 'maj' | 'min'): number[] {
  return [root, root + (quality === 'maj' ? 4 : 3), root + 7];
}

export function renderTrack(plan: TrackPlan, options: { vocals?: boolean } = {}): Mix {
  const random = seededRandom(plan.seed * 7919 + 1);
  const length = Math.round(plan.durationSeconds * RATE);
  const mix: Mix = { left: new Float32Array(length), right: new Float32Array(length) };
  const beat = 60 / plan.bpm;
  const parts = new Set(plan.style.parts);
  const quiet = plan.energy === 'low';
  const base = 48 + plan.tonic; // C3-based register for chords

  for (const section of plan.sections) {
    for (let b = 0; b < section.bars; b++) {
      const barIndex = section.startBar + b;
      const t0 = barIndex * plan.barSeconds;
      const [rootOffset, quality] = PROGRESSIONS[plan.mode][barIndex % 4];
      const chord = chordNotes(base + rootOffset, quality);
      const level = LEVEL[section.name];
      if (section.name === 'build') {
        // The breakdown before the drop: held chords, a riser and a snare roll, no bass or rhythm parts,
        // so the climax arrives as the largest rise in energy of the track.
        if (b === 0) voice.riser(mix, t0, plan.barSeconds * section.bars, quiet ? 0.04 : 0.12, random);
        if (parts.has('pad') || parts.has('strings')) voice.ensemble(mix, t0, plan.barSeconds, chord.map((n) => hz(n + 12)), 0.2 * level, { attack: 0.3, vibrato: 0, cutoff: 1500 });
        else voice.piano(mix, t0, plan.barSeconds, hz(chord[0] + 12), 0.2 * level, 0);
        for (let k = 0; k < 4; k++) drums(mix, plan, section.name, t0 + k * beat, k, b, section.bars, level, random, parts);
        continue;
      }
      const full = section.name === 'chorus' || section.name === 'climax';
      const climax = section.name === 'climax';
      const sparse = section.name === 'intro' || section.name === 'outro';

      if (parts.has('pad')) voice.ensemble(mix, t0, plan.barSeconds, chord.map((n) => hz(n + 12)), 0.22 * level, { attack: 0.4, vibrato: 0, cutoff: 1800 });
      if (parts.has('strings') && (!sparse || quiet)) voice.ensemble(mix, t0, plan.barSeconds, (climax ? [...chord, chord[0] + 12] : chord).map((n) => hz(n + 12)), 0.3 * level, { attack: 0.25, vibrato: 0.004, cutoff: 3500 });
      if (parts.has('organ') && !sparse) voice.organ(mix, t0, plan.barSeconds, chord.map((n) => hz(n + 12)), 0.12 * level);
      for (let k = 0; k < 4; k++) {
        const t = t0 + k * beat;
        if (parts.has('piano') && (full || k % 2 === 0 || sparse)) {
          if (sparse) voice.piano(mix, t, beat, hz(chord[k % 3] + 12), 0.25 * level, 0.2);
          else for (const n of chord) voice.piano(mix, t, beat * (full ? 1 : 2), hz(n + 12), 0.12 * level, -0.2);
        }
        if (parts.has('bass') && !sparse) voice.bass(mix, t, beat * 0.9, hz(chord[0] - 12), 0.5 * level);
        if (parts.has('brass') && full && (k === 0 || k === 2)) for (const n of chord) voice.brass(mix, t, beat * 0.6, hz(n + 12), 0.1 * level, 0.3);
        if (parts.has('synth-lead') && full) {
          voice.lead(mix, t, beat / 2, hz(chord[(k + barIndex) % 3] + 24), 0.08 * level, 0.1);
          voice.lead(mix, t + beat / 2, beat / 2, hz(chord[(k + 1) % 3] + 24), 0.06 * level, 0.1);
        }
        for (let e = 0; e < 2; e++) {
          const te = t + (e * beat) / 2;
          if (parts.has('pluck') && !(sparse && e === 1)) {
            chord.forEach((n, j) => voice.pluck(mix, te + j * 0.012, beat, hz(n + 12), 0.18 * level, -0.35, random, full ? 0.9 : 0.4));
          }
          if (parts.has('percussion') && !sparse) voice.shaker(mix, te, 0.08 * level, random);
        }
        drums(mix, plan, section.name, t, k, b, section.bars, level, random, parts);
      }
      if (plan.hasVocals && options.vocals !== false && (section.name === 'verse' || full)) {
        // A phrase of two-beat notes on chord tones, an octave above the chords.
        for (let k = 0; k < 4; k += 2) voice.voice(mix, t0 + k * beat, beat * 1.9, hz(chord[(k / 2 + b) % 3] + 24), 0.5 * level, barIndex + k);
      }
    }
  }
  master(mix, plan);
  return mix;
}

function drums(mix: Mix, plan: TrackPlan, section: SectionName, t: number, k: number, bar: number, bars: number, level: number, random: ReturnType<typeof seededRandom>, parts: Set<string>) {
  const beat = 60 / plan.bpm;
  const electronic = parts.has('electronic-drums');
  if (!electronic && !parts.has('drums')) return;
  const soft = plan.energy === 'low' ? 0.5 : 1;
  const g = level * soft;
  if (section === 'intro' || section === 'outro') {
    voice.hat(mix, t, 0.12 * g, random);
    return;
  }
  if (section === 'build') {
    // A snare roll that doubles in the last bar: tension before the drop, no kick.
    const hits = bar === bars - 1 ? 4 : 1;
    for (let h = 0; h < hits; h++) voice.snare(mix, t + (h * beat) / hits, 0.25 * g * (0.6 + 0.4 * (bar / bars)), random);
    return;
  }
  const climax = section === 'climax';
  if (electronic) {
    voice.kick(mix, t, 0.8 * g);
    if (k % 2 === 1) voice.snare(mix, t, 0.35 * g, random);
    voice.hat(mix, t + beat / 2, 0.15 * g, random, true);
  } else {
    if (k % 2 === 0 || (climax && k === 3)) voice.kick(mix, t, 0.8 * g);
    if (k % 2 === 1) voice.snare(mix, t, 0.45 * g, random);
    voice.hat(mix, t, 0.12 * g, random);
    voice.hat(mix, t + beat / 2, 0.09 * g, random);
  }
  if (climax && k === 0 && bar === 0) voice.hat(mix, t, 0.35 * g, random, true); // crash on the drop
}

/** Normalises to the energy level's loudness, then a gentle soft clipper keeps peaks under full scale. */
function master(mix: Mix, plan: TrackPlan) {
  let sum = 0;
  for (let i = 0; i < mix.left.length; i++) sum += mix.left[i] ** 2 + mix.right[i] ** 2;
  const rms = Math.sqrt(sum / (2 * mix.left.length)) || 1e-9;
  const gain = 10 ** (LOUDNESS_DB[plan.energy] / 20) / rms;
  for (const channel of [mix.left, mix.right]) {
    for (let i = 0; i < channel.length; i++) {
      // Pade approximation of tanh (exact enough, far cheaper), saturating at +-1 beyond 3.
      const x = Math.max(-3, Math.min(3, channel[i] * gain));
      channel[i] = (0.98 * x * (27 + x * x)) / (27 + 9 * x * x);
    }
  }
}
