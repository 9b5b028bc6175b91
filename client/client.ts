// The typed client of the Music Licensing API: one method per endpoint, types generated from the
// OpenAPI document (api-types.ts), section 7's retry rules (retry.ts) on every call, and an
// Idempotency-Key on each paid call so that its retries are never charged twice.
//
//   const api = createClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.MLA_API_KEY! });
//   const { tracks } = await api.search({ query: 'calm piano for a wedding video' });
//   const clip = await api.downloadTrack({ track_id: tracks[0].id, duration_seconds: 30, hit_point_seconds: 20 });
//   await pipeline(Readable.fromWeb(clip.body), fs.createWriteStream('clip.mp3'));
import type { components } from './api-types.ts';
import { errorOf } from './errors.ts';
import { pagesOf } from './pages.ts';
import { DEFAULT_RETRY_POLICY, sendWithRetries, type RetryPolicy } from './retry.ts';

export type Schemas = components['schemas'];
export { ApiRequestError } from './errors.ts';
export type { RetryPolicy } from './retry.ts';

const API_BASE = '/api/external/v1';
const DEFAULT_PAGE = 50;

export interface ClientOptions {
  /** The server's origin, e.g. "https://api.example.com". */
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** A fetch of your own (a proxy agent, instrumentation); globalThis.fetch by default. */
  fetch?: typeof fetch;
}

export interface PaidCallOptions {
  /** Sent as Idempotency-Key; a new UUID per call when omitted (retries reuse it). */
  idempotencyKey?: string;
}

/** A download: the MP3 as a stream, and what its headers say. */
export interface Download {
  body: ReadableStream<Uint8Array>;
  trackId: string;
  /** Seconds of audio returned (the clip's, for a clip). */
  durationSeconds: number;
  licenseId: string | null;
  /** [clip_start, source_start, length] in seconds, per part; null for a full track. */
  clipPlan: [number, number, number][] | null;
  clipStartSeconds: number | null;
  hitPointSeconds: number | null;
  /** An edit with a hit point: 'sure' when the track's peak plays within 25 ms of H, else 'miss'; null for any other download. */
  hitPointLanding: Schemas['ClipPlan']['hit_point_landing'];
  creditsRemaining: number;
  replayed: boolean;
  headers: Headers;
}

type Page = { limit?: number; offset?: number };

function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value);
}

export function createClient(options: ClientOptions) {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const doFetch = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/$/, '') + API_BASE;

  /** One call with its retries; a reply that is not a success is thrown as an ApiRequestError. */
  async function request(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    const response = await sendWithRetries(() => doFetch(base + path, init), policy);
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  const getJson = async <T>(path: string): Promise<T> => (await request('GET', path)).json() as Promise<T>;
  const paid = (call: PaidCallOptions = {}) => ({ 'idempotency-key': call.idempotencyKey ?? crypto.randomUUID() });
  const pageQuery = ({ limit, offset }: Page) => {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (offset !== undefined) query.set('offset', String(offset));
    return query.size ? `?${query}` : '';
  };

  const client = {
    me: () => getJson<Schemas['Me']>('/me'),
    usage: (page: Page = {}) => getJson<Schemas['UsagePage']>(`/usage${pageQuery(page)}`),
    /** Every page of the usage history, newest first, until the short last page (spec 4.4). */
    usagePages: (limit = DEFAULT_PAGE, offset = 0) => pagesOf((l, o) => client.usage({ limit: l, offset: o }), (p) => p.usage.length, limit, offset),
    async search(body: Schemas['SearchRequest'], call?: PaidCallOptions): Promise<Schemas['SearchResponse']> {
      return (await request('POST', '/search', body, paid(call))).json();
    },
    async similarTracks(trackId: string, limit?: number, call?: PaidCallOptions): Promise<Schemas['SimilarTracks']> {
      const path = `/tracks/${encodeURIComponent(trackId)}/similar${limit === undefined ? '' : `?limit=${limit}`}`;
      return (await request('GET', path, undefined, paid(call))).json();
    },
    trackAnalysis: (trackId: string) => getJson<Schemas['TrackAnalysis']>(`/tracks/${encodeURIComponent(trackId)}/analysis`),
    async clipPlan(body: Schemas['DownloadRequest']): Promise<Schemas['ClipPlan']> {
      return (await request('POST', '/clip-plan', body)).json();
    },
    /** The MP3 streams: read `body` (it is not buffered). */
    async downloadTrack(body: Schemas['DownloadRequest'], call?: PaidCallOptions): Promise<Download> {
      const response = await request('POST', '/download-track', body, paid(call));
      const h = response.headers;
      const plan = h.get('x-clip-plan');
      return {
        body: response.body!,
        trackId: h.get('x-track-id')!,
        durationSeconds: Number(h.get('x-track-duration')),
        licenseId: h.get('x-license-id'),
        clipPlan: plan === null ? null : JSON.parse(plan),
        clipStartSeconds: numberOrNull(h.get('x-clip-start')),
        hitPointSeconds: numberOrNull(h.get('x-hit-point')),
        hitPointLanding: h.get('x-hit-point-landing') as Download['hitPointLanding'],
        creditsRemaining: Number(h.get('x-credits-remaining')),
        replayed: h.get('idempotent-replayed') === 'true',
        headers: h,
      };
    },
    licenses: (page: Page = {}) => getJson<Schemas['LicensePage']>(`/licenses${pageQuery(page)}`),
    /** Every page of the key's licenses, newest first, until the short last page. */
    licensePages: (limit = DEFAULT_PAGE, offset = 0) => pagesOf((l, o) => client.licenses({ limit: l, offset: o }), (p) => p.licenses.length, limit, offset),
    /** A license's signed certificate: keep it; verify it with /.well-known/music-license-key. */
    license: (licenseId: string) => getJson<Schemas['SignedCertificate']>(`/licenses/${encodeURIComponent(licenseId)}`),
  };
  return client;
}

export type MusicLicensingClient = ReturnType<typeof createClient>;
