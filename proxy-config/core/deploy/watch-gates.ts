import type { LogWindow } from './log-window.js';

/** The limits a watch holds the new version to; null turns a gate into a report only. */
export interface GateLimits {
  /** Largest rise of the 5xx share over the one before the deploy (0.05 = 5 points); the spec's deploy.max5xxIncrease. */
  max5xxIncrease: number | null;
  /** Largest rise of the 4xx share (429, 401/403, 404 and the rest). */
  max4xxIncrease: number | null;
  /** Largest p99 request time as a multiple of the one before. */
  maxP99Ratio: number | null;
}

/** Defaults of the gates the spec does not set: a version that answers 4xx to 5 % more requests, or is 2.5 times as slow at p99, is rolled back. */
export const DEFAULT_GATES = { max4xxIncrease: 0.05, maxP99Ratio: 2.5 } as const;

/**
 * Fewer requests than this on either side give no p99 worth comparing: the p99 of 100 requests is the
 * second slowest, of 20 it is simply the slowest one, and one slow request on a busy host is no verdict.
 */
export const P99_MIN_REQUESTS = 100;
/** The other instances must have answered this many requests in the window to stand in for "before". */
export const PEER_MIN_REQUESTS = 20;
/** nginx times requests in whole milliseconds: p99s under this compare as this, so 1 ms against 3 ms is no regression. */
export const P99_FLOOR_MS = 10;

/** Which gate fired, with the numbers that made it fire. */
export interface FiredGate {
  gate: '5xx' | '4xx' | 'p99';
  /** What the new instance was compared with: the other instances in the same window, or the log before the deploy. */
  against?: 'others' | 'before';
  before: number;
  after: number;
  limit: number;
  /** One line for people: what rose, by how much, against which limit. */
  text: string;
}

/** The 4xx a user notices most, counted apart. */
export interface FourxxBreakdown {
  '429': number;
  '401/403': number;
  '404': number;
  other: number;
}

/** Counts the 4xx statuses of a window by the kinds people tell apart. */
export function breakDown4xx(byStatus: Record<string, number>): FourxxBreakdown {
  const counts: FourxxBreakdown = { '429': 0, '401/403': 0, '404': 0, other: 0 };
  for (const [status, n] of Object.entries(byStatus)) {
    if (!status.startsWith('4')) continue;
    const kind =
      status === '429'
        ? '429'
        : status === '401' || status === '403'
          ? '401/403'
          : status === '404'
            ? '404'
            : 'other';
    counts[kind] += n;
  }
  return counts;
}

/** The 5xx answers among a window's statuses. */
export function count5xx(byStatus: Record<string, number>): number {
  return Object.entries(byStatus)
    .filter(([status]) => status.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);
}

const share4xx = (w: LogWindow) =>
  w.distribution.total === 0
    ? 0
    : Object.entries(w.distribution.byStatus)
        .filter(([status]) => status.startsWith('4'))
        .reduce((sum, [, n]) => sum + n, 0) / w.distribution.total;

const points = (share: number) => `${(share * 100).toFixed(1)}%`;

/**
 * The watch rule: the first gate whose limit the window after exceeds, comparing with the window
 * before the deploy, over at least `minRequests` requests (the end of a watch decides on any).
 */
export function judgeGates(
  before: LogWindow,
  after: LogWindow,
  limits: GateLimits,
  minRequests = 1,
): FiredGate | undefined {
  if (after.distribution.total < Math.max(1, minRequests)) return undefined;
  const b5 = before.distribution.share5xx;
  const a5 = after.distribution.share5xx;
  if (limits.max5xxIncrease !== null && a5 - b5 > limits.max5xxIncrease)
    return {
      gate: '5xx',
      before: b5,
      after: a5,
      limit: limits.max5xxIncrease,
      text: `the 5xx share rose from ${points(b5)} to ${points(a5)} (limit +${points(limits.max5xxIncrease)})`,
    };
  const b4 = share4xx(before);
  const a4 = share4xx(after);
  if (limits.max4xxIncrease !== null && a4 - b4 > limits.max4xxIncrease) {
    const kinds = breakDown4xx(after.distribution.byStatus);
    const shown = Object.entries(kinds)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${kind}×${n}`)
      .join(', ');
    return {
      gate: '4xx',
      before: b4,
      after: a4,
      limit: limits.max4xxIncrease,
      text: `the 4xx share rose from ${points(b4)} to ${points(a4)} (${shown}; limit +${points(limits.max4xxIncrease)})`,
    };
  }
  if (
    limits.maxP99Ratio !== null &&
    before.distribution.total >= P99_MIN_REQUESTS &&
    after.distribution.total >= P99_MIN_REQUESTS
  ) {
    const ratio = Math.max(after.p99Ms, P99_FLOOR_MS) / Math.max(before.p99Ms, P99_FLOOR_MS);
    if (ratio > limits.maxP99Ratio)
      return {
        gate: 'p99',
        before: before.p99Ms,
        after: after.p99Ms,
        limit: limits.maxP99Ratio,
        text: `p99 request time rose from ${before.p99Ms} ms to ${after.p99Ms} ms (${ratio.toFixed(2)}x; limit ${limits.maxP99Ratio}x)`,
      };
  }
  return undefined;
}

/**
 * The watch rule for one new instance: its own requests (`mine`). Its 5xx and 4xx shares are compared
 * with the other instances' over the same window when they answered at least PEER_MIN_REQUESTS (the
 * canary comparison: same time, same load, same database), else with the log before the deploy. Its
 * p99 is always compared with the log before the deploy: a process's first requests are slower than
 * its warm peers' (code still compiling), and over a short window the p99 of a few dozen requests is
 * their slowest one, so against the peers a healthy new process would read as slow.
 */
export function judgeNewInstance(
  before: LogWindow,
  mine: LogWindow,
  others: LogWindow,
  limits: GateLimits,
  minRequests = 1,
): FiredGate | undefined {
  const useOthers = others.distribution.total >= PEER_MIN_REQUESTS;
  const shares = judgeGates(useOthers ? others : before, mine, { ...limits, maxP99Ratio: null }, minRequests);
  const fired =
    shares ??
    judgeGates(before, mine, { ...limits, max5xxIncrease: null, max4xxIncrease: null }, minRequests);
  if (!fired) return undefined;
  const against = shares && useOthers ? 'others' : 'before';
  return {
    ...fired,
    against,
    text: `the new instance, against ${against === 'others' ? 'the other instances in the same window' : 'the log before the deploy'}: ${fired.text}`,
  };
}
