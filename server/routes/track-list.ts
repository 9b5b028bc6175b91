// A list of tracks as JSON, each with its signed preview link. The index keeps each track's
// summary as JSON: its preview_url is spliced in before the closing brace rather than parsing
// and serialising it again (most of a search's garbage).
import { signedPreviewUrl } from '../previews.ts';

export function trackListJson(tracks: { id: string; summary: string }[], baseUrl: string, secret: string): string {
  const shown = tracks.map((t) => `${t.summary.slice(0, -1)},"preview_url":${JSON.stringify(signedPreviewUrl(baseUrl, secret, t.id))}}`);
  return `[${shown.join(',')}]`;
}
