// Edit and loop modes on rendered demo songs, whose bars, climax and ending are known by design:
// exact length, the designed climax at H, joins on bar lines, the track's own ending, joins no
// more novel than the track's own bar lines, and a loop that wraps without a discontinuity.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { planTrack, type TrackPlan } from '../../catalog/demo/plan.ts';
import { trackSeed, DEFAULT_SEED } from '../../catalog/demo/generate.ts';
import { analysePcm, type Analysis } from '../../engine/analysis/analyse.ts';
import { encodeGaplessMp3 } from '../../engine/mp3/encode.ts';
import { indexFrames, type FrameIndex } from '../../engine/mp3/frame-index.ts';
import { decodeAll, type Pcm } from '../../engine/mp3/decode.ts';
import { makeClip } from '../../engine/clip.ts';
import { planClip } from '../../engine/plan/plan-clip.ts';
import { nearestIndex, placeInBar, planGrid } from '../../engine/plan/grid.ts';
import { MAX_STRETCH, planHeader, PLAN_SAMPLE_RATE } from '../../engine/plan/plan.ts';
import { planMatchesAudio } from '../support/plan-audio.ts';
import { joinNovelties, withinNovelty } from '../support/join-novelty.ts';
import { demoTrackMp3 } from '../support/rendered-demo.ts';

const ON_BAR_SECONDS = 0.02;
const HIT_TOLERANCE_SECONDS = 0.025;
interface Song { design: TrackPlan; mp3: Uint8Array; index: FrameIndex; analysis: Analysis; pcm: Pcm }
const songs: Song[] = [];

before(async () => {
  for (const i of [0, 3]) {
    const design = planTrack(trackSeed(DEFAULT_SEED, i));
    const mp3 = await demoTrackMp3(i);
    const index = indexFrames(mp3);
    const pcm = await decodeAll(mp3, index);
    songs.push({ design, mp3, index, analysis: analysePcm(pcm), pcm });
  }
});

const seconds = (samples: number) => samples / PLAN_SAMPLE_RATE;
/** Distance from t to the nearest designed bar line (bars of the demo song start at 0). */
const offGrid = (t: number, step: number) => Math.abs(t / step - Math.round(t / step)) * step;
const offBar = (song: Song, t: number) => offGrid(t, song.design.barSeconds);
/** The demo songs are in 4/4. */
const BEATS_PER_BAR = 4;
const offBeat = (song: Song, t: number) => offGrid(t, song.design.barSeconds / BEATS_PER_BAR);

test('edits: exact length, the designed climax at H within 25 ms, joins on bar lines, the track ending when D allows', async () => {
  for (const song of songs) {
    const climax = song.design.climaxSeconds;
    for (const [duration, hit] of [[30, 10], [30, 1], [30, 29], [45, 20], [60, 50], [60, 2], [25, undefined], [40, undefined]] as const) {
      const what = `song ${song.design.seed} D=${duration} H=${hit}`;
      const clip = await makeClip(song.mp3, song.index, song.analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
      const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
      assert.equal(decoded.channels[0].length, Math.round(duration * 44100), `${what}: length`);
      const parts = clip.plan.parts;
      for (let i = 0; i < parts.length; i++) {
        const end = seconds(parts[i].sourceStart + parts[i].length);
        // Parts leave on bar lines; only when D - H is shorter than a bar may the climax's part leave on a beat.
        const shortRest = hit !== undefined && duration - hit < song.design.barSeconds + 0.5;
        const holdsClimax = climax >= seconds(parts[i].sourceStart) && climax < end;
        const leaves = shortRest && holdsClimax ? offBeat(song, end) : offBar(song, end);
        if (i + 1 < parts.length) assert.ok(leaves < ON_BAR_SECONDS, `${what}: part ${i} leaves at ${end}, off the ${shortRest ? 'beat' : 'bar'} grid`);
        const start = seconds(parts[i].sourceStart);
        // A part starts on a bar line, at the track's start, or with a pickup: less than a bar before one.
        assert.ok(offBar(song, start) < ON_BAR_SECONDS || start < ON_BAR_SECONDS || (start % song.design.barSeconds) > 0, `${what}: part ${i} starts at ${start}`);
      }
      if (hit !== undefined) {
        const holder = parts.find((p) => climax >= seconds(p.sourceStart) && climax < seconds(p.sourceStart + p.length));
        assert.ok(holder, `${what}: the climax is in the clip`);
        const landing = seconds(holder!.clipStart) + climax - seconds(holder!.sourceStart);
        assert.ok(Math.abs(landing - hit) <= HIT_TOLERANCE_SECONDS, `${what}: the designed climax plays at ${landing.toFixed(3)}`);
      }
      const last = parts[parts.length - 1];
      // The track's own ending: anywhere in its decay once it has fallen inaudible (engine/plan/grid.ts tailStart).
      if (clip.plan.ending === 'track_end') assert.ok(seconds(last.sourceStart + last.length) >= planGrid(song.analysis).tailStart - ON_BAR_SECONDS, `${what}: ends with the track`);
      if (hit === undefined && duration >= 25) assert.equal(clip.plan.ending, 'track_end', `${what}: D leaves room for the ending`);
      // An edit that says it ends on a bar line or a beat does; a cut is said (D - H left a fraction no ending could take).
      if (clip.plan.ending === 'bar_line' || clip.plan.ending === 'beat') assert.ok(offBeat(song, seconds(last.sourceStart + last.length)) < ON_BAR_SECONDS, `${what}: ends on a beat`);
      planMatchesAudio(JSON.parse(planHeader(clip.plan)), decoded, song.pcm, clip.plan.stretch);
    }
  }
});

test('splice: each part of an edit is the source itself, only the edges and joins are re-encoded', async () => {
  const song = songs[0];
  for (const [duration, hit] of [[30, 10], [60, 50]] as const) {
    const request = { mode: 'edit' as const, durationSeconds: duration, hitPointSeconds: hit };
    const spliced = await makeClip(song.mp3, song.index, song.analysis, request);
    const encoded = await makeClip(song.mp3, song.index, song.analysis, request, { allowSplice: false });
    assert.equal(spliced.method, 'splice');
    assert.ok(spliced.plan.parts.length > 1, 'an edit of several parts');
    assert.deepEqual(spliced.plan, encoded.plan);
    const [a, b] = [await decodeAll(spliced.mp3, indexFrames(spliced.mp3)), await decodeAll(encoded.mp3, indexFrames(encoded.mp3))];
    // A re-encoded stretch reaches its guard (0.1 s) and up to 24 junction candidates (splice.ts's
    // widest window, 0.63 s) into a part.
    const margin = Math.round(0.75 * PLAN_SAMPLE_RATE);
    for (const part of spliced.plan.parts) {
      let inside = 0, joins = 0;
      for (let i = part.clipStart - margin; i < part.clipStart + part.length + margin; i++) {
        if (i < 300 || i >= spliced.samples - 300) continue; // the de-click ramps
        const d = Math.max(Math.abs(a.channels[0][i] - b.channels[0][i]), Math.abs(a.channels[1][i] - b.channels[1][i]));
        if (i >= part.clipStart + margin && i < part.clipStart + part.length - margin) {
          const source = part.sourceStart + i - part.clipStart;
          inside = Math.max(inside, Math.abs(a.channels[0][i] - song.pcm.channels[0][source]), Math.abs(a.channels[1][i] - song.pcm.channels[1][source]));
        } else joins = Math.max(joins, d);
      }
      assert.ok(inside < 1e-4, `D=${duration} H=${hit}: part at ${part.clipStart} differs from the source by ${inside}`);
      assert.ok(joins < 0.1, `D=${duration} H=${hit}: around the join at ${part.clipStart} the splice differs from a whole re-encode by ${joins}`);
    }
  }
});

test('joins: within the 90th percentile of the track\'s own bar-line novelty (the issue\'s seam rule), none beyond its most abrupt bar line', () => {
  let joins = 0, within = 0;
  for (const song of songs) {
    const grid = planGrid(song.analysis);
    for (const [duration, hit] of [[30, 10], [30, 25], [45, 5], [20, undefined], [35, undefined]] as const) {
      const plan = planClip(song.analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
      for (const [i, novelty] of joinNovelties(song.analysis, plan.parts).entries()) {
        assert.ok(withinNovelty(novelty, grid.relaxedSeamLimit), `song ${song.design.seed} D=${duration} H=${hit}: join ${i + 1} novelty ${novelty.toFixed(3)} > ${grid.relaxedSeamLimit.toFixed(3)}`);
        joins++;
        if (withinNovelty(novelty, grid.seamLimit)) within++;
      }
    }
  }
  console.log(`# ${within} of ${joins} joins within the 90th percentile of the track's own bar-line novelty`);
  // Every one on these songs: a join beyond the seam limit is never a candidate (edit-plan.ts joinCost).
  assert.equal(within, joins, `${within} of ${joins} joins within the 90th percentile`);
});

test('loops: exact length, the wrap on the beat, and played twice no rougher than the music itself', async () => {
  for (const song of songs) {
    for (const duration of [12, 20]) {
      const clip = await makeClip(song.mp3, song.index, song.analysis, { mode: 'loop', durationSeconds: duration });
      const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
      const x = decoded.channels[0];
      assert.equal(x.length, Math.round(duration * 44100));
      const steps = Array.from({ length: x.length - 1 }, (_, i) => Math.abs(x[i + 1] - x[i])).sort((a, b) => a - b);
      const typical = steps[Math.floor(0.999 * steps.length)];
      const wrap = Math.abs(x[0] - x[x.length - 1]);
      assert.ok(wrap <= typical, `song ${song.design.seed} D=${duration}: step at the wrap ${wrap.toFixed(4)} > 99.9th percentile step ${typical.toFixed(4)}`);
      const [part] = clip.plan.parts;
      // On the beat wherever a whole number of beats is within 1% of D; otherwise at the source's speed, from a bar line into a pickup.
      const beat = song.design.barSeconds / BEATS_PER_BAR;
      const beats = Math.round(duration / beat);
      const what = `song ${song.design.seed} D=${duration} (${(duration / beat).toFixed(2)} beats, stretch ${clip.plan.stretch})`;
      if (Math.abs(duration / (beats * beat) - 1) <= 0.01) {
        assert.ok(offBeat(song, seconds(part.sourceStart + part.length)) < ON_BAR_SECONDS && offBar(song, seconds(part.sourceStart)) < ON_BAR_SECONDS, `${what}: the loop wraps from a beat to its first downbeat`);
      } else {
        assert.equal(clip.plan.stretch, 1, what);
        assert.ok(offBar(song, seconds(part.sourceStart + part.length)) < ON_BAR_SECONDS, `${what}: the loop wraps at a bar line`);
      }
    }
  }
});

/** Song 3 rotated to start `lead` seconds before its climax (the rest of the song follows, then its beginning): a track of over three minutes whose climax comes `lead` seconds in. */
async function earlyClimax(lead: number) {
  const song = songs[1];
  const from = Math.round((song.design.climaxSeconds - lead) * PLAN_SAMPLE_RATE);
  const [left, right] = song.pcm.channels.map((channel) => {
    const rotated = new Float32Array(channel.length);
    rotated.set(channel.subarray(from));
    rotated.set(channel.subarray(0, from), channel.length - from);
    return rotated;
  });
  const mp3 = await encodeGaplessMp3(left, right);
  const index = indexFrames(mp3);
  const pcm = await decodeAll(mp3, index);
  const analysis = analysePcm(pcm);
  assert.ok(Math.abs(analysis.peakSeconds - lead) < HIT_TOLERANCE_SECONDS, `the rotated track's peak ${analysis.peakSeconds} is its climax, ${lead} s in`);
  return { mp3, index, pcm, analysis };
}

/** Edits of a track whose climax comes early, with later H: the climax plays at H after a lead-in, at the exact length, as planned. */
async function climaxLandsAfterLeadIn(track: Awaited<ReturnType<typeof earlyClimax>>, requests: readonly (readonly [number, number])[]) {
  const { mp3, index, pcm, analysis } = track;
  for (const [duration, hit] of requests) {
    const what = `D=${duration} H=${hit}`;
    const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
    assert.equal(clip.plan.hitPointAnchor, 'peak', `${what}: the peak is what plays at H`);
    assert.ok(clip.plan.peakInClipSeconds !== null && Math.abs(clip.plan.peakInClipSeconds - hit) <= HIT_TOLERANCE_SECONDS, `${what}: the peak plays at ${clip.plan.peakInClipSeconds}`);
    assert.ok(clip.plan.parts.length >= 2, `${what}: a lead-in before the climax`);
    const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
    assert.equal(decoded.channels[0].length, Math.round(duration * PLAN_SAMPLE_RATE), `${what}: length`);
    planMatchesAudio(JSON.parse(planHeader(clip.plan)), decoded, pcm, clip.plan.stretch);
  }
}

test('an early climax and a late H: the lead-in is built from bars after the climax, and the climax still lands at H', async () => {
  await climaxLandsAfterLeadIn(await earlyClimax(2), [[20, 15], [30, 12], [60, 40]]);
});

test('a climax on the track\'s first bar line, after a beat of pickup: the lead-in joins into that first bar, and the climax lands at H', async () => {
  const beat = songs[1].design.barSeconds / BEATS_PER_BAR;
  const track = await earlyClimax(beat + 0.2);
  const firstBar = planGrid(track.analysis).lines[0];
  assert.ok(Math.abs(firstBar - track.analysis.peakSeconds) < HIT_TOLERANCE_SECONDS, `the first bar line ${firstBar} is the climax`);
  await climaxLandsAfterLeadIn(track, [[20, 12], [30, 21]]);
});

test('a peak on the pickup beat before the first bar line (a song that opens on its peak) and a later H: the lead-in joins onto the peak from a beat at its place in the bar', async () => {
  // The analysis reads the peak of some songs on their first beat, before their first bar line
  // (a score opening on its loudest chord). The rotated song's pickup beat stands in for it here.
  const beat = songs[1].design.barSeconds / BEATS_PER_BAR;
  const track = await earlyClimax(beat + 0.2);
  const grid = planGrid(track.analysis);
  const pickup = grid.beats[0];
  assert.ok(pickup < grid.lines[0] - beat / 2, `a pickup beat ${pickup} before the first bar line ${grid.lines[0]}`);
  const analysis = { ...track.analysis, peakSeconds: pickup };
  const pickupGrid = planGrid(analysis);
  const requests = [[20, 12], [30, 21]] as const;
  await climaxLandsAfterLeadIn({ ...track, analysis }, requests);
  for (const [duration, hit] of requests) {
    const plan = planClip(analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit }, pickupGrid);
    const leaves = plan.runs[0].sourceStart + plan.runs[0].length;
    const out = nearestIndex(grid.beats, leaves);
    assert.ok(Math.abs(grid.beats[out] - leaves) < ON_BAR_SECONDS && placeInBar(grid, out) === placeInBar(grid, 0), `D=${duration} H=${hit}: the lead-in leaves at ${leaves}, not at the pickup's place in a bar`);
    assert.ok(Math.abs(plan.runs[1].sourceStart - pickup) < ON_BAR_SECONDS, `D=${duration} H=${hit}: it joins onto the peak`);
  }
});

test('an excerpt that stops abruptly: an edit ends on a beat wherever a stretch of at most 1% reaches one, and ends there as its parts are placed on the MP3 frame grid', () => {
  // With no decaying ending to end in, most edits end on a beat. The part after a join moves onto
  // the anchor's frame phase (frame-align.ts), moving the clip's end with it; the ending is chosen
  // where it is heard after that move.
  const song = songs[0];
  const pcm = { ...song.pcm, channels: song.pcm.channels.map((channel) => channel.slice(0, Math.round(100.3 * PLAN_SAMPLE_RATE))) };
  const analysis = analysePcm(pcm);
  const grid = planGrid(analysis);
  let onBeats = 0;
  for (const duration of [20, 30, 45, 60]) {
    for (let hit = 1; hit < duration - 1; hit = Math.round((hit + 0.73) * 100) / 100) {
      let plan;
      try {
        plan = planClip(analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit }, grid);
      } catch {
        continue; // an H the excerpt cannot meet
      }
      // Where the end the peak at H leaves (D - H after it) can be stretched to within 20 ms of a beat, the edit ends on one.
      const target = analysis.peakSeconds + duration - hit;
      const reach = MAX_STRETCH * (duration - hit) + ON_BAR_SECONDS - 0.001;
      if (plan.hitPointAnchor === 'peak' && Math.abs(target - grid.beats[nearestIndex(grid.beats, target)]) <= reach) assert.notEqual(plan.ending, 'cut', `D=${duration} H=${hit}: a beat within reach, yet cut`);
      if (plan.ending !== 'beat' && plan.ending !== 'bar_line') continue;
      onBeats++;
      const last = plan.parts[plan.parts.length - 1];
      const end = seconds(last.sourceStart + last.length);
      const beat = grid.beats[nearestIndex(grid.beats, end)];
      // A millisecond for the rounding of parts to whole samples.
      assert.ok(Math.abs(end - beat) <= ON_BAR_SECONDS + 0.001, `D=${duration} H=${hit}: ends at ${end.toFixed(3)} s, ${((end - beat) * 1000).toFixed(1)} ms from the beat at ${beat.toFixed(3)}`);
    }
  }
  assert.ok(onBeats >= 20, `${onBeats} edits end on a beat or bar line`);
});

test('a 60 s track with its climax 24 s in, the whole of it as an edit and a late H: made, not refused, and honest about what plays at H', async () => {
  // Song 0's 60 s around its climax: for H = 58 no run of other bars fills the 34 s before the
  // climax's bar without playing it, so an entrance is placed at H instead, and the plan says so.
  const song = songs[0];
  const from = Math.round((song.design.climaxSeconds - 24) * PLAN_SAMPLE_RATE);
  const [left, right] = song.pcm.channels.map((channel) => channel.slice(from, from + 60 * PLAN_SAMPLE_RATE));
  const mp3 = await encodeGaplessMp3(left, right);
  const index = indexFrames(mp3);
  const pcm = await decodeAll(mp3, index);
  const analysis = analysePcm(pcm);
  assert.ok(Math.abs(analysis.peakSeconds - 24) < HIT_TOLERANCE_SECONDS, `the excerpt's peak ${analysis.peakSeconds} is its climax, 24 s in`);
  for (const hit of [50, 58]) {
    const what = `D=60 H=${hit}`;
    const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: 60, hitPointSeconds: hit });
    const landed = clip.plan.peakInClipSeconds !== null && Math.abs(clip.plan.peakInClipSeconds - hit) <= HIT_TOLERANCE_SECONDS;
    assert.equal(clip.plan.hitPointLanding, landed ? 'sure' : 'miss', `${what}: the peak plays at ${clip.plan.peakInClipSeconds}`);
    assert.equal(clip.plan.hitPointAnchor, landed ? 'peak' : 'entrance');
    if (hit === 50) assert.ok(landed, `${what}: the peak plays at ${clip.plan.peakInClipSeconds}`);
    const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
    assert.equal(decoded.channels[0].length, 60 * PLAN_SAMPLE_RATE, `${what}: length`);
    planMatchesAudio(JSON.parse(planHeader(clip.plan)), decoded, pcm, clip.plan.stretch);
  }
});

/** Song 3 cut 0.9 s after its climax's entrance (a loop-based piece or an excerpt that stops on a loud bar), made once for the tests that use it. */
let cutAfterClimax: ReturnType<typeof makeSongCutAfterClimax> | undefined;
const songCutAfterClimax = () => (cutAfterClimax ??= makeSongCutAfterClimax());

async function makeSongCutAfterClimax() {
  const song = songs[1];
  const end = Math.round((song.design.climaxSeconds + 0.9) * PLAN_SAMPLE_RATE);
  const [left, right] = song.pcm.channels.map((channel) => channel.slice(0, end));
  const mp3 = await encodeGaplessMp3(left, right);
  const index = indexFrames(mp3);
  const pcm = await decodeAll(mp3, index);
  const analysis = analysePcm(pcm);
  assert.ok(analysis.durationSeconds >= 60 && analysis.durationSeconds - analysis.peakSeconds < 1.5, `peak ${analysis.peakSeconds} of ${analysis.durationSeconds} s`);
  return { song, mp3, index, pcm, analysis };
}

test('a track that stops a second into its climax: edits are made, not refused, and the peak lands at H', async () => {
  // Its own peak leaves less than a bar for the D - H seconds after H: the clip returns to bars
  // before the climax, or anchors on another entrance with room after it.
  const { mp3, index, pcm, analysis } = await songCutAfterClimax();
  for (const [duration, hit] of [[20, 10], [30, 25], [60, 40]] as const) {
    const what = `D=${duration} H=${hit}`;
    const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
    assert.ok(clip.plan.peakInClipSeconds !== null && Math.abs(clip.plan.peakInClipSeconds - hit) <= HIT_TOLERANCE_SECONDS, `${what}: the anchor plays at ${clip.plan.peakInClipSeconds}`);
    const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
    assert.equal(decoded.channels[0].length, Math.round(duration * PLAN_SAMPLE_RATE), `${what}: length`);
    planMatchesAudio(JSON.parse(planHeader(clip.plan)), decoded, pcm, clip.plan.stretch);
  }
});

test('a track that stops a second into its climax, and an early H: the climax plays on, then the clip returns to bars before it', async () => {
  const { song, mp3, index, pcm, analysis } = await songCutAfterClimax();
  for (const [duration, hit] of [[30, 8], [45, 3]] as const) {
    const what = `D=${duration} H=${hit}`;
    const clip = await makeClip(mp3, index, analysis, { mode: 'edit', durationSeconds: duration, hitPointSeconds: hit });
    const parts = clip.plan.parts.map((part) => ({ clipStart: seconds(part.clipStart), sourceStart: seconds(part.sourceStart), sourceEnd: seconds(part.sourceStart + part.length) }));
    const climax = parts.findIndex((part) => part.sourceStart <= analysis.peakSeconds && analysis.peakSeconds < part.sourceEnd);
    assert.ok(climax >= 0 && Math.abs(parts[climax].clipStart + analysis.peakSeconds - parts[climax].sourceStart - hit) <= HIT_TOLERANCE_SECONDS, `${what}: the climax plays at H`);
    const last = parts.at(-1)!;
    assert.ok(climax < parts.length - 1 && last.sourceEnd <= analysis.peakSeconds, `${what}: the last part (${last.sourceStart.toFixed(2)}-${last.sourceEnd.toFixed(2)} s) returns to before the climax`);
    if (clip.plan.ending === 'bar_line') assert.ok(offBar(song, last.sourceEnd) < ON_BAR_SECONDS, `${what}: the last part ends on a bar line (${last.sourceEnd.toFixed(3)} s)`);
    const decoded = await decodeAll(clip.mp3, indexFrames(clip.mp3));
    assert.equal(decoded.channels[0].length, Math.round(duration * PLAN_SAMPLE_RATE), `${what}: length`);
    planMatchesAudio(JSON.parse(planHeader(clip.plan)), decoded, pcm, clip.plan.stretch);
  }
});



test('a clip is the same bytes whether made alone, after other clips, or alongside them in one thread', async () => {
  // Clips decode their ranges on one decoder each (engine/mp3/decode.ts): what another clip
  // decoded before, or decodes at the same time, must not reach the bytes.
  const song = songs[0];
  const requests = [
    { mode: 'edit', durationSeconds: 30, hitPointSeconds: 12 },
    { mode: 'loop', durationSeconds: 20 },
    { mode: 'segment', durationSeconds: 25 },
    { mode: 'edit', durationSeconds: 45 },
  ] as const;
  const make = (request: (typeof requests)[number]) => makeClip(song.mp3, song.index, song.analysis, request).then((clip) => Buffer.from(clip.mp3));
  const alone: Buffer[] = [];
  for (const request of requests) alone.push(await make(request));
  for (const request of [...requests].reverse()) await makeClip(song.mp3, song.index, song.analysis, request, { allowSplice: false });
  const after: Buffer[] = [];
  for (const request of requests) after.push(await make(request));
  const alongside = await Promise.all(requests.map(make));
  requests.forEach((request, i) => {
    assert.ok(after[i].equals(alone[i]), `${request.mode} ${request.durationSeconds} s after other clips`);
    assert.ok(alongside[i].equals(alone[i]), `${request.mode} ${request.durationSeconds} s alongside other clips`);
  });
});

test('an H no edit can meet is refused with the range every H in which is met: its edges plan with the peak at H', () => {
  // A track whose only beat, and so its peak, is in its last half second: little room after it.
  const quietEnd = analysePcm({ sampleRate: PLAN_SAMPLE_RATE, channels: [new Float32Array(30 * PLAN_SAMPLE_RATE), new Float32Array(30 * PLAN_SAMPLE_RATE)] });
  assert.throws(() => planClip(quietEnd, { mode: 'edit', durationSeconds: 15, hitPointSeconds: 0.5 }), (err: any) => {
    assert.equal(err.code, 'hit_point_unreachable');
    assert.ok(err.details.min > 0.5 && err.details.min <= err.details.max && err.details.max <= 15, JSON.stringify(err.details));
    for (const hit of [err.details.min, err.details.max]) {
      const plan = planClip(quietEnd, { mode: 'edit', durationSeconds: 15, hitPointSeconds: hit });
      assert.equal(plan.hitPointLanding, 'sure', `H=${hit}: the peak plays at ${plan.peakInClipSeconds}`);
    }
    return true;
  });
});
