// The clip builder's waveform on a canvas: the track's peaks (GET /tracks/{id}/analysis), its
// section lines and dominant peak, and a plan's parts (POST /clip-plan) shaded where they come from.
const COLORS = { wave: '#4a4f57', section: '#c9ccd1', peak: '#b3261e', part: 'rgba(11, 87, 208, 0.28)', partEdge: '#0b57d0' };

export function drawWaveform(canvas, analysis, plan) {
  const context = canvas.getContext('2d');
  const { width, height } = canvas;
  const secondsToX = (s) => (s / analysis.duration_seconds) * width;
  context.clearRect(0, 0, width, height);
  for (const part of plan?.parts ?? []) {
    context.fillStyle = COLORS.part;
    context.fillRect(secondsToX(part.source_start), 0, secondsToX(part.length), height);
    context.fillStyle = COLORS.partEdge;
    context.fillRect(secondsToX(part.source_start), 0, 2, height);
  }
  context.fillStyle = COLORS.section;
  for (const section of analysis.sections) context.fillRect(secondsToX(section.start), 0, 1, height);
  const peaks = analysis.waveform.peaks;
  const middle = height / 2;
  context.fillStyle = COLORS.wave;
  const columns = Math.min(width, peaks.length);
  for (let x = 0; x < columns; x++) {
    // The largest peak of the points this column covers.
    const from = Math.floor((x / columns) * peaks.length);
    const to = Math.max(from + 1, Math.floor(((x + 1) / columns) * peaks.length));
    let peak = 0;
    for (let i = from; i < to; i++) peak = Math.max(peak, peaks[i]);
    const h = Math.max(1, peak * (height - 8));
    context.fillRect((x / columns) * width, middle - h / 2, Math.max(1, width / columns - 0.5), h);
  }
  context.fillStyle = COLORS.peak;
  context.fillRect(secondsToX(analysis.peak_seconds) - 1, 0, 3, height);
}
