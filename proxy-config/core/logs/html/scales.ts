/** Axis ticks: where they go and what they read. */

/** Ticks 0..top for counts or rates, at a step of 1, 2 or 5 times a power of ten; `integer` keeps steps >= 1. */
export function linearTicks(
  max: number,
  maxTicks: number,
  integer: boolean,
): { top: number; ticks: number[] } {
  const wanted = Math.max(1, maxTicks - 1);
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const rough = max / wanted;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough)!;
  if (integer) step = Math.max(1, Math.round(step));
  const top = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step / 1e6; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { top, ticks };
}

/** Decades from 1 ms up to the first one at or above `max` seconds, for a latency axis (log scale). */
export function logTicks(min: number, max: number): number[] {
  const low = Math.max(-3, Math.floor(Math.log10(Math.max(min, 0.001))));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(max, 0.001)) - 1e-9));
  const ticks: number[] = [];
  for (let e = low; e <= high; e++) ticks.push(Number((10 ** e).toPrecision(3)));
  return ticks;
}

/** "1ms", "10ms", "100ms", "1s", "10s" for a decade tick. */
export function decadeLabel(value: number): string {
  return value < 1 ? `${Math.round(value * 1000)}ms` : `${value}s`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Tick steps a person reads at a glance. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * SECOND)
  .concat([1, 2, 5, 10, 15, 30].map((m) => m * MINUTE))
  .concat([1, 2, 3, 6, 12].map((h) => h * HOUR))
  .concat([1, 2, 7, 14, 28, 56, 112, 224, 448].map((d) => d * DAY));

/** How a time tick is written: by the step (seconds shown only under a minute) and the span (dates past a day). */
export function timeLabelKind(
  stepMs: number,
  spanMs: number,
): 'date' | 'date-time' | 'time' | 'time-seconds' {
  if (stepMs >= DAY) return 'date';
  if (spanMs >= DAY) return 'date-time';
  return stepMs < MINUTE ? 'time-seconds' : 'time';
}

/** Characters of each label kind. */
const LABEL_CHARS = { date: 5, 'date-time': 11, time: 5, 'time-seconds': 8 } as const;

/** A UTC time written as its kind says: "10:05", "10:05:30", "11-21 10:05", "11-21". */
export function formatTimeTick(ms: number, kind: keyof typeof LABEL_CHARS): string {
  const iso = new Date(ms).toISOString(); // 2026-11-21T10:05:30.000Z
  if (kind === 'date') return iso.slice(5, 10);
  if (kind === 'date-time') return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return kind === 'time-seconds' ? iso.slice(11, 19) : iso.slice(11, 16);
}

/**
 * Time ticks over [startMs, endMs] on a plot `widthPx` wide: the finest readable step whose labels,
 * `charPx` wide per character plus a gap, fit side by side. Ticks fall on UTC multiples of the step.
 */
export function timeTicks(
  startMs: number,
  endMs: number,
  widthPx: number,
  charPx: number,
): { ticks: number[]; kind: keyof typeof LABEL_CHARS } {
  const span = Math.max(1, endMs - startMs);
  for (const step of TIME_STEPS) {
    const kind = timeLabelKind(step, span);
    const room = LABEL_CHARS[kind] * charPx + 16;
    if ((step / span) * widthPx < room) continue;
    const ticks: number[] = [];
    for (let t = Math.ceil(startMs / step) * step; t <= endMs; t += step) ticks.push(t);
    return { ticks, kind };
  }
  return { ticks: [startMs], kind: 'date' };
}
