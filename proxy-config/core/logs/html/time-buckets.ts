import { TIMELINE_COUNTS } from '../stats-state.js';
import type { TimelineSummary } from '../summarize-stats.js';

/** Counts of the timeline the report draws, per bucket: the timeline's own slots. */
export const BUCKET_SERIES = TIMELINE_COUNTS;
export type BucketSeries = (typeof BUCKET_SERIES)[number];

/** The timeline regrouped into at most `maxBuckets` equal buckets, gaps filled with zeros (no requests). */
export interface TimeBuckets {
  startMs: number;
  stepMs: number;
  count: number;
  /** The time the log covers: its first second to the end of its last (or its intervals', unknown those). */
  coveredFromMs: number;
  coveredToMs: number;
  series: Record<BucketSeries, number[]>;
}

/**
 * Seconds of bucket `i` the log covers: the first and last buckets may hold a few seconds or intervals
 * only, and a rate over the whole bucket would show a drop that did not happen.
 */
export function coveredSeconds(b: TimeBuckets, i: number): number {
  const start = b.startMs + i * b.stepMs;
  return (Math.min(start + b.stepMs, b.coveredToMs) - Math.max(start, b.coveredFromMs)) / 1000;
}

/** Most buckets a chart draws: two pixels or more per bar on the page's plot width. */
export const MAX_BUCKETS = 400;

/**
 * Groups the timeline's points (sorted, `intervalSeconds` apart, absent when empty) into buckets of a
 * whole number of intervals, so that a log of a week draws as fast and as small as a log of an hour.
 * Counts add exactly; null when there is no point.
 */
export function bucketTimeline(
  points: TimelineSummary[],
  intervalSeconds: number,
  range: { first: string; last: string } | null = null,
  maxBuckets = MAX_BUCKETS,
): TimeBuckets | null {
  if (points.length === 0) return null;
  const intervalMs = intervalSeconds * 1000;
  const first = Date.parse(points[0]!.time);
  const last = Date.parse(points[points.length - 1]!.time);
  const intervals = Math.round((last - first) / intervalMs) + 1;
  const stepMs = intervalMs * Math.ceil(intervals / maxBuckets);
  const startMs = first - (first % stepMs);
  const count = Math.floor((last - startMs) / stepMs) + 1;
  const series = Object.fromEntries(
    BUCKET_SERIES.map((key) => [key, new Array<number>(count).fill(0)]),
  ) as Record<BucketSeries, number[]>;
  for (const point of points) {
    const i = Math.floor((Date.parse(point.time) - startMs) / stepMs);
    // proxy5xx is null when the format cannot tell: the charts draw that series only when it can.
    for (const key of BUCKET_SERIES) series[key][i]! += point[key] ?? 0;
  }
  // Log times are whole seconds: the last one covers up to the next.
  const coveredFromMs = range ? Math.max(first, Date.parse(range.first)) : first;
  const coveredToMs = range ? Math.min(last + intervalMs, Date.parse(range.last) + 1000) : last + intervalMs;
  return { startMs, stepMs, count, coveredFromMs, coveredToMs, series };
}
