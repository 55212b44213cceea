import type { DeployEvent } from './deploy-events.js';
import type { LatencyEvidence } from './latency-verdict.js';
import type { LogWindow } from './log-window.js';
import type { FivexxEvidence } from './fivexx-gate.js';
import type { WatchMode } from './watch-sight.js';
import { breakDown4xx, count5xx, type FiredGate } from './watch-gates.js';

/** The new instance's own requests in a watch window, as the gates judged them. */
export interface NewInstanceShare {
  address: string;
  /** The name it logs, when it is told apart by name (behind a slot). */
  instance?: string;
  mine: LogWindow;
  /** False when the log names no instance, so `mine` is the whole window. */
  separated: boolean;
}

/**
 * The `status` event a watch ends with, the same on both deploy paths: the whole window against the
 * log before the deploy, the new instance's own share when there is one, and the gate that fired.
 */
export function watchStatusEvent(input: {
  step: number;
  before: LogWindow;
  window: LogWindow;
  failed: boolean;
  newInstance?: NewInstanceShare;
  gate?: FiredGate;
  fivexx?: FivexxEvidence;
  /** How the watch judged, and what it could not see. */
  mode?: WatchMode;
  unseen?: string[];
  /** The watch ended with too few of the new instance's requests to judge. */
  notJudged?: boolean;
  /** The latency gate's slices and warm-up, fired or not (absent with the gate off). */
  latency?: LatencyEvidence;
  /** Why a failed watch failed (an exit, readiness, 502s, the gate, could not judge). */
  reason?: string;
}): Extract<DeployEvent, { type: 'status' }> {
  const { before, window, newInstance: share, gate } = input;
  return {
    type: 'status',
    step: input.step,
    before: before.distribution,
    after: window.distribution,
    verdict: {
      verdict: input.notJudged ? 'not-judged' : input.failed ? 'regressed' : 'ok',
      increase: input.fivexx
        ? input.fivexx.mine.share - input.fivexx.comparison.share
        : window.distribution.share5xx - before.distribution.share5xx,
    },
    ...(input.failed && input.reason !== undefined ? { reason: input.reason } : {}),
    ...(share
      ? {
          newInstance: {
            address: share.address,
            ...(share.instance === undefined ? {} : { instance: share.instance }),
            total: share.mine.distribution.total,
            fivexx: count5xx(share.mine.distribution.byStatus),
            fourxx: breakDown4xx(share.mine.distribution.byStatus),
            p99Ms: share.mine.p99Ms,
            separated: share.separated,
          },
        }
      : {}),
    p99Ms: { ...p99(before, 'before'), ...p99(window, 'after') },
    fourxx: breakDown4xx(window.distribution.byStatus),
    ...(gate ? { gate } : {}),
    ...(input.fivexx ? { fivexx: input.fivexx } : {}),
    ...(input.mode ? { watch: input.mode } : {}),
    unseen: input.unseen ?? [],
    ...(input.latency ? { latency: input.latency } : {}),
  };
}

/**
 * A window's p99 under `side`, when it logged a request time at all (0 ms would say a request took
 * none). p99Ms counts every answer, latencyMs only those the latency gate compares (no 5xx), so a
 * window of fast 500s still shows its p99 when it is above 0.
 */
function p99(window: LogWindow, side: 'before' | 'after'): { before?: number; after?: number } {
  return window.latencyMs.length === 0 && window.p99Ms === 0 ? {} : { [side]: window.p99Ms };
}
