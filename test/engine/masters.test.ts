// The masters' readers and resampler on their own: the resampler keeps time (sample 0 stays at
// time 0, a tone stays in phase) and removes what the output rate cannot hold; the WAV parser and
// the FLAC decoder answer any damaged file with invalid_audio, never another error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resample } from '../../engine/masters/resample.ts';
import { parseWav } from '../../engine/masters/wav.ts';
import { decodeFlac } from '../../engine/masters/flac.ts';
import { makeMasters } from '../../engine/masters/make-masters.ts';
import { isEngineError } from '../../engine/errors.ts';
import { flacBytes, wavBytes } from '../support/master-files.ts';
import { noise } from '../support/synth.ts';

function tone(rate: number, hz: number, seconds: number): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.sin((2 * Math.PI * hz * i) / rate));
}

/** Error power against the ideal, in dB below the ideal's power, away from the ends. */
function errorDb(actual: Float32Array, ideal: Float32Array, margin: number): number {
  let error = 0, power = 0;
  for (let i = margin; i < actual.length - margin; i++) {
    error += (actual[i] - ideal[i]) ** 2;
    power += ideal[i] ** 2;
  }
  return 10 * Math.log10(error / power);
}

test('resampling to 44.1 kHz keeps a tone in phase from sample 0 and removes what lies above 22.05 kHz', () => {
  for (const rate of [8000, 22050, 32000, 48000]) {
    const out = resample(tone(rate, 1000, 2), rate, 44100);
    assert.equal(out.length, 2 * 44100, `${rate} Hz: the length scales with the rate`);
    assert.ok(errorDb(out, tone(44100, 1000, 2), 500) < -80, `${rate} Hz: a 1 kHz tone comes out the same tone, in phase`);
  }
  const above = resample(tone(48000, 23500, 2), 48000, 44100);
  const folded = Math.sqrt(above.slice(500, -500).reduce((n, x) => n + x * x, 0) / (above.length - 1000));
  assert.ok(folded < 0.01, `a 23.5 kHz tone does not fold back into the audio band (rms ${folded})`);
});

async function outcome(read: () => unknown): Promise<'read' | 'invalid_audio'> {
  try {
    await read();
    return 'read';
  } catch (err) {
    assert.ok(isEngineError(err) && err.code === 'invalid_audio', `only invalid_audio, got ${(err as Error).stack}`);
    return 'invalid_audio';
  }
}

test('damaged WAV and FLAC files (cut anywhere, bytes overwritten) are read or refused with invalid_audio, nothing else', async () => {
  const random = noise(11);
  const channels = [tone(44100, 440, 0.5), tone(44100, 660, 0.5)];
  const originals = { wav: wavBytes(channels, 44100, 'pcm24'), flac: flacBytes(channels, 44100, 16) };
  const outcomes = new Set<string>();
  for (const [format, bytes] of Object.entries(originals)) {
    const read = (damaged: Uint8Array) => (format === 'wav' ? parseWav(damaged) : decodeFlac(damaged));
    for (let trial = 0; trial < 40; trial++) {
      const cut = bytes.slice(0, Math.floor(((random() + 1) / 2) * bytes.length));
      outcomes.add(`${format} cut: ${await outcome(() => read(cut))}`);
      const overwritten = bytes.slice();
      for (let k = 0; k < 4; k++) overwritten[Math.floor(((random() + 1) / 2) * 64)] = Math.floor(((random() + 1) / 2) * 256);
      outcomes.add(`${format} overwritten: ${await outcome(() => read(overwritten))}`);
    }
  }
  // Each kind of damage was met at least once by a refusal.
  for (const kind of ['wav cut', 'wav overwritten', 'flac cut', 'flac overwritten']) assert.ok(outcomes.has(`${kind}: invalid_audio`), `${kind}: ${[...outcomes]}`);
});

test('a master shorter than the limit is refused before anything is encoded; a mono FLAC gives a stereo clip master', async () => {
  const limits = { minSeconds: 1, maxSeconds: 60 };
  await assert.rejects(makeMasters(wavBytes([tone(44100, 440, 0.5)], 44100, 'pcm16'), 'wav', limits), /too short: 0\.5 s \(minimum 1 s\)/);
  const masters = await makeMasters(flacBytes([tone(22050, 440, 1.5)], 22050, 16), 'flac', limits);
  assert.equal(masters.sampleRate, 22050);
  assert.equal(masters.channels, 1);
  assert.equal(masters.durationSeconds, 1.5);
  assert.ok(masters.clipMaster && masters.download);
});
