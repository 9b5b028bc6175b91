// Instrument voices of the demo renderer: each adds one note into a stereo mix. Simple physical
// or subtractive models, chosen for recognisable timbre at low cost per sample.
import type { Random } from './random.ts';

export const RATE = 44100;

export interface Mix {
  left: Float32Array;
  right: Float32Array;
}

function span(mix: Mix, at: number, seconds: number): [number, number] {
  const start = Math.max(0, Math.round(at * RATE));
  return [start, Math.min(mix.left.length, start + Math.round(seconds * RATE))];
}

/** Equal-power pan: -1 left .. 1 right. */
function gains(gain: number, pan: number): [number, number] {
  const angle = ((pan + 1) * Math.PI) / 4;
  return [gain * Math.cos(angle), gain * Math.sin(angle)];
}

/** Every kick is the same sound: rendered once, then mixed in. */
const KICK = (() => {
  const out = new Float32Array(Math.round(0.35 * RATE));
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    phase += (2 * Math.PI * (48 + 110 * Math.exp(-t / 0.03))) / RATE;
    out[i] = Math.sin(phase) * Math.exp(-t / 0.12);
  }
  return out;
})();

export function kick(mix: Mix, at: number, gain: number) {
  const [a, b] = span(mix, at, 0.35);
  for (let i = a; i < b; i++) {
    const v = gain * KICK[i - a];
    mix.left[i] += v;
    mix.right[i] += v;
  }
}

export function snare(mix: Mix, at: number, gain: number, random: Random) {
  const [a, b] = span(mix, at, 0.25);
  for (let i = a; i < b; i++) {
    const t = (i - a) / RATE;
    const v = gain * (0.7 * random.signed() * Math.exp(-t / 0.06) + 0.4 * Math.sin(2 * Math.PI * 185 * t) * Math.exp(-t / 0.04));
    mix.left[i] += v;
    mix.right[i] += v;
  }
}

/**
 * High-passed (first-difference) noise shaped by an envelope of time in the burst (seconds) and
 * its fraction done: the common body of hats, shakers and risers.
 */
function noiseBurst(mix: Mix, at: number, seconds: number, [gl, gr]: [number, number], random: Random, envelope: (t: number, fraction: number) => number) {
  const [a, b] = span(mix, at, seconds);
  let previous = 0;
  for (let i = a; i < b; i++) {
    const x = random.signed();
    const v = (x - previous) * envelope((i - a) / RATE, (i - a) / (b - a));
    previous = x;
    mix.left[i] += gl * v;
    mix.right[i] += gr * v;
  }
}

export function hat(mix: Mix, at: number, gain: number, random: Random, open = false) {
  const decay = open ? 0.09 : 0.015;
  noiseBurst(mix, at, open ? 0.3 : 0.06, gains(gain, 0.3), random, (t) => Math.exp(-t / decay));
}

/** A noise riser: high-passed noise swelling from silence to `gain` over `seconds`. */
export function riser(mix: Mix, at: number, seconds: number, gain: number, random: Random) {
  noiseBurst(mix, at, seconds, [gain, gain], random, (_, fraction) => fraction ** 2);
}

export function shaker(mix: Mix, at: number, gain: number, random: Random) {
  noiseBurst(mix, at, 0.09, gains(gain, -0.4), random, (t) => Math.sin(Math.PI * Math.min(1, t / 0.09)));
}

/** Saw through a one-pole low-pass, short decay: a synth/electric bass. */
export function bass(mix: Mix, at: number, seconds: number, hz: number, gain: number) {
  const [a, b] = span(mix, at, seconds);
  let phase = 0;
  let low = 0;
  const release = Math.min(0.05, seconds / 4);
  for (let i = a; i < b; i++) {
    const t = (i - a) / RATE;
    phase = (phase + hz / RATE) % 1;
    low += 0.08 * (2 * phase - 1 - low);
    const envelope = Math.min(1, t / 0.005) * Math.min(1, (seconds - t) / release) * (0.6 + 0.4 * Math.exp(-t / 0.2));
    const v = gain * low * envelope;
    mix.left[i] += v;
    mix.right[i] += v;
  }
}

/** A few decaying harmonics: piano-like. Oscillators and decays run as recurrences (no sin/exp per sample). */
export function piano(mix: Mix, at: number, seconds: number, hz: number, gain: number, pan: number) {
  const [a, b] = span(mix, at, seconds + 0.3);
  const [gl, gr] = gains(gain, pan);
  const w = (2 * Math.PI * hz) / RATE;
  const partials = [1, 0.5, 0.25];
  const decaySeconds = [1.2, 0.6, 0.3];
  const cos = partials.map((_, k) => Math.cos((k + 1) * w));
  const sin = partials.map((_, k) => Math.sin((k + 1) * w));
  const x = partials.map(() => 1); // cos phase
  const y = partials.map(() => 0); // sin phase
  const amplitude = [...partials];
  const decay = decaySeconds.map((d) => Math.exp(-1 / (d * RATE)));
  const release = Math.exp(-1 / (0.08 * RATE));
  const held = Math.round(seconds * RATE);
  const attack = Math.round(0.002 * RATE);
  let releaseGain = 1;
  for (let i = a; i < b; i++) {
    const n = i - a;
    let v = 0;
    for (let k = 0; k < 3; k++) {
      const nx = x[k] * cos[k] - y[k] * sin[k];
      y[k] = x[k] * sin[k] + y[k] * cos[k];
      x[k] = nx;
      amplitude[k] *= decay[k];
      v += y[k] * amplitude[k];
    }
    if (n >= held) releaseGain *= release;
    v *= releaseGain * (n < attack ? n / attack : 1);
    mix.left[i] += gl * v;
    mix.right[i] += gr * v;
  }
}

/** Karplus-Strong plucked string: guitar-like. */
export function pluck(mix: Mix, at: number, seconds: number, hz: number, gain: number, pan: number, random: Random, bright = 0.5) {
  const [a, b] = span(mix, at, seconds);
  const period = Math.max(2, Math.round(RATE / hz));
  const line = new Float32Array(period);
  for (let i = 0; i < period; i++) line[i] = random.signed();
  const [gl, gr] = gains(gain, pan);
  const damping = 0.496 + 0.0035 * bright;
  let p = 0;
  for (let i = a; i < b; i++) {
    const next = (p + 1) % period;
    const v = line[p];
    line[p] = damping * (line[p] + line[next]);
    p = next;
    mix.left[i] += gl * v;
    mix.right[i] += gr * v;
  }
}

/** Detuned saws through a low-pass with slow attack: pads and strings (vibrato for strings). */
export function ensemble(mix: Mix, at: number, seconds: number, hzs: number[], gain: number, options: { attack: number; vibrato: number; cutoff: number }) {
  const [a, b] = span(mix, at, seconds + 0.4);
  const voices = hzs.flatMap((hz) => [hz * 0.997, hz * 1.003]);
  const phases = voices.map((_, i) => (i * 0.37) % 1);
  const coefficient = 1 - Math.exp((-2 * Math.PI * options.cutoff) / RATE);
  let lowL = 0, lowR = 0;
  const steps = voices.map((f) => f / RATE);
  const release = Math.exp(-1 / (0.15 * RATE));
  const held = Math.round(seconds * RATE);
  const attack = options.attack * RATE;
  let releaseGain = 1;
  for (let i = a; i < b; i++) {
    const n = i - a;
    if (n >= held) releaseGain *= release;
    const envelope = Math.min(1, n / attack) * releaseGain;
    const wobble = options.vibrato ? 1 + options.vibrato * Math.sin((2 * Math.PI * 5.2 * n) / RATE) : 1;
    let left = 0, right = 0;
    for (let v = 0; v < voices.length; v++) {
      let phase = phases[v] + steps[v] * wobble;
      if (phase >= 1) phase -= 1;
      phases[v] = phase;
      const s = 2 * phase - 1;
      if (v % 2) right += s;
      else left += s;
    }
    lowL += coefficient * (left - lowL);
    lowR += coefficient * (right - lowR);
    mix.left[i] += (gain * envelope * lowL) / voices.length;
    mix.right[i] += (gain * envelope * lowR) / voices.length;
  }
}

/** A brass stab: saw with an opening filter. */
export function brass(mix: Mix, at: number, seconds: number, hz: number, gain: number, pan: number) {
  const [a, b] = span(mix, at, seconds);
  const [gl, gr] = gains(gain, pan);
  let phase = 0, low = 0;
  for (let i = a; i < b; i++) {
    const t = (i - a) / RATE;
    phase = (phase + hz / RATE) % 1;
    const cutoff = 400 + 2600 * Math.min(1, t / 0.06) * Math.exp(-t / 0.5);
    low += (1 - Math.exp((-2 * Math.PI * cutoff) / RATE)) * (2 * phase - 1 - low);
    const envelope = Math.min(1, t / 0.02) * Math.min(1, (seconds - t) / 0.04);
    mix.left[i] += gl * low * envelope;
    mix.right[i] += gr * low * envelope;
  }
}

/** Drawbar organ: a few sine partials per note, steady (oscillators as rotations, no sin per sample). */
export function organ(mix: Mix, at: number, seconds: number, hzs: number[], gain: number) {
  const [a, b] = span(mix, at, seconds);
  const weights = [1, 0.5, 0.3];
  const multiples = [1, 2, 4];
  const oscillators = hzs.flatMap((hz) => multiples.map((m, k) => ({ c: Math.cos((2 * Math.PI * hz * m) / RATE), s: Math.sin((2 * Math.PI * hz * m) / RATE), x: 1, y: 0, w: weights[k] })));
  const scale = gain / hzs.length;
  const attack = 0.01 * RATE;
  const release = 0.02 * RATE;
  const n = b - a;
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (const o of oscillators) {
      const nx = o.x * o.c - o.y * o.s;
      o.y = o.x * o.s + o.y * o.c;
      o.x = nx;
      v += o.w * o.y;
    }
    v *= scale * Math.min(1, i / attack, (n - i) / release);
    mix.left[a + i] += v;
    mix.right[a + i] += v;
  }
}

/** Square-ish lead with a little glide in brightness. */
export function lead(mix: Mix, at: number, seconds: number, hz: number, gain: number, pan: number) {
  const [a, b] = span(mix, at, seconds);
  const [gl, gr] = gains(gain, pan);
  let phase = 0, low = 0;
  for (let i = a; i < b; i++) {
    const t = (i - a) / RATE;
    phase = (phase + hz / RATE) % 1;
    low += 0.15 * ((phase < 0.5 ? 1 : -1) - low);
    const envelope = Math.min(1, t / 0.01) * Math.min(1, (seconds - t) / 0.03);
    mix.left[i] += gl * low * envelope;
    mix.right[i] += gr * low * envelope;
  }
}

/** Formants (Hz) of sung vowels: a, e, i, o, u. */
const VOWELS = [[730, 1090, 2440], [530, 1840, 2480], [390, 1990, 2550], [570, 840, 2410], [440, 1020, 2240]];

/**
 * A sung note: a glottal-like pulse train with vibrato through three formant resonators.
 * Vibrato (5.5 Hz) and formants are what make it read as a voice, and what the tests look for.
 */
export function voice(mix: Mix, at: number, seconds: number, hz: number, gain: number, vowel: number) {
  const [a, b] = span(mix, at, seconds);
  const formants = VOWELS[vowel % VOWELS.length];
  const coefficients = formants.map((f, k) => {
    const bandwidth = 60 + 40 * k;
    const r = Math.exp((-Math.PI * bandwidth) / RATE);
    return [2 * r * Math.cos((2 * Math.PI * f) / RATE), -r * r, (1 - r) * 4];
  });
  const [[a1, b1, g1], [a2, b2, g2], [a3, b3, g3]] = coefficients;
  let y1 = 0, z1 = 0, y2 = 0, z2 = 0, y3 = 0, z3 = 0;
  let phase = 0;
  const vibratoStep = (2 * Math.PI * 5.5) / RATE;
  const n = b - a;
  const attack = 0.04 * RATE, release = 0.06 * RATE, vibratoIn = 0.25 * RATE;
  for (let i = 0; i < n; i++) {
    const f0 = hz * (1 + 0.012 * Math.sin(vibratoStep * i) * Math.min(1, i / vibratoIn));
    phase += f0 / RATE;
    if (phase >= 1) phase -= 1;
    const source = phase < 0.1 ? Math.sin((Math.PI * phase) / 0.1) : 0;
    const o1 = g1 * source + a1 * y1 + b1 * z1;
    z1 = y1; y1 = o1;
    const o2 = g2 * source + a2 * y2 + b2 * z2;
    z2 = y2; y2 = o2;
    const o3 = g3 * source + a3 * y3 + b3 * z3;
    z3 = y3; y3 = o3;
    const v = gain * (o1 + o2 / 2 + o3 / 3) * Math.min(1, i / attack, (n - i) / release);
    mix.left[a + i] += v;
    mix.right[a + i] += v;
  }
}
