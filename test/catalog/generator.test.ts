// The demo generator: deterministic, and its metadata is true to its audio (tempo, climax, energy,
// vocals), measured by the engine on the rendered sound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateDemoCatalog, trackSeed, DEFAULT_SEED } from '../../catalog/demo/generate.ts';
import { planTrack, type TrackPlan } from '../../catalog/demo/plan.ts';
import { STYLES } from '../../catalog/demo/styles.ts';
import { analysePcm } from '../../engine/analysis/analyse.ts';
import { spectrogram } from '../../engine/analysis/spectrogram.ts';
import { renderInThread, closeAnalysisThreads } from '../support/analysis-threads.ts';

after(() => closeAnalysisThreads());

/** Each item's renders started on the worker threads (renderTrack, side by side), then `check` on each item in order. */
async function inOrder<T, R>(items: T[], render: (item: T) => Promise<R>, check: (item: T, rendered: R) => void): Promise<void> {
  const renders = items.map(render);
  for (const rendered of renders) rendered.catch(() => {}); // each is awaited below, in order
  for (const [k, item] of items.entries()) check(item, await renders[k]);
}

test('same seed, same bytes (MP3s and metadata)', async () => {
  const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'mla-gen-')));
  try {
    for (const dir of dirs) await generateDemoCatalog({ dir, tracks: 2, seed: 99, threads: 2 });
    const files = fs.readdirSync(dirs[0]).sort();
    assert.deepEqual(files, fs.readdirSync(dirs[1]).sort());
    assert.equal(files.filter((f) => f.endsWith('.mp3')).length, 2);
    for (const file of files) assert.ok(fs.readFileSync(path.join(dirs[0], file)).equals(fs.readFileSync(path.join(dirs[1], file))), file);
    const other = planTrack(trackSeed(100, 0));
    assert.notEqual(JSON.stringify(other), JSON.stringify(planTrack(trackSeed(99, 0))));
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
});

// One track per style, as the demo catalog renders them.
const plans = STYLES.map((_, i) => planTrack(trackSeed(DEFAULT_SEED, i)));

test('metadata agrees with the audio for nearly all tracks (tempo within 2%, climax within 1 s, energy level)', async (t) => {
  let tempo = 0, climax = 0, energy = 0;
  await inOrder(plans, (plan) => renderInThread(plan.seed), (plan, mix) => {
    const analysis = analysePcm({ sampleRate: 44100, channels: [mix.left, mix.right] });
    if (Math.abs(analysis.tempoBpm - plan.bpm) / plan.bpm <= 0.02) tempo++;
    if (Math.abs(analysis.peakSeconds - plan.climaxSeconds) <= 1) climax++;
    if (analysis.energyLevel === plan.energy) energy++;
  });
  const n = plans.length;
  t.diagnostic(`agreement over ${n} tracks: tempo ${tempo}/${n}, climax ${climax}/${n}, energy level ${energy}/${n}`);
  assert.ok(tempo >= n - 1, `tempo agreed on ${tempo}/${n}`);
  assert.ok(climax >= n - 1, `climax agreed on ${climax}/${n}`);
  assert.ok(energy >= n - 3, `energy level agreed on ${energy}/${n}`);
});

/** Share of the energy in the 500-3500 Hz band, where the sung formants sit. */
function vocalBandShare(left: Float32Array, right: Float32Array): number {
  const mono = new Float32Array(Math.floor(left.length / 2));
  for (let i = 0; i < mono.length; i++) mono[i] = (left[2 * i] + right[2 * i] + left[2 * i + 1] + right[2 * i + 1]) / 4;
  const spec = spectrogram(mono, 22050);
  // logBands are log-spaced 30 Hz..8 kHz over 48 bands: 500-3500 Hz is bands ~24-41.
  let band = 0, total = 0;
  for (let f = 0; f < spec.frames; f++) {
    for (let k = 0; k < spec.bands; k++) {
      const energy = Math.expm1(spec.logBands[f * spec.bands + k]);
      total += energy;
      if (k >= 24 && k <= 41) band += energy;
    }
  }
  return band / total;
}

test('vocals are in the audio exactly where has_vocals is true', async () => {
  const length = { minSeconds: 40, maxSeconds: 50 };
  const sample = Array.from({ length: 26 }, (_, i) => planTrack(trackSeed(DEFAULT_SEED, i), length));
  assert.ok(sample.some((p) => p.hasVocals) && sample.some((p) => !p.hasVocals));
  const both = (plan: TrackPlan) => Promise.all([renderInThread(plan.seed, length), renderInThread(plan.seed, length, { vocals: false })]);
  await inOrder(sample, both, (plan, [full, instrumental]) => {
    if (plan.hasVocals) {
      // Tracks are mastered to a loudness, so compare shares: the voice shifts energy into its band.
      const ratio = vocalBandShare(full.left, full.right) / vocalBandShare(instrumental.left, instrumental.right);
      assert.ok(ratio > 1.25, `${plan.title}: vocal band share only x${ratio.toFixed(2)} with the voice`);
      assert.ok(plan.instruments.includes('Vocals'));
    } else {
      assert.deepEqual(Buffer.from(full.left.buffer), Buffer.from(instrumental.left.buffer), `${plan.title}: no voice, identical renders`);
      assert.ok(!plan.instruments.includes('Vocals'));
    }
  });
});
