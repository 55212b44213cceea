import { judgeEffect, type EffectRule, type EffectVerdict } from './effect-size.js';
import {
  firstWarmSlice,
  sameStretches,
  sliceRequests,
  type RequestSlice,
  type RoutedSample,
  type TimedSample,
  type WarmUpRule,
} from './warm-up.js';

/** The whole latency rule: when the new instance is warm, what counts as slower, and for how long. */
export interface LatencyRule extends WarmUpRule, Omit<EffectRule, 'maxRatio'> {
  /** Slower in this many consecutive warm slices before a rollback (Argo Rollouts' and Flagger's failure limit). */
  consecutive: number;
  /** The other instances must have answered this many requests over a slice's stretch to be its comparison. */
  minPeerRequests: number;
  /** A route is judged on its own where a slice and its comparison each hold this many of its requests. */
  minRouteRequests: number;
}

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
  minRouteRequests: 15,
};

/** One slice as the gate judged it. */
export interface JudgedSlice extends EffectVerdict {
  /** The new instance's requests in it, 1-based and inclusive (its 101st to its 150th). */
  requests: [number, number];
  against: 'others' | 'before';
  /**
   * The route ("GET /api") whose own requests were slower, when the slice as a whole was not (a
   * release slower on its GETs only); the numbers are then that route's.
   */
  route?: string;
  /** False for a slice of its warm-up. */
  judged: boolean;
}

/** Everything the latency verdict rests on, for the status event and the fired gate's text. */
export interface LatencyEvidence {
  verdict: 'slower' | 'not slower' | 'not judged';
  /** Why it could not judge, when it could not. */
  note?: string;
  /** Request times: the new instance's, the other instances' in the window, the log's before the deploy. */
  samples: { mine: number; others: number; before: number };
  /** The new instance's first requests left out as its warm-up (all of them while it never levelled off). */
  warmupCut: number;
  slices: JudgedSlice[];
  /** The slices that fired the gate (1-based), when it fired. */
  fired?: number[];
  rule: LatencyRule & { maxRatio: number };
}

/**
 * Judges the new instance's request times (`mine`) slice by slice against the other instances' over
 * each slice's stretch of log, or the log before the deploy where they answered too few there. It is
 * slower when `consecutive` warm slices in a row are slower by the effect rule (judgeEffect), as a
 * whole or on one route's requests where the log tells routes apart (slowerRoute); the warm-up ends
 * where its latency relative to the comparison levels off (firstWarmSlice), so a cold process on a
 * busy core is judged once it is warm, and a release slow from its first request at once. `before`
 * is the log before the deploy, with its routes where it has them.
 */
export function judgeLatencySlices(
  before: readonly number[] | RoutedSample,
  mine: TimedSample,
  others: TimedSample,
  maxRatio: number,
  rule: LatencyRule = DEFAULT_LATENCY_RULE,
): LatencyEvidence {
  const effect = { ...rule, maxRatio };
  const baseline: RoutedSample = isSample(before) ? before : { ms: before };
  const cuts = sliceRequests(mine.ms.length, rule);
  const stretches = sameStretches(mine, cuts, others);
  const judgedSlices = cuts.map((slice, k) => {
    const stretch = stretches[k]!;
    const against = stretch.to - stretch.from >= rule.minPeerRequests ? 'others' : 'before';
    const own = cut(mine, slice);
    const side = against === 'others' ? cut(others, stretch) : baseline;
    const whole = judgeEffect(own.ms, side.ms, effect);
    const byRoute = whole.slower ? undefined : slowerRoute(own, side, effect, rule.minRouteRequests);
    return {
      // The warm-up reads the whole slice's ratio: a route's would make it level off on one route's noise.
      wholeRatio: whole.ratio,
      verdict: {
        requests: [slice.from + 1, slice.to] as [number, number],
        against,
        ...(byRoute ?? whole),
      } as const,
    };
  });
  const verdicts = judgedSlices.map((j) => j.verdict);
  const warmAt = firstWarmSlice(
    judgedSlices.map((j) => j.wholeRatio),
    rule,
  );
  const slices = verdicts.map((v, i) => ({ ...v, judged: warmAt !== undefined && i >= warmAt }));
  const base = {
    samples: { mine: mine.ms.length, others: others.ms.length, before: baseline.ms.length },
    warmupCut: warmAt === undefined ? mine.ms.length : warmAt * rule.sliceRequests,
    slices,
    rule: effect,
  };
  if (baseline.ms.length < rule.minPeerRequests && others.ms.length < rule.minPeerRequests)
    return { ...base, verdict: 'not judged', note: 'no request times to compare with' };
  const needed = rule.minWarmupRequests + rule.consecutive * rule.sliceRequests;
  const tooFew = `${mine.ms.length} request times, ${needed} needed`;
  if (warmAt === undefined)
    return {
      ...base,
      verdict: 'not judged',
      note:
        mine.ms.length < needed ? tooFew : 'its latency was still falling slice after slice (not warm yet)',
    };
  let run = 0;
  for (let i = warmAt; i < slices.length; i++) {
    run = slices[i]!.slower ? run + 1 : 0;
    if (run === rule.consecutive)
      return {
        ...base,
        verdict: 'slower',
        fired: Array.from({ length: run }, (_, k) => i - run + k + 2),
      };
  }
  const judged = slices.length - warmAt;
  if (judged >= rule.consecutive) return { ...base, verdict: 'not slower' };
  const note = mine.ms.length < needed ? tooFew : `${judged} warm slice(s), ${rule.consecutive} needed`;
  return { ...base, verdict: 'not judged', note };
}

const isSample = (b: readonly number[] | RoutedSample): b is RoutedSample => !Array.isArray(b);

/** A slice (or stretch) of a sample: its request times and their routes. */
function cut(sample: RoutedSample, slice: RequestSlice): RoutedSample {
  return {
    ms: sample.ms.slice(slice.from, slice.to),
    ...(sample.routes ? { routes: sample.routes.slice(slice.from, slice.to) } : {}),
  };
}

/**
 * The first route slower by the effect rule on its own requests against the comparison's requests to
 * the same route, where both hold `min` of them. A release slower on its GETs only hides behind its
 * unchanged POSTs in the slice as a whole: they are its fastest tenth. A process starved of CPU
 * still answers some requests of every route fast, so its routes' fastest tenths stay put.
 */
function slowerRoute(
  own: RoutedSample,
  side: RoutedSample,
  effect: EffectRule,
  min: number,
): (EffectVerdict & { route: string }) | undefined {
  if (!own.routes || !side.routes) return undefined;
  const mine = byRoute(own);
  if (mine.size < 2) return undefined;
  const theirs = byRoute(side);
  for (const [route, ms] of mine) {
    const against = theirs.get(route);
    if (route === '' || ms.length < min || !against || against.length < min) continue;
    const verdict = judgeEffect(ms, against, effect);
    if (verdict.slower) return { ...verdict, route };
  }
  return undefined;
}

function byRoute(sample: RoutedSample): Map<string, number[]> {
  const routes = new Map<string, number[]>();
  sample.ms.forEach((ms, i) => {
    const route = sample.routes![i]!;
    const list = routes.get(route);
    if (list) list.push(ms);
    else routes.set(route, [ms]);
  });
  return routes;
}

/** One line for people: the slices that fired, their medians, ratio, effect and p, against the limits. */
export function describeSlower(evidence: LatencyEvidence): string {
  const { rule } = evidence;
  const fired = (evidence.fired ?? []).map((n) => evidence.slices[n - 1]!);
  const first = fired[0]!;
  const last = fired.at(-1)!;
  const each = fired
    .map(
      (s) =>
        `${s.route === undefined ? '' : `${s.route}: `}${s.medians.against} → ${s.medians.mine} ms (${s.ratio.toFixed(2)}x, +${s.effectMs} ms, fastest tenth +${s.fastShiftMs} ms, p = ${s.p.toExponential(1)})`,
    )
    .join('; ');
  const against =
    last.against === 'others' ? 'the other instances over the same stretch' : 'the log before the deploy';
  return `median request time rose in ${fired.length} consecutive slices of ${rule.sliceRequests} requests (its requests ${first.requests[0]}–${last.requests[1]}, after a warm-up of ${evidence.warmupCut}), against ${against}: ${each}; limits ${rule.maxRatio}x and +${rule.minEffectMs} ms for the median and the fastest tenth (medians under ${rule.medianFloorMs} ms count as ${rule.medianFloorMs}), Mann-Whitney U p < ${rule.alpha}`;
}
