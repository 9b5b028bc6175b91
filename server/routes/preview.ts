// GET /previews/{track_id}.mp3?exp=..&sig=..: the 30 s preview, free and keyless, behind an
// expiring signature. Previews are small and immutable: served from memory (LRU by bytes).
import fs from 'node:fs';
import type { HttpRequest } from 'uWebSockets.js';
import { LRUCache } from 'lru-cache';
import { ApiError } from '../http/api-error.ts';
import type { Reply } from '../http/reply.ts';
import type { TrackLookup } from '../tracks.ts';
import { TRACK_ID } from '../../catalog/store.ts';
import type { CatalogStorage } from '../../catalog/storage/catalog-storage.ts';
import { checkPreviewSignature, parseRange } from '../previews.ts';
import { quoted } from '../http/value-preview.ts';
import { pathParameter } from '../http/path-parameter.ts';

export function previewHandler(deps: { tracks: TrackLookup; storage: CatalogStorage; secret: string }) {
  const files = new LRUCache<string, Buffer>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (b) => b.length });
  return async (req: HttpRequest): Promise<Reply> => {
    // Read everything from req before the first await.
    const file = pathParameter(req, 0);
    const query = new URLSearchParams(req.getQuery() ?? '');
    const range = req.getHeader('range');
    const ifNoneMatch = req.getHeader('if-none-match');

    const trackId = file.endsWith('.mp3') ? file.slice(0, -4) : '';
    if (!TRACK_ID.test(trackId)) throw new ApiError(404, 'not_found', `no preview ${quoted(file)}`);
    const check = checkPreviewSignature(deps.secret, trackId, query.get('exp'), query.get('sig'));
    if (!check.ok) throw new ApiError(403, 'forbidden', check.reason);
    const track = await deps.tracks.find(trackId);
    if (!track) throw new ApiError(404, 'not_found', `no track ${quoted(trackId)} in the catalog`);

    let bytes = files.get(track.preview_sha256);
    if (!bytes) {
      bytes = await fs.promises.readFile(await deps.storage.localPath(track.preview_sha256, 'preview'));
      files.set(track.preview_sha256, bytes);
    }
    const etag = `"${track.preview_sha256.slice(0, 32)}"`;
    const maxAge = Math.max(0, Math.min(3600, check.expires - Math.floor(Date.now() / 1000)));
    const headers: Record<string, string> = {
      'Content-Type': 'audio/mpeg',
      'Accept-Ranges': 'bytes',
      ETag: etag,
      'Cache-Control': `public, max-age=${maxAge}, immutable`,
    };
    // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
      return { status: 304, headers: { ETag: etag, 'Cache-Control': headers['Cache-Control'] }, body: '' };
    }
    const wanted = range ? parseRange(range, bytes.length) : undefined;
    if (wanted === 'unsatisfiable') {
      // Thrown like the other errors, so it gets their shape (request_id included) from unauthenticated().
      const message = `range "${range}" is outside the ${bytes.length} bytes of this preview`;
      throw new ApiError(416, 'range_not_satisfiable', message, { headers: { 'Content-Range': `bytes */${bytes.length}` } });
    }
    if (wanted) {
      return { status: 206, headers: { ...headers, 'Content-Range': `bytes ${wanted.start}-${wanted.end}/${bytes.length}` }, body: bytes.subarray(wanted.start, wanted.end + 1) };
    }
    return { status: 200, headers, body: bytes };
  };
}
