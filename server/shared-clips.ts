// Rendered clips kept in the bucket every node shares, so that a clip one node made is served by
// the others without rendering it again. An object holds the clip's plan and facts (JSON, its byte
// length first) and then its MP3 bytes, whose length the facts give: an object cut short is
// never served, the clip is made again. The name carries the clip and analysis versions, so a
// clip an older release made is never taken for a new one.
import type { ClipValue } from '../engine/worker.ts';
import type { SharedObjects } from '../catalog/storage/catalog-storage.ts';
import { CLIP_VERSION } from '../engine/clip-version.ts';
import { ANALYSIS_VERSION } from '../engine/analysis/version.ts';

const LENGTH_BYTES = 4;

export interface ClipKeyParts {
  audioSha256: string;
  mode: string;
  durationSeconds: number;
  hitPointSeconds: number | undefined;
}

/** The shared object's name of a clip request. */
export function sharedClipName({ audioSha256, mode, durationSeconds, hitPointSeconds }: ClipKeyParts): string {
  return `v${CLIP_VERSION}.${ANALYSIS_VERSION}/${audioSha256}/${mode}-${durationSeconds}-${hitPointSeconds ?? 'none'}.clip`;
}

export function encodeSharedClip(clip: ClipValue): Uint8Array {
  const facts = new TextEncoder().encode(JSON.stringify({ plan: clip.plan, samples: clip.samples, method: clip.method, mp3Bytes: clip.mp3.byteLength }));
  const bytes = new Uint8Array(LENGTH_BYTES + facts.byteLength + clip.mp3.byteLength);
  new DataView(bytes.buffer).setUint32(0, facts.byteLength);
  bytes.set(facts, LENGTH_BYTES);
  bytes.set(clip.mp3, LENGTH_BYTES + facts.byteLength);
  return bytes;
}

/** The clip an object holds; undefined when the bytes are not one (cut short, or another format). */
export function decodeSharedClip(bytes: Uint8Array): ClipValue | undefined {
  if (bytes.byteLength < LENGTH_BYTES) return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  if (LENGTH_BYTES + length > bytes.byteLength) return undefined;
  try {
    const facts = JSON.parse(new TextDecoder().decode(bytes.subarray(LENGTH_BYTES, LENGTH_BYTES + length)));
    const mp3 = bytes.slice(LENGTH_BYTES + length);
    if (!facts?.plan || typeof facts.samples !== 'number' || mp3.byteLength === 0 || facts.mp3Bytes !== mp3.byteLength) return undefined;
    return { mp3, plan: facts.plan, samples: facts.samples, method: facts.method };
  } catch {
    return undefined;
  }
}

/** The clip another node shared for this request, or undefined (none, unreadable, or the store away: then it is made here). */
export async function findSharedClip(shared: SharedObjects, name: string, log: (message: string, err?: unknown) => void): Promise<ClipValue | undefined> {
  try {
    const bytes = await shared.get(name);
    return bytes && decodeSharedClip(bytes);
  } catch (err) {
    log(`shared clip ${name}: not read; making it here`, err);
    return undefined;
  }
}
