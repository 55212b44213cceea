import type { StatusDistribution } from '../apply/status-distribution.js';

/** Verdict of comparing the status codes since a step with those before the deploy. */
export interface StatusVerdict {
  /** `regressed`: the 5xx share rose by more than the threshold; `ok` otherwise (also with no threshold). */
  verdict: 'ok' | 'regressed';
  /** after.share5xx − before.share5xx (may be negative). */
  increase: number;
  /** Why the verdict could not be `regressed` yet, when it could not. */
  note?: 'no-threshold' | 'too-few-requests';
}

/** Early decisions (while a window is still open) need this many requests; the end of a window decides on any. */
export const EARLY_DECISION_REQUESTS = 20;

/**
 * The status-watch rule: a step regressed when, over at least `minRequests` requests, its 5xx share
 * exceeds the share before the deploy by more than `max5xxIncrease` (a fraction: 0.05 is 5 points).
 */
export function compareStatusDistributions(
  before: StatusDistribution,
  after: StatusDistribution,
  max5xxIncrease: number | null,
  minRequests = 1,
): StatusVerdict {
  const increase = after.share5xx - before.share5xx;
  if (max5xxIncrease === null) return { verdict: 'ok', increase, note: 'no-threshold' };
  if (after.total < Math.max(1, minRequests)) return { verdict: 'ok', increase, note: 'too-few-requests' };
  return { verdict: increase > max5xxIncrease ? 'regressed' : 'ok', increase };
}
