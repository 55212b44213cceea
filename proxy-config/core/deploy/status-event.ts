import type { DeployEvent } from './deploy-events.js';
import type { LatencyEvidence } from './latency-verdict.js';
import type { LogWindow } from './log-window.js';
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
  /** The latency gate's slices and warm-up, fired or not (absent with the gate off). */
  latency?: LatencyEvidence;
}): Extract<DeployEvent, { type: 'status' }> {
  const { before, window, newInstance: share, gate } = input;
  return {
    type: 'status',
    step: input.step,
    before: before.distribution,
    after: window.distribution,
    verdict: {
      verdict: input.failed ? 'regressed' : 'ok',
      increase: window.distribution.share5xx - before.distribution.share5xx,
    },
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
    p99Ms: { before: before.p99Ms, after: window.p99Ms },
    fourxx: breakDown4xx(window.distribution.byStatus),
    ...(gate ? { gate } : {}),
    ...(input.latency ? { latency: input.latency } : {}),
  };
}
