// POST /download-track and POST /clip-plan: the audio, and the plan it is cut by.
import type { PathItemObject, ResponseObject } from '../types.ts';
import { idempotencyKeyParameter, LIMIT_HEADERS, responseHeaders } from '../headers.ts';
import { EXAMPLE_TRACK_ID } from './examples.ts';
import { jsonBody, keyedJson, keyedOperation } from './operation.ts';

const downloadExamples = {
  full: { summary: 'The full track', value: { track_id: EXAMPLE_TRACK_ID } },
  clip: { summary: 'A 30 s clip with the peak at 22.5 s', value: { track_id: EXAMPLE_TRACK_ID, duration_seconds: 30, hit_point_seconds: 22.5 } },
  edit: { summary: 'An edit: exactly 30 s of bars, the peak at 20 s', value: { track_id: EXAMPLE_TRACK_ID, duration_seconds: 30, hit_point_seconds: 20, mode: 'edit' } },
  loop: { summary: 'A 16 s seamless loop', value: { track_id: EXAMPLE_TRACK_ID, duration_seconds: 16, mode: 'loop' } },
};

const audio: ResponseObject = {
  description: 'The MP3 (44.1 kHz stereo, CBR 128 kbps for clips, with a gapless LAME tag), no JSON wrapper. Every download grants a perpetual '
    + 'sync license (spec 1): `X-License-Id` names it. A clip carries `X-Clip-Start`, `X-Clip-Plan`, when the peak is in it `X-Hit-Point`, and for an edit with a hit point `X-Hit-Point-Landing`.',
  headers: responseHeaders(
    ['X-Request-Id', ...LIMIT_HEADERS, 'Content-Length', 'Content-Disposition', 'X-Track-Id', 'X-Track-Duration', 'X-License-Id'],
    ['X-Clip-Start', 'X-Hit-Point', 'X-Hit-Point-Landing', 'X-Clip-Plan', 'Idempotent-Replayed'],
  ),
  content: { 'audio/mpeg': { schema: { type: 'string', contentMediaType: 'audio/mpeg' } } },
};

export const downloadPaths: Record<string, PathItemObject> = {
  '/download-track': {
    post: keyedOperation({
      operationId: 'downloadTrack',
      summary: 'Download a track in full, or a clip cut on musical boundaries',
      description: 'Without `duration_seconds`: the full track as an MP3, streamed (an MP3 master byte for byte as delivered, a WAV or FLAC master as its 320 kbps MP3). With it: a clip of that length (`mode` `segment`, `edit` or `loop`). '
        + 'Validation (400), an unknown or removed track (404) and a duration longer than the track (400 with `feasible_range`) cost nothing; '
        + 'a hit point the peak cannot reach is a 400 with `feasible_range`. A full audio engine is a 503 with `Retry-After: 1`. '
        + 'Send an `Idempotency-Key` to retry safely: a replay makes the same bytes again, uncharged.',
      tag: 'Audio',
      cost: 1,
      parameters: [idempotencyKeyParameter],
      requestBody: jsonBody('DownloadRequest', downloadExamples),
      success: { 200: audio },
      errors: ['invalid_parameters', 'insufficient_credits', 'not_found', 'idempotency_key_in_flight', 'payload_too_large', 'idempotency_key_reused'],
    }),
  },
  '/clip-plan': {
    post: keyedOperation({
      operationId: 'clipPlan',
      summary: 'The plan a download with this body would follow',
      description: 'Takes the `/download-track` body and returns its plan without making audio: the parts in clip order, where the peak lands, '
        + 'how the clip ends. Without `duration_seconds`, the plan of the whole track. The same errors as a download, none charged.',
      tag: 'Audio',
      cost: 0,
      requestBody: jsonBody('DownloadRequest', downloadExamples),
      success: {
        200: keyedJson('The plan.', 'ClipPlan', {
          track_id: EXAMPLE_TRACK_ID, mode: 'edit', duration_seconds: 30,
          parts: [
            { clip_start: 0, source_start: 62.5, length: 12.5, crossfade_ms: 0 },
            { clip_start: 12.5, source_start: 91.25, length: 17.5, crossfade_ms: 20 },
          ],
          stretch: 1,
          hit_point_seconds: 20, peak_in_clip_seconds: 20, ending: 'track_end', hit_point_landing: 'sure', hit_point_anchor: 'peak',
          beats: [0, 0.5, 1, 1.5, 2], downbeats: [0, 2],
        }),
      },
      errors: ['invalid_parameters', 'not_found', 'payload_too_large'],
    }),
  },
};
