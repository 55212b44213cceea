import type { TimelineSummary } from '../summarize-stats.js';

/** Counts of the timeline the report draws, per bucket. */
export const BUCKET_SERIES = [
  'records',
  '1xx',
  '2xx',
  '3xx',
  '4xx',
  '5xx',
  'other',
  '499',
  'proxy5xx',
] as const;
export type BucketSeries = (typeof BUCKET_SERIES)[number];

/** The timeline regrouped into at most `maxBuckets` equal buckets, gaps filled with zeros (no requests). */
export interface TimeBuckets {
  startMs: number;
  stepMs: number;
  count: number;
  series: Record<BucketSeries, number[]>;
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
    for (const key of BUCKET_SERIES) series[key][i]! += point[key];
  }
  return { startMs, stepMs, count, series };
}
