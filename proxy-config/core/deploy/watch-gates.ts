import { describe5xx, judge5xx, type FivexxEvidence } from './fivexx-gate.js';
import { describeSlower, firedSlices, judgeLatencySlices, type LatencyEvidence } from './latency-verdict.js';
import type { LogWindow } from './log-window.js';
import {
  describeOwnStart,
  describeWithoutRecord,
  settleOwnStart,
  withOwnStart,
  type RecordedStart,
} from './own-start.js';

/** The limits a watch holds the new version to; null turns a gate into a report only. */
export interface GateLimits {
  /** Largest significant rise of the 5xx share over the comparison's (0.01 = 1 point); the spec's deploy.max5xxIncrease (see judge5xx). */
  max5xxIncrease: number | null;
  /** The 5xx floor: a share above this fails whatever the comparison; the spec's deploy.max5xxShare. */
  max5xxShare: number | null;
  /** Largest rise of the 4xx share (429, 401/403, 404 and the rest). */
  max4xxIncrease: number | null;
  /**
   * Largest median request time as a multiple of the comparison's, once a Mann–Whitney U test says
   * the new instance is slower at all (the spec and flag keep their first name, `--max-p99-ratio`).
   */
  maxP99Ratio: number | null;
}

/** Defaults of the gates the spec does not set: a version that answers 4xx to 5 % more requests, or is 2.5 times as slow, is rolled back. */
export const DEFAULT_GATES = { max4xxIncrease: 0.05, maxP99Ratio: 2.5 } as const;

/** The other instances must have answered this many requests in the window to stand in for "before". */
export const PEER_MIN_REQUESTS = 20;

/** Which gate fired, with the numbers that made it fire. */
export interface FiredGate {
  gate: '5xx' | '4xx' | 'latency';
  /** What the new instance was compared with: the other instances in the same window, or the log before the deploy. */
  against?: 'others' | 'before';
  before: number;
  after: number;
  limit: number;
  /** The latency gate's one-sided Mann–Whitney p-value (the largest of the slices that fired it); the 5xx gate's p of the test that fired. */
  p?: number;
  /** The 5xx gate's numbers: both sides, both tests, the limit and the floor. */
  fivexx?: FivexxEvidence;
  /** The latency gate's slices, warm-up cut and limits. */
  latency?: LatencyEvidence;
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

/** A window's requests and 5xx, as the 5xx gate counts them. */
const counts5xx = (w: LogWindow) => ({
  requests: w.distribution.total,
  fivexx: count5xx(w.distribution.byStatus),
});

const share4xx = (w: LogWindow) =>
  w.distribution.total === 0
    ? 0
    : Object.entries(w.distribution.byStatus)
        .filter(([status]) => status.startsWith('4'))
        .reduce((sum, [, n]) => sum + n, 0) / w.distribution.total;

const points = (share: number) => `${(share * 100).toFixed(1)}%`;

/**
 * The 4xx gate: the new instance's 4xx share (`mine`) against the comparison's, over at least
 * `minRequests` requests (the end of a watch decides on any).
 */
export function judge4xx(
  comparison: LogWindow,
  mine: LogWindow,
  limit: number | null,
  minRequests = 1,
): FiredGate | undefined {
  if (limit === null || mine.distribution.total < Math.max(1, minRequests)) return undefined;
  const b4 = share4xx(comparison);
  const a4 = share4xx(mine);
  if (a4 - b4 <= limit) return undefined;
  const shown = Object.entries(breakDown4xx(mine.distribution.byStatus))
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind}×${n}`)
    .join(', ');
  return {
    gate: '4xx',
    before: b4,
    after: a4,
    limit,
    text: `the 4xx share rose from ${points(b4)} to ${points(a4)} (${shown}; limit +${points(limit)})`,
  };
}

const timed = (w: LogWindow | undefined) => ({
  ms: w?.latencyMs ?? [],
  lines: w?.latencyLines ?? [],
  routes: w?.latencyRoutes ?? [],
});

/** The fired latency gate of a verdict that found the new instance slower, against what its fired slices were compared with. */
function latencyGate(evidence: LatencyEvidence): FiredGate | undefined {
  if (evidence.verdict !== 'slower') return undefined;
  const fired = firedSlices(evidence);
  const last = fired.at(-1)!;
  return {
    gate: 'latency',
    against: last.against,
    before: last.medians.against,
    after: last.medians.mine,
    limit: evidence.rule.maxRatio,
    p: Math.max(...fired.map((s) => s.p)),
    latency: evidence,
    text: [
      describeSlower(evidence),
      evidence.ownStart && describeOwnStart(evidence.ownStart),
      describeWithoutRecord(evidence),
    ]
      .filter(Boolean)
      .join('; '),
  };
}

/**
 * The latency verdict of a new instance's request times against its peers' (or the log before),
 * for the watch's report; one that finds it slower stands only if it is also slower than the old
 * release's own start (`start`, recorded by the last deploy that went through; withOwnStart).
 */
export function latencyEvidence(
  before: LogWindow,
  mine: LogWindow,
  others: LogWindow,
  maxRatio: number,
  /** Where the slices of all its requests stop (judgeLatencySlices): set once the watch goes on for a route only. */
  wholeUpTo?: number,
  start?: RecordedStart,
): LatencyEvidence {
  const own = timed(mine);
  const peers = judgeLatencySlices(
    timed(before),
    own,
    timed(others),
    maxRatio,
    undefined,
    wholeUpTo ?? own.ms.length,
  );
  return withOwnStart(peers, own, start);
}

/**
 * The 4xx and latency gates for one new instance: its own requests (`mine`). Its 4xx share is compared
 * with the other instances' over the same window when they answered at least PEER_MIN_REQUESTS (the
 * canary comparison: same time, same load, same database), else with the log before the deploy. Its
 * request times are judged slice by slice once it is warm (judgeLatencySlices), each slice against
 * the other instances' over the same stretch of log, else the log before the deploy. The 5xx gate is
 * newInstance5xx's: it leaves out the instances this deploy already replaced.
 */
export function judgeNewInstance(
  before: LogWindow,
  mine: LogWindow,
  others: LogWindow,
  limits: GateLimits,
  minRequests = 1,
  // The watch's latencyEvidence of this poll, computed once for its report and this verdict; by
  // default the windows' as at the end of a watch.
  latency = limits.maxP99Ratio === null
    ? undefined
    : settleOwnStart(latencyEvidence(before, mine, others, limits.maxP99Ratio)),
): FiredGate | undefined {
  const useOthers = others.distribution.total >= PEER_MIN_REQUESTS;
  const fourxx = judge4xx(useOthers ? others : before, mine, limits.max4xxIncrease, minRequests);
  const shares = fourxx && { ...fourxx, against: useOthers ? ('others' as const) : ('before' as const) };
  const fired = shares ?? (latency && latencyGate(latency));
  if (!fired) return undefined;
  return {
    ...fired,
    text: `the new instance, against ${fired.against === 'others' ? 'the other instances in the same window' : 'the log before the deploy'}: ${fired.text}`,
  };
}

/**
 * The 5xx gate for the new instance, fired or not (fivexxFired turns it into a rollback; the status
 * event shows its numbers, so an "ok" says what it was made of). `oldRelease` is the other instances'
 * window without those this deploy already replaced: they run the same release, and a bad one would
 * excuse the next (failing as much, it is no worse). With fewer than PEER_MIN_REQUESTS there, the
 * comparison is the log before the deploy.
 */
export function newInstance5xx(
  before: LogWindow,
  mine: LogWindow,
  oldRelease: LogWindow,
  limits: GateLimits,
  minRequests = 1,
): FivexxEvidence {
  const useOthers = oldRelease.distribution.total >= PEER_MIN_REQUESTS;
  return judge5xx(
    counts5xx(mine),
    counts5xx(useOthers ? oldRelease : before),
    useOthers ? 'others' : 'before',
    limits,
    minRequests,
  );
}

/** The 5xx gate as a fired gate, when its verdict rolls back (a rise, or above the floor), naming its comparison. */
export function fivexxFired(e: FivexxEvidence): FiredGate | undefined {
  if (e.verdict !== 'rise' && e.verdict !== 'floor') return undefined;
  return {
    gate: '5xx',
    against: e.against,
    before: e.comparison.share,
    after: e.mine.share,
    limit: e.verdict === 'rise' ? e.limit! : e.floor!,
    p: e.verdict === 'rise' ? e.p : e.pFloor,
    fivexx: e,
    text: describe5xx(e),
  };
}
