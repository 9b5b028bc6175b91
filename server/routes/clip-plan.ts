// POST /clip-plan: the plan a /download-track body would follow (parts, peak, ending, the beats and
// downbeats in clip time), free. The engine works it out from the stored analysis alone; identical
// requests are answered from memory (a plan, like a clip, is deterministic for the track's audio).
//
// A plan only reads, so it is an `answer` (Endpoint.answer, as search is): for a key this process
// admitted moments ago it is worked out while the key's admission is counted in PostgreSQL, not
// after it, and a request whose admission needs that round trip waits for the longer of the two.
import { LRUCache } from 'lru-cache';
import type { Endpoint } from '../http/endpoint.ts';
import { jsonTextReply } from '../http/reply.ts';
import type { TrackLookup } from '../tracks.ts';
import type { EnginePool } from '../../engine/pool.ts';
import { planJson } from '../../engine/plan/plan.ts';
import { clipKey } from '../clip-cache.ts';
import { engineFailure, prepareDownload, type DownloadRequest } from './download-track.ts';

const MAX_PLANS = 10_000;

/** A prepared download body, the duration its plan fills (no duration: the whole track), and the plan's key. */
interface PlanRequest {
  request: DownloadRequest;
  durationSeconds: number;
  key: string;
}

export function clipPlanEndpoint(deps: { tracks: TrackLookup; engine: EnginePool }): Endpoint {
  const plans = new LRUCache<string, string>({ max: MAX_PLANS });
  return {
    name: '/clip-plan',
    cost: 0,
    jsonBody: true,
    async prepare({ body }): Promise<PlanRequest> {
      const request = await prepareDownload(deps.tracks, body);
      const { track, mode, hitPointSeconds } = request;
      const durationSeconds = request.durationSeconds ?? track.duration_seconds;
      return { request, durationSeconds, key: clipKey(track.audio_sha256, mode, durationSeconds, hitPointSeconds) };
    },
    ready({ prepared }) {
      const body = plans.get((prepared as PlanRequest).key);
      return body === undefined ? undefined : jsonTextReply(body);
    },
    async answer({ prepared }) {
      const { request, durationSeconds, key } = prepared as PlanRequest;
      const { track, mode, hitPointSeconds } = request;
      let body: string;
      try {
        const { plan } = await deps.engine.plan({ analysis: await deps.tracks.analysis(track), analysisKey: track.audio_sha256, mode, durationSeconds, hitPointSeconds });
        body = JSON.stringify({ track_id: track.id, ...planJson(plan) });
      } catch (err) {
        throw engineFailure(err);
      }
      plans.set(key, body);
      return () => jsonTextReply(body);
    },
  };
}
