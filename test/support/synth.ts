// Synthetic signals with known ground truth for the engine's tests: click tracks and drum
// patterns at a known tempo, and a piece with a designed climax. Deterministic (seeded noise).

export const RATE = 44100;

export function noise(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 4294967296) * 2 - 1;
  };
}

export function addTone(out: Float32Array, at: number, hz: number, seconds: number, gain: number, decay: number) {
  const start = Math.round(at * RATE);
  const n = Math.round(seconds * RATE);
  for (let i = 0; i < n && start + i < out.length; i++) out[start + i] += gain * Math.sin((2 * Math.PI * hz * i) / RATE) * Math.exp(-i / (decay * RATE));
}

export function addKick(out: Float32Array, at: number, gain: number) {
  const start = Math.round(at * RATE);
  let phase = 0;
  for (let i = 0; i < 0.25 * RATE && start + i < out.length; i++) {
    const hz = 50 + 100 * Math.exp(-i / (0.03 * RATE));
    phase += (2 * Math.PI * hz) / RATE;
    out[start + i] += gain * Math.sin(phase) * Math.exp(-i / (0.08 * RATE));
  }
}

export function addNoiseHit(out: Float32Array, at: number, seconds: number, gain: number, random: () => number, highpass: boolean) {
  const start = Math.round(at * RATE);
  let previous = 0;
  for (let i = 0; i < seconds * RATE && start + i < out.length; i++) {
    const x = random();
    const y = highpass ? x - previous : x;
    previous = x;
    out[start + i] += gain * y * Math.exp(-i / ((seconds / 4) * RATE));
  }
}

/** Clicks on every beat (accented downbeats), after `leadIn` seconds of silence. */
export function clickTrack(bpm: number, seconds: number, leadIn = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const beat = 60 / bpm;
  for (let i = 0, t = leadIn; t < seconds - 0.05; i++, t = leadIn + i * beat) addTone(out, t, i % 4 === 0 ? 1500 : 1000, 0.03, i % 4 === 0 ? 0.8 : 0.5, 0.008);
  return out;
}

export function beatTimes(bpm: number, seconds: number, leadIn = 0.5): number[] {
  const times: number[] = [];
  for (let t = leadIn; t < seconds - 0.05; t += 60 / bpm) times.push(t);
  return times;
}

/** Kick on 1 and 3, snare on 2 and 4, hats on eighths, a bass note per beat. */
export function drumPattern(bpm: number, seconds: number, leadIn = 0.5, seed = 7, level = 1): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const random = noise(seed);
  const beat = 60 / bpm;
  for (let i = 0, t = leadIn; t < seconds - 0.3; i++, t = leadIn + i * beat) {
    if (i % 2 === 0) addKick(out, t, 0.7 * level);
    else addNoiseHit(out, t, 0.15, 0.35 * level, random, false);
    addNoiseHit(out, t, 0.04, 0.08 * level, random, true);
    addNoiseHit(out, t + beat / 2, 0.04, 0.06 * level, random, true);
    addTone(out, t, [55, 55, 65.4, 49][Math.floor(i / 4) % 4], beat * 0.9, 0.25 * level, beat / 2);
  }
  return out;
}

/**
 * A piece with a designed climax: soft pads and light percussion, an 8-bar build of rising noise
 * and density, then at `climaxSeconds` full drums, bass and loud chords for `climaxLength` seconds,
 * then a quiet outro. Returns mono samples.
 */
export function climaxPiece(bpm: number, seconds: number, climaxSeconds: number, climaxLength = 24, seed = 3): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const random = noise(seed);
  const beat = 60 / bpm;
  const buildStart = climaxSeconds - 16 * beat;
  const climaxEnd = climaxSeconds + climaxLength;
  for (let i = 0, t = 0; t < seconds - 0.3; i++, t = i * beat) {
    const inClimax = t >= climaxSeconds - 1e-6 && t < climaxEnd;
    const inBuild = t >= buildStart && t < climaxSeconds - 1e-6;
    const level = inClimax ? 1 : inBuild ? 0.25 + 0.35 * ((t - buildStart) / (climaxSeconds - buildStart)) : 0.2;
    if (i % 4 === 0) for (const hz of [220, 277, 330]) addTone(out, t, hz, beat * 4, 0.08 * level + 0.03, beat * 3);
    if (inClimax || i % 2 === 0) addKick(out, t, 0.6 * level);
    if (i % 2 === 1) addNoiseHit(out, t, 0.15, 0.3 * level, random, false);
    addNoiseHit(out, t + beat / 2, 0.04, 0.05 * level, random, true);
    if (inClimax) addTone(out, t, 55, beat * 0.9, 0.3, beat / 2);
  }
  return out;
}

export function stereo(mono: Float32Array): { sampleRate: number; channels: Float32Array[] } {
  return { sampleRate: RATE, channels: [mono, mono.slice()] };
}

/**
 * Kick and bass on every beat, a hat on every off-beat; in `loudOffBeats` (seconds [from, to)) the
 * beats soft and the off-beats loud (a snare and a chord stab), as a riff on the "and" is; in
 * `climax` (seconds [from, to)) everything twice as loud.
 */
export function offBeatPassage(bpm: number, seconds: number, loudOffBeats: [number, number], climax: [number, number] = [0, 0], leadIn = 0.5, seed = 5): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const random = noise(seed);
  const beat = 60 / bpm;
  for (let i = 0, t = leadIn; t < seconds - 0.3; i++, t = leadIn + i * beat) {
    const loudOff = t >= loudOffBeats[0] && t < loudOffBeats[1];
    const level = t >= climax[0] && t < climax[1] ? 2 : 1;
    addKick(out, t, (loudOff ? 0.2 : 0.7) * level);
    addTone(out, t, 55, beat * 0.4, (loudOff ? 0.05 : 0.25) * level, beat / 4);
    if (loudOff) {
      addNoiseHit(out, t + beat / 2, 0.15, 0.5 * level, random, false);
      for (const hz of [220, 277, 330]) addTone(out, t + beat / 2, hz, beat * 0.4, 0.15 * level, beat / 4);
    } else addNoiseHit(out, t + beat / 2, 0.04, 0.06 * level, random, true);
  }
  return out;
}

/**
 * A swung groove whose "and" is the louder: a kick and a short noise hit on every beat, and a
 * louder chord with its bass on the swung "and" (two thirds of a beat on), as songs that push
 * their harmony ahead of the beat. The beats are beatTimes(bpm, seconds, leadIn).
 */
export function swungPushes(bpm: number, seconds: number, leadIn = 0.5, seed = 11): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const random = noise(seed);
  const beat = 60 / bpm;
  const chords = [[220, 277, 330], [196, 247, 294], [175, 220, 262], [165, 208, 247]];
  for (let i = 0, t = leadIn; t < seconds - beat; i++, t = leadIn + i * beat) {
    addKick(out, t, 0.6);
    addNoiseHit(out, t, 0.03, 0.45, random, true);
    const and = t + (2 / 3) * beat;
    const chord = chords[Math.floor(i / 4) % chords.length];
    for (const hz of chord) addTone(out, and, hz, 0.8 * beat, 0.25, 0.3 * beat);
    addTone(out, and, chord[0] / 2, 0.8 * beat, 0.4, 0.3 * beat);
    addNoiseHit(out, and, 0.05, 0.15, random, true);
  }
  return out;
}
