import { judgeEffect, type EffectRule } from './effect-size.js';
import type { OwnStartEvidence } from './own-start.js';
import {
  judgeRoutes,
  routesShort,
  type JudgedSlice,
  type RouteEvidence,
  type RouteRule,
} from './route-slices.js';
import {
  firstWarmSlice,
  sameStretches,
  sliceRequests,
  type RequestSlice,
  type RoutedSample,
  type TimedSample,
} from './warm-up.js';

export type { JudgedSlice, RouteEvidence } from './route-slices.js';

/** The whole latency rule: when the new instance is warm, what counts as slower, and for how long. */
export interface LatencyRule extends RouteRule, Omit<EffectRule, 'maxRatio'> {}

/**
 * Defaults from `bench:gates` and the busy-core deploy test: with one core of two kept busy, a new
 * process of an unchanged version answered its requests 101 to 260 at 26 ms against its warm peers'
 * 4 ms (2.6x the 10 ms floor) and was rolled back 4 times of 4 by a fixed warm-up of 100 requests.
 */
export const DEFAULT_LATENCY_RULE: LatencyRule = {
  minWarmupRequests: 100,
  sliceRequests: 50,
  levelRatio: 1.25,
  consecutive: 2,
  alpha: 0.001,
  medianFloorMs: 10,
  minEffectMs: 40,
  minPeerRequests: 20,
  minRouteShare: 0.05,
};

/** Everything the latency verdict rests on, for the status event and the fired gate's text. */
export interface LatencyEvidence {
  /**
   * Slower as a whole or on one route; not judged while the whole instance cannot be judged, or
   * while the verdict is `pending`. `not slower` also where it was slower than its peers but not
   * than the old release's own start, and then as fast as they (`ownStart`), or, with no record of
   * that start, then as fast as they (`withoutRecord: 'warm'`); `fired` or `firedRoute` then say
   * what the peers found.
   */
  verdict: 'slower' | 'not slower' | 'not judged';
  /** Why it could not judge, when it could not. */
  note?: string;
  /** Request times: the new instance's, the other instances' in the window, the log's before the deploy. */
  samples: { mine: number; others: number; before: number };
  /** The new instance's first requests left out as its warm-up (all of them while it never levelled off). */
  warmupCut: number;
  /** Slices of all its requests (of its first `wholeUpTo`, when set). */
  slices: JudgedSlice[];
  /**
   * Where the slices of all its requests stopped: the watch went on past its own end only for a route
   * short of its slices, and judges that route alone from there (see judgeLatencySlices).
   */
  wholeUpTo?: number;
  /** The slices that fired the gate (1-based), when the whole instance's did. */
  fired?: number[];
  /** Each route after the warm-up, judged on slices of its own requests (none where the log names fewer than two). */
  routes: RouteEvidence[];
  /** The route whose slices fired the gate, when the whole instance's did not. */
  firedRoute?: string;
  rule: LatencyRule & { maxRatio: number };
  /** Where it was slower than its peers and a record exists: against the old release's own start (withOwnStart). */
  ownStart?: OwnStartEvidence;
  /**
   * Where it was slower than its peers and no record of the old release's own start exists (a first
   * deploy), or one that cannot be compared with and it was slower from its first judged slice
   * (`ownStart` then says why): `waiting` to be as fast as they, `warm` once it was (not rolled
   * back), `never warm` when the watch ended first (rolled back). See withOwnStart.
   */
  withoutRecord?: 'waiting' | 'warm' | 'never warm';
  /**
   * Slower than its peers, and too few of its slices yet to compare with the old release's own
   * start, or not slower than that start (or with no record of it) but not yet as fast as its peers
   * (`ownStart.unconverged`, `withoutRecord`): `not judged` while the watch goes on (to
   * deploy.maxWatch); settleOwnStart decides if it ends so.
   */
  pending?: true;
}

/**
 * Judges the new instance's request times (`mine`) slice by slice against the other instances' over
 * each slice's stretch of log, or the log before the deploy where they answered too few there. It is
 * slower when `consecutive` warm slices in a row are slower by the effect rule (judgeEffect); the
 * warm-up ends where its latency relative to the comparison levels off (firstWarmSlice), so a cold
 * process on a busy core is judged once it is warm, and a release slow from its first request at
 * once. Where the log tells routes apart, each route is then judged on slices of its own requests
 * after that warm-up (judgeRoutes): a release slower on one route hides behind the others in the
 * slices as a whole. `before` is the log before the deploy, with its routes where it has them.
 * `wholeUpTo` stops the slices of all requests there: a watch that goes on only for a route short of
 * its slices (to deploy.maxWatch) would otherwise give the whole-instance rule ten times as many
 * looks at a process on a busy core (the busy-core deploy test: 2 slower slices in a row among its
 * slices 9 and 10 of an unchanged release, the watch having gone on for POST /orders).
 */
export function judgeLatencySlices(
  before: readonly number[] | RoutedSample,
  mine: TimedSample,
  others: TimedSample,
  maxRatio: number,
  rule: LatencyRule = DEFAULT_LATENCY_RULE,
  wholeUpTo = mine.ms.length,
): LatencyEvidence {
  const effect = { ...rule, maxRatio };
  const baseline: RoutedSample = isSample(before) ? before : { ms: before };
  const whole = { ms: mine.ms.slice(0, wholeUpTo), lines: mine.lines.slice(0, wholeUpTo) };
  const cuts = sliceRequests(whole.ms.length, rule);
  const stretches = sameStretches(whole, cuts, others);
  const verdicts = cuts.map((slice, k) => {
    const stretch = stretches[k]!;
    const against = stretch.to - stretch.from >= rule.minPeerRequests ? 'others' : 'before';
    const side = against === 'others' ? cut(others, stretch) : baseline.ms;
    return {
      requests: [slice.from + 1, slice.to] as [number, number],
      against,
      ...judgeEffect(cut(whole, slice), side, effect),
    } as const;
  });
  const warmAt = firstWarmSlice(
    verdicts.map((v) => v.ratio),
    rule,
  );
  const slices = verdicts.map((v, i) => ({ ...v, judged: warmAt !== undefined && i >= warmAt }));
  const warmupCut = warmAt === undefined ? whole.ms.length : warmAt * rule.sliceRequests;
  const base = {
    samples: { mine: mine.ms.length, others: others.ms.length, before: baseline.ms.length },
    warmupCut,
    slices,
    ...(wholeUpTo < mine.ms.length ? { wholeUpTo } : {}),
    routes: [] as RouteEvidence[],
    rule: effect,
  };
  if (baseline.ms.length < rule.minPeerRequests && others.ms.length < rule.minPeerRequests)
    return { ...base, verdict: 'not judged', note: 'no request times to compare with' };
  const needed = requestTimesNeeded(rule);
  const tooFew = `${whole.ms.length} request times, ${needed} needed`;
  if (warmAt === undefined)
    return {
      ...base,
      verdict: 'not judged',
      note:
        whole.ms.length < needed ? tooFew : 'its latency was still falling slice after slice (not warm yet)',
    };
  const routes = judgeRoutes(mine, others, baseline, warmupCut, effect, rule);
  const routed = { ...base, routes };
  let run = 0;
  for (let i = warmAt; i < slices.length; i++) {
    run = slices[i]!.slower ? run + 1 : 0;
    if (run === rule.consecutive)
      return {
        ...routed,
        verdict: 'slower',
        fired: Array.from({ length: run }, (_, k) => i - run + k + 2),
      };
  }
  const slowRoute = routes.find((r) => r.verdict === 'slower');
  if (slowRoute) return { ...routed, verdict: 'slower', firedRoute: slowRoute.route };
  const judged = slices.length - warmAt;
  if (judged >= rule.consecutive) return { ...routed, verdict: 'not slower' };
  const note = whole.ms.length < needed ? tooFew : `${judged} warm slice(s), ${rule.consecutive} needed`;
  return { ...routed, verdict: 'not judged', note };
}

const isSample = (b: readonly number[] | RoutedSample): b is RoutedSample => !Array.isArray(b);

const cut = (sample: RoutedSample, slice: RequestSlice) => sample.ms.slice(slice.from, slice.to);

/**
 * What keeps a watch going for the latency gate: the new instance not judged yet (cold, or too few
 * requests), slower than its peers with its verdict pending (withOwnStart), or a
 * route with a meaningful share of its requests short of its slices (routesShort).
 */
export function latencyWaiting(evidence: LatencyEvidence): {
  cold: boolean;
  pending: boolean;
  routes: RouteEvidence[];
} {
  return {
    cold: evidence.verdict === 'not judged' && !evidence.pending,
    pending: evidence.pending === true,
    routes: evidence.verdict === 'not slower' ? routesShort(evidence.routes, evidence.rule) : [],
  };
}

/** The slices that fired the gate: the whole instance's, or its fired route's (none unless slower). */
export function firedSlices(evidence: LatencyEvidence): JudgedSlice[] {
  const route = evidence.routes.find((r) => r.route === evidence.firedRoute);
  const { slices, fired } = route ?? evidence;
  return (fired ?? []).map((n) => slices[n - 1]!);
}

/** One line for people: the slices that fired, their medians, ratio, effect and p, against the limits. */
export function describeSlower(evidence: LatencyEvidence): string {
  const { rule, firedRoute } = evidence;
  const fired = firedSlices(evidence);
  const first = fired[0]!;
  const last = fired.at(-1)!;
  const each = fired
    .map(
      (s) =>
        `${s.medians.against} → ${s.medians.mine} ms (${s.ratio.toFixed(2)}x, +${s.effectMs} ms, fastest tenth +${s.fastShiftMs} ms, p = ${s.p.toExponential(1)})`,
    )
    .join('; ');
  const limits = `limits ${rule.maxRatio}x and +${rule.minEffectMs} ms for the median and the fastest tenth (medians under ${rule.medianFloorMs} ms count as ${rule.medianFloorMs}), Mann-Whitney U p < ${rule.alpha}`;
  const before = 'the log before the deploy';
  if (firedRoute !== undefined) {
    const against =
      last.against === 'others'
        ? `the other instances' ${firedRoute} requests over the same stretch`
        : `${before}'s ${firedRoute} requests`;
    return `median request time of ${firedRoute} rose in ${fired.length} consecutive slices of ${rule.sliceRequests} of its requests (its ${firedRoute} requests ${first.requests[0]}–${last.requests[1]} after the instance's warm-up of ${evidence.warmupCut}), against ${against}: ${each}; ${limits}`;
  }
  const against = last.against === 'others' ? 'the other instances over the same stretch' : before;
  return `median request time rose in ${fired.length} consecutive slices of ${rule.sliceRequests} requests (its requests ${first.requests[0]}–${last.requests[1]}, after a warm-up of ${evidence.warmupCut}), against ${against}: ${each}; ${limits}`;
}

/** The fewest request times of the new instance the latency verdict can judge: the minimum warm-up and its slices. */
export const requestTimesNeeded = (rule: LatencyRule): number =>
  rule.minWarmupRequests + rule.consecutive * rule.sliceRequests;
