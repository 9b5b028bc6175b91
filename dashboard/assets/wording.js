// What the pages say in words a person reads: counts with their plural, times in a track, a clip
// plan as a sentence, and an API failure as what happened and what to do. The API's own words
// (field names, codes such as "track_end") stay in the API; these are the page's.

/** "1 license", "2 licenses". */
export function count(n, singular, plural = `${singular}s`) {
  return `${n.toLocaleString('en-US')} ${n === 1 ? singular : plural}`;
}

/** A time in a track: "42.5 s" under a minute, "2:20.0" from a minute on. */
export function trackTime(seconds) {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${(seconds - minutes * 60).toFixed(1).padStart(4, '0')}`;
}

const MODE_TEXT = { segment: 'excerpt', edit: 'edit', loop: 'loop' };

const ENDING_TEXT = {
  track_end: "It ends with the track's own ending.",
  bar_line: 'It ends on a bar line.',
  beat: 'It ends on a beat.',
  cut: 'It ends between beats: the time left after the hit point is no whole number of beats here.',
};

/** What an edit's hit_point_landing tells the creator (null for other clips: nothing to say). */
const LANDING_TEXT = {
  sure: 'right at the hit point.',
  miss: 'not at the hit point: the climax is too near the start or the end of the track for this length, so another entrance plays there.',
};

/** A plan from POST /clip-plan as sentences. */
export function planText(plan) {
  const spans = plan.parts.map((p) => `${trackTime(p.source_start)} to ${trackTime(p.source_start + p.length)}`);
  const made = plan.parts.length === 1
    ? `the track from ${spans[0]}`
    : `${count(plan.parts.length, 'part')} of the track (${spans.join(', then ')}), joined on the beat`;
  const sentences = [`A ${plan.duration_seconds} s ${MODE_TEXT[plan.mode] ?? plan.mode}: ${made}.`];
  if (plan.peak_in_clip_seconds === null) sentences.push("The track's climax is not in the clip.");
  else {
    const landing = LANDING_TEXT[plan.hit_point_landing];
    sentences.push(`The climax plays ${plan.peak_in_clip_seconds.toFixed(1)} s into the clip${landing ? `: ${landing}` : '.'}`);
  }
  if (plan.stretch !== undefined && plan.stretch !== 1) sentences.push(`It plays ${Math.abs((plan.stretch - 1) * 100).toFixed(1)}% ${plan.stretch > 1 ? 'slower' : 'faster'} than the track, so it keeps the beat.`);
  if (ENDING_TEXT[plan.ending]) sentences.push(ENDING_TEXT[plan.ending]);
  return sentences.join(' ');
}

/** The request fields the API names, as the page's labels call them. */
const FIELD_WORDS = [
  [/\bduration_seconds\b/g, 'the duration'],
  [/\bhit_point_seconds\b/g, 'the hit point'],
  [/\btrack_id\b/g, 'the track'],
  [/\bmode\b/g, 'the mode'],
  [/\bnew_password\b/g, 'the new password'],
  [/\bcurrent_password\b/g, 'the current password'],
];

function sentence(text) {
  const trimmed = text.trim().replace(/[.;:]$/, '');
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

/** A failure from api.js (ApiFailure) or the network, as a sentence. */
export function errorText(err) {
  const body = err?.body;
  const retry = body?.retry_after;
  switch (err?.code) {
    case 'invalid_parameters': {
      let text = sentence(FIELD_WORDS.reduce((t, [word, label]) => t.replace(word, label), err.message));
      const range = body?.feasible_range;
      if (range) text += ` Possible for this track: ${range.min} to ${range.max} s.`;
      return text;
    }
    case 'insufficient_credits': return 'This key has no credits left. Choose another key, or wait for its monthly credits.';
    case 'rate_limited': return `This key has made too many requests for now. Try again in ${count(Number(retry) || 60, 'second')}.`;
    case 'unauthorized': return 'This key no longer works: it was revoked or has expired. Choose another key.';
    case 'not_found': return 'Not found: it may have been removed.';
    case 'service_unavailable': return 'The service is busy or briefly unavailable. Try again in a moment.';
    case 'csrf_token_invalid': return 'Your session changed in another tab. Reload the page and try again.';
    case undefined: return err instanceof TypeError ? 'The service could not be reached. Check your connection and try again.' : sentence(err?.message ?? 'Something went wrong');
    default: return sentence(err.message);
  }
}
