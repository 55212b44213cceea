import { judgeEffect, type EffectRule, type EffectVerdict } from './effect-size.js';
import { median } from './mann-whitney.js';
import {
  sameStretches,
  sliceRequests,
  type RequestSlice,
  type RoutedSample,
  type TimedSample,
  type WarmUpRule,
} from './warm-up.js';

/** How each route of the new instance is judged on slices of its own requests. */
export interface RouteRule extends WarmUpRule {
  /** Slower in this many consecutive slices of the route's requests before a rollback. */
  consecutive: number;
  /** The other instances must have answered this many of the route's requests over a slice's stretch. */
  minPeerRequests: number;
  /**
   * A route with at least this share of the new instance's warm requests keeps the watch going (up
   * to deploy.maxWatch) until it has its slices; a smaller one is reported not judged on its own.
   */
  minRouteShare: number;
}

/** One slice of a route's own requests as the gate judged it. */
export interface JudgedSlice extends EffectVerdict {
  /** The requests in it, 1-based and inclusive: of the new instance, or for a route of its warm requests to that route. */
  requests: [number, number];
  against: 'others' | 'before';
  /** False for a slice of the warm-up, or a route's slice with nothing of that route to compare with. */
  judged: boolean;
  /**
   * A route's slice: how far the median of the new instance's requests to its OTHER routes over the
   * same stretch rose above the other instances' (ms); past the effect floor, the slowness is the
   * process's (a busy core), not the route's, and the slice is not slower (judgeRoutes).
   */
  restRiseMs?: number;
}

/** A route's verdict on its own requests after the new instance's warm-up. */
export interface RouteEvidence {
  /** Method and first path segment ("POST /orders"). */
  route: string;
  /** Its requests after the warm-up cut: the ones cut into its slices. */
  requests: number;
  /** Their share of the new instance's requests after the warm-up cut. */
  share: number;
  verdict: 'slower' | 'not slower' | 'not judged';
  /** Why it was not judged ("POST /orders: 75 requests, fewer than 2 warm slices of 50: not judged"). */
  note?: string;
  slices: JudgedSlice[];
  /** Its slices that fired the gate (1-based), when they did. */
  fired?: number[];
}

/** The requests of a sample at `at` (indices), with their log lines. */
function pick(sample: TimedSample, at: readonly number[]): TimedSample {
  return { ms: at.map((i) => sample.ms[i]!), lines: at.map((i) => sample.lines[i]!) };
}

/** Indices of each route's requests in a sample, from `from` on, in order of first appearance. */
function indicesByRoute(routes: readonly string[] | undefined, from = 0): Map<string, number[]> {
  const byRoute = new Map<string, number[]>();
  for (let i = from; i < (routes?.length ?? 0); i++) {
    const route = routes![i]!;
    if (route === '') continue;
    const list = byRoute.get(route);
    if (list) list.push(i);
    else byRoute.set(route, [i]);
  }
  return byRoute;
}

const cut = (sample: { ms: readonly number[] }, slice: RequestSlice) => sample.ms.slice(slice.from, slice.to);

/**
 * Judges each route of the new instance (`mine`, from `warmupCut` on: the whole instance's warm-up,
 * so a route is never judged on a cold process) on slices of `sliceRequests` of ITS OWN requests,
 * each against the other instances' requests to the same route logged over that slice's stretch (or
 * the log before the deploy's, where they answered fewer than `minPeerRequests` there). A route that
 * makes 10 % of the traffic fills a slice of 50 in 500 of the instance's requests: judged on a share
 * of mixed slices, it never held enough requests to be judged at all. Slower is `consecutive` slices
 * of it slower in a row by the effect rule, while the new instance's other routes over the same
 * stretch stay within the effect floor of the other instances' (restRiseMs): a release slower in
 * one route's work leaves the rest as fast, a process starved of CPU is slower on every route (the
 * busy-core deploy test's unchanged release had GET /users 24 → 124 ms in two slices of its own, its
 * POSTs 57 ms slower too); that is the whole-instance rule's to judge, with its warm-up and floors.
 * Nothing when the log names fewer than two routes: the whole-instance slices already are that route's.
 */
export function judgeRoutes(
  mine: TimedSample,
  others: TimedSample,
  before: RoutedSample,
  warmupCut: number,
  effect: EffectRule,
  rule: RouteRule,
): RouteEvidence[] {
  const warm = indicesByRoute(mine.routes, warmupCut);
  if (indicesByRoute(mine.routes).size < 2) return [];
  const theirs = indicesByRoute(others.routes);
  const earlier = indicesByRoute(before.routes);
  const warmCount = mine.ms.length - warmupCut;
  return [...warm]
    .sort(([, a], [, b]) => b.length - a.length)
    .map(([route, at]) => {
      const own = pick(mine, at);
      const peers = pick(others, theirs.get(route) ?? []);
      const logBefore = (earlier.get(route) ?? []).map((i) => before.ms[i]!);
      const cuts = sliceRequests(own.ms.length, rule);
      const stretches = sameStretches(own, cuts, peers);
      const slices: JudgedSlice[] = cuts.map((slice, k) => {
        const stretch = stretches[k]!;
        const against = stretch.to - stretch.from >= rule.minPeerRequests ? 'others' : 'before';
        const side = against === 'others' ? cut(peers, stretch) : logBefore;
        const verdict = judgeEffect(cut(own, slice), side, effect);
        const from = own.lines[slice.from]!;
        const to = own.lines[slice.to - 1]!;
        const rest = restRise(mine, others, route, from, to, rule.minPeerRequests);
        return {
          requests: [slice.from + 1, slice.to],
          against,
          ...verdict,
          slower: verdict.slower && (rest === undefined || rest <= effect.minEffectMs),
          judged: side.length >= rule.minPeerRequests,
          ...(rest === undefined ? {} : { restRiseMs: rest }),
        };
      });
      const base = { route, requests: at.length, share: at.length / warmCount, slices };
      return { ...base, ...routeVerdict(base, rule) };
    });
}

/**
 * The rise of the median of the new instance's requests to routes other than `route`, logged between
 * lines `from` and `to`, over the other instances' (ms); undefined with fewer than `min` on a side.
 */
function restRise(
  mine: TimedSample,
  others: TimedSample,
  route: string,
  from: number,
  to: number,
  min: number,
): number | undefined {
  const rest = (side: TimedSample) =>
    side.ms.filter((_, i) => side.lines[i]! >= from && side.lines[i]! <= to && side.routes?.[i] !== route);
  const a = rest(mine);
  const b = rest(others);
  return a.length < min || b.length < min ? undefined : median(a) - median(b);
}

/** A route's verdict from its slices: `consecutive` judged slices slower in a row, or enough judged ones. */
function routeVerdict(
  r: { route: string; requests: number; slices: JudgedSlice[] },
  rule: RouteRule,
): Pick<RouteEvidence, 'verdict' | 'note' | 'fired'> {
  let run = 0;
  for (let i = 0; i < r.slices.length; i++) {
    run = r.slices[i]!.judged && r.slices[i]!.slower ? run + 1 : 0;
    if (run === rule.consecutive)
      return { verdict: 'slower', fired: Array.from({ length: run }, (_, k) => i - run + k + 2) };
  }
  const judged = r.slices.filter((s) => s.judged).length;
  if (judged >= rule.consecutive) return { verdict: 'not slower' };
  const why =
    r.slices.length < rule.consecutive
      ? `fewer than ${rule.consecutive} warm slices of ${rule.sliceRequests}`
      : `${judged} of its ${r.slices.length} slices with ${rule.minPeerRequests} requests of that route to compare with, ${rule.consecutive} needed`;
  return { verdict: 'not judged', note: `${r.route}: ${r.requests} requests, ${why}: not judged` };
}

/**
 * The routes whose not being judged yet keeps a watch going (to deploy.maxWatch): those with at
 * least `minRouteShare` of the new instance's warm requests. A route that makes 1 % of them would
 * take 5 000 requests to fill two slices, and hold every deploy of a service with rare routes
 * (an admin page, a favicon) to maxWatch; the whole-instance slices still count those requests.
 */
export function routesShort(routes: readonly RouteEvidence[], rule: RouteRule): RouteEvidence[] {
  return routes.filter((r) => r.verdict === 'not judged' && r.share >= rule.minRouteShare);
}
