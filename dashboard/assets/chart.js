// The 30-day chart of the overview as SVG: requests as bars on the left scale, credits as a line
// on the right scale (two scales: a day of free requests would flatten the credits otherwise).
import { count } from './wording.js';

const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 40, right: 40, top: 12, bottom: 28 };

function svg(tag, attributes, text) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A round upper bound for a scale: 1, 2, 5 times a power of ten. */
function niceMax(value) {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((m) => m >= value);
}

export function drawUsageChart(days) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const maxRequests = niceMax(Math.max(...days.map((d) => d.requests)));
  const maxCredits = niceMax(Math.max(...days.map((d) => d.credits)));
  const step = plotW / days.length;
  const y = (value, max) => PAD.top + plotH - (value / max) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': `Requests and credits per day for the last ${days.length} days` });
  root.append(svg('line', { x1: PAD.left, y1: PAD.top + plotH, x2: WIDTH - PAD.right, y2: PAD.top + plotH, stroke: '#4a4f57' }));
  root.append(svg('text', { x: PAD.left - 6, y: PAD.top + 10, 'text-anchor': 'end', 'font-size': 11, fill: '#0b57d0' }, maxRequests));
  root.append(svg('text', { x: WIDTH - PAD.right + 6, y: PAD.top + 10, 'font-size': 11, fill: '#b3261e' }, maxCredits));
  days.forEach((day, i) => {
    const x = PAD.left + i * step;
    const top = y(day.requests, maxRequests);
    const bar = svg('rect', { x: x + step * 0.15, y: top, width: step * 0.7, height: PAD.top + plotH - top, fill: '#0b57d0', 'data-day': day.day, 'data-requests': day.requests });
    bar.append(svg('title', {}, `${day.day}: ${count(day.requests, 'request')}, ${count(day.credits, 'credit')}`));
    root.append(bar);
    // A label a week, and today's unless the last weekly one is too close to it.
    const lastWeekly = i === days.length - 1 && i % 7 >= 3;
    if (i % 7 === 0 || lastWeekly) root.append(svg('text', { x: x + step / 2, y: HEIGHT - 8, 'text-anchor': 'middle', 'font-size': 11, fill: '#4a4f57' }, day.day.slice(5)));
  });
  const points = days.map((d, i) => `${PAD.left + (i + 0.5) * step},${y(d.credits, maxCredits)}`).join(' ');
  root.append(svg('polyline', { points, fill: 'none', stroke: '#b3261e', 'stroke-width': 2, 'data-series': 'credits' }));
  return root;
}
