// Smart cut: a clip made mostly of the source's own MP3 frames. Only ~0.1-0.5 s at each edge is
// decoded, de-clicked and re-encoded; the frames in between are copied byte for byte. That is
// ~10x less work than a full re-encode and loses no quality in the middle.
//
// Three things make the splice exact:
// - Grid: the re-encoded edges are fed input that starts where their frames line up with the
//   source's 1152-sample frame grid; the Info frame's encoder delay skips the extra lead-in.
// - Overlap: at each junction both neighbouring granules use normal long blocks, so the MDCT
//   overlap-add between a re-encoded and a copied frame cancels its aliasing as within one stream.
// - Bit reservoir: a copied frame may keep part of its main data in the frames before it (which
//   we replaced), so those bytes are written into the unused tail of the replaced frames' data.
//   When that tail is too short, the frame before the junction is re-labelled at a higher
//   bitrate (a larger frame, as in VBR streams) to make room.
import { parseFrameHeader } from './frame-header.ts';
import { readSideInfo, type SideInfo } from './side-info.ts';
import { indexFrames, type FrameIndex } from './frame-index.ts';
import { decodeRange } from './decode.ts';
import { buildInfoFrame, DECODER_DELAY } from './gapless-tag.ts';
import { defaultEncoder, LAME_ENCODER_DELAY } from './encoders.ts';
import { DEFAULT_BITRATE_KBPS } from './encode.ts';

const FRAME = 1152;
const SAMPLE_RATE = 44100;
/** Re-encoded at each edge at least this long (covers the de-click ramp and the cut). */
const MIN_EDGE_SAMPLES = Math.round(0.1 * SAMPLE_RATE);
/** Source frames copied at least (the tail's reservoir may reach two frames back). */
const MIN_COPIED_FRAMES = 3;
/** Junction candidates tried at each edge. */
const CANDIDATES = 24;
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

const BITRATES_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];

function frameLength(bitrateKbps: number, padding: number): number {
  return Math.floor((144 * bitrateKbps * 1000) / SAMPLE_RATE) + padding;
}

/**
 * The same frame (header, side info, data) re-labelled at the lowest higher bitrate that adds at
 * least `extra` bytes of data area, zero-filled; undefined if even 320 kbps is not enough.
 */
function enlargeFrame(frame: Uint8Array, extra: number): Uint8Array | undefined {
  const bitrateIndex = frame[2] >> 4;
  const padding = (frame[2] >> 1) & 1;
  for (let index = bitrateIndex + 1; index < BITRATES_KBPS.length; index++) {
    const length = frameLength(BITRATES_KBPS[index], padding);
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

async function decodeTrack(bytes: Uint8Array, index: FrameIndex, from: number, to: number): Promise<Float32Array[]> {
  const lead = Math.max(0, -from);
  const pcm = await decodeRange(bytes, index, Math.max(0, from), to);
  return pcm.channels.map((channel) => {
    const out = new Float32Array(to - from);
    out.set(channel.subarray(0, out.length - lead), lead);
    return out;
  });
}

/**
 * One re-encoded edge: its frames, and where they sit on the source's frame grid (edge frame m
 * carries the same samples as source frame m + frameShift).
 */
interface Edge {
  frames: Frames;
  frameShift: number;
  /** The source sample the edge's encoder input starts at. */
  inputStart: number;
}

/** Frames `from`..`to` of the source that may hold a junction (their side info decides). */
interface Candidates {
  from: number;
  to: number;
}

/** True when the MDCT overlap across a junction between frame a (before) and b (after) is clean. */
function cleanJunction(before: Frames, a: number, after: Frames, b: number): boolean {
  return before.side(a).longBlocks[1] && after.side(b).longBlocks[0];
}

/**
 * The head: decoded from a point chosen so that its encoder output lines up with the source's
 * frame grid, silent before the clip's start, shaped (de-click ramp), re-encoded. Undefined when
 * the clip is too short for a copied middle.
 */
async function encodeHead(bytes: Uint8Array, index: FrameIndex, start: number, end: number, shape: EdgeShape, bitrate: number): Promise<{ edge: Edge; candidates: Candidates } | undefined> {
  const skip = index.startSkip;
  const inputStart = start - mod(start - STREAM_DELAY + skip, FRAME);
  const frameShift = (inputStart - STREAM_DELAY + skip) / FRAME;
  const first = Math.ceil((start + skip + MIN_EDGE_SAMPLES) / FRAME);
  const candidates = { from: first, to: first + CANDIDATES };
  const headEnd = (candidates.to + 2) * FRAME - skip;
  if (headEnd >= end - MIN_EDGE_SAMPLES) return undefined;
  const pcm = await decodeTrack(bytes, index, inputStart, headEnd);
  for (const channel of pcm) {
    channel.fill(0, 0, start - inputStart); // before the clip: silence (skipped by the encoder delay)
    shape(channel.subarray(start - inputStart), 0);
  }
  const frames = framesOf(await defaultEncoder.encode(pcm[0], pcm[1], bitrate));
  return { edge: { frames, frameShift, inputStart }, candidates };
}

/** The first source frame, among the candidates, where the copied middle can take over from the head. */
function headJunction(source: Frames, head: Edge, candidates: Candidates): number {
  for (let j = candidates.from; j <= candidates.to && j < source.index.offsets.length; j++) {
    const kept = j - head.frameShift; // head frames kept before the junction
    if (kept < 1 || kept > head.frames.index.offsets.length) continue;
    if (cleanJunction(source, j - 1, source, j) && head.frames.side(kept - 1).longBlocks[1]) return j;
  }
  return -1;
}

/**
 * The tail: from TAIL_PREROLL_FRAMES before its first junction candidate (so the encoder is steady
 * there) to the clip's end, shaped and re-encoded, on the source's grid. Undefined when no
 * candidate leaves MIN_COPIED_FRAMES after the head's junction.
 */
async function encodeTail(bytes: Uint8Array, index: FrameIndex, start: number, end: number, afterFrame: number, shape: EdgeShape, bitrate: number): Promise<{ edge: Edge; candidates: Candidates } | undefined> {
  const skip = index.startSkip;
  const last = Math.floor((end + skip - MIN_EDGE_SAMPLES) / FRAME);
  const first = Math.max(afterFrame + MIN_COPIED_FRAMES, last - CANDIDATES);
  const frameShift = first - TAIL_PREROLL_FRAMES;
  const inputStart = frameShift * FRAME + STREAM_DELAY - skip;
  if (inputStart <= start || last < first) return undefined;
  const pcm = await decodeTrack(bytes, index, inputStart, end);
  for (const channel of pcm) shape(channel, inputStart - start);
  const frames = framesOf(await defaultEncoder.encode(pcm[0], pcm[1], bitrate));
  return { edge: { frames, frameShift, inputStart }, candidates: { from: first, to: last } };
}

/** The last source frame, among the candidates, where the tail can take over from the copied middle. */
function tailJunction(source: Frames, tail: Edge, candidates: Candidates): number {
  for (let k = candidates.to; k >= candidates.from; k--) {
    const p = k - tail.frameShift; // the tail frame that replaces source frame k
    if (p < 1 || p >= tail.frames.index.offsets.length || k >= source.index.offsets.length) continue;
    if (source.side(k - 1).longBlocks[1] && cleanJunction(tail.frames, p - 1, tail.frames, p)) return k;
  }
  return -1;
}

/** Frames appended one by one (copies), with each one's data-area offset, for reservoir carrying. */
interface Assembly {
  parts: Uint8Array[];
  dataOffsets: number[];
}

function append(out: Assembly, f: Frames, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    out.parts.push(frameBytes(f, i).slice());
    out.dataOffsets.push(f.dataStart(i) - f.index.offsets[i]);
  }
}

/**
 * Before a junction: the main data the next copied frame expects in the frames before it goes into
 * the free end of what is assembled so far; the last frame is enlarged when it lacks room.
 * False when even 320 kbps is not enough.
 */
function carryReservoir(out: Assembly, free: number, reservoir: Uint8Array): boolean {
  const last = out.parts.length - 1;
  if (free < reservoir.length) {
    const enlarged = enlargeFrame(out.parts[last], reservoir.length - free);
    if (!enlarged) return false;
    out.parts[last] = enlarged;
  }
  writeReservoir(out.parts, out.dataOffsets, reservoir);
  return true;
}

/** head frames before junction j, source frames [j, k), tail frames from source frame k on. */
function assemble(source: Frames, head: Edge, j: number, tail: Edge, k: number): Uint8Array[] | undefined {
  const out: Assembly = { parts: [], dataOffsets: [] };
  const keptHead = j - head.frameShift;
  const tailFrom = k - tail.frameShift;
  append(out, head.frames, 0, keptHead);
  if (!carryReservoir(out, freeTail(head.frames, keptHead), reservoirBefore(source, j, source.side(j).mainDataBegin))) return undefined;
  append(out, source, j, k);
  if (!carryReservoir(out, freeTail(source, k), reservoirBefore(tail.frames, tailFrom, tail.frames.side(tailFrom).mainDataBegin))) return undefined;
  append(out, tail.frames, tailFrom, tail.frames.index.offsets.length);
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

/** Applies the de-click ramps to edge PCM: (channel, clip offset of its first sample). */
export type EdgeShape = (channel: Float32Array, clipOffset: number) => void;

/**
 * The clip [start, start + samples) of the track (playable samples) as a gapless MP3, or
 * undefined when the source or the clip does not allow a splice (the caller re-encodes).
 * Steps: re-encode the head on the source's grid, find its junction; the same for the tail;
 * assemble head, copied middle and tail with their bit reservoirs; put the Info frame in front.
 */
export async function spliceClip(bytes: Uint8Array, index: FrameIndex, start: number, samples: number, shape: EdgeShape): Promise<Uint8Array | undefined> {
  const bitrate = DEFAULT_BITRATE_KBPS;
  if (!canSplice(index, bytes, bitrate)) return undefined;
  const end = start + samples;
  const source = framesOf(bytes, index);
  const head = await encodeHead(bytes, index, start, end, shape, bitrate);
  if (!head) return undefined; // clip too short to be worth splicing
  const j = headJunction(source, head.edge, head.candidates);
  if (j < 0) return undefined;
  const tail = await encodeTail(bytes, index, start, end, j, shape, bitrate);
  if (!tail) return undefined;
  const k = tailJunction(source, tail.edge, tail.candidates);
  if (k < 0) return undefined;
  const parts = assemble(source, head.edge, j, tail.edge, k);
  if (!parts) return undefined;
  return withInfoFrame(parts, LAME_ENCODER_DELAY + (start - head.edge.inputStart), samples, bitrate);
}
