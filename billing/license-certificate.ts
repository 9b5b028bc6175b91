// What a license certificate says: the license (track, clip, key, time) and its scope in words
// (spec 1, rules 2-4). Signed by license-signature.ts; served by GET /licenses/{id}.
import type { LicenseRecord } from './licenses.ts';

/** Names the layout below; a verifier can refuse a format it does not know. */
export const CERTIFICATE_FORMAT = 'music-license-certificate/1';
export const CERTIFICATE_ISSUER = 'Music Licensing API';

/** Spec 1, rules 2-4, in words. */
export const LICENSE_SCOPE = {
  license: 'perpetual sync license, included with the download',
  term: 'perpetual: no expiry, no renewals',
  territory: 'worldwide',
  audience: 'no cap on views or plays',
  covered_uses: [
    'social platforms',
    'podcasts and streaming',
    'websites',
    'online ads',
    'branded content',
    'corporate or training video',
  ],
  excluded_uses: [
    'broadcast (TV/film), which needs an upgraded license tier',
    'resale or redistribution of the audio as standalone audio',
    'use with offensive or illegal content',
  ],
} as const;

export interface Certificate extends LicenseRecord {
  format: typeof CERTIFICATE_FORMAT;
  issuer: string;
  /** The display prefix of the API key that downloaded (never the whole key). */
  key_prefix: string;
  scope: typeof LICENSE_SCOPE;
}

/** The certificate of one license. Only JSON values: it is signed in canonical JSON. */
export function certificateOf(license: LicenseRecord, keyPrefix: string): Certificate {
  return { format: CERTIFICATE_FORMAT, issuer: CERTIFICATE_ISSUER, ...license, key_prefix: keyPrefix, scope: LICENSE_SCOPE };
}
