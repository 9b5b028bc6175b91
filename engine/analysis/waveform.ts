// Waveform peaks for drawing a track: the largest |sample| over all channels per short slice.

/** 20 points a second: a 4-minute track is 4,800 points, finer than most waveform views draw. */
export const WAVEFORM_POINTS_PER_SECOND = 20;

/**
 * Peak per point (0..1), point i covering [i, i + 1) / pointsPerSecond seconds; the last point
 * may cover a shorter slice. Samples beyond full scale (a decoder's overshoot) read as 1.
 */
export function waveformPeaks(channels: Float32Array[], sampleRate: number, pointsPerSecond = WAVEFORM_POINTS_PER_SECOND): Float32Array {
  const length = channels.length ? channels[0].length : 0;
  const samplesPerPoint = sampleRate / pointsPerSecond;
  const peaks = new Float32Array(Math.ceil(length / samplesPerPoint));
  for (const channel of channels) {
    for (let p = 0; p < peaks.length; p++) {
      const end = Math.min(length, Math.round((p + 1) * samplesPerPoint));
      let peak = peaks[p];
      for (let i = Math.round(p * samplesPerPoint); i < end; i++) {
        const magnitude = Math.abs(channel[i]);
        if (magnitude > peak) peak = magnitude;
      }
      peaks[p] = Math.min(1, peak);
    }
  }
  return peaks;
}
