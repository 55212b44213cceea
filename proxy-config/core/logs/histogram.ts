/**
 * A log-linear histogram of whole milliseconds with bounded memory, mergeable by adding counts.
 * With `subBits` = b, values below 2^(b+1) ms have a bucket each (exact); above, every power of two
 * is split into 2^b buckets, so a reported percentile is within 2^-(b+1) of the true value
 * (b = 7: exact below 256 ms, within 0.39 % above). Values are clamped to 2^31-1 ms.
 */
export interface Histogram {
  subBits: number;
  /** Counts per bucket; grown on demand up to the largest bucket seen. */
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

/** An empty histogram; `subBits` 7 for headline numbers, 5 for the many per-interval ones. */
export function createHistogram(subBits = 7): Histogram {
  return { subBits, counts: new Float64Array(32), total: 0, max: 0 };
}

function bucketOf(value: number, subBits: number): number {
  const exact = 1 << (subBits + 1);
  if (value < exact) return value;
  const e = 31 - Math.clz32(value);
  return exact + ((e - subBits - 1) << subBits) + ((value >>> (e - subBits)) & ((1 << subBits) - 1));
}

/** The smallest value in bucket `index` and the bucket's width. */
function bucketRange(index: number, subBits: number): [number, number] {
  const exact = 1 << (subBits + 1);
  if (index < exact) return [index, 1];
  const k = index - exact;
  const e = subBits + 1 + (k >> subBits);
  const sub = k & ((1 << subBits) - 1);
  const shift = e - subBits;
  return [((1 << subBits) + sub) * 2 ** shift, 2 ** shift];
}

/** Adds one value (ms); negative values (absent) are ignored. */
export function addToHistogram(h: Histogram, valueMs: number): void {
  if (valueMs < 0) return;
  const v = valueMs > MAX_VALUE ? MAX_VALUE : valueMs;
  const index = bucketOf(v, h.subBits);
  if (index >= h.counts.length) grow(h, index + 1);
  h.counts[index]!++;
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

/** Adds bucket counts kept elsewhere (same subBits), with their total and largest value. */
export function addBucketCounts(h: Histogram, counts: Uint32Array, total: number, max: number): void {
  if (counts.length > h.counts.length) grow(h, counts.length);
  for (let i = 0; i < counts.length; i++) h.counts[i]! += counts[i]!;
  h.total += total;
  if (max > h.max) h.max = max;
}

/** Adds `from` into `into` (same subBits). */
export function mergeHistogram(into: Histogram, from: Histogram): void {
  if (from.counts.length > into.counts.length) grow(into, from.counts.length);
  for (let i = 0; i < from.counts.length; i++) into.counts[i]! += from.counts[i]!;
  into.total += from.total;
  if (from.max > into.max) into.max = from.max;
}

/**
 * The nearest-rank quantiles `qs` (0..1, ascending) in ms, in one walk over the buckets: exact bucket
 * values, else the bucket's midpoint (≤ max); null when the histogram is empty.
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
      const [low, width] = bucketRange(i, h.subBits);
      values[next++] = Math.min(width === 1 ? low : low + (width - 1) / 2, h.max);
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
 * Calls `each(valueMs, count)` for every bucket that holds values, with the value the percentiles
 * report for it: exact below 2^(subBits+1) ms, else the bucket's middle (≤ max).
 */
export function forEachBucket(h: Histogram, each: (valueMs: number, count: number) => void): void {
  for (let i = 0; i < h.counts.length; i++) {
    const count = h.counts[i]!;
    if (count === 0) continue;
    const [low, width] = bucketRange(i, h.subBits);
    each(Math.min(width === 1 ? low : low + (width - 1) / 2, h.max), count);
  }
}
