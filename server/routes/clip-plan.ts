// POST /clip-plan: the plan a /download-track body would follow (parts, peak, ending), free. The
// engine works it out from the stored analysis without touching audio; identical requests are
// answered from memory (a plan, like a clip, is deterministic for the track's audio).
import { LRUCache } from 'lru-cache';
import type { Endpoint } from '../http/endpoint.ts';
import { jsonTextReply } from '../http/reply.ts';
import type { TrackLookup } from '../tracks.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { planJson } from '../../engine/plan/plan.ts';
import { clipKey } from '../clip-cache.ts';
import { engineFailure, prepareDownload, type DownloadRequest } from './download-track.ts';

const MAX_PLANS = 10_000;

export function clipPlanEndpoint(deps: { tracks: TrackLookup; engine: EnginePool }): Endpoint {
  const plans = new LRUCache<string, string>({ max: MAX_PLANS });
  return {
    name: '/clip-plan',
    cost: 0,
    jsonBody: true,
    prepare: ({ body }) => prepareDownload(deps.tracks, body),
    async handle({ prepared }) {
      const { track, mode, durationSeconds, hitPointSeconds } = prepared as DownloadRequest;
      const duration = durationSeconds ?? track.duration_seconds; // no duration: the whole track
      const key = clipKey(track.audio_sha256, mode, duration, hitPointSeconds);
      let body = plans.get(key);
      if (!body) {
        try {
          const plan = await deps.engine.plan({ analysis: await deps.tracks.analysis(track), analysisKey: track.audio_sha256, mode, durationSeconds: duration, hitPointSeconds });
          body = JSON.stringify({ track_id: track.id, ...planJson(plan) });
        } catch (err) {
          throw engineFailure(err);
        }
        plans.set(key, body);
      }
      return jsonTextReply(body);
    },
  };
}
