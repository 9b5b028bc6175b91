// GET /tracks/{id}/analysis: what the audio engine measured of a track.
import type { PathItemObject } from '../types.ts';
import { EXAMPLE_TRACK_ID } from './examples.ts';
import { keyedJson, keyedOperation, trackIdPath } from './operation.ts';

export const trackPaths: Record<string, PathItemObject> = {
  '/tracks/{id}/analysis': {
    get: keyedOperation({
      operationId: 'trackAnalysis',
      summary: 'Tempo, beats, bars, sections, the climax, loudness and waveform of a track',
      description: 'Times in seconds to 3 decimals. `sections` cover the whole track; `peak_seconds` is the point `hit_point_seconds` aligns; '
        + '`loudness_lufs` is EBU R128 integrated loudness (null for silence); `waveform.peaks` are 0-1 per 1/20 s, for drawing. '
        + 'An unknown, removed or malformed id is a 404; any query parameter is a 400.',
      tag: 'Tracks',
      cost: 0,
      parameters: [trackIdPath],
      success: {
        200: keyedJson('The analysis.', 'TrackAnalysis', {
          track_id: EXAMPLE_TRACK_ID, duration_seconds: 152.4, bpm: 96, beats: [0.312, 0.937, 1.562], bars: [0.312, 2.812],
          sections: [{ start: 0, end: 20.312 }, { start: 20.312, end: 152.4 }], peak_seconds: 98.75, loudness_lufs: -14.2,
          waveform: { points_per_second: 20, peaks: [0.012, 0.431, 0.87] },
        }),
      },
      errors: ['invalid_parameters', 'not_found'],
    }),
  },
};
