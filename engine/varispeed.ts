// A uniform varispeed: the clip's timeline played slightly faster or slower as a whole (at most
// plan.ts MAX_STRETCH), as a tape would, so that a loop is a whole number of beats or an edit
// ends on one. Pitch moves with it (1% is 17 cents). Each output sample is read from the timeline
// by four-point cubic (Catmull-Rom) interpolation: at a ratio this close to 1 its images lie far
// above the audio band's content.

/** `channel` played over `length` samples; `circular`: the samples past either end are read from the other (a loop). */
export function varispeed(channel: Float32Array, length: number, circular: boolean): Float32Array {
  const n = channel.length;
  const out = new Float32Array(length);
  if (n === 0) return out;
  const ratio = n / length;
  const at = circular ? (i: number) => channel[((i % n) + n) % n] : (i: number) => channel[Math.min(n - 1, Math.max(0, i))];
  for (let k = 0; k < length; k++) {
    const x = k * ratio;
    const i = Math.floor(x);
    const t = x - i;
    const p0 = at(i - 1), p1 = at(i), p2 = at(i + 1), p3 = at(i + 2);
    out[k] = p1 + 0.5 * t * (p2 - p0 + t * (2 * p0 - 5 * p1 + 4 * p2 - p3 + t * (3 * (p1 - p2) + p3 - p0)));
  }
  return out;
}
