import { describe, expect, it } from 'vitest';
import { judgeLatencySlices, latencyWaiting } from '../../../../proxy-config/core/deploy/latency-verdict.js';
import {
  describeOwnStart,
  describeWithoutRecord,
  judgeOwnStart,
  recordStart,
  settleOwnStart,
  startProblem,
  START_CAP,
  vetoedByOwnStart,
  withOwnStart,
  type RecordedStart,
} from '../../../../proxy-config/core/deploy/own-start.js';
import { seededRandom, testSeed, weightedDraw } from '../../../support/seeded-random.js';

type Random = ReturnType<typeof seededRandom>;

const jittered = (random: Random) => (ms: number) => Math.round(ms * (0.7 + random.int(0, 60) / 100));

/**
 * A new instance and its warm peers answering alternately, each request going to a route drawn by
 * `shares`; the new one's i-th request takes `mine(i, route)` ms, its peers' `peers(route)` (±30 %).
 */
function watch(
  count: number,
  shares: Record<string, number>,
  mine: (i: number, route: string) => number,
  peers: (route: string) => number,
  random: Random,
) {
  const jitter = jittered(random);
  const draw = weightedDraw(random, shares);
  const side = (own: boolean) => {
    const routes = Array.from({ length: count }, draw);
    return {
      ms: routes.map((r, i) => jitter(own ? mine(i, r) : peers(r))),
      lines: routes.map((_, i) => 2 * i + (own ? 1 : 2)),
      routes,
    };
  };
  return { mine: side(true), others: side(false) };
}

/** The old release's own start: `instances` new instances of `count` requests each, as `watch` makes them. */
function recorded(
  instances: number,
  count: number,
  shares: Record<string, number>,
  ms: (i: number, route: string) => number,
  random: Random,
): RecordedStart {
  const starts = Array.from({ length: instances }, () => watch(count, shares, ms, () => 0, random).mine);
  return recordStart(starts, '2026-12-06T10:00:00.000Z', 'v1');
}

const ONE = { 'GET /': 1 };
/**
 * A fresh process on a starved core: 130 ms for its first 400 requests, even in its fastest tenth,
 * then its peers' 10 ms (the issue's 3-10x, after it levelled off: its warm-up rule cannot tell).
 */
const cold = (i: number) => (i < 400 ? 130 : 10);

describe("judging against the old release's own start", () => {
  it('with no record (a first deploy), judges a cold start once warm: pending while slower than its peers, not rolled back once as fast as they', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(400, ONE, cold, () => 10, random);
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    const waiting = withOwnStart(peers, mine, undefined);
    expect(waiting).toMatchObject({ verdict: 'not judged', pending: true, withoutRecord: 'waiting' });
    expect(waiting.ownStart).toBeUndefined();
    expect(latencyWaiting(waiting)).toMatchObject({ cold: false, pending: true });
    expect(describeWithoutRecord(waiting)).toBe(
      `slower than its warm peers in slices ${peers.fired!.join(', ')}, with no record of the old release's own start: judged once 3 of its slices in a row are not slower than its peers; watching on, up to deploy.maxWatch`,
    );
    // 150 requests later, three slices at its peers' 10 ms: warm, not rolled back.
    const later = watch(550, ONE, cold, () => 10, random);
    const laterPeers = judgeLatencySlices([], later.mine, later.others, 2.5);
    const warm = withOwnStart(laterPeers, later.mine, undefined);
    expect(warm, `seed ${random.seed}`).toMatchObject({
      verdict: 'not slower',
      withoutRecord: 'warm',
      fired: laterPeers.fired,
    });
    expect(warm.pending).toBeUndefined();
    expect(describeWithoutRecord(warm)).toMatch(
      /then not slower than they in its last 3 slices in a row \(9–11\): warm, not rolled back$/,
    );
    // Two of them are not enough: a watch that ends so rolls it back.
    const short = watch(500, ONE, cold, () => 10, random);
    const settled = settleOwnStart(
      withOwnStart(judgeLatencySlices([], short.mine, short.others, 2.5), short.mine, undefined),
    );
    expect(settled, `seed ${random.seed}`).toMatchObject({ verdict: 'slower', withoutRecord: 'never warm' });
    expect(settled.pending).toBeUndefined();
  });

  it('with no record, rolls back a release slower from its first request when the watch ends: it is never as fast as its peers', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(
      1_000,
      ONE,
      () => 110,
      () => 10,
      random,
    );
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    const pending = withOwnStart(peers, mine, undefined);
    expect(pending).toMatchObject({ verdict: 'not judged', pending: true, withoutRecord: 'waiting' });
    const settled = settleOwnStart(pending);
    expect(settled).toMatchObject({ verdict: 'slower', withoutRecord: 'never warm', fired: peers.fired });
    expect(describeWithoutRecord(settled)).toMatch(
      /, and not 3 slices in a row as fast as they when the watch ended$/,
    );
    // A stall of its peers (one slice in eight at 6x) is not three slices as fast as they.
    const stalled = {
      ...others,
      ms: others.ms.map((ms, i) => (Math.floor(i / 50) % 8 === 7 ? ms * 6 : ms)),
    };
    const withStalls = judgeLatencySlices([], mine, stalled, 2.5);
    expect(
      withStalls.slices.some((s) => s.judged && !s.slower),
      `seed ${random.seed}`,
    ).toBe(true);
    expect(withOwnStart(withStalls, mine, undefined).verdict).toBe('not judged');
  });

  it('does not roll back a cold start of an unchanged release: the old release started as slowly', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(600, ONE, cold, () => 10, random);
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    const evidence = withOwnStart(peers, mine, recorded(2, 600, ONE, cold, random));
    expect(evidence.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(vetoedByOwnStart(evidence)).toBe(true);
    expect(evidence.fired).toEqual(peers.fired);
    expect(evidence.ownStart).toMatchObject({
      verdict: 'not slower',
      samples: { mine: 600, recorded: [600, 600] },
    });
    expect(evidence.ownStart!.unconverged).toBeUndefined();
    // Judged past the minimum warm-up only: requests 101 to 600.
    expect(evidence.ownStart!.slices.map((s) => s.requests)).toEqual(
      Array.from({ length: 10 }, (_, k) => [101 + 50 * k, 150 + 50 * k]),
    );
    expect(evidence.ownStart!.slices.every((s) => s.compared && s.samples.against === 100)).toBe(true);
    expect(describeOwnStart(evidence.ownStart!)).toMatch(
      /^slower than the warm peers, not than the old release's own start \(recorded 2026-12-06T10:00:00.000Z, release v1, 2 instance\(s\)\) at the same age \(its limits 1.5x in 3 slices in a row\): not rolled back \(its requests past the warm-up, slice medians new\/recorded ms: [\d.]+\/[\d.]+ /,
    );
  });

  it('rolls back a release 3x slower than the old one was at the same age', () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(
      400,
      ONE,
      (i) => 3 * cold(i),
      () => 10,
      random,
    );
    const record = recorded(2, 600, ONE, cold, random);
    const evidence = withOwnStart(judgeLatencySlices([], mine, others, 2.5), mine, record);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('slower');
    expect(evidence.ownStart).toMatchObject({ verdict: 'slower', fired: [1, 2, 3] });
    expect(describeOwnStart(evidence.ownStart!)).toMatch(
      /^and against the old release's own start \(recorded .*\), its limits 1.5x in 3 slices in a row: its requests 101–150: median [\d.]+ → [\d.]+ ms \(\d\.\d\dx, .*; its requests 151–200: /,
    );
  });

  it('rolls back a release 100 ms slower, which a cold start on a busy core hides from a 2.5x bar', () => {
    const random = seededRandom(testSeed());
    // 230 ms against the old start's 130 ms at the same age: 1.8x, +100 ms, in its fastest tenth too.
    const { mine, others } = watch(
      400,
      ONE,
      (i) => cold(i) + 100,
      () => 10,
      random,
    );
    const record = recorded(2, 600, ONE, cold, random);
    const evidence = withOwnStart(judgeLatencySlices([], mine, others, 2.5), mine, record);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('slower');
    expect(evidence.ownStart!.verdict).toBe('slower');
    const ratios = evidence.ownStart!.slices.filter((s) => s.compared).map((s) => s.ratio);
    expect(Math.max(...ratios), `seed ${random.seed}`).toBeLessThan(2.5);
  });

  it('waits, not judged, while the new instance has fewer than 3 slices to compare with the record', () => {
    const random = seededRandom(testSeed());
    // The peers' two slower slices in a row come at requests 101–200: two slices past the warm-up.
    const { mine, others } = watch(200, ONE, cold, () => 10, random);
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    const record = recorded(2, 600, ONE, cold, random);
    const early = withOwnStart(peers, mine, record);
    expect(early.verdict, `seed ${random.seed}`).toBe('not judged');
    expect(early.note).toBe(
      "slower than the warm peers; 2 of the 3 slices in a row needed against the old release's own start so far",
    );
    expect(latencyWaiting(early)).toMatchObject({ cold: false, pending: true });
    expect(describeOwnStart(early.ownStart!)).toMatch(
      /: 2 of the 3 slices in a row it needs compared so far; the peers' verdict stands if the watch ends so$/,
    );
    // Should the watch end so (its bound), the peers' verdict stands.
    const settled = settleOwnStart(early);
    expect(settled.verdict).toBe('slower');
    expect(settled.fired).toEqual(peers.fired);
    expect(settled.pending).toBeUndefined();
    expect(settleOwnStart(peers)).toBe(peers);
    // A slice later, the record can say: as slow as the old release's start at the same age, but
    // still slower than its warm peers, so it waits on; once as fast as they, not rolled back.
    const later = watch(250, ONE, cold, () => 10, random);
    const asSlow = withOwnStart(judgeLatencySlices([], later.mine, later.others, 2.5), later.mine, record);
    expect(asSlow.verdict, `seed ${random.seed}`).toBe('not judged');
    expect(asSlow.ownStart).toMatchObject({ verdict: 'not slower', unconverged: 'waiting' });
    const warm = watch(600, ONE, cold, () => 10, random);
    const judged = withOwnStart(judgeLatencySlices([], warm.mine, warm.others, 2.5), warm.mine, record);
    expect(judged.verdict, `seed ${random.seed}`).toBe('not slower');
  });

  it('judges it once warm: not slower than an old start that was cold, it waits; slower than its peers again at the end, rolled back', () => {
    const random = seededRandom(testSeed());
    // The record ends while the old start was still cold (a short watch beside a busy core).
    const record = recorded(2, 400, ONE, cold, random);
    // A release 80 ms slower whose own cold start hides it: as slow as the old start at first.
    const slower = watch(
      600,
      ONE,
      (i) => (i < 400 ? 130 : 90),
      () => 10,
      random,
    );
    const peers = judgeLatencySlices([], slower.mine, slower.others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    const waiting = withOwnStart(peers, slower.mine, record);
    expect(waiting.verdict, `seed ${random.seed}`).toBe('not judged');
    expect(waiting.pending).toBe(true);
    expect(waiting.ownStart).toMatchObject({ verdict: 'not slower', unconverged: 'waiting' });
    expect(vetoedByOwnStart(waiting)).toBe(false);
    expect(latencyWaiting(waiting)).toMatchObject({ cold: false, pending: true });
    expect(waiting.note).toBe(
      "slower than its warm peers, not than the old release's own start at the same age: judged once 3 of its slices in a row are not slower than its peers",
    );
    expect(describeOwnStart(waiting.ownStart!)).toMatch(
      /^not slower than the old release's own start \(.*\) at the same age \(its limits 1.5x in 3 slices in a row; slice medians new\/recorded ms: .*\), but not yet 3 slices in a row as fast as its warm peers: watching on, up to deploy.maxWatch$/,
    );
    // The watch ends so: rolled back on its last slower slices (requests 501–600), the peers' first
    // ones kept beside them.
    const settled = settleOwnStart(waiting);
    expect(settled.verdict).toBe('slower');
    expect(settled.fired).toEqual([11, 12]);
    expect(settled.pending).toBeUndefined();
    expect(settled.ownStart).toMatchObject({ unconverged: 'at the end', peersFired: peers.fired });
    expect(describeOwnStart(settled.ownStart!)).toMatch(
      new RegExp(
        `^not slower than the old release's own start .*, but slower than its warm peers again after the slices they first found slower \\(${peers.fired!.join(', ')}\\), and not 3 slices in a row as fast as they when the watch ended$`,
      ),
    );
    // An unchanged release against the same record: as fast as its peers by then, not rolled back.
    const unchanged = watch(600, ONE, cold, () => 10, random);
    const through = withOwnStart(
      judgeLatencySlices([], unchanged.mine, unchanged.others, 2.5),
      unchanged.mine,
      record,
    );
    expect(through.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(vetoedByOwnStart(through)).toBe(true);
  });

  it('a moment when the peers stall too does not let a slower release through', () => {
    const random = seededRandom(testSeed());
    const record = recorded(2, 400, ONE, cold, random);
    const slower = watch(
      1_000,
      ONE,
      (i) => (i < 400 ? 130 : 90),
      () => 10,
      random,
    );
    // One slice in eight, the peers answer at 60 ms too (a stall of the busy core): not slower there.
    const others = {
      ...slower.others,
      ms: slower.others.ms.map((ms, i) => (Math.floor(i / 50) % 8 === 7 ? ms * 6 : ms)),
    };
    const peers = judgeLatencySlices([], slower.mine, others, 2.5);
    expect(
      peers.slices.some((s) => s.judged && !s.slower),
      `seed ${random.seed}`,
    ).toBe(true);
    const evidence = withOwnStart(peers, slower.mine, record);
    expect(evidence.verdict, `seed ${random.seed}`).toBe('not judged');
    expect(settleOwnStart(evidence).verdict).toBe('slower');
  });

  it("a watch that ends with no slice after the ones that fired keeps the record's verdict, as before", () => {
    const random = seededRandom(testSeed());
    // A moment fast at its requests 101–150: the peers' slices 4 and 5 fired, its last ones, and the
    // watch ended there (its own wait, or an interrupt).
    const { mine, others } = watch(
      250,
      ONE,
      (i) => (i >= 100 && i < 150 ? 10 : 130),
      () => 10,
      random,
    );
    const record = recorded(2, 600, ONE, cold, random);
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.fired, `seed ${random.seed}`).toEqual([4, 5]);
    const pending = withOwnStart(peers, mine, record);
    expect(pending.ownStart, `seed ${random.seed}`).toMatchObject({ unconverged: 'waiting' });
    const settled = settleOwnStart(pending);
    expect(settled.verdict).toBe('not slower');
    expect(settled.ownStart!.unconverged).toBeUndefined();
    expect(vetoedByOwnStart(settled)).toBe(true);
  });

  it('overrules the peers only where the record reaches the slices they found slower', () => {
    const random = seededRandom(testSeed());
    // As fast as its peers, then a stall 10x slower at its requests 301–450.
    const stalled = (i: number) => (i >= 300 && i < 450 ? 100 : 10);
    const { mine, others } = watch(600, ONE, stalled, () => 10, random);
    const peers = judgeLatencySlices([], mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    // A record of 300 requests as fast: compared up to request 300, where nothing was slower.
    const short = withOwnStart(
      peers,
      mine,
      recorded(2, 300, ONE, () => 10, random),
    );
    // It says nothing of the stall, and the instance was as fast as its peers before: not a cold
    // start, so the peers' verdict stands, though its last 150 requests are as fast again.
    expect(short, `seed ${random.seed}`).toMatchObject({ verdict: 'slower' });
    expect(short.withoutRecord).toBeUndefined();
    expect(short.pending).toBeUndefined();
    expect(short.ownStart!.note).toMatch(
      /^the record reaches request 300, not the slices the peers found slower \(to \d+\)$/,
    );
    // A record that reaches the stall, as slow there: overruled.
    const long = withOwnStart(peers, mine, recorded(2, 500, ONE, stalled, random));
    expect(long.verdict, `seed ${random.seed}`).toBe('not slower');
  });

  it('where too few requests were recorded at the same numbers, judges a cold start as with no record (once warm as its peers), and lets the peers judge one slower only after it was warm', () => {
    const random = seededRandom(testSeed());
    // The new instance 13x slower than its peers for 400 requests; the record, of 120 as slow:
    // only requests 101–150 have 20 recorded (and one slice is not three in a row).
    const short = watch(400, ONE, cold, () => 10, random);
    const record = recorded(1, 120, ONE, cold, random);
    const waiting = withOwnStart(judgeLatencySlices([], short.mine, short.others, 2.5), short.mine, record);
    expect(waiting, `seed ${random.seed}`).toMatchObject({
      verdict: 'not judged',
      pending: true,
      withoutRecord: 'waiting',
      ownStart: {
        verdict: 'not judged',
        note: '1 of its 6 slice(s) past the warm-up had 20 recorded requests at the same numbers, 3 needed',
      },
    });
    expect(waiting.ownStart!.slices.map((s) => s.compared)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(describeOwnStart(waiting.ownStart!)).toMatch(
      /could not compare \(1 of its 6 slice\(s\) past the warm-up had 20 recorded requests at the same numbers, 3 needed\)$/,
    );
    expect(describeWithoutRecord(waiting)).toContain(
      "with no record of the old release's own start to compare those slices with: judged once 3",
    );
    // As fast as its peers in its last three slices: not rolled back.
    const later = watch(550, ONE, cold, () => 10, random);
    const warm = withOwnStart(judgeLatencySlices([], later.mine, later.others, 2.5), later.mine, record);
    expect(warm, `seed ${random.seed}`).toMatchObject({ verdict: 'not slower', withoutRecord: 'warm' });
    // A watch that ends before: rolled back, as with no record.
    expect(settleOwnStart(waiting)).toMatchObject({ verdict: 'slower', withoutRecord: 'never warm' });
    // As fast as its peers first, then slower: not a cold start, and the peers' verdict stands at once.
    const stalled = (i: number) => (i >= 300 ? 100 : 10);
    const late = watch(450, ONE, stalled, () => 10, random);
    const stands = withOwnStart(judgeLatencySlices([], late.mine, late.others, 2.5), late.mine, record);
    expect(stands, `seed ${random.seed}`).toMatchObject({
      verdict: 'slower',
      ownStart: { verdict: 'not judged' },
    });
    expect(stands.withoutRecord).toBeUndefined();
  });

  const SHOP = { 'GET /items': 0.6, 'GET /users': 0.3, 'POST /orders': 0.1 };
  const SHOP_MS: Record<string, number> = { 'GET /items': 10, 'GET /users': 15, 'POST /orders': 40 };
  const slowPost = (_: number, r: string) => (r === 'POST /orders' ? 3 : 1) * SHOP_MS[r]!;

  it('once the whole instance is warm as its peers, judges a route slower on its own requests: a cold start hides no slower route', () => {
    const random = seededRandom(testSeed());
    // Cold for its first 400 requests (130 ms whatever the route), then its POST /orders 3x slower.
    const coldThenSlowPost = (i: number, r: string) => (i < 400 ? 130 : slowPost(i, r));
    const { mine, others } = watch(3_000, SHOP, coldThenSlowPost, (r) => SHOP_MS[r]!, random);
    const peers = judgeLatencySlices({ ms: [] }, mine, others, 2.5);
    expect(peers.fired, `seed ${random.seed}`).toBeDefined();
    expect(peers.routes.find((r) => r.route === 'POST /orders')?.verdict, `seed ${random.seed}`).toBe(
      'slower',
    );
    for (const record of [undefined, recorded(2, 3_000, SHOP, (i) => (i < 400 ? 130 : 10), random)]) {
      const judged = settleOwnStart(withOwnStart(peers, mine, record));
      expect(judged, `seed ${random.seed}`).toMatchObject({ verdict: 'slower', firedRoute: 'POST /orders' });
      expect(judged.fired).toBeUndefined();
    }
    // Cold alike, every route as fast as the peers' once warm: not rolled back, with no record.
    const unchanged = watch(
      3_000,
      SHOP,
      (i, r) => (i < 400 ? 130 : SHOP_MS[r]!),
      (r) => SHOP_MS[r]!,
      random,
    );
    const warm = withOwnStart(
      judgeLatencySlices({ ms: [] }, unchanged.mine, unchanged.others, 2.5),
      unchanged.mine,
      undefined,
    );
    expect(warm, `seed ${random.seed}`).toMatchObject({ verdict: 'not slower', withoutRecord: 'warm' });
  });

  it("on the route whose slices fired, judges that route's own requests against the record's of it", () => {
    const random = seededRandom(testSeed());
    const { mine, others } = watch(2_000, SHOP, slowPost, (r) => SHOP_MS[r]!, random);
    const peers = judgeLatencySlices({ ms: [] }, mine, others, 2.5);
    expect(peers.verdict, `seed ${random.seed}`).toBe('slower');
    expect(peers.firedRoute).toBe('POST /orders');
    // The old release was as fast as its peers on POST /orders: this one is slower there.
    const unchanged = recorded(2, 2_000, SHOP, (_, r) => SHOP_MS[r]!, random);
    const slower = withOwnStart(peers, mine, unchanged);
    expect(slower.verdict, `seed ${random.seed}`).toBe('slower');
    expect(slower.ownStart).toMatchObject({ route: 'POST /orders', verdict: 'slower' });
    const posts = mine.routes.filter((r, i) => i >= 100 && r === 'POST /orders').length;
    expect(slower.ownStart!.samples.mine).toBe(posts);
    expect(describeOwnStart(slower.ownStart!)).toContain(
      'its POST /orders requests after the warm-up 1–50: median',
    );
    // POSTs 3x slower for their first 100 past the warm-up, then as fast as the peers': a cold start.
    const coldPosts = () => {
      let posts = 0;
      return (i: number, r: string) =>
        r !== 'POST /orders' ? SHOP_MS[r]! : (i >= 100 && ++posts > 100 ? 1 : 3) * SHOP_MS[r]!;
    };
    const slowAtStart = recordStart(
      [0, 1].map(() => watch(2_000, SHOP, coldPosts(), () => 0, random).mine),
      '2026-12-06T10:00:00.000Z',
    );
    const started = watch(3_000, SHOP, coldPosts(), (r) => SHOP_MS[r]!, random);
    const coldPeers = judgeLatencySlices({ ms: [] }, started.mine, started.others, 2.5);
    expect(coldPeers.firedRoute, `seed ${random.seed}`).toBe('POST /orders');
    // The old release's POSTs were as slow when it started, and these are as fast as the peers' by
    // their newest slices: like with like, not rolled back.
    const vetoed = withOwnStart(coldPeers, started.mine, slowAtStart);
    expect(vetoed.verdict, `seed ${random.seed}`).toBe('not slower');
    expect(vetoed.ownStart).toMatchObject({ route: 'POST /orders', verdict: 'not slower' });
    // A release 4x slower on POST against that record: near as slow at first (1.3x), still slower
    // than the peers at its newest slices.
    const fourTimes = watch(
      2_000,
      SHOP,
      (_, r) => (r === 'POST /orders' ? 4 : 1) * SHOP_MS[r]!,
      (r) => SHOP_MS[r]!,
      random,
    );
    const notYet = withOwnStart(
      judgeLatencySlices({ ms: [] }, fourTimes.mine, fourTimes.others, 2.5),
      fourTimes.mine,
      slowAtStart,
    );
    expect(notYet.ownStart, `seed ${random.seed}`).toMatchObject({ unconverged: 'waiting' });
    const settled = settleOwnStart(notYet);
    expect(settled.verdict).toBe('slower');
    const route = settled.routes.find((r) => r.route === 'POST /orders')!;
    expect(route.fired).toEqual([route.slices.length - 1, route.slices.length]);
  });

  it('lets an unchanged cold start through over many seeded watches, and rolls back every 3x slower one', () => {
    const random = seededRandom(testSeed());
    let unchanged = 0;
    let bad = 0;
    for (let run = 0; run < 50; run++) {
      const record = recorded(2, 600, ONE, cold, random);
      const a = watch(600, ONE, cold, () => 10, random);
      const verdict = withOwnStart(judgeLatencySlices([], a.mine, a.others, 2.5), a.mine, record);
      if (settleOwnStart(verdict).verdict === 'slower') unchanged++;
      const b = watch(
        400,
        ONE,
        (i) => 3 * cold(i),
        () => 10,
        random,
      );
      if (withOwnStart(judgeLatencySlices([], b.mine, b.others, 2.5), b.mine, record).verdict === 'slower')
        bad++;
    }
    expect({ unchanged, bad }, `seed ${random.seed}`).toEqual({ unchanged: 0, bad: 50 });
  });
});

describe('recordStart', () => {
  it("keeps each instance's first request times, whole, with routes as indices into one list", () => {
    const long = { ms: Array.from({ length: START_CAP + 5 }, (_, i) => i + 0.4), routes: [] as string[] };
    long.routes = long.ms.map((_, i) => (i % 2 ? 'POST /orders' : 'GET /items'));
    const record = recordStart([long, { ms: [3], routes: ['GET /users'] }], '2026-12-06T10:00:00.000Z');
    expect(record.routes).toEqual(['GET /items', 'POST /orders', 'GET /users']);
    expect(record.instances[0]!.ms).toHaveLength(START_CAP);
    expect(record.instances[0]!.ms.slice(0, 3)).toEqual([0, 1, 2]);
    expect(record.instances[0]!.route!.slice(0, 3)).toEqual([0, 1, 0]);
    expect(record.instances[1]).toEqual({ ms: [3], route: [2] });
    expect(record).not.toHaveProperty('release');
    expect(startProblem(record)).toBeUndefined();
    // A log format without the request: no routes at all.
    expect(recordStart([{ ms: [1, 2], routes: ['', ''] }], 'now', 'v2')).toEqual({
      release: 'v2',
      recordedAt: 'now',
      instances: [{ ms: [1, 2] }],
    });
  });

  it('names what a hand-edited record lacks', () => {
    expect(startProblem({ instances: [] })).toBe('no recordedAt');
    expect(startProblem({ recordedAt: 'x', instances: [{ ms: ['1'] }] })).toBe(
      'instance 1 has no request times (or routes) of its own',
    );
    expect(startProblem({ recordedAt: 'x', routes: ['GET /'], instances: [{ ms: [1], route: [1] }] })).toBe(
      'instance 1 has no request times (or routes) of its own',
    );
  });

  it('judges nothing slower on a record of nothing', () => {
    const random = seededRandom(testSeed());
    const { mine } = watch(400, ONE, cold, () => 10, random);
    const rule = { ...judgeLatencySlices([], mine, mine, 2.5).rule };
    expect(judgeOwnStart(mine, { recordedAt: 'x', instances: [] }, rule)).toMatchObject({
      verdict: 'not judged',
      samples: { mine: 400, recorded: [] },
    });
  });
});
