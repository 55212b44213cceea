import type { StatusDistribution } from '../apply/status-distribution.js';
import type { LatencyEvidence } from './latency-verdict.js';
import type { DeployPlan, DeployStep } from './plan-deploy.js';
import type { StatusVerdict } from './status-watch.js';
import type { FivexxEvidence } from './fivexx-gate.js';
import type { FiredGate, FourxxBreakdown } from './watch-gates.js';
import type { WatchMode } from './watch-sight.js';

/** What a deploy reports as it goes; `--json` prints each as one line, with `ts` (epoch ms) added. */
export type DeployEvent =
  /** `refused`: why nothing started (the checks before the first step), as `deploy plan --json` says it. */
  | { type: 'plan'; plan: DeployPlan; refused?: string }
  /** `host`: the ssh host of the round's instance, in a deploy across hosts. */
  | { type: 'step-start'; step: DeployStep; host?: string }
  | {
      type: 'countdown';
      step: number;
      remainingMs: number;
      /** Why the watch goes on past its wait (WatchProgress.goesOn): on the first tick of each reason. */
      goesOn?: string;
    }
  | { type: 'step-done'; step: DeployStep; ms: number; outcome: string; host?: string }
  | {
      type: 'status';
      step: number;
      before: StatusDistribution;
      after: StatusDistribution;
      verdict: StatusVerdict;
      /**
       * What the new instance answered in the window (the gates judge these): found by the name it
       * logs (`instance`, behind a slot) or by its address; `separated` false when the log names no
       * instance, so these are the whole window's.
       */
      newInstance?: {
        address: string;
        instance?: string;
        total: number;
        fivexx: number;
        fourxx: FourxxBreakdown;
        p99Ms: number;
        separated: boolean;
      };
      /** p99 request time before and in the window (ms); a side without a timed request has none. */
      p99Ms?: { before?: number; after?: number };
      /** What the 5xx gate weighed for the new instance, fired or not. */
      fivexx?: FivexxEvidence;
      /** The window's 4xx by kind. */
      fourxx?: FourxxBreakdown;
      /** The gate that fired, when one did (the watch then rolled the round back). */
      gate?: FiredGate;
      /** Why the watch failed, when it did: an exit, failed readiness, 502s, the gate, too few requests. */
      reason?: string;
      /** `readiness-only`: the status codes and request times were not judged. */
      watch?: WatchMode;
      /** What the watch could not see (empty when it saw everything it judges). */
      unseen?: string[];
      /** What the latency gate saw of the new instance: samples, warm-up cut, slices, limits, verdict. */
      latency?: LatencyEvidence;
    }
  /** `computedMs`: the drain wait told to proxyops' own child; absent when a stop hook stops it its own way. */
  | { type: 'drain'; step: number; address: string; computedMs?: number; measuredMs: number | null }
  /** `host`: the host whose failure ended it (an nginx or app host), `kind` the step it was at. */
  | { type: 'abort'; step: number; reason: string; rolledBack: boolean; kind?: string; host?: string }
  /** `not-judged`: stopped because a watch could not judge the new instance (exit 1, as `aborted`). */
  | { type: 'done'; outcome: 'deployed' | 'aborted' | 'not-judged'; ms: number; instances: string[] };
