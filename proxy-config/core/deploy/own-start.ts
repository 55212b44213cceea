import { judgeEffect, type EffectVerdict } from './effect-size.js';
import { firedSlices, type LatencyEvidence, type LatencyRule } from './latency-verdict.js';
import { sliceRequests, type RoutedSample } from './warm-up.js';

/**
 * The request times of the new instances of the last deploy that went through, as its watch read
 * them: the old release's own start, for the next deploy to compare its new instance with at the
 * same age (Kayenta's baseline started at the same time, from the log alone). Compact: the route of
 * each request is an index into `routes`.
 */
export interface RecordedStart {
  /** The release that deploy put in (`deploy --version`), when it named one. */
  release?: string;
  /** When it was recorded (ISO 8601). */
  recordedAt: string;
  /** The routes the requests went to, when the log format names them. */
  routes?: string[];
  /** Per new instance, its request times in order (whole ms) and each one's route (index into `routes`). */
  instances: Array<{ ms: number[]; route?: number[] }>;
}

/**
 * How much slower than the old release's own start at the same age a new instance must be, and in
 * how many slices in a row, for the peers' verdict to stand. Looser than the peers' 2.5x, because a
 * cold start beside a busy core is itself several times slower than warm peers, so a release 80 ms
 * slower is seldom 2.5x slower than that start (at 2.5x, 5 of 5 such releases went through on the
 * slot path); one slice more than the peers' two, because a fresh process starved by a stall of the
 * core (a collection, a compile) answers 100 requests slower even than the old start did. bench:gates
 * replayed on 60 unchanged and 10 3x slower deploys, saturating load beside a busy core: the peers
 * alone rolled back 35 unchanged; 1.5x on two slices, 7; on three, 1; every slower one rolled back
 * in each (docs/benchmarks.md, issue 35).
 */
export const OWN_START_LIMITS = { maxRatio: 1.5, consecutive: 3 } as const;

/** Request times kept per instance: enough for 40 slices of 50, small enough for the state file. */
export const START_CAP = 2000;

/** The record of a deploy's new instances (`samples`, as the watch read each), capped and compact. */
export function recordStart(
  samples: readonly RoutedSample[],
  recordedAt: string,
  release?: string,
): RecordedStart {
  const names = [...new Set(samples.flatMap((s) => (s.routes ?? []).slice(0, START_CAP)))];
  const routed = names.some((name) => name !== '');
  return {
    ...(release === undefined ? {} : { release }),
    recordedAt,
    ...(routed ? { routes: names } : {}),
    instances: samples.map((s) => ({
      ms: s.ms.slice(0, START_CAP).map((ms) => Math.round(ms)),
      ...(routed && s.routes ? { route: s.routes.slice(0, START_CAP).map((r) => names.indexOf(r)) } : {}),
    })),
  };
}

/** Why a stored record cannot be read as one (a hand-edited state file), or undefined when it can. */
export function startProblem(value: unknown): string | undefined {
  const record = value as Partial<RecordedStart> | null;
  const numbers = (list: unknown) => Array.isArray(list) && list.every((n) => typeof n === 'number');
  if (typeof record !== 'object' || record === null || typeof record.recordedAt !== 'string')
    return 'no recordedAt';
  if (
    record.routes !== undefined &&
    !(Array.isArray(record.routes) && record.routes.every((r) => typeof r === 'string'))
  )
    return 'routes is not a list of routes';
  if (!Array.isArray(record.instances)) return 'no instances';
  const routes = record.routes?.length ?? 0;
  const bad = record.instances.findIndex(
    (i) =>
      typeof i !== 'object' ||
      i === null ||
      !numbers(i.ms) ||
      (i.route !== undefined &&
        !(numbers(i.route) && i.route.length === i.ms.length && i.route.every((r) => r >= 0 && r < routes))),
  );
  return bad === -1 ? undefined : `instance ${bad + 1} has no request times (or routes) of its own`;
}

/** One slice of the new instance's requests against the recorded instances' at the same request numbers, pooled. */
export interface OwnStartSlice extends EffectVerdict {
  /** Its requests, 1-based and inclusive: of the instance, or of the route after the minimum warm-up. */
  requests: [number, number];
  /** False when fewer than `minPeerRequests` were recorded at those numbers: not slower, not compared. */
  compared: boolean;
}

/** The new instance against the old release's own start at the same age, for the latency evidence. */
export interface OwnStartEvidence {
  recordedAt: string;
  release?: string;
  /** The route judged on its own requests (the one whose slices fired against the peers). */
  route?: string;
  /** Request times: the new instance's judged (its route's past the warm-up), each recorded instance's. */
  samples: { mine: number; recorded: number[] };
  /** Its slices past the minimum warm-up. */
  slices: OwnStartSlice[];
  /**
   * `not judged`: fewer than `consecutive` slices could be compared (or none reached the slices the
   * peers found slower): the peers' verdict stands, judged once warm where it was slower from its
   * first judged slice (withOwnStart).
   */
  verdict: 'slower' | 'not slower' | 'not judged';
  /** The slices (1-based, of `slices`) that made it slower. */
  fired?: number[];
  note?: string;
  /**
   * Not slower than the record, but not yet warm as its peers (3 slices in a row not slower than
   * they): `waiting` while the watch goes on (to deploy.maxWatch); `at the end` when the watch ended
   * so, slower than its peers again after the slices that first fired, and rolled back on those.
   */
  unconverged?: 'waiting' | 'at the end';
  /** At the end: the slices the peers first found slower (the verdict's `fired` are the later ones). */
  peersFired?: number[];
}

/**
 * A side's requests as the rule numbers them: all of them; for a route, its requests logged after the
 * minimum warm-up of the whole instance, numbered among themselves (the n-th GET /users past the warm-up).
 */
function numbered(sample: RoutedSample, route: string | undefined, warmup: number): readonly number[] {
  if (route === undefined) return sample.ms;
  return sample.ms.filter((_, i) => i >= warmup && sample.routes?.[i] === route);
}

const recordedSamples = (record: RecordedStart): RoutedSample[] =>
  record.instances.map((i) => ({
    ms: i.ms,
    ...(i.route ? { routes: i.route.map((r) => record.routes![r]!) } : {}),
  }));

/**
 * The new instance's requests (`mine`) against the old release's own start at the same request
 * numbers: slice by slice past the minimum warm-up (for a route, on its own requests after it),
 * each against the recorded instances' requests at the same numbers pooled, by the effect rule;
 * slower when `consecutive` slices in a row are. A fresh process on a busy core answers its first
 * hundreds of requests several times slower than its warm peers, and the old release did as much
 * when it was deployed: like with like. A slice with fewer than `minPeerRequests` recorded is not
 * compared (and breaks a run); fewer than `consecutive` compared, and it cannot say.
 */
export function judgeOwnStart(
  mine: RoutedSample,
  record: RecordedStart,
  rule: LatencyRule & { maxRatio: number },
  route?: string,
): OwnStartEvidence {
  const own = numbered(mine, route, rule.minWarmupRequests);
  const theirs = recordedSamples(record).map((s) => numbered(s, route, rule.minWarmupRequests));
  const skip = route === undefined ? rule.minWarmupRequests : 0;
  const slices = sliceRequests(own.length, rule)
    .filter(({ from }) => from >= skip)
    .map(({ from, to }): OwnStartSlice => {
      const recorded = theirs.flatMap((ms) => ms.slice(from, to));
      const compared = recorded.length >= rule.minPeerRequests;
      const verdict = judgeEffect(own.slice(from, to), recorded, rule);
      return { requests: [from + 1, to], compared, ...verdict, slower: compared && verdict.slower };
    });
  const base = {
    recordedAt: record.recordedAt,
    ...(record.release === undefined ? {} : { release: record.release }),
    ...(route === undefined ? {} : { route }),
    samples: { mine: own.length, recorded: theirs.map((ms) => ms.length) },
    slices,
  };
  let run = 0;
  for (let i = 0; i < slices.length; i++) {
    run = slices[i]!.slower ? run + 1 : 0;
    if (run === rule.consecutive)
      return { ...base, verdict: 'slower', fired: Array.from({ length: run }, (_, k) => i - run + k + 2) };
  }
  const compared = slices.filter((s) => s.compared).length;
  if (compared >= rule.consecutive) return { ...base, verdict: 'not slower' };
  return {
    ...base,
    verdict: 'not judged',
    note: `${compared} of its ${slices.length} slice(s) past the warm-up had ${rule.minPeerRequests} recorded requests at the same numbers, ${rule.consecutive} needed`,
  };
}

/** What the peers' verdict rests on: its fired route's slices, or else the whole instance's. */
const firedSide = (evidence: LatencyEvidence) =>
  evidence.routes.find((r) => r.route === evidence.firedRoute) ?? evidence;

/**
 * Warm as its peers: its newest OWN_START_LIMITS.consecutive slices each judged and not slower than
 * they. Three, not one: a moment when the peers stall too (a busy core's) must not let through a
 * release that stays slower.
 */
function warmAsPeers(evidence: LatencyEvidence): boolean {
  const newest = firedSide(evidence).slices.slice(-OWN_START_LIMITS.consecutive);
  return newest.length === OWN_START_LIMITS.consecutive && newest.every((s) => s.judged && !s.slower);
}

/**
 * The last `consecutive` slices in a row slower than the peers (1-based), when they end past the
 * slices that first fired: it was still slower after that, not only then.
 */
function slowerSinceFired(evidence: LatencyEvidence): number[] | undefined {
  const { slices, fired } = firedSide(evidence);
  const firedEnd = fired?.at(-1) ?? slices.length;
  const n = evidence.rule.consecutive;
  for (let end = slices.length; end > firedEnd; end--) {
    const run = slices.slice(end - n, end);
    if (run.length === n && run.every((s) => s.judged && s.slower))
      return Array.from({ length: n }, (_, k) => end - n + k + 1);
  }
  return undefined;
}

/**
 * The latency verdict with the old release's own start: one that found the new instance slower
 * than its peers stands only if it is also slower than `record` at the same age (judgeOwnStart on
 * the route that fired, if one did), and is overruled only where the record reaches the slices the
 * peers found slower (a later stall past what the record holds is the peers' to judge; unheard). While the
 * new instance has too few slices of its own for that (the peers' two slower slices in a row come
 * before the record's three can), it is pending: not judged yet, and the watch goes on
 * (`pending`; settleOwnStart if it ends so). Where the record itself holds too few requests at
 * those numbers (its deploy's new instances answered 150 each), or does not reach the slices the
 * peers found slower, it says nothing of them (unheard): one slower from its first judged slice is
 * judged as with no record (onceWarm), one slower only after it was as fast as its peers by the
 * peers alone. CI rolled back an unchanged release 10 times slower than its peers over its first
 * 200 requests, the peers' verdict standing on a record of 150 requests as slow.
 *
 * Overruled, it is judged once warm: until its newest 3 slices in a row are not slower than its
 * warm peers, it is pending too (`unconverged`; settleOwnStart if the watch ends so). Under a saturating load beside a busy core
 * a cold start and a release 80 ms slower are both 60 to 100 ms above their peers and as slow as the
 * old start was at that age; the cold start is as fast as its peers 15 to 25 s in, the slower
 * release never is (docs/benchmarks.md, issue 35). With no record at all, it is judged once warm
 * alone (onceWarm). Either way, once the whole instance is warm as its peers, a route slower on its
 * own requests is what is judged (slowerRoute).
 */
export function withOwnStart(
  peers: LatencyEvidence,
  mine: RoutedSample,
  record: RecordedStart | undefined,
): LatencyEvidence {
  if (peers.verdict !== 'slower') return peers;
  const evidence = slowerRoute(peers);
  if (!record) return onceWarm(evidence);
  const rule = { ...evidence.rule, ...OWN_START_LIMITS };
  const ownStart = judgeOwnStart(mine, record, rule, evidence.firedRoute);
  if (ownStart.verdict === 'not slower') {
    const reach = Math.max(0, ...ownStart.slices.filter((s) => s.compared).map((s) => s.requests[1]));
    const firedTo = firedSlices(evidence).at(-1)?.requests[1] ?? 0;
    if (reach < firedTo) {
      const note = `the record reaches ${ownStart.route === undefined ? 'request' : `${ownStart.route} request`} ${reach}, not the slices the peers found slower (to ${firedTo})`;
      return unheard(evidence, { ...ownStart, verdict: 'not judged', note });
    }
    if (warmAsPeers(evidence)) return { ...evidence, ownStart, verdict: 'not slower' };
    return {
      ...evidence,
      ownStart: { ...ownStart, unconverged: 'waiting' },
      verdict: 'not judged',
      pending: true,
      note: `slower than its warm peers, not than the old release's own start at the same age: judged once ${OWN_START_LIMITS.consecutive} of its slices in a row are not slower than its peers`,
    };
  }
  if (ownStart.verdict === 'not judged' && ownStart.slices.every((s) => s.compared))
    return {
      ...evidence,
      ownStart,
      verdict: 'not judged',
      pending: true,
      note: `slower than the warm peers; ${ownStart.slices.length} of the ${rule.consecutive} slices in a row needed against the old release's own start so far`,
    };
  if (ownStart.verdict === 'not judged') return unheard(evidence, ownStart);
  return { ...evidence, ownStart };
}

/**
 * A record that cannot speak of the slices the peers found slower (too few requests recorded at
 * those numbers, or none that far): a new instance slower from its first judged slice is a cold
 * start as far as anyone can tell, judged once warm as with no record (onceWarm); one as fast as
 * its peers first and slower after is not cold, and the peers' verdict stands.
 */
function unheard(evidence: LatencyEvidence, ownStart: OwnStartEvidence): LatencyEvidence {
  const side = firedSide(evidence);
  const firstJudged = side.slices.findIndex((s) => s.judged) + 1;
  if (side.fired?.[0] === firstJudged) return onceWarm({ ...evidence, ownStart });
  return { ...evidence, ownStart };
}

/**
 * Where the whole instance fired while cold and is warm as its peers since, the route found slower on
 * its own requests (judgeLatencySlices judges them but fires on the whole instance first): its
 * verdict is the one to judge. A release slower on one route would otherwise pass as a cold start.
 */
function slowerRoute(evidence: LatencyEvidence): LatencyEvidence {
  if (evidence.firedRoute !== undefined || !warmAsPeers(evidence)) return evidence;
  const route = evidence.routes.find((r) => r.verdict === 'slower');
  if (!route) return evidence;
  const { fired: _cold, ...rest } = evidence;
  return { ...rest, firedRoute: route.route };
}

/**
 * With no record of the old release's own start (a first deploy; one after a readiness-only deploy,
 * or a state file without `starts`), or one that cannot be compared with (`ownStart`, not judged), a
 * new instance slower than its warm peers is judged once warm alone: as fast as they in 3 slices in
 * a row, it is not rolled back; until then it is pending, and rolled back if the watch ends so
 * (settleOwnStart). The peers alone rolled back 35 of 60 unchanged releases, under a saturating
 * load beside a busy core (docs/benchmarks.md, issue 35), and CI rolled back an unchanged one on a
 * busy machine, 6 to 9 times slower than its peers and getting slower over its first 200 requests;
 * a release slower from its first request is slower still in the slices after, and is rolled back
 * at deploy.maxWatch instead of at once.
 */
function onceWarm(evidence: LatencyEvidence): LatencyEvidence {
  if (warmAsPeers(evidence)) return { ...evidence, verdict: 'not slower', withoutRecord: 'warm' };
  return {
    ...evidence,
    verdict: 'not judged',
    pending: true,
    withoutRecord: 'waiting',
    note: `slower than its warm peers, ${noRecord(evidence)}: judged once ${OWN_START_LIMITS.consecutive} of its slices in a row are not slower than they, rolled back if the watch reaches deploy.maxWatch first`,
  };
}

/** Which record is missing: any, or one that holds the requests of the slices the peers found slower. */
const noRecord = (e: LatencyEvidence) =>
  `with no record of the old release's own start${e.ownStart ? ' to compare those slices with' : ''}`;

/**
 * A watch that ended while the verdict was pending: the peers' verdict stands (it was slower than
 * they); with no record, as `withoutRecord: 'never warm'`. Where the record had overruled them and it
 * was waiting to be as warm as its peers, only if it was slower than they again after the slices
 * that first fired, on those slices; with no such slices (the watch ended at its wait, a route's
 * requests stopped), the old release's start overrules the peers as before.
 */
export function settleOwnStart(evidence: LatencyEvidence): LatencyEvidence {
  if (!evidence.pending) return evidence;
  const { pending: _pending, note: _note, ...rest } = evidence;
  if (rest.withoutRecord === 'waiting') return { ...rest, withoutRecord: 'never warm', verdict: 'slower' };
  if (rest.ownStart?.unconverged !== 'waiting') return { ...rest, verdict: 'slower' };
  const later = slowerSinceFired(rest);
  if (later === undefined) {
    const { unconverged: _waiting, ...ownStart } = rest.ownStart;
    return { ...rest, ownStart, verdict: 'not slower' };
  }
  const peersFired = firedSide(rest).fired;
  const ownStart = {
    ...rest.ownStart,
    unconverged: 'at the end' as const,
    ...(peersFired ? { peersFired } : {}),
  };
  const routes = rest.routes.map((r) => (r.route === rest.firedRoute ? { ...r, fired: later } : r));
  return rest.firedRoute === undefined
    ? { ...rest, ownStart, fired: later, verdict: 'slower' }
    : { ...rest, ownStart, routes, verdict: 'slower' };
}

/** A verdict against the peers that the old release's own start overruled (not rolled back). */
export const vetoedByOwnStart = (e: LatencyEvidence): boolean =>
  e.ownStart?.verdict === 'not slower' && e.ownStart.unconverged === undefined;

/** One line for people: how a new instance slower than its peers, with no record of the old release's own start, was judged. */
export function describeWithoutRecord(e: LatencyEvidence): string | undefined {
  if (e.withoutRecord === undefined) return undefined;
  const side = firedSide(e);
  const fired = side.fired?.join(', ') ?? '?';
  const what = `slower than its warm peers in slices ${fired}${'route' in side ? ` of ${side.route}` : ''}, ${noRecord(e)}`;
  const n = OWN_START_LIMITS.consecutive;
  if (e.withoutRecord === 'waiting')
    return `${what}: judged once ${n} of its slices in a row are not slower than its peers; watching on, up to deploy.maxWatch`;
  if (e.withoutRecord === 'warm')
    return `${what}, then not slower than they in its last ${n} slices in a row (${side.slices.length - n + 1}–${side.slices.length}): warm, not rolled back`;
  return `${what}, and not ${n} slices in a row as fast as they when the watch ended`;
}

/** One line for people: the record, and its slices that decided (the fired ones, or all compared). */
export function describeOwnStart(o: OwnStartEvidence): string {
  const what = `the old release's own start (recorded ${o.recordedAt}${o.release === undefined ? '' : `, release ${o.release}`}, ${o.samples.recorded.length} instance(s))`;
  const whose = o.route === undefined ? 'its requests' : `its ${o.route} requests after the warm-up`;
  const slice = (s: OwnStartSlice) =>
    `${whose} ${s.requests[0]}–${s.requests[1]}: median ${s.medians.against} → ${s.medians.mine} ms (${s.ratio.toFixed(2)}x, +${s.effectMs} ms, fastest tenth +${s.fastShiftMs} ms, p = ${s.p.toExponential(1)})`;
  const limit = `its limits ${OWN_START_LIMITS.maxRatio}x in ${OWN_START_LIMITS.consecutive} slices in a row`;
  if (o.verdict === 'slower')
    return `and against ${what}, ${limit}: ${o.fired!.map((n) => slice(o.slices[n - 1]!)).join('; ')}`;
  const medians = o.slices
    .filter((s) => s.compared)
    .map((s) => `${s.medians.mine}/${s.medians.against}`)
    .join(' ');
  if (o.unconverged === 'waiting')
    return `not slower than ${what} at the same age (${limit}; slice medians new/recorded ms: ${medians}), but not yet ${OWN_START_LIMITS.consecutive} slices in a row as fast as its warm peers: watching on, up to deploy.maxWatch`;
  if (o.unconverged === 'at the end')
    return `not slower than ${what} at the same age (${limit}; slice medians new/recorded ms: ${medians}), but slower than its warm peers again after the slices they first found slower (${o.peersFired?.join(', ') ?? '?'}), and not ${OWN_START_LIMITS.consecutive} slices in a row as fast as they when the watch ended`;
  if (o.verdict === 'not judged' && o.slices.every((s) => s.compared))
    return `against ${what}: ${o.slices.length} of the ${OWN_START_LIMITS.consecutive} slices in a row it needs compared so far; the peers' verdict stands if the watch ends so`;
  if (o.verdict === 'not judged') return `against ${what}: could not compare (${o.note})`;
  const past = o.route === undefined ? `${whose} past the warm-up` : whose;
  return `slower than the warm peers, not than ${what} at the same age (${limit}): not rolled back (${past}, slice medians new/recorded ms: ${medians})`;
}
