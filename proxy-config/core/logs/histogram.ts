/**
 * A base-2 exponential histogram over seconds with a fixed scale: OpenTelemetry's ExponentialHistogram
 * and Prometheus' native histogram with schema = scale. Bucket index i holds the values in
 * (2^(i·2^-scale), 2^((i+1)·2^-scale)] seconds; zero has a bucket of its own (OpenTelemetry's zero
 * count, threshold 0). Bounds are the same for every histogram of a scale, so histograms merge by adding
 * counts, without loss. Values are nginx's whole milliseconds, clamped to 2^31-1 ms; a reported
 * percentile is the bucket's one whole millisecond where it holds one (up to 197 ms at scale 7, 55 ms
 * at scale 5), else the middle of its whole milliseconds: within 0.27 % (scale 7), 1.1 % (scale 5).
 */
export interface Histogram {
  scale: number;
  /**
   * Counts per slot, grown on demand up to the largest slot seen: slot 0 counts zeros, slot k ≥ 1 the
   * k-th bucket that whole milliseconds fall in (slot 1 holds 1 ms; see slotOf, slotIndex).
   */
  counts: Float64Array;
  total: number;
  max: number;
}

/** Summary percentiles of a histogram, in seconds (nginx's unit), null when it holds no values. */
export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

const MAX_VALUE = 0x7fffffff;

/** The scale of the headline and per-upstream histograms, and of the many per-interval ones. */
export const HISTOGRAM_SCALE = 7;
export const TIMELINE_HISTOGRAM_SCALE = 5;

/**
 * The exponential bucket index of `ms` milliseconds (≥ 1) at `scale`. Exact at every bucket bound for
 * whole milliseconds up to 2^31-1 at scales 5 to 8 (checked against exact integer arithmetic in
 * test/proxy-config/logs/histogram.test.ts); log-line-counts.ts computes the same in WebAssembly.
 */
export function exponentialIndex(ms: number, scale: number): number {
  return Math.ceil(Math.log2(ms / 1000) * (1 << scale)) - 1;
}

/** Slots of the values below SMALL, looked up rather than computed (most request times). */
const SMALL = 4096;

/**
 * Per scale: slots are the buckets that whole milliseconds can fall in, numbered in order (below
 * about 200 ms most buckets are narrower than a millisecond and can hold none: numbering only the
 * others keeps the arrays half as long). `small` holds the slots of 0..SMALL-1 ms, `smallIndex` the
 * bucket index of each of those slots; above, slots and bucket indexes advance together.
 */
interface ScaleTable {
  small: Uint16Array;
  smallIndex: Int32Array;
  /** The slot of SMALL-1 ms and its bucket index. */
  top: number;
  topIndex: number;
  /** Each slot's reported value, once computed. */
  values: Float64Array;
}
// An array by scale, not a Map: it is read for every value counted.
const tables: Array<ScaleTable | undefined> = [];

function tableOf(scale: number): ScaleTable {
  let table = tables[scale];
  if (!table) {
    const small = new Uint16Array(SMALL);
    const indexes = [NaN];
    for (let v = 1; v < SMALL; v++) {
      const index = exponentialIndex(v, scale);
      if (index !== indexes.at(-1)) indexes.push(index);
      small[v] = indexes.length - 1;
    }
    const top = indexes.length - 1;
    const topIndex = indexes[top]!;
    const slots = exponentialIndex(MAX_VALUE, scale) - topIndex + top + 1;
    table = {
      small,
      smallIndex: Int32Array.from(indexes),
      top,
      topIndex,
      values: new Float64Array(slots).fill(NaN),
    };
    tables[scale] = table;
  }
  return table;
}

/** The slot of `counts` that a value of `ms` (0..2^31-1) is counted in (slot 0: 0 ms). */
export function slotOf(ms: number, scale: number): number {
  const table = tableOf(scale);
  if (ms < SMALL) return table.small[ms]!;
  return exponentialIndex(ms, scale) - table.topIndex + table.top;
}

/** Slots a histogram of `scale` can use (the slot of 2^31-1 ms, plus one). */
export function slotCount(scale: number): number {
  return slotOf(MAX_VALUE, scale) + 1;
}

/** The exponential bucket index of slot k ≥ 1 (slot 0 is the zero count). */
export function slotIndex(slot: number, scale: number): number {
  const table = tableOf(scale);
  return slot <= table.top ? table.smallIndex[slot]! : slot - table.top + table.topIndex;
}

/** The slot of exponential bucket `index`, or -1 when no whole millisecond falls in that bucket. */
export function indexSlot(index: number, scale: number): number {
  const table = tableOf(scale);
  if (index > table.topIndex) return index - table.topIndex + table.top;
  // smallIndex ascends: a binary search (only state files are read this way).
  let lo = 1;
  let hi = table.top;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = table.smallIndex[mid]!;
    if (at === index) return mid;
    if (at < index) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** An empty histogram: HISTOGRAM_SCALE for headline numbers, TIMELINE_HISTOGRAM_SCALE for the many per-interval ones. */
export function createHistogram(scale = HISTOGRAM_SCALE): Histogram {
  return { scale, counts: new Float64Array(32), total: 0, max: 0 };
}

/** The smallest and largest whole milliseconds counted in `slot`. */
function slotMillis(slot: number, scale: number): [number, number] {
  if (slot === 0) return [0, 0];
  // The bounds from the formula, then moved onto the integers exponentialIndex puts in this slot.
  const index = slotIndex(slot, scale);
  let low = Math.max(1, Math.floor(1000 * 2 ** (index / (1 << scale))));
  while (low > 1 && slotOf(low - 1, scale) === slot) low--;
  while (slotOf(low, scale) < slot) low++;
  let high = Math.min(MAX_VALUE, Math.floor(1000 * 2 ** ((index + 1) / (1 << scale))));
  while (high < MAX_VALUE && slotOf(high + 1, scale) === slot) high++;
  while (high > low && slotOf(high, scale) > slot) high--;
  return [low, high];
}

/** The value reported for a slot: its one whole millisecond, or the middle of its whole milliseconds. */
function slotValue(slot: number, scale: number): number {
  const values = tableOf(scale).values;
  let value = values[slot]!;
  if (value !== value) {
    const [low, high] = slotMillis(slot, scale);
    value = values[slot] = (low + high) / 2;
  }
  return value;
}

/** Adds one value (ms); negative values (absent) are ignored. */
export function addToHistogram(h: Histogram, valueMs: number): void {
  if (valueMs < 0) return;
  const v = valueMs > MAX_VALUE ? MAX_VALUE : valueMs;
  const slot = v === 0 ? 0 : slotOf(v, h.scale);
  if (slot >= h.counts.length) grow(h, slot + 1);
  h.counts[slot]!++;
  h.total++;
  if (v > h.max) h.max = v;
}

function grow(h: Histogram, size: number): void {
  // Grow to the bucket needed (rounded up), not to a power of two: many small histograms stay small.
  const length = Math.ceil(size / 32) * 32;
  const counts = new Float64Array(length);
  counts.set(h.counts);
  h.counts = counts;
}

/** Adds slot counts kept elsewhere (same scale), with their total and largest value. */
export function addBucketCounts(h: Histogram, counts: Uint32Array, total: number, max: number): void {
  if (counts.length > h.counts.length) grow(h, counts.length);
  for (let i = 0; i < counts.length; i++) h.counts[i]! += counts[i]!;
  h.total += total;
  if (max > h.max) h.max = max;
}

/** Adds `from` into `into` (same scale). */
export function mergeHistogram(into: Histogram, from: Histogram): void {
  if (from.counts.length > into.counts.length) grow(into, from.counts.length);
  for (let i = 0; i < from.counts.length; i++) into.counts[i]! += from.counts[i]!;
  into.total += from.total;
  if (from.max > into.max) into.max = from.max;
}

/**
 * The nearest-rank quantiles `qs` (0..1, ascending) in ms, in one walk over the slots: the slot's
 * value (see slotValue, ≤ max), and max itself for the highest rank; null when the histogram is empty.
 */
export function histogramQuantiles(h: Histogram, qs: readonly number[]): Array<number | null> {
  if (h.total === 0) return qs.map(() => null);
  const ranks = qs.map((q) => Math.max(1, Math.ceil(q * h.total)));
  const values: number[] = qs.map(() => h.max);
  let next = 0;
  let seen = 0;
  for (let i = 0; i < h.counts.length && next < ranks.length; i++) {
    seen += h.counts[i]!;
    while (next < ranks.length && seen >= ranks[next]!) {
      // The highest rank is the largest value, known exactly; the others are their bucket's value.
      values[next] = ranks[next] === h.total ? h.max : Math.min(slotValue(i, h.scale), h.max);
      next++;
    }
  }
  return values;
}

/** p50/p90/p99/max in seconds, rounded to the millisecond. */
export function toPercentiles(h: Histogram): Percentiles {
  const sec = (ms: number | null) => (ms === null ? null : Math.round(ms) / 1000);
  const [p50, p90, p99] = histogramQuantiles(h, [0.5, 0.9, 0.99]);
  return {
    count: h.total,
    p50: sec(p50!),
    p90: sec(p90!),
    p99: sec(p99!),
    max: h.total === 0 ? null : h.max / 1000,
  };
}

/**
 * Calls `each(valueMs, count)` for every slot that holds values, with the value the percentiles report
 * for it (its one whole millisecond, or the middle of its whole milliseconds; ≤ max).
 */
export function forEachBucket(h: Histogram, each: (valueMs: number, count: number) => void): void {
  for (let i = 0; i < h.counts.length; i++) {
    const count = h.counts[i]!;
    if (count !== 0) each(Math.min(slotValue(i, h.scale), h.max), count);
  }
}
