import { formatTimeTick, linearTicks, timeTicks } from './scales.js';
import { exactCount, r, shortCount, svgText, textWidth } from './svg-text.js';
import { coveredSeconds, type TimeBuckets } from './time-buckets.js';

/** One stacked series of a time chart: its values per bucket, its legend name and colour class. */
export interface TimeSeries {
  label: string;
  cls: string;
  values: number[];
}

/** Geometry shared by the time charts, so their time axes line up one above the other. */
export const CHART_WIDTH = 960;
const FONT = 11;
const LEFT = 64;
const RIGHT = 14;
const TOP = 8;
const BOTTOM = 26;

function stepText(stepMs: number): string {
  const s = stepMs / 1000;
  if (s % 86400 === 0) return `${s / 86400} d`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

/** "per 1 min" / "per second": what a y value of a chart counts. */
export function bucketUnit(buckets: TimeBuckets, perSecond: boolean): string {
  return perSecond ? 'per second' : `per ${stepText(buckets.stepMs)}`;
}

/**
 * Stacked columns over time, with a y axis (counts, or rates when `perSecond`), a UTC time axis and,
 * for each bucket, a full-height hover area whose detail lists every series' exact count.
 */
export function timeChart(options: {
  id: string;
  buckets: TimeBuckets;
  series: TimeSeries[];
  height: number;
  perSecond: boolean;
  label: string;
}): string {
  const { buckets, series, height, perSecond } = options;
  const plotW = CHART_WIDTH - LEFT - RIGHT;
  const plotH = height - TOP - BOTTOM;
  const bottom = TOP + plotH;
  const seconds = Array.from({ length: buckets.count }, (_, i) => coveredSeconds(buckets, i));
  const scale = (i: number) => (perSecond ? 1 / seconds[i]! : 1);
  let max = 0;
  for (let i = 0; i < buckets.count; i++) {
    let sum = 0;
    for (const s of series) sum += s.values[i]!;
    max = Math.max(max, sum * scale(i));
  }
  const { top, ticks } = linearTicks(max, Math.max(2, Math.floor(plotH / 26)), !perSecond);
  const y = (v: number) => bottom - (v / top) * plotH;
  const bw = plotW / buckets.count;
  const out: string[] = [];
  for (const t of ticks) {
    out.push(`<line class="grid" x1="${LEFT}" x2="${LEFT + plotW}" y1="${r(y(t))}" y2="${r(y(t))}"/>`);
    out.push(svgText(LEFT - 6, y(t) + 4, shortCount(t), { anchor: 'end', cls: 'tick' }));
  }
  const endMs = buckets.startMs + buckets.count * buckets.stepMs;
  const { ticks: times, kind } = timeTicks(buckets.startMs, endMs, plotW, FONT * 0.62);
  const x = (ms: number) => LEFT + ((ms - buckets.startMs) / (endMs - buckets.startMs)) * plotW;
  for (const t of times) {
    const label = formatTimeTick(t, kind);
    const half = textWidth(label, FONT) / 2;
    // A label that would stick out of the chart's box is left out rather than cut.
    if (x(t) - half < 0 || x(t) + half > CHART_WIDTH) continue;
    out.push(`<line class="axis" x1="${r(x(t))}" x2="${r(x(t))}" y1="${bottom}" y2="${bottom + 4}"/>`);
    out.push(svgText(x(t), bottom + 18, label, { anchor: 'middle', cls: 'tick' }));
  }
  // One path per series, a rectangle per bucket: a fifth of the bytes of one <rect> per bar.
  const bars = series.map(() => [] as string[]);
  const width = r(Math.max(0.6, bw - (bw > 3 ? 1 : 0)));
  for (let i = 0; i < buckets.count; i++) {
    let acc = 0;
    series.forEach((s, k) => {
      const v = s.values[i]! * scale(i);
      if (v <= 0) return;
      const y1 = y(acc + v);
      bars[k]!.push(`M${r(LEFT + i * bw)} ${r(y1)}h${width}v${r(y(acc) - y1)}h-${width}z`);
      acc += v;
    });
  }
  series.forEach((s, k) => {
    if (bars[k]!.length) out.push(`<path class="${s.cls}" d="${bars[k]!.join('')}"/>`);
  });
  // Hover areas last, above the bars: each names its bucket and every series' exact count.
  for (let i = 0; i < buckets.count; i++) {
    const from = buckets.startMs + i * buckets.stepMs;
    const partial =
      seconds[i]! * 1000 < buckets.stepMs ? ` (${stepText(seconds[i]! * 1000)} of it in the log)` : '';
    const when = `${new Date(from).toISOString().slice(0, 19).replace('T', ' ')} UTC + ${stepText(buckets.stepMs)}${partial}`;
    const parts = series.map((s) => {
      const v = s.values[i]!;
      return `${s.label}: ${exactCount(v)}${perSecond ? ` (${(v / seconds[i]!).toFixed(2)}/s)` : ''}`;
    });
    out.push(
      `<rect class="hit" x="${r(LEFT + i * bw)}" y="${TOP}" width="${r(bw)}" height="${plotH}" data-tip="${when}: ${parts.join(', ')}"/>`,
    );
  }
  out.push(`<line class="axis" x1="${LEFT}" x2="${LEFT + plotW}" y1="${bottom}" y2="${bottom}"/>`);
  out.push(`<line class="axis" x1="${LEFT}" x2="${LEFT}" y1="${TOP}" y2="${bottom}"/>`);
  return `<svg class="chart" id="${options.id}" viewBox="0 0 ${CHART_WIDTH} ${height}" role="img" aria-label="${options.label}">${out.join('')}</svg>`;
}
