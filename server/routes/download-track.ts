// POST /download-track (spec 4.2): the full track streamed from the store, or a clip made by the
// engine's pool (cached). 1 credit, committed with the license the download grants.
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError, invalidParameters } from '../http/api-error.ts';
import { describeValue, quoted } from '../http/value-preview.ts';
import type { Reply } from '../http/reply.ts';
import type { TrackLookup, TrackRow } from '../tracks.ts';
import type { ClipCache } from '../clip-cache.ts';
import type { EnginePool } from '../../engine/pool.ts';
import type { ClipValue } from '../../engine/worker.ts';
import { isEngineError } from '../../engine/errors.ts';
import { MAX_CLIP_SECONDS, MIN_CLIP_SECONDS } from '../../engine/segment.ts';
import { CLIP_MODES, PLAN_SAMPLE_RATE, planHeader, type ClipMode } from '../../engine/plan/plan.ts';
import type { CatalogStorage } from '../../catalog/storage/catalog-storage.ts';
import { clipMasterPath, openFullDownload } from '../../catalog/track-files.ts';

const FIELDS = ['track_id', 'duration_seconds', 'hit_point_seconds', 'mode'];

export interface ValidDownload {
  trackId: string;
  mode: ClipMode;
  durationSeconds?: number;
  hitPointSeconds?: number;
}

export interface DownloadRequest {
  track: TrackRow;
  mode: ClipMode;
  durationSeconds?: number;
  hitPointSeconds?: number;
}

function numberField(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidParameters(`${name} must be a number, got ${describeValue(value)}`);
  return value;
}

function modeField(body: Record<string, unknown>): ClipMode {
  const mode = body.mode === undefined ? 'segment' : body.mode; // null is no mode, as null is no duration
  if (typeof mode !== 'string' || !(CLIP_MODES as readonly string[]).includes(mode)) {
    throw invalidParameters(`mode must be one of ${CLIP_MODES.join(', ')}, got ${describeValue(mode)}`);
  }
  return mode as ClipMode;
}

export function validateDownload(body: Record<string, unknown> | undefined): ValidDownload {
  if (!body) throw invalidParameters('request body must be a JSON object with track_id');
  for (const field of Object.keys(body)) if (!FIELDS.includes(field)) throw invalidParameters(`unknown field ${quoted(field)}; allowed: ${FIELDS.join(', ')}`);
  const trackId = body.track_id;
  if (trackId === undefined) throw invalidParameters('track_id is required');
  if (typeof trackId !== 'string' || trackId.length === 0 || trackId.length > 100) throw invalidParameters('track_id must be a non-empty string (an id from search results)');
  const durationSeconds = numberField(body, 'duration_seconds');
  const hitPointSeconds = numberField(body, 'hit_point_seconds');
  if (durationSeconds !== undefined && (durationSeconds < MIN_CLIP_SECONDS || durationSeconds > MAX_CLIP_SECONDS)) {
    throw invalidParameters(`duration_seconds must be from ${MIN_CLIP_SECONDS} to ${MAX_CLIP_SECONDS}, got ${durationSeconds}`);
  }
  if (hitPointSeconds !== undefined) {
    if (durationSeconds === undefined) throw invalidParameters('hit_point_seconds requires duration_seconds');
    if (hitPointSeconds < 0) throw invalidParameters(`hit_point_seconds must be 0 or more, got ${hitPointSeconds}`);
    if (hitPointSeconds >= durationSeconds) throw invalidParameters(`hit_point_seconds must be less than duration_seconds (${durationSeconds}), got ${hitPointSeconds}`);
  }
  const mode = modeField(body);
  if (mode !== 'segment' && durationSeconds === undefined) throw invalidParameters(`mode "${mode}" requires duration_seconds (the clip's exact length)`);
  if (mode === 'loop' && hitPointSeconds !== undefined) throw invalidParameters('hit_point_seconds cannot be used with mode "loop": a loop has no start for the peak to be timed from');
  return { trackId, mode, durationSeconds, hitPointSeconds };
}

/** The download body validated and its track looked up: shared by /download-track and /clip-plan. */
export async function prepareDownload(tracks: TrackLookup, body: Record<string, unknown> | undefined): Promise<DownloadRequest> {
  const request = validateDownload(body);
  const track = await tracks.find(request.trackId);
  if (!track) throw new ApiError(404, 'not_found', `no track ${quoted(request.trackId)} in the catalog`);
  if (request.durationSeconds !== undefined && request.durationSeconds > track.duration_seconds) {
    const max = Math.floor(track.duration_seconds * 1000) / 1000;
    throw new ApiError(400, 'invalid_parameters', `duration_seconds ${request.durationSeconds} is longer than the track (${max} s); choose ${MIN_CLIP_SECONDS} to ${max}`, {
      body: { feasible_range: { min: MIN_CLIP_SECONDS, max } },
    });
  }
  return { track, mode: request.mode, durationSeconds: request.durationSeconds, hitPointSeconds: request.hitPointSeconds };
}

/** Content-Disposition with an ASCII fallback and the exact title in RFC 5987 filename*. */
export function contentDisposition(title: string): string {
  const ascii = title.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\/:*?<>|;]+/g, '_').trim().slice(0, 100) || 'track';
  const encoded = encodeURIComponent(`${title}.mp3`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}.mp3"; filename*=UTF-8''${encoded}`;
}

export function downloadTrackEndpoint(deps: { tracks: TrackLookup; engine: EnginePool; clips: ClipCache; storage: CatalogStorage }): Endpoint {
  return {
    name: '/download-track',
    cost: 1,
    jsonBody: true,
    idempotency: 'remade',
    prepare: ({ body }) => prepareDownload(deps.tracks, body),
    ready({ prepared }) {
      const { track, mode, durationSeconds, hitPointSeconds } = prepared as DownloadRequest;
      if (durationSeconds === undefined) return undefined;
      const clip = deps.clips.peek({ audioSha256: track.audio_sha256, mode, durationSeconds, hitPointSeconds });
      return clip && clipReply(track, durationSeconds, hitPointSeconds, clip);
    },
    async handle({ prepared }): Promise<Reply> {
      const { track, mode, durationSeconds, hitPointSeconds } = prepared as DownloadRequest;
      if (durationSeconds === undefined) {
        // An MP3 original byte for byte; a WAV or FLAC original's 320 kbps MP3.
        return {
          status: 200,
          headers: { ...commonHeaders(track), 'X-Track-Duration': String(Math.round(track.duration_seconds)) },
          body: '',
          file: await openFullDownload(deps.storage, track),
          license: { trackId: track.id, durationSeconds: null, hitPointSeconds: null, clipStartSeconds: null },
        };
      }
      const key = { audioSha256: track.audio_sha256, mode, durationSeconds, hitPointSeconds };
      const analysis = await deps.tracks.analysis(track);
      let clip;
      try {
        clip = await deps.clips.get(key, async () => deps.engine.clip({ path: await clipMasterPath(deps.storage, track), analysis, analysisKey: track.audio_sha256, mode, durationSeconds, hitPointSeconds }));
      } catch (err) {
        throw engineFailure(err);
      }
      return clipReply(track, durationSeconds, hitPointSeconds, clip);
    },
  };
}

// The reply of each cached clip, made once: its headers cost more than the rest of a cache hit.
// Kept with the track id and title it was made for (tracks with the same audio share a clip).
const clipReplies = new WeakMap<ClipValue, { trackId: string; title: string; reply: Reply }>();

function clipReply(track: TrackRow, durationSeconds: number, hitPointSeconds: number | undefined, clip: ClipValue): Reply {
  const made = clipReplies.get(clip);
  if (made && made.trackId === track.id && made.title === track.title) return made.reply;
  const headers = commonHeaders(track);
  headers['X-Track-Duration'] = String(Math.round(clip.samples / 44100));
  const clipStartSeconds = clip.plan.parts[0].sourceStart / PLAN_SAMPLE_RATE;
  headers['X-Clip-Start'] = clipStartSeconds.toFixed(3);
  if (clip.plan.peakInClipSeconds !== null) headers['X-Hit-Point'] = clip.plan.peakInClipSeconds.toFixed(3);
  if (clip.plan.hitPointLanding !== null) headers['X-Hit-Point-Landing'] = clip.plan.hitPointLanding;
  headers['X-Clip-Plan'] = planHeader(clip.plan);
  const reply: Reply = {
    status: 200,
    headers,
    body: clip.mp3,
    license: { trackId: track.id, durationSeconds, hitPointSeconds: hitPointSeconds ?? null, clipStartSeconds },
  };
  clipReplies.set(clip, { trackId: track.id, title: track.title, reply });
  return reply;
}

function commonHeaders(track: TrackRow): Record<string, string> {
  return { 'Content-Type': 'audio/mpeg', 'Content-Disposition': contentDisposition(track.title), 'X-Track-Id': track.id };
}

export function engineFailure(err: unknown): unknown {
  if (!isEngineError(err)) return err;
  if (err.code === 'busy') return new ApiError(503, 'service_unavailable', 'the audio engine is at capacity; retry shortly', { headers: { 'Retry-After': '1' }, body: { retry_after: 1 } });
  if (err.code === 'duration_unavailable' || err.code === 'hit_point_unreachable') {
    return new ApiError(400, 'invalid_parameters', err.message, { body: { feasible_range: { min: err.details.min, max: err.details.max } } });
  }
  return err;
}
