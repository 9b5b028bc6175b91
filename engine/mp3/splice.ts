// Smart cut: a clip made mostly of the source's own MP3 frames. Only a few tenths of a second at
// each edge and around each join of an edit or loop are rendered (de-click ramps, crossfades) and
// re-encoded; the frames of each part's inside are copied byte for byte. That is ~10x less work
// than a full re-encode and loses no quality in the parts.
//
// Three things make the splice exact:
// - Grid: every part of the plan has the same phase against the source's 1152-sample frame grid
//   (engine/plan/frame-align.ts), so one output grid is every part's source grid; the re-encoded
//   stretches are fed input that starts on it, and the Info frame's encoder delay skips the extra
//   lead-in.
// - Overlap: at each junction both neighbouring granules use normal long blocks, so the MDCT
//   overlap-add between a re-encoded and a copied frame cancels its aliasing as within one stream.
// - Bit reservoir: a copied frame may keep part of its main data in the frames before it (which
//   we replaced), so those bytes are written into the unused tail of the replaced frames' data.
//   When that tail is too short, the frame before the junction is re-labelled at a higher
//   bitrate (a larger frame, as in VBR streams) to make room.
import { frameBytesOf, MPEG1_BITRATES_KBPS, MPEG1_FRAME_SAMPLES, parseFrameHeader } from './frame-header.ts';
import { readSideInfo, type SideInfo } from './side-info.ts';
import { indexFrames, type FrameIndex } from './frame-index.ts';
import { buildInfoFrame, DECODER_DELAY } from './gapless-tag.ts';
import { defaultEncoder, LAME_ENCODER_DELAY } from './encoders.ts';
import { DEFAULT_BITRATE_KBPS } from './encode.ts';

const FRAME = MPEG1_FRAME_SAMPLES;
const SAMPLE_RATE = 44100;
/** Re-encoded at each edge at least this long (covers the de-click ramp and the cut). */
const MIN_EDGE_SAMPLES = Math.round(0.1 * SAMPLE_RATE);
/**
 * Re-encoded either side of a join at least this long: half the widest crossfade a plan may use
 * (30 ms) plus one frame, since a frame's MDCT overlaps its neighbour's.
 */
const JOIN_GUARD_SAMPLES = Math.round(0.015 * SAMPLE_RATE) + FRAME;
/** Source frames copied at least (the tail's reservoir may reach two frames back). */
const MIN_COPIED_FRAMES = 3;
/**
 * Junction candidates tried at each side of a re-encoded stretch: within 4 frames (0.1 s) first, enough
 * for nearly every clip; when a junction has no clean candidate among them (the encoder's block
 * switching around a long silence), 24 frames (0.6 s) before giving up on the splice. Every
 * candidate is encoded, and the nearest clean one is nearly always the first: of 60 edits of a
 * demo song, 55 found all their junctions within 4 frames and the other 5 none within 8 either,
 * so a first window of 8 encoded 0.5 s more per edit for nothing.
 */
const CANDIDATE_WINDOWS = [4, 24];
/** Frames encoded before the tail junction so the encoder is in its steady state there. */
const TAIL_PREROLL_FRAMES = 2;
/** Total delay from an encoder's first input sample to a decoder's first output sample of it. */
const STREAM_DELAY = LAME_ENCODER_DELAY + DECODER_DELAY;
/** The largest padding the Info frame's 12-bit field can hold. */
const MAX_TAG_PADDING = 4095;

interface Frames {
  bytes: Uint8Array;
  index: FrameIndex;
  side(i: number): SideInfo;
  /** Offset of frame i's data area (after its side info). */
  dataStart(i: number): number;
}

/**
 * Side info is read on demand: a splice looks at a few dozen frames around its junctions, not at
 * the thousands of frames of the source it copies from.
 */
function framesOf(bytes: Uint8Array, index: FrameIndex = indexFrames(bytes)): Frames {
  const parsed: { side: SideInfo; dataStart: number }[] = [];
  const frame = (i: number) => {
    let entry = parsed[i];
    if (!entry) {
      const offset = index.offsets[i];
      const header = parseFrameHeader(bytes, offset)!;
      entry = parsed[i] = { side: readSideInfo(bytes, offset, header), dataStart: offset + header.sideInfoEnd };
    }
    return entry;
  };
  return { bytes, index, side: (i) => frame(i).side, dataStart: (i) => frame(i).dataStart };
}

function frameBytes(f: Frames, i: number): Uint8Array {
  return f.bytes.subarray(f.index.offsets[i], f.index.offsets[i] + f.index.sizes[i]);
}

/**
 * Main-data bytes at the end of frames [0, n) that no frame before n uses: free for a reservoir.
 * Frame n-1's main data starts mainDataBegin bytes before its data area and runs mainDataBytes.
 */
function freeTail(f: Frames, n: number): number {
  const area = f.index.offsets[n - 1] + f.index.sizes[n - 1] - f.dataStart(n - 1);
  return Math.max(0, area + f.side(n - 1).mainDataBegin - f.side(n - 1).mainDataBytes);
}

/** The `count` main-data bytes just before frame n's data area, walking back over data areas. */
function reservoirBefore(f: Frames, n: number, count: number): Uint8Array {
  const out = new Uint8Array(count);
  let remaining = count;
  for (let i = n - 1; i >= 0 && remaining > 0; i--) {
    const areaStart = f.dataStart(i);
    const areaEnd = f.index.offsets[i] + f.index.sizes[i];
    const take = Math.min(remaining, areaEnd - areaStart);
    out.set(f.bytes.subarray(areaEnd - take, areaEnd), remaining - take);
    remaining -= take;
  }
  return out;
}

/** Writes `reservoir` over the last bytes of the data areas of `frames` (copies, not views). */
function writeReservoir(frames: Uint8Array[], dataOffsets: number[], reservoir: Uint8Array): void {
  let remaining = reservoir.length;
  for (let i = frames.length - 1; i >= 0 && remaining > 0; i--) {
    const area = frames[i].length - dataOffsets[i];
    const take = Math.min(remaining, area);
    frames[i].set(reservoir.subarray(remaining - take, remaining), frames[i].length - take);
    remaining -= take;
  }
}

/**
 * The same frame (header, side info, data) re-labelled at the lowest higher bitrate that adds at
 * least `extra` bytes of data area, zero-filled; undefined if even 320 kbps is not enough.
 */
function enlargeFrame(frame: Uint8Array, extra: number): Uint8Array | undefined {
  const bitrateIndex = frame[2] >> 4;
  const padding = (frame[2] >> 1) & 1;
  for (let index = bitrateIndex + 1; index < MPEG1_BITRATES_KBPS.length; index++) {
    const length = frameBytesOf(FRAME, MPEG1_BITRATES_KBPS[index], SAMPLE_RATE, padding);
    if (length - frame.length < extra) continue;
    const out = new Uint8Array(length);
    out.set(frame);
    out[2] = (index << 4) | (frame[2] & 0x0f);
    return out;
  }
  return undefined;
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

export function canSplice(index: FrameIndex, bytes: Uint8Array, bitrateKbps: number): boolean {
  if (index.sampleRate !== SAMPLE_RATE || index.channels !== 2 || index.samplesPerFrame !== FRAME) return false;
  // CBR at the clip bitrate, no CRC: sample a few frames.
  for (const i of [0, Math.floor(index.offsets.length / 2), index.offsets.length - 1]) {
    const header = parseFrameHeader(bytes, index.offsets[i]);
    if (!header || header.bitrateKbps !== bitrateKbps || header.hasCrc) return false;
  }
  return true;
}

/** A stretch of the clip that plays the source from `sourceStart` on (samples at 44.1 kHz). */
export interface SplicePart {
  clipStart: number;
  sourceStart: number;
  length: number;
}

/** The clip's own audio for clip samples [from, to): zeros outside the clip, edges and joins shaped. */
export type ClipAudio = (from: number, to: number) => Promise<[Float32Array, Float32Array]>;

/**
 * The output's frame grid. Output frame m carries clip samples [m F - outSkip, (m + 1) F - outSkip)
 * (outSkip: the Info frame's encoder delay plus the decoder's delay), and for part p the same
 * samples as source frame m + shifts[p]: possible because every part's offset has one phase.
 */
interface Grid {
  outSkip: number;
  shifts: number[];
}

function gridOf(index: FrameIndex, parts: SplicePart[]): Grid | undefined {
  const offsets = parts.map((p) => p.sourceStart - p.clipStart);
  if (offsets.some((o) => mod(o - offsets[0], FRAME) !== 0)) return undefined; // not frame-aligned: no copying
  const outSkip = STREAM_DELAY + mod(index.startSkip + offsets[0] - STREAM_DELAY, FRAME);
  return { outSkip, shifts: offsets.map((o) => (o + index.startSkip - outSkip) / FRAME) };
}

/** Output frames where a junction between encoded and copied frames may go (from..to inclusive). */
interface Candidates {
  from: number;
  to: number;
}

/**
 * Where a junction window of `candidates` frames starts at an edge of a copied part: at `edge`
 * when one of its frames could be clean on the copied side (`possible`); else at the first frame
 * further in (stepping by `step` towards `limit`) where the source's frames are long blocks on
 * both sides of the junction (`steady`: the re-encoded side, the same audio, then mostly is too);
 * undefined when there is none up to `limit`.
 */
function windowEdge(edge: number, step: 1 | -1, candidates: number, limit: number, possible: (m: number) => boolean, steady: (m: number) => boolean): number | undefined {
  for (let m = edge; Math.abs(m - edge) <= candidates && (limit - m) * step >= 0; m += step) if (possible(m)) return edge;
  for (let m = edge + step * (candidates + 1); (limit - m) * step >= 0; m += step) if (steady(m)) return m;
  return undefined;
}

/**
 * The output frames part p can be copied over: the junction into it among `into`, the one out of
 * it among `outOf`, at least MIN_COPIED_FRAMES apart. A window whose frames could none be clean
 * on the copied side (the source's own frames switch blocks throughout) starts further in
 * (windowEdge): a passage of sharp attacks is then re-encoded whole, not the whole clip (the
 * last 4.6 s of supertux's ice_music: every edit ending with the track found no junction within
 * 24 frames of its end and was encoded whole, 0.45-1.0 s instead of ~0.15). Undefined when the
 * part is too short for that (or its source frames missing), so it is re-encoded whole.
 */
function copyWindow(grid: Grid, parts: SplicePart[], p: number, source: Frames, candidates: number): { into: Candidates; outOf: Candidates } | undefined {
  const shift = grid.shifts[p];
  const part = parts[p];
  const guardBefore = p === 0 ? MIN_EDGE_SAMPLES : JOIN_GUARD_SAMPLES;
  const guardAfter = p === parts.length - 1 ? MIN_EDGE_SAMPLES : JOIN_GUARD_SAMPLES;
  const first = Math.max(1 - shift, Math.ceil((part.clipStart + guardBefore + grid.outSkip) / FRAME));
  const last = Math.min(source.index.offsets.length - 1 - shift, Math.floor((part.clipStart + part.length - guardAfter + grid.outSkip) / FRAME));
  if (last - first < MIN_COPIED_FRAMES + 2) return undefined;
  const middle = Math.floor((first + last - MIN_COPIED_FRAMES) / 2);
  // The copied part takes over from a re-encoded stretch at its start and hands over at its end (cleanJunction).
  const steady = (m: number) => takesOver(source, m + shift);
  const intoFrom = windowEdge(first, 1, candidates, middle, steady, steady);
  if (intoFrom === undefined) return undefined;
  const outOfTo = windowEdge(last, -1, candidates, intoFrom + MIN_COPIED_FRAMES + 2, (m) => handsOver(source, m + shift), steady);
  if (outOfTo === undefined) return undefined;
  const intoTo = Math.min(intoFrom + candidates, middle);
  const outOfFrom = Math.max(outOfTo - candidates, intoTo + MIN_COPIED_FRAMES);
  return { into: { from: intoFrom, to: intoTo }, outOf: { from: outOfFrom, to: outOfTo } };
}

/**
 * A stretch re-encoded from the clip's own audio: the clip's start, its end, and the joins between
 * copied parts. It takes over from the copied part before it at a frame among `from` and hands
 * over to the copied part after it at a frame among `into` (neither at the clip's edges).
 */
interface Region {
  from?: { part: number; candidates: Candidates };
  into?: { part: number; candidates: Candidates };
}

/** Regions and copied parts alternate: region, part, region, ..., region. */
function regionsOf(grid: Grid, parts: SplicePart[], source: Frames, candidates: number): { regions: Region[]; copied: number[] } {
  const regions: Region[] = [{}];
  const copied: number[] = [];
  parts.forEach((part, p) => {
    const window = copyWindow(grid, parts, p, source, candidates);
    if (!window) return; // inside the current region
    regions[regions.length - 1].into = { part: p, candidates: window.into };
    copied.push(p);
    regions.push({ from: { part: p, candidates: window.outOf } });
  });
  return { regions, copied };
}

/** A run of output frames taken from one stream: output frame m is the stream's frame m + shift. */
interface Stream {
  frames: Frames;
  shift: number;
}

/** The clip samples [start, end) a region is encoded from, and the output frame its first encoded frame is. */
interface RegionInput {
  start: number;
  end: number;
  firstFrame: number;
}

/**
 * A region's input runs from TAIL_PREROLL_FRAMES before its first candidate (so the encoder is
 * steady there; the clip's start instead has silence before it) to two frames past its last
 * candidate (the MDCT overlap reaches into the next frame) or to the clip's end.
 */
function regionInput(region: Region, grid: Grid, samples: number): RegionInput {
  const firstFrame = region.from ? region.from.candidates.from - TAIL_PREROLL_FRAMES : 0;
  const start = firstFrame * FRAME + STREAM_DELAY - grid.outSkip;
  const end = region.into ? (region.into.candidates.to + 2) * FRAME - grid.outSkip : samples;
  return { start, end, firstFrame };
}

/**
 * Encodes every region in one pass, back to back: setting LAME up and flushing it cost about 4 ms
 * a call, more than encoding a region's half second. Each region but the last is lengthened (with
 * more of the clip's audio) to whole frames, so the next one starts on the stream's frame grid
 * and its frames are the stream's from there on. What precedes a region in the stream changes its
 * bytes (the encoder's state and reservoir carry over) but not their validity: its preroll frames
 * settle the encoder before its first junction candidate, and a junction carries whatever
 * reservoir bytes the stream's frames before it hold. All regions share the one stream's frames,
 * so a stream's frame bounds (cleanJunction) are the whole stream's; the candidates keep each
 * junction inside its own region.
 */
async function encodeRegions(regions: Region[], grid: Grid, samples: number, audio: ClipAudio, bitrate: number): Promise<Stream[]> {
  const inputs = regions.map((region) => regionInput(region, grid, samples));
  const lengths = inputs.map(({ start, end }, r) => (r + 1 < inputs.length ? Math.ceil((end - start) / FRAME) * FRAME : end - start));
  const total = lengths.reduce((n, length) => n + length, 0);
  const left = new Float32Array(total), right = new Float32Array(total);
  const shifts: number[] = [];
  let at = 0;
  for (let r = 0; r < inputs.length; r++) {
    const [regionLeft, regionRight] = await audio(inputs[r].start, inputs[r].start + lengths[r]);
    left.set(regionLeft, at);
    right.set(regionRight, at);
    shifts.push(at / FRAME - inputs[r].firstFrame);
    at += lengths[r];
  }
  const frames = framesOf(await defaultEncoder.encode(left, right, bitrate));
  return shifts.map((shift) => ({ frames, shift }));
}

/** Whether a stream may hand over after its frame b - 1: that frame ends with a normal long block. */
function handsOver(frames: Frames, b: number): boolean {
  return b >= 1 && b <= frames.index.offsets.length && frames.side(b - 1).longBlocks[1];
}

/** Whether a stream may take over at its frame a: frame a - 1 ends and frame a starts with a normal long block. */
function takesOver(frames: Frames, a: number): boolean {
  return a >= 1 && a < frames.index.offsets.length && frames.side(a - 1).longBlocks[1] && frames.side(a).longBlocks[0];
}

/**
 * True when output frame m can come from `after` with m - 1 from `before`: both streams' frames
 * m - 1 end and `after`'s frame m starts with a normal long block, so the MDCT overlap-add across
 * the junction cancels its aliasing as it does within one stream.
 */
function cleanJunction(before: Stream, after: Stream, m: number): boolean {
  return handsOver(before.frames, m + before.shift) && takesOver(after.frames, m + after.shift);
}

/** The junction nearest the region's inside among the candidates (so the most is copied), or -1. */
function junction(before: Stream, after: Stream, candidates: Candidates, fromEnd: boolean): number {
  for (let i = 0; i <= candidates.to - candidates.from; i++) {
    const m = fromEnd ? candidates.to - i : candidates.from + i;
    if (cleanJunction(before, after, m)) return m;
  }
  return -1;
}

/** Frames appended one by one (copies), with each one's data-area offset, for reservoir carrying. */
interface Assembly {
  parts: Uint8Array[];
  dataOffsets: number[];
}

/** Output frames [from, to) from the stream. */
function append(out: Assembly, stream: Stream, from: number, to: number): void {
  const f = stream.frames;
  for (let i = from + stream.shift; i < to + stream.shift; i++) {
    out.parts.push(frameBytes(f, i).slice());
    out.dataOffsets.push(f.dataStart(i) - f.index.offsets[i]);
  }
}

/**
 * At a junction at output frame m: the main data `after`'s frame m expects in the frames before
 * it goes into the free end of `before`'s frames assembled so far; the last frame is enlarged when
 * it lacks room. False when even 320 kbps is not enough.
 */
function carryReservoir(out: Assembly, before: Stream, after: Stream, m: number): boolean {
  const a = m + after.shift;
  const reservoir = reservoirBefore(after.frames, a, after.frames.side(a).mainDataBegin);
  const free = freeTail(before.frames, m + before.shift);
  const last = out.parts.length - 1;
  if (free < reservoir.length) {
    const enlarged = enlargeFrame(out.parts[last], reservoir.length - free);
    if (!enlarged) return false;
    out.parts[last] = enlarged;
  }
  writeReservoir(out.parts, out.dataOffsets, reservoir);
  return true;
}

/**
 * The output's streams in order with the frame each takes over at: encoded region, copied part,
 * encoded region, ..., each junction the clean one nearest the region's inside. Undefined when a
 * junction has no clean candidate.
 */
function junctions(regions: Stream[], layout: Region[], source: Frames, grid: Grid): { stream: Stream; at: number }[] | undefined {
  const runs: { stream: Stream; at: number }[] = [{ stream: regions[0], at: 0 }];
  for (let r = 0; r + 1 < regions.length; r++) {
    const into = layout[r].into!, from = layout[r + 1].from!;
    const part: Stream = { frames: source, shift: grid.shifts[into.part] };
    const j = junction(regions[r], part, into.candidates, false);
    const k = junction(part, regions[r + 1], from.candidates, true);
    if (j < 0 || k < 0) return undefined;
    runs.push({ stream: part, at: j }, { stream: regions[r + 1], at: k });
  }
  return runs;
}

/** The runs' frames one after another, each junction's reservoir carried across it. */
function assemble(runs: { stream: Stream; at: number }[]): Uint8Array[] | undefined {
  const out: Assembly = { parts: [], dataOffsets: [] };
  for (let i = 0; i < runs.length; i++) {
    const { stream, at } = runs[i];
    if (i > 0 && !carryReservoir(out, runs[i - 1].stream, stream, at)) return undefined;
    const to = i + 1 < runs.length ? runs[i + 1].at : stream.frames.index.offsets.length - stream.shift;
    append(out, stream, at, to);
  }
  return out.parts;
}

/** The frames behind a gapless Info frame; undefined when the padding falls outside what the tag can say. */
function withInfoFrame(parts: Uint8Array[], encoderDelay: number, samples: number, bitrate: number): Uint8Array | undefined {
  const padding = parts.length * FRAME - encoderDelay - samples;
  if (padding < DECODER_DELAY || padding > MAX_TAG_PADDING) return undefined;
  const audioBytes = parts.reduce((n, part) => n + part.length, 0);
  const frameOffsets: number[] = [];
  let offset = 0;
  for (const part of parts) {
    frameOffsets.push(offset);
    offset += part.length;
  }
  const info = buildInfoFrame({ sampleRate: SAMPLE_RATE, bitrateKbps: bitrate, info: { frameCount: parts.length, encoderDelay, padding }, audioBytes, frameOffsets });
  const out = new Uint8Array(info.length + audioBytes);
  out.set(info, 0);
  offset = info.length;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The clip of `samples` made of `parts` of the track as a gapless MP3, or undefined when the
 * source or the plan does not allow a splice (the caller encodes the whole clip). Each part's
 * inside is copied frame for frame from the source; the clip's start, its end and every join are
 * re-encoded from the clip's own audio (`audio`), on the source's frame grid.
 * Steps: the output grid; the regions to re-encode; encode them; the junctions (tried again over
 * wider candidate windows when one has no clean candidate); assemble with the
 * bit reservoirs carried across; the Info frame in front.
 */
export async function spliceClip(bytes: Uint8Array, index: FrameIndex, parts: SplicePart[], samples: number, audio: ClipAudio): Promise<Uint8Array | undefined> {
  const bitrate = DEFAULT_BITRATE_KBPS;
  if (!canSplice(index, bytes, bitrate)) return undefined;
  const grid = gridOf(index, parts);
  if (!grid) return undefined;
  const source = framesOf(bytes, index);
  for (const candidates of CANDIDATE_WINDOWS) {
    const layout = regionsOf(grid, parts, source, candidates);
    if (layout.copied.length === 0) return undefined; // nothing to copy: encoding the whole clip is simpler
    const regions = await encodeRegions(layout.regions, grid, samples, audio, bitrate);
    const runs = junctions(regions, layout.regions, source, grid);
    const frames = runs && assemble(runs);
    if (frames) return withInfoFrame(frames, grid.outSkip - DECODER_DELAY, samples, bitrate);
  }
  return undefined;
}
