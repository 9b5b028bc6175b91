// GET /tracks/{id}/analysis: what the engine knows of a track's audio (tempo, beats, bars,
// sections, the climax, integrated loudness, waveform peaks for drawing). Free; an unknown or
// removed track is a 404.
import { LRUCache } from 'lru-cache';
import type { Endpoint } from '../http/endpoint.ts';
import { ApiError } from '../http/api-error.ts';
import { jsonTextReply } from '../http/reply.ts';
import { rejectQueryParameters } from '../http/query.ts';
import type { TrackLookup, TrackRow } from '../tracks.ts';
import { deserialiseAnalysis } from '../../engine/analysis/serialise.ts';
import type { Analysis } from '../../engine/analysis/analyse.ts';
import { WAVEFORM_POINTS_PER_SECOND } from '../../engine/analysis/waveform.ts';
import { quoted } from '../http/value-preview.ts';

/** Replies are ~30 KB for a 4-minute track (its waveform): 16 MB keeps ~500 tracks. */
const REPLY_CACHE_BYTES = 16 * 1024 * 1024;

/** Seconds (and waveform peaks) to 3 decimals: a millisecond, finer than any beat grid needs. */
function milli(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** [0, section starts..., the end]: the first section takes in whatever precedes the first boundary. */
function sections(analysis: Analysis, durationSeconds: number): { start: number; end: number }[] {
  const end = milli(durationSeconds);
  const bounds = [0];
  for (const start of Array.from(analysis.sectionTimesSeconds, milli)) {
    if (start > bounds[bounds.length - 1] && start < end) bounds.push(start);
  }
  bounds.push(end);
  return bounds.slice(1).map((end, i) => ({ start: bounds[i], end }));
}

/**
 * The reply's JSON after `"track_id":...,` (it is made once per audio; the id is put in front per
 * request, as tracks may share audio).
 */
function analysisJson(analysis: Analysis, track: TrackRow): string {
  return JSON.stringify({
    duration_seconds: milli(track.duration_seconds),
    bpm: analysis.tempoBpm,
    beats: Array.from(analysis.beatTimesSeconds, milli),
    bars: Array.from(analysis.barTimesSeconds, milli),
    sections: sections(analysis, track.duration_seconds),
    peak_seconds: milli(analysis.peakSeconds),
    loudness_lufs: analysis.loudnessLufs,
    waveform: { points_per_second: WAVEFORM_POINTS_PER_SECOND, peaks: Array.from(analysis.waveformPeaks, milli) },
  }).slice(1);
}

export function trackAnalysisEndpoint(deps: { tracks: TrackLookup }): Endpoint {
  // By audio hash: an analysis is immutable per audio, so a repeat is a lookup and a concatenation.
  const replies = new LRUCache<string, string>({ maxSize: REPLY_CACHE_BYTES, sizeCalculation: (json) => json.length });
  return {
    name: '/tracks/{id}/analysis',
    cost: 0,
    jsonBody: false,
    paramCount: 1,
    async handle({ params, query }) {
      rejectQueryParameters(query, []);
      const id = params[0];
      const track = await deps.tracks.find(id);
      if (!track) throw new ApiError(404, 'not_found', `no track ${quoted(id)} in the catalog`);
      let json = replies.get(track.audio_sha256);
      if (json === undefined) {
        // A view over the stored bytes, on this thread: no copy of the arrays, no worker round trip.
        json = analysisJson(deserialiseAnalysis(await deps.tracks.analysis(track)), track);
        replies.set(track.audio_sha256, json);
      }
      return jsonTextReply(`{"track_id":${JSON.stringify(track.id)},${json}`);
    },
  };
}
