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
 * The clip [start, start + samples) of the track (playable samples) as a gapless MP3, or
 * undefined when the source or the clip does not allow a splice (the caller re-encodes).
 * `shape` applies the de-click ramps to the edge PCM: (channel, clipOffsetOfFirstSample, clipSamples).
 */
export async function spliceClip(
  bytes: Uint8Array,
  index: FrameIndex,
  start: number,
  samples: number,
  shape: (channel: Float32Array, clipOffset: number) => void,
): Promise<Uint8Array | undefined> {
  const bitrate = DEFAULT_BITRATE_KBPS;
  if (!canSplice(index, bytes, bitrate)) return undefined;
  const skip = index.startSkip;
  const end = start + samples;
  const source = framesOf(bytes, index);
  const total = index.offsets.length;

  // Head: input from p0 so that head raw 0 sits on the source grid: head frame m = source frame m + c.
  const p0 = start - mod(start - STREAM_DELAY + skip, FRAME);
  const c = (p0 - STREAM_DELAY + skip) / FRAME;
  const firstJ = Math.ceil((start + skip + MIN_EDGE_SAMPLES) / FRAME);
  const lastJ = firstJ + CANDIDATES;
  const headEnd = (lastJ + 2) * FRAME - skip;
  if (headEnd >= end - MIN_EDGE_SAMPLES) return undefined; // clip too short to be worth splicing
  const head = await decodeTrack(bytes, index, p0, headEnd);
  for (const channel of head) {
    channel.fill(0, 0, start - p0); // before the clip: silence (skipped by the encoder delay)
    shape(channel.subarray(start - p0), 0);
  }
  const headFrames = framesOf(await defaultEncoder.encode(head[0], head[1], bitrate));

  let junctionJ = -1;
  for (let j = firstJ; j <= lastJ && j < total; j++) {
    const kept = j - c;
    if (kept < 1 || kept > headFrames.index.offsets.length) continue;
    const sourceOk = source.side(j).longBlocks[0] && source.side(j - 1).longBlocks[1];
    const headOk = headFrames.side(kept - 1).longBlocks[1];
    if (sourceOk && headOk) {
      junctionJ = j;
      break;
    }
  }
  if (junctionJ < 0) return undefined;

  // Tail: input from q0 so that tail frame m = source frame m + d; candidates K counted down from the end.
  const lastK = Math.floor((end + skip - MIN_EDGE_SAMPLES) / FRAME);
  const firstK = Math.max(junctionJ + MIN_COPIED_FRAMES, lastK - CANDIDATES);
  const d = firstK - TAIL_PREROLL_FRAMES;
  const q0 = d * FRAME + STREAM_DELAY - skip;
  if (q0 <= start || lastK < firstK) return undefined;
  const tail = await decodeTrack(bytes, index, q0, end);
  for (const channel of tail) shape(channel, q0 - start);
  const tailFrames = framesOf(await defaultEncoder.encode(tail[0], tail[1], bitrate));

  let junctionK = -1;
  for (let k = lastK; k >= firstK; k--) {
    const p = k - d;
    if (p < 1 || p >= tailFrames.index.offsets.length || k >= total) continue;
    const sourceOk = source.side(k - 1).longBlocks[1];
    const tailOk = tailFrames.side(p).longBlocks[0] && tailFrames.side(p - 1).longBlocks[1];
    if (sourceOk && tailOk) {
      junctionK = k;
      break;
    }
  }
  if (junctionK < 0) return undefined;

  const keptHead = junctionJ - c;
  const keptTailFrom = junctionK - d;
  const parts: Uint8Array[] = [];
  const dataOffsets: number[] = [];
  const push = (f: Frames, i: number) => {
    parts.push(frameBytes(f, i).slice());
    dataOffsets.push(f.dataStart(i) - f.index.offsets[i]);
  };
  /** Before a junction: make room at the end of the data stream so far, then write the reservoir there. */
  const carryReservoir = (free: number, reservoir: Uint8Array) => {
    const last = parts.length - 1;
    if (free < reservoir.length) {
      const enlarged = enlargeFrame(parts[last], reservoir.length - free);
      if (!enlarged) return false;
      parts[last] = enlarged;
    }
    writeReservoir(parts, dataOffsets, reservoir);
    return true;
  };
  for (let i = 0; i < keptHead; i++) push(headFrames, i);
  if (!carryReservoir(freeTail(headFrames, keptHead), reservoirBefore(source, junctionJ, source.side(junctionJ).mainDataBegin))) return undefined;
  for (let i = junctionJ; i < junctionK; i++) push(source, i);
  if (!carryReservoir(freeTail(source, junctionK), reservoirBefore(tailFrames, keptTailFrom, tailFrames.side(keptTailFrom).mainDataBegin))) return undefined;
  for (let i = keptTailFrom; i < tailFrames.index.offsets.length; i++) push(tailFrames, i);

  const encoderDelay = LAME_ENCODER_DELAY + (start - p0);
  const padding = parts.length * FRAME - encoderDelay - samples;
  if (padding < DECODER_DELAY || padding > 4095) return undefined;
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
