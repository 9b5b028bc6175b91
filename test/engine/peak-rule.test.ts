// The peak rule on hand-made beat energies: a climax after a build is found at its entrance, and
// a track's last beat (cut off by the track's end) is never the peak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { peakBeat } from '../../engine/analysis/peak.ts';

const FRAMES_PER_BEAT = 40;
/** The analysis's frame rate (22,050 Hz / 256): a beat of 40 frames is 0.46 s. */
const FRAME_RATE = 86.1328125;

/** Beat frames every FRAMES_PER_BEAT, and an RMS envelope holding each beat's level. */
function beatsAndRms(levels: number[]): { beats: Int32Array; rms: Float32Array } {
  const beats = Int32Array.from(levels, (_, i) => i * FRAMES_PER_BEAT);
  const rms = new Float32Array(levels.length * FRAMES_PER_BEAT);
  levels.forEach((level, i) => rms.fill(level, i * FRAMES_PER_BEAT, (i + 1) * FRAMES_PER_BEAT));
  return { beats, rms };
}

test('the peak is the entrance of the loud passage after a build', () => {
  const levels = [...Array(16).fill(0.1), ...Array(8).fill(0.3), ...Array(16).fill(0.9), ...Array(8).fill(0.2)];
  const { beats, rms } = beatsAndRms(levels);
  assert.equal(peakBeat(beats, rms, FRAME_RATE), 24);
});

test('the last beat is never the peak, however loud it gets', () => {
  const levels = [...Array(32).fill(0.2), 1];
  const { beats, rms } = beatsAndRms(levels);
  assert.notEqual(peakBeat(beats, rms, FRAME_RATE), levels.length - 1);
});

/** As beatsAndRms, but the first `untracked` beats sound at `leadLevel` and are not in the beat list (onsets too weak to track). */
function withUntrackedLead(levels: number[], untracked: number, leadLevel: number) {
  const { beats, rms } = beatsAndRms([...Array(untracked).fill(leadLevel), ...levels]);
  return { beats: beats.subarray(untracked), rms };
}

test('a quiet bar before the first tracked beat is heard: a climax on that beat is the peak', () => {
  const { beats, rms } = withUntrackedLead([...Array(16).fill(0.9), ...Array(16).fill(0.3)], 2, 0.15);
  assert.equal(peakBeat(beats, rms, FRAME_RATE), 0);
});

test('silence before the first tracked beat is not a lead-in: the track starting is not its climax', () => {
  const levels = [...Array(16).fill(0.6), ...Array(8).fill(0.3), ...Array(16).fill(0.9), ...Array(8).fill(0.3)];
  const { beats, rms } = withUntrackedLead(levels, 2, 0);
  assert.equal(peakBeat(beats, rms, FRAME_RATE), 24);
});

test('the fade-in before a track\'s first beat (under 0.75 s) is no lead-in: the first beat is not the climax', () => {
  // A rise from the fade-in into the first section (0.05 -> 0.6) would outscore the climax's (0.5 -> 0.8).
  const levels = [...Array(16).fill(0.6), ...Array(8).fill(0.5), ...Array(16).fill(0.8), ...Array(8).fill(0.3)];
  const { beats, rms } = withUntrackedLead(levels, 1, 0.05);
  assert.equal(peakBeat(beats, rms, FRAME_RATE), 24);
});

test('the rise is weighed over 8 beats after each: a long loud passage outscores a brief, louder hit after it', () => {
  // A long, moderately loud passage from beat 16, then a quiet bar and a two-beat hit at beat 44.
  const levels = [...Array(16).fill(0.1), ...Array(24).fill(0.6), ...Array(4).fill(0.2), 1, 1, ...Array(10).fill(0.15)];
  const { beats, rms } = beatsAndRms(levels);
  assert.equal(peakBeat(beats, rms, FRAME_RATE), 16);
});
