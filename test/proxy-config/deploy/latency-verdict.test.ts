import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LATENCY_RULE,
  describeSlower,
  firedSlices,
  judgeLatencySlices,
  latencyWaiting,
} from '../../../proxy-config/core/deploy/latency-verdict.js';
import { seededRandom, testSeed, weightedDraw } from '../../support/seeded-random.js';

type Random = ReturnType<typeof seededRandom>;

/**
 * A watch window as the access log has it: the new instance and its peers answering alternately,
 * the new one's i-th request taking `mine(i)` ms, its peers `peers(i)` ms (±30 % each).
 */
function watch(count: number, mine: (i: number) => number, peers: (i: number) => number, random: Random) {
  const jitter = (ms: number) => Math.round(ms * (0.7 + random.int(0, 60) / 100));
  const m = { ms: [] as number[], lines: [] as number[] };
  const o = { ms: [] as number[], lines: [] as number[] };
  for (let i = 0; i < count; i++) {
    m.ms.push(jitter(mine(i)));
    m.lines.push(2 * i + 1);
    o.ms.push(jitter(peers(i)));
    o.lines.push(2 * i + 2);
  }
  return { mine: m, others: o };
}

/** Before the deploy: warm instances at 5 ms. */
const BEFORE = Array<number>(300).fill(5);

describe('judgeLatencySlices', () => {
  it('judges a cold process on a busy core once warm: several times slower than its warm peers over its first hundreds of requests', () => {
    const random = seededRandom(testSeed());
    // 120 ms at first, 40 % faster every 50 requests down to its peers' 4 ms (43, 26 and 16 ms over its
    // requests 101 to 250: the 26 ms against 4).
    const { mine, others } = watch(
      600,
      (i) => Math.max(4, 120 * 0.6 ** Math.floor(i / 50)),
      () => 4,
      random,
    );
    const evidence = judgeLatencySlices(BEFORE, mine, others, 2.5);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(evidence.warmupCut).toBeGreaterThan(DEFAULT_LATENCY_RULE.minWarmupRequests);
    expect(evidence.slices.filter((s) => s.judged).length).toBeGreaterThanOrEqual(2);
    // Judged from its 101st request on, one slice being enough, without the floor: rolled back.
    const fixedWarmUp = judgeLatencySlices(BEFORE, mine, others, 2.5, {
      ...DEFAULT_LATENCY_RULE,
      consecutive: 1,
      levelRatio: Infinity,
      minEffectMs: 0,
    });
    expect(fixedWarmUp.verdict, `seed ${random.seed}`).toBe('slower');
  });

  it('rolls back a release 100 ms slower from its first request as soon as its minimum warm-up and two slices are behind it', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(
      400,
      () => 105,
      () => 5,
      random,
    );
    const evidence = judgeLatencySlices(BEFORE, mine, others, 2.5);
    expect(evidence, `seed ${random.seed}`).toMatchObject({
      verdict: 'slower',
      warmupCut: 100,
      fired: [3, 4],
    });
    const fired = evidence.slices[3]!;
    expect(fired).toMatchObject({ requests: [151, 200], against: 'others', judged: true, slower: true });
    expect(fired.effectMs).toBeGreaterThan(40);
  });

  it('does not roll back on one slow slice (a pause of its own): it takes two in a row', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(
      500,
      (i) => (i >= 250 && i < 300 ? 80 : 5),
      () => 5,
      random,
    );
    const evidence = judgeLatencySlices(BEFORE, mine, others, 2.5);
    expect(evidence.slices[5]!.slower, `seed ${random.seed}`).toBe(true);
    expect(evidence.verdict).toBe('not slower');
  });

  it('compares a slice with the log before the deploy where the others answered too few requests over its stretch', () => {
    const random = seededRandom(testSeed());
    const { mine } = watch(
      300,
      () => 105,
      () => 5,
      random,
    );
    const evidence = judgeLatencySlices(BEFORE, mine, { ms: [], lines: [] }, 2.5);
    expect(evidence.verdict).toBe('slower');
    expect(evidence.slices.every((s) => s.against === 'before')).toBe(true);
  });

  it('says what it could not judge: too few requests, or a process still getting faster', () => {
    const random = seededRandom(testSeed());
    const few = watch(
      150,
      () => 105,
      () => 5,
      random,
    );
    expect(judgeLatencySlices(BEFORE, few.mine, few.others, 2.5)).toMatchObject({
      verdict: 'not judged',
      note: '150 request times, 200 needed',
    });
    const falling = watch(
      300,
      (i) => 400 * 0.5 ** Math.floor(i / 50),
      () => 5,
      random,
    );
    expect(judgeLatencySlices(BEFORE, falling.mine, falling.others, 2.5)).toMatchObject({
      verdict: 'not judged',
      note: 'its latency was still falling slice after slice (not warm yet)',
      warmupCut: 300,
    });
  });

  it('lets an unchanged version through over many seeded watches', () => {
    const random = seededRandom(testSeed());
    let fired = 0;
    for (let run = 0; run < 200; run++) {
      const { mine, others } = watch(
        400,
        () => 22,
        () => 20,
        random,
      );
      if (judgeLatencySlices(BEFORE, mine, others, 2.5).verdict === 'slower') fired++;
    }
    expect(fired, `seed ${random.seed}`).toBe(0);
  });

  /** As `watch`, each request going to GET /items (two of three) or POST /orders, as the log names them. */
  function routedWatch(count: number, mine: (i: number, get: boolean) => number, random: Random) {
    const w = watch(
      count,
      () => 0,
      () => 0,
      random,
    );
    const route = (i: number) => (i % 3 === 2 ? 'POST /orders' : 'GET /items');
    const jitter = (ms: number) => Math.round(ms * (0.7 + random.int(0, 60) / 100));
    const routes = w.mine.lines.map((_, i) => route(i));
    return {
      mine: { ...w.mine, ms: routes.map((r, i) => jitter(mine(i, r === 'GET /items'))), routes },
      others: { ...w.others, ms: routes.map((r) => jitter(r === 'GET /items' ? 10 : 30)), routes },
      before: { ms: routes.map((r) => (r === 'GET /items' ? 10 : 30)), routes },
    };
  }

  it('rolls back a release slower on one route only, which its unchanged requests hide in the slice as a whole', () => {
    const random = seededRandom(testSeed());
    // GETs 10 → 210 ms, POSTs 30 ms as before: the slice's fastest tenth is GETs before and POSTs after.
    const { mine, others, before } = routedWatch(600, (_, get) => (get ? 210 : 30), random);
    const whole = judgeLatencySlices(before.ms, { ms: mine.ms, lines: mine.lines }, others, 2.5);
    expect(whole.verdict, `seed ${random.seed}`).toBe('not slower');
    const evidence = judgeLatencySlices(before, mine, others, 2.5);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('slower');
    expect(evidence.firedRoute).toBe('GET /items');
    expect(firedSlices(evidence).every((s) => s.against === 'others' && s.slower)).toBe(true);
    expect(describeSlower(evidence)).toContain(
      "median request time of GET /items rose in 2 consecutive slices of 50 of its requests (its GET /items requests 1–100 after the instance's warm-up of 100), against the other instances' GET /items requests over the same stretch: ",
    );
  });

  it('judged per route, still judges a cold process on a busy core once warm', () => {
    const random = seededRandom(testSeed());
    // Every route 12 times slower at first, 40 % faster every 50 requests, down to its peers' times.
    const { mine, others, before } = routedWatch(
      600,
      (i, get) => Math.max(get ? 10 : 30, 120 * 0.6 ** Math.floor(i / 50)),
      random,
    );
    const evidence = judgeLatencySlices(before, mine, others, 2.5);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(evidence.warmupCut).toBeGreaterThan(DEFAULT_LATENCY_RULE.minWarmupRequests);
  });

  it('judged per route, lets an unchanged version through over many seeded watches', () => {
    const random = seededRandom(testSeed());
    let fired = 0;
    for (let run = 0; run < 100; run++) {
      const { mine, others, before } = routedWatch(400, (_, get) => (get ? 10 : 30), random);
      if (judgeLatencySlices(before, mine, others, 2.5).verdict === 'slower') fired++;
    }
    expect(fired, `seed ${random.seed}`).toBe(0);
  });

  /**
   * A watch of `count` requests of the new instance and as many of its peers, alternating in the log,
   * each request going to a route drawn by `shares` (the same mix on both sides); `ms(route, mine)`
   * gives a request's time.
   */
  function mixedWatch(
    count: number,
    shares: Record<string, number>,
    ms: (route: string, mine: boolean) => number,
    random: Random,
  ) {
    const draw = weightedDraw(random, shares);
    const side = (mine: boolean) => {
      const routes = Array.from({ length: count }, draw);
      return {
        ms: routes.map((r) => ms(r, mine)),
        lines: routes.map((_, i) => 2 * i + (mine ? 1 : 2)),
        routes,
      };
    };
    return { mine: side(true), others: side(false) };
  }

  const jittered = (random: Random) => (ms: number) => Math.round(ms * (0.7 + random.int(0, 60) / 100));
  const SHOP = { 'GET /items': 0.6, 'GET /users': 0.3, 'POST /orders': 0.1 };
  const SHOP_MS: Record<string, number> = { 'GET /items': 10, 'GET /users': 15, 'POST /orders': 40 };

  it('rolls back a release 3x slower on POST /orders alone, 10 % of its requests, once that route has two slices of its own', () => {
    const random = seededRandom(testSeed());
    const jitter = jittered(random);
    const slowPost = (r: string, mine: boolean) =>
      jitter(mine && r === 'POST /orders' ? 3 * SHOP_MS[r]! : SHOP_MS[r]!);
    const { mine, others } = mixedWatch(1_500, SHOP, slowPost, random);
    const evidence = judgeLatencySlices({ ms: [], routes: [] }, mine, others, 2.5);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('slower');
    expect(evidence.fired).toBeUndefined();
    expect(evidence.firedRoute).toBe('POST /orders');
    const post = evidence.routes.find((r) => r.route === 'POST /orders')!;
    expect(post.share).toBeGreaterThan(0.07);
    expect(post.share).toBeLessThan(0.13);
    expect(post.fired).toEqual([1, 2]);
    // The slices of all its requests, where a POST is 5 of 50, never saw it.
    expect(evidence.slices.some((s) => s.judged && s.slower)).toBe(false);
    // Before that route had 100 warm requests: not judged, and the watch should go on for it.
    const early = mixedWatch(600, SHOP, slowPost, random);
    const short = judgeLatencySlices({ ms: [], routes: [] }, early.mine, early.others, 2.5);
    const shortPost = short.routes.find((r) => r.route === 'POST /orders')!;
    expect(short.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(shortPost).toMatchObject({ verdict: 'not judged' });
    expect(latencyWaiting(short).routes.map((r) => r.route)).toEqual(['POST /orders']);
  });

  it('lets an unchanged release with noisy routes through over many seeded watches, each route judged on its own slices', () => {
    const random = seededRandom(testSeed());
    const jitter = jittered(random);
    // GET /users is noisy: a tenth of its requests wait 10 times as long (a cache miss), on both sides.
    const noisy = (r: string) =>
      jitter(SHOP_MS[r]! * (r === 'GET /users' && random.int(0, 9) === 0 ? 10 : 1));
    let fired = 0;
    let routesJudged = 0;
    for (let run = 0; run < 60; run++) {
      const { mine, others } = mixedWatch(1_500, SHOP, noisy, random);
      const evidence = judgeLatencySlices({ ms: [], routes: [] }, mine, others, 2.5);
      if (evidence.verdict === 'slower') fired++;
      routesJudged += evidence.routes.filter((r) => r.verdict === 'not slower').length;
    }
    expect(fired, `seed ${random.seed}`).toBe(0);
    // Not a rule that never looked: every route was judged in (nearly) every watch.
    expect(routesJudged, `seed ${random.seed}`).toBeGreaterThan(170);
  });

  it('reports a route short of its slices as not judged, and keeps the watch going only for a route with a meaningful share', () => {
    const random = seededRandom(testSeed());
    const jitter = jittered(random);
    const shares = { 'GET /items': 0.88, 'POST /orders': 0.1, 'GET /admin': 0.02 };
    const times: Record<string, number> = { 'GET /items': 10, 'POST /orders': 40, 'GET /admin': 30 };
    const { mine, others } = mixedWatch(700, shares, (r) => jitter(times[r]!), random);
    const evidence = judgeLatencySlices({ ms: [], routes: [] }, mine, others, 2.5);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('not slower');
    const post = evidence.routes.find((r) => r.route === 'POST /orders')!;
    expect(post.verdict).toBe('not judged');
    expect(post.requests).toBeLessThan(100);
    expect(post.note).toBe(
      `POST /orders: ${post.requests} requests, fewer than 2 warm slices of 50: not judged`,
    );
    expect(evidence.routes.find((r) => r.route === 'GET /admin')).toMatchObject({ verdict: 'not judged' });
    expect(evidence.routes.find((r) => r.route === 'GET /items')).toMatchObject({ verdict: 'not slower' });
    // GET /admin, 2 % of the requests, is said not judged but does not hold the watch to maxWatch.
    expect(latencyWaiting(evidence)).toEqual({ cold: false, pending: false, routes: [post] });
  });

  it('stops the slices of all requests where the watch went on for a route alone, and judges the routes on', () => {
    const random = seededRandom(testSeed());
    const jitter = jittered(random);
    // An unchanged release whose process slows down late (a busy core): 4x over its requests 401 to 600.
    const late = (r: string, mine: boolean, i: number) =>
      jitter(SHOP_MS[r]! * (mine && i >= 400 && i < 600 ? 8 : 1));
    const { mine, others } = mixedWatch(1_500, SHOP, () => 0, random);
    mine.ms = mine.routes.map((r, i) => late(r, true, i));
    others.ms = others.routes.map((r) => jitter(SHOP_MS[r]!));
    expect(judgeLatencySlices({ ms: [] }, mine, others, 2.5).fired, `seed ${random.seed}`).toBeDefined();
    const stopped = judgeLatencySlices({ ms: [] }, mine, others, 2.5, DEFAULT_LATENCY_RULE, 300);
    expect(stopped).toMatchObject({ wholeUpTo: 300, samples: { mine: 1_500 } });
    expect(stopped.slices).toHaveLength(6);
    expect(stopped.routes.find((r) => r.route === 'POST /orders')!.requests).toBeGreaterThan(100);
  });

  it('leaves a process slower on every route (a busy core) to the whole-instance rule: no route fires alone', () => {
    const random = seededRandom(testSeed());
    const jitter = jittered(random);
    // Every route of the new instance 100 ms slower over its requests 200 to 1 000, then as fast as its peers.
    const starved = (r: string, i: number) => jitter(SHOP_MS[r]!) + (i >= 200 && i < 1_000 ? 100 : 0);
    const { mine, others } = mixedWatch(1_500, SHOP, () => 0, random);
    mine.ms = mine.routes.map((r, i) => starved(r, i));
    others.ms = others.routes.map((r) => jitter(SHOP_MS[r]!));
    // The watch went on for a route alone from its 300th request: the whole-instance slices stop there.
    const evidence = judgeLatencySlices({ ms: [] }, mine, others, 2.5, DEFAULT_LATENCY_RULE, 300);
    const items = evidence.routes.find((r) => r.route === 'GET /items')!;
    expect(
      items.slices.some((s) => s.ratio > 2.5 && s.restRiseMs! > 40),
      `seed ${random.seed}`,
    ).toBe(true);
    expect(
      evidence.routes.every((r) => r.verdict !== 'slower'),
      `seed ${random.seed}`,
    ).toBe(true);
  });
});
