import { formatWait } from './drain-timing.js';
import type { DeployStepKind } from './plan-deploy.js';
import { EARLY_DECISION_REQUESTS } from './status-watch.js';

/** Where a watch stands at one poll: times in epoch ms, and what the new instance has answered. */
export interface WatchPoll {
  now: number;
  began: number;
  /** End of the step's wait (deploy.watch, + the flush). */
  deadline: number;
  /** End of its extension while too few requests came (deploy.maxWatch); never before `deadline`. */
  bound: number;
  /** A gated watch step (a readiness-only watch, or a confirm read, needs no requests). */
  judged: boolean;
  answered: number;
  minRequests: number;
  interrupted: boolean;
  /** The latency gate has request times of the new instance but cannot judge them yet (not warm, too few for its slices). */
  latencyCold: boolean;
  /**
   * A route with a meaningful share of the new instance's warm requests has too few of them yet for
   * the latency gate's slices of that route (routesShort in core/deploy/route-slices.ts).
   */
  routesShort: boolean;
  /**
   * Slower than its peers, waiting for enough of its slices to compare with the old release's own
   * start, or as slow as that start (or with no record of it) and waiting to be as fast as its
   * peers (withOwnStart).
   */
  latencyPending: boolean;
}

/** A watch whose new instance serves but is not warm yet goes on, up to this many times its wait, for the latency gate. */
export const LATENCY_WATCH_EXTENSION = 3;

/**
 * Whether a watch judges the new instance's status codes and request times: only the watch step of
 * a gated deploy. The confirm-idle read after `remove` sees a handful of the new instance's requests
 * (one 404 of 3 would fire the 4xx gate): it checks the old address, an exit and 502s, no gate.
 */
export const judgesStatus = (kind: DeployStepKind, readinessOnly: boolean): boolean =>
  kind === 'watch' && !readinessOnly;

/** Whether the watch ends at this poll, how many requests a gate needs now, and what it could not judge. */
export interface WatchProgress {
  done: boolean;
  /** End of the wait at this poll: the deadline, or its cold-start extension (see watchProgress). */
  waitEnd: number;
  /** Requests of the new instance a gate needs to fire at this poll: any number once the watch ends. */
  minimum: number;
  /**
   * Past the end it would have had without a route short of its slices: from here the watch goes on
   * for that route alone (the whole instance's slices stop where they were: LatencyEvidence.wholeUpTo).
   */
  routesOnly: boolean;
  /** Set when it ends with fewer than minRequests (past the bound, not interrupted): the reason. */
  notJudged?: string;
  /**
   * Past the step's own wait and still going: why, for the countdown, whose time left then restarts
   * from a later end (the warm-up extension, or deploy.maxWatch).
   */
  goesOn?: string;
}

/**
 * A gated watch calls the new instance good only on at least minRequests of its own requests: past
 * its wait with fewer, it goes on up to the bound, and ends there "could not judge". The latency gate
 * judges a warm process: past its wait while the new instance is still cold, a gated watch goes on up
 * to LATENCY_WATCH_EXTENSION times its wait, never past the bound (deploy.maxWatch, the plan's "at
 * most"). A warm instance with a route short of its own slices (a route of 10 % of the requests
 * fills two slices of 50 in 1 000 of them) goes on up to the bound: too little traffic to judge a
 * route the users use is what the bound is for, as for too few requests at all; so does one slower
 * than its peers while its verdict is pending (settled then on what it saw). An
 * interrupt ends it at once, judged on what it saw (the deploy stops anyway).
 */
export function watchProgress(poll: WatchPoll, describe: string): WatchProgress {
  const enough = !poll.judged || poll.answered >= poll.minRequests;
  const boundEnd = Math.max(poll.bound, poll.deadline);
  const past = poll.judged && poll.now >= poll.deadline;
  const extended = poll.began + (poll.deadline - poll.began) * LATENCY_WATCH_EXTENSION;
  const ownEnd =
    past && poll.latencyCold ? Math.max(poll.deadline, Math.min(extended, boundEnd)) : poll.deadline;
  const routesOnly = past && poll.routesShort && !poll.latencyCold;
  const pending = past && poll.latencyPending;
  const waitEnd = routesOnly || pending ? boundEnd : ownEnd;
  const pastWait = poll.now >= waitEnd;
  const pastBound = poll.now >= boundEnd;
  const done = (pastWait && (enough || pastBound)) || poll.interrupted;
  const goesOn =
    done || !past
      ? undefined
      : !pastWait
        ? pending
          ? "past its wait: slower than its warm peers; watching on until it is as fast as they in 3 slices in a row and, where the old release's own start is recorded, not slower than that at the same age; rolled back if the watch reaches deploy.maxWatch first"
          : routesOnly
            ? 'past its wait: a route with a share of its requests has too few of them for its own latency slices; waiting for more, up to deploy.maxWatch'
            : `past its wait: the latency gate cannot judge it yet (too few request times, or its latency still levelling off: warm-up); watching on, up to ${LATENCY_WATCH_EXTENSION}x its wait`
        : `past its wait: ${poll.answered} of the ${poll.minRequests} requests it needs (deploy.minRequests); waiting for more, up to deploy.maxWatch`;
  return {
    done,
    waitEnd,
    routesOnly,
    ...(goesOn === undefined ? {} : { goesOn }),
    minimum: done ? 1 : EARLY_DECISION_REQUESTS,
    ...(done && !enough && !poll.interrupted
      ? {
          notJudged: `could not judge the new instance ${describe}: ${poll.answered} request(s) in ${formatWait(poll.now - poll.began)}, at least ${poll.minRequests} needed (deploy.minRequests; waited up to deploy.maxWatch, ${formatWait(boundEnd - poll.began)})`,
        }
      : {}),
  };
}

/** What the watch saw go wrong at its end, strongest first (exit, readiness, 502, the gate that fired). */
export interface WatchFindings {
  /** Exit, failed readiness, 502s naming it: each fails the round in any mode. */
  broken?: string;
  /** The text of the gate that fired, judged on however few requests there were. */
  gate?: string;
  notJudged?: string;
  /** `deploy rollback`: the operator chose the known-good release; not judging it does not undo it. */
  keepNotJudged: boolean;
}

/**
 * How the round ends. A round the watch could not judge is rolled back and the deploy stops (the
 * next round would fail the same way), except on a rollback, which keeps it and says what it could
 * not judge: during an incident traffic is low, and undoing it would reinstall the release being
 * removed. A gate that fired on fewer than minRequests still fails the round: it saw a regression.
 */
export type WatchOutcome =
  | { kind: 'ok' }
  | { kind: 'kept-not-judged'; reason: string }
  | { kind: 'failed'; reason: string; stops: boolean; notJudged: boolean };

export function watchOutcome(findings: WatchFindings): WatchOutcome {
  const failure = findings.broken ?? findings.gate;
  if (failure) return { kind: 'failed', reason: failure, stops: false, notJudged: false };
  if (!findings.notJudged) return { kind: 'ok' };
  if (findings.keepNotJudged) return { kind: 'kept-not-judged', reason: findings.notJudged };
  return { kind: 'failed', reason: findings.notJudged, stops: true, notJudged: true };
}

/** What one watch's verdict says it could not see, beside the plan's (`planned`). */
export interface UnseenInput {
  planned: readonly string[];
  readinessOnly: boolean;
  /** The log names the instance that answered each request. */
  separated: boolean;
  /** Requests in the whole window. */
  total: number;
  latencyGate: boolean;
  gateFired: boolean;
  /** Why the latency gate could not judge the new instance, when it could not (its evidence's note). */
  latencyNotJudged?: string;
  /** The routes with a meaningful share that the latency gate could not judge on their own (their notes). */
  routesNotJudged?: readonly string[];
  /** Requests of the new instance, when the watch ended without enough of them. */
  notJudgedAnswered?: number;
}

export function watchUnseen(input: UnseenInput): string[] {
  const notJudged = input.notJudgedAnswered !== undefined;
  return [
    ...input.planned,
    ...(input.separated || input.readinessOnly || input.total === 0
      ? []
      : [
          "the log names no instance: the new process's requests are not told from the old one's (the whole window is read as its own)",
        ]),
    ...(input.readinessOnly ||
    notJudged ||
    !input.latencyGate ||
    input.gateFired ||
    input.latencyNotJudged === undefined
      ? []
      : [`latency not judged: ${input.latencyNotJudged}`]),
    ...(input.readinessOnly || notJudged || input.gateFired
      ? []
      : (input.routesNotJudged ?? []).map((note) => `latency of ${note}`)),
    ...(notJudged && !input.gateFired
      ? [`status codes and latency not judged: ${input.notJudgedAnswered} request(s) of the new instance`]
      : []),
  ];
}
