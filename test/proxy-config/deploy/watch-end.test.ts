import { describe, expect, it } from 'vitest';
import {
  judgesStatus,
  watchOutcome,
  watchProgress,
  watchUnseen,
  type WatchPoll,
} from '../../../proxy-config/core/deploy/watch-end.js';
import { EARLY_DECISION_REQUESTS } from '../../../proxy-config/core/deploy/status-watch.js';

/** A gated watch of 5 s from t=0, extended up to 60 s, needing 20 requests. */
const poll = (over: Partial<WatchPoll>): WatchPoll => ({
  now: 0,
  began: 0,
  deadline: 5_000,
  bound: 60_000,
  judged: true,
  answered: 0,
  minRequests: 20,
  interrupted: false,
  latencyCold: false,
  routesShort: false,
  latencyPending: false,
  ...over,
});

const progress = (over: Partial<WatchPoll>) => watchProgress(poll(over), '127.0.0.1:3002');

describe('when a deploy watch ends', () => {
  it('goes on past its wait while too few requests came, and ends at the bound: could not judge', () => {
    expect(progress({ now: 4_000, answered: 50 })).toEqual({
      done: false,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: EARLY_DECISION_REQUESTS,
    });
    expect(progress({ now: 5_000, answered: 20 })).toEqual({
      done: true,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: 1,
    });
    // Past its wait the countdown restarts from the bound: it says why.
    expect(progress({ now: 30_000, answered: 3 })).toEqual({
      done: false,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: EARLY_DECISION_REQUESTS,
      goesOn:
        'past its wait: 3 of the 20 requests it needs (deploy.minRequests); waiting for more, up to deploy.maxWatch',
    });
    expect(progress({ now: 60_000, answered: 3 })).toEqual({
      done: true,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: 1,
      notJudged:
        'could not judge the new instance 127.0.0.1:3002: 3 request(s) in 60 s, at least 20 needed (deploy.minRequests; waited up to deploy.maxWatch, 60 s)',
    });
  });

  it('with maxWatch below the watch, ends at the watch (the bound never shortens it)', () => {
    expect(progress({ now: 2_000, bound: 1_000, answered: 3 }).done).toBe(false);
    expect(progress({ now: 5_000, bound: 1_000, answered: 3 })).toMatchObject({
      done: true,
      notJudged: expect.stringContaining(
        '3 request(s) in 5 s, at least 20 needed (deploy.minRequests; waited up to deploy.maxWatch, 5 s)',
      ),
    });
  });

  it('past its wait with a cold new instance, goes on up to 3x the wait for the latency gate, never past the bound', () => {
    // Enough requests, but the latency gate cannot judge them yet: 15 s instead of 5.
    expect(progress({ now: 5_000, answered: 50, latencyCold: true })).toMatchObject({
      done: false,
      waitEnd: 15_000,
      goesOn:
        'past its wait: the latency gate cannot judge it yet (too few request times, or its latency still levelling off: warm-up); watching on, up to 3x its wait',
    });
    expect(progress({ now: 15_000, answered: 50, latencyCold: true })).toMatchObject({
      done: true,
      waitEnd: 15_000,
    });
    // Warm at 8 s: it ends there.
    expect(progress({ now: 8_000, answered: 50 })).toMatchObject({ done: true, waitEnd: 5_000 });
    // deploy.maxWatch of 10 s (the plan's "at most"): the extension stops there.
    expect(progress({ now: 9_000, answered: 50, bound: 10_000, latencyCold: true })).toMatchObject({
      done: false,
      waitEnd: 10_000,
    });
    expect(progress({ now: 10_000, answered: 50, bound: 10_000, latencyCold: true }).done).toBe(true);
    // A bound below the watch never shortens it, and gives no extension.
    expect(progress({ now: 5_000, answered: 50, bound: 1_000, latencyCold: true })).toMatchObject({
      done: true,
      waitEnd: 5_000,
    });
    // Before its wait, or on a watch that judges nothing (readiness-only, a confirm read), no extension.
    expect(progress({ now: 4_000, answered: 50, latencyCold: true }).waitEnd).toBe(5_000);
    expect(progress({ now: 5_000, judged: false, latencyCold: true })).toMatchObject({
      done: true,
      waitEnd: 5_000,
    });
  });

  it('past its wait with a warm instance whose route of a meaningful share lacks its slices, goes on up to the bound', () => {
    // From its own end on, it goes on for the route alone (the whole instance's slices stop there).
    expect(progress({ now: 5_000, answered: 400, routesShort: true })).toMatchObject({
      done: false,
      waitEnd: 60_000,
      routesOnly: true,
      goesOn:
        'past its wait: a route with a share of its requests has too few of them for its own latency slices; waiting for more, up to deploy.maxWatch',
    });
    // A cold instance first gets its own extension.
    expect(progress({ now: 5_000, answered: 400, routesShort: true, latencyCold: true })).toMatchObject({
      waitEnd: 15_000,
      routesOnly: false,
    });
    // The route got its slices at 24 s: it ends there.
    expect(progress({ now: 24_000, answered: 1_500 })).toMatchObject({ done: true, waitEnd: 5_000 });
    // Still short at the bound: it ends, with enough requests nothing "could not judge" (the route is named in `unseen`).
    expect(progress({ now: 60_000, answered: 4_000, routesShort: true })).toEqual({
      done: true,
      waitEnd: 60_000,
      routesOnly: true,
      minimum: 1,
    });
    // Not before its wait, never on a watch that judges nothing, and never past a bound below the watch.
    expect(progress({ now: 4_000, answered: 400, routesShort: true }).waitEnd).toBe(5_000);
    expect(progress({ now: 5_000, judged: false, routesShort: true }).done).toBe(true);
    expect(progress({ now: 5_000, answered: 400, bound: 1_000, routesShort: true }).done).toBe(true);
  });

  it('past its wait, slower than its peers with its verdict pending, goes on up to the bound', () => {
    expect(progress({ now: 5_000, answered: 400, latencyPending: true })).toMatchObject({
      done: false,
      waitEnd: 60_000,
      routesOnly: false,
      goesOn:
        "past its wait: slower than its warm peers; watching on until it is as fast as they in 3 slices in a row and, where the old release's own start is recorded, not slower than that at the same age; rolled back if the watch reaches deploy.maxWatch first",
    });
    // Not pending any more (compared: slower, or vetoed): it ends at its own wait.
    expect(progress({ now: 6_000, answered: 500 })).toMatchObject({ done: true, waitEnd: 5_000 });
    // Still pending at the bound: it ends there (and settleOwnStart judges it on what it saw).
    expect(progress({ now: 60_000, answered: 4_000, latencyPending: true })).toMatchObject({
      done: true,
      waitEnd: 60_000,
    });
  });

  it('interrupted, ends at once and calls nothing "not judged": the deploy stops anyway', () => {
    expect(progress({ now: 1_000, answered: 2, interrupted: true })).toEqual({
      done: true,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: 1,
    });
  });

  it('a readiness-only watch (or a confirm read) needs no requests', () => {
    expect(progress({ now: 5_000, judged: false })).toEqual({
      done: true,
      waitEnd: 5_000,
      routesOnly: false,
      minimum: 1,
    });
  });
});

describe('how a watched round ends', () => {
  const notJudged = 'could not judge the new instance 127.0.0.1:3002: 3 request(s)';
  it('rolls back and stops on "could not judge"; a rollback keeps the round and says so', () => {
    expect(watchOutcome({ notJudged, keepNotJudged: false })).toEqual({
      kind: 'failed',
      reason: notJudged,
      stops: true,
      notJudged: true,
    });
    expect(watchOutcome({ notJudged, keepNotJudged: true })).toEqual({
      kind: 'kept-not-judged',
      reason: notJudged,
    });
    expect(watchOutcome({ keepNotJudged: true })).toEqual({ kind: 'ok' });
  });

  it('a gate firing below minRequests fails the round, even on a rollback: it saw a regression', () => {
    const gate = '5xx of the new instance 3 of 3';
    for (const keepNotJudged of [false, true])
      expect(watchOutcome({ gate, notJudged, keepNotJudged })).toEqual({
        kind: 'failed',
        reason: gate,
        stops: false,
        notJudged: false,
      });
    expect(watchOutcome({ broken: 'exited', gate, keepNotJudged: true })).toMatchObject({ reason: 'exited' });
  });

  it('names what the verdict could not judge, beside the plan’s list', () => {
    const base = {
      planned: ['not read'],
      readinessOnly: false,
      separated: true,
      total: 3,
      latencyGate: true,
      gateFired: false,
    };
    expect(watchUnseen({ ...base, notJudgedAnswered: 3 })).toEqual([
      'not read',
      'status codes and latency not judged: 3 request(s) of the new instance',
    ]);
    const cold = 'still warming up: its latency has not levelled off in 3 slices';
    expect(watchUnseen({ ...base, latencyNotJudged: cold })).toEqual([
      'not read',
      `latency not judged: ${cold}`,
    ]);
    expect(watchUnseen({ ...base, latencyNotJudged: cold, latencyGate: false })).toEqual(['not read']);
    const post = 'POST /orders: 75 requests, fewer than 2 warm slices of 50: not judged';
    expect(watchUnseen({ ...base, routesNotJudged: [post] })).toEqual(['not read', `latency of ${post}`]);
    expect(watchUnseen({ ...base, routesNotJudged: [post], gateFired: true })).toEqual(['not read']);
    expect(watchUnseen({ ...base, gateFired: true, notJudgedAnswered: 3 })).toEqual(['not read']);
    expect(watchUnseen({ ...base, separated: false })).toContain(
      "the log names no instance: the new process's requests are not told from the old one's (the whole window is read as its own)",
    );
  });
});

describe('which watch judges status codes and request times', () => {
  it('the watch step of a gated deploy only: the confirm-idle read after remove checks no gate', () => {
    expect(judgesStatus('watch', false)).toBe(true);
    expect(judgesStatus('watch', true)).toBe(false);
    expect(judgesStatus('confirm-idle', false)).toBe(false);
  });
});
