import { describe, expect, it } from 'vitest';
import { DEFAULT_5XX } from '../../../proxy-config/core/deploy/fivexx-gate.js';
import type { LogWindow } from '../../../proxy-config/core/deploy/log-window.js';
import {
  breakDown4xx,
  DEFAULT_GATES,
  fivexxFired,
  judge4xx,
  judgeNewInstance,
  newInstance5xx,
} from '../../../proxy-config/core/deploy/watch-gates.js';
import { seededRandom, testSeed } from '../../support/seeded-random.js';
import { windowOf } from './window-of.js';

/** Request times as a loaded service logs them: whole ms, mostly near `typical`, a long tail. */
function times(count: number, typical: number, random: ReturnType<typeof seededRandom>): number[] {
  return Array.from({ length: count }, () => {
    const tail = random.int(1, 100) > 95 ? random.int(2, 6) : 1;
    return Math.round(typical * tail * (0.6 + random.int(0, 80) / 100));
  });
}

const window = windowOf;

/** The new instance's and its peers' windows over one stretch of log, their lines taking turns. */
const sideBySide = (mine: number[], others: number[]): [LogWindow, LogWindow] => [
  window(
    { '200': mine.length },
    mine,
    mine.map((_, i) => 2 * i + 1),
  ),
  window(
    { '200': others.length },
    others,
    others.map((_, i) => 2 * i + 2),
  ),
];
const limits = { ...DEFAULT_5XX, ...DEFAULT_GATES };

const none = window({});
/** The 5xx gate as the round runs it, fired or not. */
const fivexx = (before: LogWindow, mine: LogWindow, oldRelease: LogWindow, over = {}, minRequests = 1) =>
  fivexxFired(newInstance5xx(before, mine, oldRelease, { ...limits, ...over }, minRequests));

describe('the 5xx gate (newInstance5xx, fivexxFired)', () => {
  it('fires on a significant rise above its limit, compared with the share before the deploy', () => {
    expect(fivexx(window({ '200': 100 }), window({ '200': 90, '500': 10 }), none)).toMatchObject({
      gate: '5xx',
      against: 'before',
      fivexx: { verdict: 'rise', against: 'before', mine: { requests: 100, fivexx: 10 } },
    });
    expect(fivexx(window({ '200': 100 }), window({ '200': 97, '500': 3 }), none)).toBeUndefined();
    // A service that failed as much before the deploy: no rise, but the floor (5 %) fails it; without a floor it passes.
    expect(fivexx(window({ '200': 80, '500': 20 }), window({ '200': 78, '500': 22 }), none)).toMatchObject({
      gate: '5xx',
      limit: 0.05,
      fivexx: { verdict: 'floor' },
    });
    expect(
      fivexx(window({ '200': 80, '500': 20 }), window({ '200': 78, '500': 22 }), none, { max5xxShare: null }),
    ).toBeUndefined();
  });

  it("compares with the old release's instances when they answered enough, else the log before", () => {
    const before = window({ '200': 94, '500': 6 });
    // 6 % 5xx before the deploy excuses 3 of 30; the old release's instances, answering none, do not.
    expect(
      fivexx(before, window({ '200': 27, '500': 3 }), window({ '200': 300 }), { max5xxShare: null }),
    ).toMatchObject({
      gate: '5xx',
      against: 'others',
    });
    // The round leaves out the instances it already replaced: with them gone, too few are left to compare with.
    expect(
      fivexx(before, window({ '200': 27, '500': 3 }), window({ '200': 19 }), { max5xxShare: null }),
    ).toBeUndefined();
  });

  it('decides nothing on fewer requests than asked, and a null limit only reports', () => {
    expect(fivexx(window({ '200': 100 }), window({ '500': 5 }), none, {}, 20)).toBeUndefined();
    expect(
      fivexx(window({ '200': 100 }), window({ '500': 50 }), none, {
        max5xxIncrease: null,
        max5xxShare: null,
      }),
    ).toBeUndefined();
  });
});

describe('the 4xx gate (judge4xx)', () => {
  it('fires for a version that answers 429 (or 401/403, 404) to everyone, naming each kind', () => {
    const fired = judge4xx(
      window({ '200': 100 }),
      window({ '200': 10, '429': 80, '404': 5, '403': 5 }),
      0.05,
    );
    expect(fired).toMatchObject({ gate: '4xx' });
    expect(fired!.text).toContain('429×80');
    expect(fired!.text).toContain('401/403×5');
    expect(fired!.text).toContain('404×5');
    // The same 4xx share as before is no regression.
    expect(
      judge4xx(window({ '200': 90, '404': 10 }), window({ '200': 89, '404': 11 }), 0.05),
    ).toBeUndefined();
  });

  it('decides nothing on fewer requests than asked, and a null limit only reports', () => {
    expect(judge4xx(window({ '200': 100 }), window({ '429': 5 }), 0.05, 20)).toBeUndefined();
    expect(judge4xx(window({ '200': 100 }), window({ '429': 50 }), null)).toBeUndefined();
  });

  it('breaks the 4xx down the way people tell them apart', () => {
    expect(breakDown4xx({ '200': 3, '401': 1, '403': 2, '404': 4, '429': 5, '400': 6 })).toEqual({
      '429': 5,
      '401/403': 3,
      '404': 4,
      other: 6,
    });
  });
});

describe('the latency gate against the log before the deploy (no peers)', () => {
  it('fires on a version three times slower, not on noise under the floor', () => {
    const random = seededRandom(testSeed());
    const fired = judgeNewInstance(
      window({ '200': 100 }, times(100, 40, random)),
      window({ '200': 300 }, times(300, 120, random)),
      none,
      limits,
    );
    expect(fired, `seed ${random.seed}`).toMatchObject({ gate: 'latency', limit: 2.5, against: 'before' });
    expect(fired!.p).toBeLessThan(0.001);
    expect(fired!.latency).toMatchObject({ verdict: 'slower' });
    expect(fired!.text).toMatch(
      /^the new instance, against the log before the deploy: median request time rose in 2 consecutive slices of 50 requests \(its requests \d+–\d+, after a warm-up of \d+\), against the log before the deploy: \d+(\.\d+)? → \d+(\.\d+)? ms \(\d\.\d\dx, \+\d+(\.\d+)? ms, fastest tenth \+\d+ ms, p = .*; limits 2\.5x and \+40 ms for the median and the fastest tenth/,
    );
    const judge = (before: number[], after: number[]) =>
      judgeNewInstance(
        window({ '200': before.length }, before),
        window({ '200': after.length }, after),
        none,
        limits,
      );
    expect(judge(times(100, 40, random), times(300, 70, random))).toBeUndefined();
    // 1 ms against 3 ms is significant but under the floor: no regression worth a rollback.
    expect(judge(times(100, 1, random), times(300, 3, random))).toBeUndefined();
    // Too few request times on either side: no verdict.
    expect(judge(times(10, 40, random), times(300, 400, random))).toBeUndefined();
    expect(judge(times(100, 40, random), times(49, 400, random))).toBeUndefined();
  });

  it('is not moved by a few slow requests that would triple a p99', () => {
    const random = seededRandom(testSeed());
    const baseline = times(100, 20, random);
    // The same service, but two requests of the new instance waited on something for 600 ms.
    const after = [...times(296, 20, random), 600, 610, 620, 630];
    const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]!;
    expect(p99(after) / p99(baseline), `seed ${random.seed}`).toBeGreaterThan(2.5);
    expect(
      judgeNewInstance(window({ '200': 100 }, baseline), window({ '200': 300 }, after), none, limits),
    ).toBeUndefined();
  });
});

describe('judgeNewInstance', () => {
  it('judges the new instance against the other instances of the same window when they answered enough', () => {
    // Overall 10 % 429 would pass a 5-point limit against a 6 % baseline; the new instance alone does not.
    const before = window({ '200': 94, '429': 6 });
    const fired = judgeNewInstance(before, window({ '429': 30 }), window({ '200': 270 }), limits);
    expect(fired).toMatchObject({ gate: '4xx', against: 'others' });
    expect(fired!.text).toMatch(/^the new instance, against the other instances in the same window: /);
    expect(judgeNewInstance(before, window({ '200': 30 }), window({ '200': 270 }), limits)).toBeUndefined();
  });

  it('judges the request times against the other instances over the same stretch, else the log before', () => {
    const random = seededRandom(testSeed());
    const before = window({ '200': 300 }, times(300, 20, random));
    // Six times slower than its peers in the same window: rolled back against them.
    const slow = judgeNewInstance(
      before,
      ...sideBySide(times(300, 120, random), times(300, 20, random)),
      limits,
    );
    expect(slow, `seed ${random.seed}`).toMatchObject({ gate: 'latency', against: 'others' });
    expect(slow!.text).toMatch(/after a warm-up of \d+\)/);
    expect(slow!.text).toContain('against the other instances over the same stretch');
    // The whole stack slowed down (a busy database): the new instance is as slow as its peers, not blamed.
    expect(
      judgeNewInstance(before, ...sideBySide(times(300, 60, random), times(300, 60, random)), limits),
    ).toBeUndefined();
    // No peers with enough requests: compared with the log before the deploy.
    expect(
      judgeNewInstance(before, ...sideBySide(times(300, 120, random), times(10, 20, random)), limits),
    ).toMatchObject({ gate: 'latency', against: 'before' });
  });

  it('lets through an unchanged version over many seeded watches', () => {
    const random = seededRandom(testSeed());
    let fired = 0;
    for (let run = 0; run < 200; run++) {
      const before = window({ '200': 300 }, times(300, 20, random));
      fired += judgeNewInstance(before, ...sideBySide(times(300, 22, random), times(300, 20, random)), limits)
        ? 1
        : 0;
    }
    expect(fired, `seed ${random.seed}`).toBe(0);
  });

  it('falls back to the log before the deploy when the others answered too few requests', () => {
    const fired = judgeNewInstance(
      window({ '200': 100 }),
      window({ '404': 30 }),
      window({ '200': 3 }),
      limits,
    );
    expect(fired).toMatchObject({ gate: '4xx', against: 'before' });
  });

  it('leaves the 5xx to newInstance5xx, the one 5xx gate the round runs', () => {
    expect(
      judgeNewInstance(window({ '200': 100 }), window({ '500': 30 }), window({ '200': 3 }), limits),
    ).toBeUndefined();
  });

  it('names the comparison of the slices that fired, not of the last slice', () => {
    const random = seededRandom(testSeed());
    const before = window({ '200': 300 }, times(300, 120, random));
    // Six times slower than its peers while they served beside it; then, alone (its peers gone),
    // no slower than the log before the deploy in two slices (three would be warm: see withOwnStart).
    const [early, others] = sideBySide(times(300, 120, random), times(300, 20, random));
    const late = times(100, 120, random);
    const mine = window(
      { '200': 400 },
      [...early.latencyMs, ...late],
      [...early.latencyLines, ...late.map((_, i) => 2_000 + i)],
    );
    const fired = judgeNewInstance(before, mine, others, limits);
    expect(fired, `seed ${random.seed}`).toMatchObject({ gate: 'latency', against: 'others' });
    expect(fired!.latency!.slices.at(-1)!.against).toBe('before');
    expect(fired!.text).toMatch(/^the new instance, against the other instances in the same window: /);
  });
});
