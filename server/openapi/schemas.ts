// The data the API exchanges, as JSON Schema 2020-12 (components.schemas). Objects the server
// writes are closed (additionalProperties: false) so a field added without documenting it fails
// the conformance test (test/openapi-conformance.test.ts).
import type { SchemaObject } from './types.ts';
import { ENERGY_LEVELS, INSTRUMENTS, MOODS, PARENT_GENRES } from '../../catalog/vocabulary.ts';
import { MAX_CLIP_SECONDS, MIN_CLIP_SECONDS } from '../../engine/segment.ts';
import { CLIP_MODES } from '../../engine/plan/plan.ts';
import { MAX_QUERY_LENGTH } from '../routes/search-request.ts';
import { errorSchema } from './errors.ts';

const TRACK_ID = { type: 'string', pattern: '^trk_[0-9a-f]{16}$', examples: ['trk_3f9a1c0b7d2e4a68'] } as const;
const seconds = (description: string): SchemaObject => ({ type: 'number', minimum: 0, description });
const count: SchemaObject = { type: 'integer', minimum: 0 };
const strings: SchemaObject = { type: 'array', items: { type: 'string' } };
const nullable = (type: 'string' | 'number' | 'boolean', description: string): SchemaObject => ({ type: [type, 'null'], description });
const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
const BPM = { type: 'number', minimum: 40, maximum: 200 } as const;

function closed(required: string[], properties: Record<string, SchemaObject>, description?: string): SchemaObject {
  return { type: 'object', ...(description ? { description } : {}), required, additionalProperties: false, properties };
}

const track = closed(
  ['id', 'title', 'artist', 'duration_seconds', 'bpm', 'key', 'genre', 'subgenres', 'moods', 'has_vocals', 'energy_level', 'instruments', 'peak_seconds', 'preview_url'],
  {
    id: { ...TRACK_ID, description: 'Use as `track_id` in downloads.' },
    title: { type: 'string' },
    artist: { type: 'string' },
    duration_seconds: seconds('Track length.'),
    bpm: nullable('number', 'Beats per minute.'),
    key: nullable('string', 'Musical key, e.g. "A minor".'),
    genre: nullable('string', 'Parent genre (spec 2.6).'),
    subgenres: strings,
    moods: strings,
    has_vocals: nullable('boolean', 'Whether the track has vocals.'),
    energy_level: { type: ['string', 'null'], enum: [...ENERGY_LEVELS, null] },
    instruments: strings,
    peak_seconds: seconds('Where the dominant energy peak is, the point `hit_point_seconds` aligns.'),
    preview_url: { type: 'string', format: 'uri', description: 'Signed link to a free 30 s preview, valid 24 h.' },
  },
  'A catalog track (spec 2.1) plus `peak_seconds`.',
);

const filters = closed([], {
  genres: { ...strings, minItems: 1, description: `Parent genres, any case: ${PARENT_GENRES.join(', ')}.`, examples: [['Jazz', 'Electronic']] },
  moods: { ...strings, minItems: 1, description: `Moods, any case: ${MOODS.join(', ')}, and the catalog's own values.`, examples: [['Calm']] },
  instruments: { ...strings, minItems: 1, description: `Instruments, any case: ${INSTRUMENTS.join(', ')}, and the catalog's own values.` },
  has_vocals: { type: 'boolean' },
  min_bpm: BPM,
  max_bpm: BPM,
  energy_level: { type: 'string', enum: [...ENERGY_LEVELS] },
}, 'Structured filters (spec 4.1): each optional, combined with AND; a list matches when a track has any of its values.');

const searchRequest = closed(['query'], {
  query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What the music is for, in everyday words.', examples: ['calm piano for a wedding video'] },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  filters: { $ref: '#/components/schemas/SearchFilters' },
  intent: { type: 'boolean', description: 'Intent extraction (paid tiers; on by default there). `true` on a free key is a 403.' },
  facets: { type: 'boolean', default: false, description: 'Add facet counts over every matching track.' },
});

const intent: SchemaObject = {
  type: 'object',
  description: 'What the query was understood as; with intent extraction, the values it states outright and whether they were applied.',
  required: ['matched', 'not_understood', 'related', 'applied'],
  additionalProperties: false,
  properties: {
    matched: { ...strings, description: 'Phrases understood, as typed.' },
    not_understood: { ...strings, description: 'Words neither understood nor meaningless.' },
    related: { type: 'array', items: closed(['word', 'as'], { word: { type: 'string' }, as: { type: 'string' } }), description: 'Words read through a relative or a correction.' },
    applied: { type: 'string', enum: ['filters', 'none'], description: '`filters`: the values the query states outright lifted the tracks that carry them (they exclude none; only the request\'s `filters` exclude); `none`: intent extraction was off or the query stated no value.' },
    genres: strings, moods: strings, instruments: strings, has_vocals: { type: 'boolean' }, min_bpm: BPM, max_bpm: BPM,
    energy_level: { type: 'string', enum: [...ENERGY_LEVELS] },
  },
};

const counts: SchemaObject = { type: 'object', additionalProperties: count };
const facets = closed(['genres', 'moods', 'energy_level', 'instruments', 'has_vocals', 'bpm'], {
  genres: counts, moods: counts, energy_level: counts, instruments: counts, has_vocals: counts, bpm: counts,
}, 'Counts per value over every matching track (not just the page), largest first.');

const searchResponse = closed(['tracks', 'credits_remaining', 'total_count', 'offset', 'limit', 'intent'], {
  tracks: { type: 'array', maxItems: 100, items: { $ref: '#/components/schemas/Track' } },
  credits_remaining: { ...count, description: 'Balance after this request.' },
  total_count: { ...count, description: 'Tracks matching, over all pages.' },
  offset: count,
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  intent: { $ref: '#/components/schemas/Intent' },
  facets: { $ref: '#/components/schemas/Facets' },
}, 'Search response (spec 2.2), relevance order, ties by id.');

const similarTracks = closed(['track_id', 'tracks', 'credits_remaining', 'total_count', 'limit'], {
  track_id: TRACK_ID,
  tracks: { type: 'array', maxItems: 100, items: { $ref: '#/components/schemas/Track' } },
  credits_remaining: count,
  total_count: { ...count, description: 'Tracks compared.' },
  limit: { type: 'integer', minimum: 1, maximum: 100 },
});

const me = closed(['tier', 'credits_remaining', 'monthly_allowance', 'rate_limit', 'created_at', 'last_used_at'], {
  tier: { type: 'string', enum: ['free', 'starter', 'pro'] },
  credits_remaining: count,
  monthly_allowance: { ...count, description: 'Credits the balance is reset to on the 1st (UTC); 0 for the one-time free credits.' },
  rate_limit: closed(['requests_per_minute', 'requests_per_day'], {
    requests_per_minute: { type: 'integer', minimum: 1 },
    requests_per_day: { type: ['integer', 'null'], minimum: 1, description: 'null: no daily limit.' },
  }),
  created_at: dateTime,
  last_used_at: dateTime,
}, 'Account metadata of the calling key (spec 2.5).');

const usageRecord = closed(['timestamp', 'endpoint', 'status_code', 'credits_consumed', 'response_time_ms'], {
  timestamp: dateTime,
  endpoint: { type: 'string', examples: ['/search'] },
  status_code: { type: 'integer', minimum: 100, maximum: 599, description: '499: the client went away before the reply.' },
  credits_consumed: count,
  response_time_ms: { type: 'number', minimum: 0 },
});

const usagePage = closed(['usage', 'total_count', 'offset', 'limit'], {
  usage: { type: 'array', items: { $ref: '#/components/schemas/UsageRecord' }, description: 'Newest first. A page shorter than `limit` is the last.' },
  total_count: count,
  offset: count,
  limit: { type: 'integer', minimum: 1, maximum: 100 },
}, 'Usage page (spec 2.4).');

const downloadRequest = closed(['track_id'], {
  track_id: { type: 'string', minLength: 1, maxLength: 100, examples: ['trk_3f9a1c0b7d2e4a68'] },
  duration_seconds: { type: 'number', minimum: MIN_CLIP_SECONDS, maximum: MAX_CLIP_SECONDS, description: 'Clip length; omitted: the full track.' },
  hit_point_seconds: { type: 'number', minimum: 0, description: 'Where in the clip the dominant peak lands; needs `duration_seconds`, less than it.' },
  mode: { type: 'string', enum: [...CLIP_MODES], default: 'segment', description: '`segment`: one contiguous best window; `edit`: exactly D s of the track\'s own bars with the peak at H; `loop`: D s that loop seamlessly (no hit point). `edit` and `loop` need `duration_seconds`.' },
});

const clipPlan = closed(['track_id', 'mode', 'duration_seconds', 'parts', 'stretch', 'hit_point_seconds', 'peak_in_clip_seconds', 'ending', 'hit_point_landing', 'hit_point_anchor', 'beats', 'downbeats'], {
  track_id: TRACK_ID,
  mode: { type: 'string', enum: [...CLIP_MODES] },
  duration_seconds: seconds('Length of the clip.'),
  parts: {
    type: 'array', minItems: 1, description: 'Stretches of the source in clip order.',
    items: closed(['clip_start', 'source_start', 'length', 'crossfade_ms'], {
      clip_start: seconds('Where the part plays in the clip.'),
      source_start: seconds('Where it comes from in the track.'),
      length: seconds('Its length in the clip (it plays `length / stretch` seconds of the track).'),
      crossfade_ms: { type: 'number', minimum: 0, description: 'Equal-power crossfade with what plays before it.' },
    }),
  },
  stretch: {
    type: 'number', minimum: 0.99, maximum: 1.01,
    description: 'Clip seconds per track second: 1, or a uniform speed change of at most 1% (pitch moves with it, at most 17 cents) that makes a loop a whole number of beats or lets an edit end on a beat.',
  },
  hit_point_seconds: { type: ['number', 'null'] },
  peak_in_clip_seconds: { type: ['number', 'null'], description: 'Where the track\'s `peak_seconds` (`GET /tracks/{id}/analysis`) plays in the clip through the plan (its first time); null when it is not in it.' },
  ending: {
    type: 'string', enum: ['track_end', 'bar_line', 'beat', 'cut'],
    description: '`track_end`: in the decay of the track\'s own ending; `bar_line`: on a bar line; `beat`: on a beat; `cut`: on none (D and H leave a fraction of a beat that neither the clip\'s start nor the track\'s ending can take).',
  },
  hit_point_landing: {
    type: ['string', 'null'], enum: ['sure', 'miss', null],
    description: 'An edit with a hit point: `sure` when the track\'s peak plays within 25 ms of H, `miss` when it does not (see `hit_point_anchor`). null for any other clip.',
  },
  hit_point_anchor: {
    type: ['string', 'null'], enum: ['peak', 'entrance', null],
    description: 'An edit with a hit point: what plays at H. `peak`: the track\'s peak; `entrance`: another section start, where no plan of D seconds can place the peak at H (it lies too near the track\'s start or end). null for any other clip.',
  },
  beats: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'The beats the clip plays, clip seconds (3 decimals): for cutting picture to the music.' },
  downbeats: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'The downbeats (bar lines) the clip plays, clip seconds; each is one of `beats`.' },
}, 'The plan a download with the same body follows.');

const trackAnalysis = closed(['track_id', 'duration_seconds', 'bpm', 'beats', 'bars', 'sections', 'peak_seconds', 'loudness_lufs', 'waveform'], {
  track_id: TRACK_ID,
  duration_seconds: seconds('Track length.'),
  bpm: { type: 'number', exclusiveMinimum: 0 },
  beats: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'Beat times, seconds (3 decimals).' },
  bars: { type: 'array', items: { type: 'number', minimum: 0 }, description: 'Downbeats, seconds.' },
  sections: { type: 'array', minItems: 1, items: closed(['start', 'end'], { start: { type: 'number', minimum: 0 }, end: { type: 'number', minimum: 0 } }), description: 'Cover the whole track, in order.' },
  peak_seconds: seconds('The dominant peak.'),
  loudness_lufs: { type: ['number', 'null'], description: 'Integrated loudness (EBU R128); null for silence.' },
  waveform: closed(['points_per_second', 'peaks'], {
    points_per_second: { type: 'integer', minimum: 1 },
    peaks: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 } },
  }),
});

const health = closed(['status', 'database', 'workers'], {
  status: { type: 'string', enum: ['ok', 'degraded'] },
  database: closed(['status', 'embedded', 'latency_ms'], {
    status: { type: 'string', enum: ['ok', 'unreachable'] }, embedded: { type: 'boolean' }, latency_ms: { type: 'number', minimum: 0 },
  }),
  workers: closed(['status', 'threads', 'queued', 'max_queue', 'completed', 'utilization'], {
    status: { type: 'string', enum: ['ok', 'down'] }, threads: count, queued: count, max_queue: count, completed: count,
    utilization: { type: 'number', minimum: 0, maximum: 1 },
  }),
});

export const schemas: Record<string, SchemaObject> = {
  Error: errorSchema,
  Track: track,
  SearchFilters: filters,
  SearchRequest: searchRequest,
  Intent: intent,
  Facets: facets,
  SearchResponse: searchResponse,
  SimilarTracks: similarTracks,
  Me: me,
  UsageRecord: usageRecord,
  UsagePage: usagePage,
  DownloadRequest: downloadRequest,
  ClipPlan: clipPlan,
  TrackAnalysis: trackAnalysis,
  Health: health,
};
