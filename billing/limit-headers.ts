// The rate-limit and credit headers of every authenticated response: spec 8.3's X-RateLimit-* and
// X-Credits-Remaining, and beside them the IETF fields of draft-ietf-httpapi-ratelimit-headers-10
// (RateLimit-Policy, RateLimit: structured-field lists, RFC 9651), from the same counts.
//
// One policy per window of the key's tier: "minute" (w=60) and, unless the tier has no daily
// limit, "day" (w=86400); quota unit "requests" (the default, so no qu). RateLimit gives each
// window's remaining requests (r) and the seconds until the window ends (t): the UTC calendar
// minute or day, as the admission counts them. The credit balance is not a policy: the draft
// allows only registered quota units (requests, content-bytes, concurrent-requests), and a
// "credits" policy without qu would claim that requests are counted (docs/decisions.md, "Rate-limit headers (IETF)").
import { refusedWindow, type Admission } from './admission.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const MS_PER_S = 1000;
const UNLIMITED = 'unlimited';

// RateLimit-Policy depends only on the tier's two limits: made once per pair.
const policies = new Map<string, string>();

function policyField(perMinute: number, perDay: number | null): string {
  const id = `${perMinute}/${perDay}`;
  let field = policies.get(id);
  if (field === undefined) {
    field = `"minute";q=${perMinute};w=${MINUTE_MS / MS_PER_S}`;
    if (perDay !== null) field += `, "day";q=${perDay};w=${DAY_MS / MS_PER_S}`;
    policies.set(id, field);
  }
  return field;
}

/** Whole seconds until the fixed window of `windowMs` that holds `nowMs` ends (1 at least). */
function secondsToWindowEnd(nowMs: number, windowMs: number): number {
  return Math.max(1, Math.ceil((windowMs - (nowMs % windowMs)) / MS_PER_S));
}

/** `nowMs`: the windows' time the resets count from; by default when the request was counted. */
export function limitHeaders(admission: Admission, creditsRemaining: number, nowMs = admission.countedAtMs): Record<string, string> {
  const perMinute = admission.requestsPerMinute;
  const perDay = admission.requestsPerDay;
  // Spec 7: a 429 says X-RateLimit-Remaining 0, whichever window refused it.
  const minuteLeft = admission.admitted ? Math.max(0, perMinute - admission.minuteCount) : 0;
  const dayLeft = perDay === null ? null : Math.max(0, perDay - admission.dayCount);
  let minuteReset = secondsToWindowEnd(nowMs, MINUTE_MS);
  let dayReset = secondsToWindowEnd(nowMs, DAY_MS);
  if (!admission.admitted) {
    // The refused window's reset is Retry-After itself (the database's clock), so Retry-After is
    // never earlier than it, as the draft asks.
    if (refusedWindow(admission) === 'day') dayReset = admission.retryAfterSeconds;
    else minuteReset = admission.retryAfterSeconds;
  }
  let rateLimit = `"minute";r=${minuteLeft};t=${minuteReset}`;
  if (dayLeft !== null) rateLimit += `, "day";r=${dayLeft};t=${dayReset}`;
  return {
    'X-RateLimit-Limit': String(perMinute),
    'X-RateLimit-Remaining': String(minuteLeft),
    'X-RateLimit-Limit-Daily': perDay === null ? UNLIMITED : String(perDay),
    'X-RateLimit-Remaining-Daily': dayLeft === null ? UNLIMITED : String(dayLeft),
    'X-Credits-Remaining': String(creditsRemaining),
    'RateLimit-Policy': policyField(perMinute, perDay),
    RateLimit: rateLimit,
  };
}
