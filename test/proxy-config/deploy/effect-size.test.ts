import { describe, expect, it } from 'vitest';
import { judgeEffect } from '../../../proxy-config/core/deploy/effect-size.js';
import { seededRandom, testSeed } from '../../support/seeded-random.js';

const RULE = { maxRatio: 2.5, alpha: 0.001, medianFloorMs: 10, minEffectMs: 40 };

/** `count` request times spread around `typical` (±30 %). */
function times(count: number, typical: number, random: ReturnType<typeof seededRandom>): number[] {
  return Array.from({ length: count }, () => Math.round(typical * (0.7 + random.int(0, 60) / 100)));
}

describe('judgeEffect', () => {
  it('finds a release 100 ms slower than its peers slower, with every number it used', () => {
    const random = seededRandom(testSeed());
    const verdict = judgeEffect(times(50, 110, random), times(80, 10, random), RULE);
    expect(verdict, `seed ${random.seed}`).toMatchObject({
      slower: true,
      samples: { mine: 50, against: 80 },
    });
    expect(verdict.ratio).toBeGreaterThan(2.5);
    expect(verdict.effectMs).toBeGreaterThan(40);
    expect(verdict.p).toBeLessThan(0.001);
  });

  it('needs an effect past the absolute floor: a cold process at 26 ms beside warm peers at 4 ms is 2.6x the 10 ms floor, but 22 ms', () => {
    const mine = Array<number>(50).fill(26);
    const peers = Array<number>(50).fill(4);
    const verdict = judgeEffect(mine, peers, RULE);
    expect(verdict.ratio).toBeCloseTo(2.6);
    expect(verdict.p).toBeLessThan(0.001);
    expect(verdict).toMatchObject({ effectMs: 22, fastShiftMs: 22, slower: false });
    // The same samples past a lower floor: slower.
    expect(judgeEffect(mine, peers, { ...RULE, minEffectMs: 20 }).slower).toBe(true);
  });

  it('needs its fastest requests to have moved too: a process waiting for a busy CPU still answers some fast', () => {
    // A fifth of its requests as fast as its peers', the rest waiting 150 ms for a starved event loop.
    const queued = [...Array<number>(10).fill(8), ...Array<number>(40).fill(150)];
    const peers = Array<number>(50)
      .fill(8)
      .map((ms, i) => ms + (i % 5));
    const verdict = judgeEffect(queued, peers, RULE);
    expect(verdict.ratio).toBeGreaterThan(2.5);
    expect(verdict.effectMs).toBeGreaterThan(40);
    expect(verdict.p).toBeLessThan(0.001);
    expect(verdict).toMatchObject({ fastShiftMs: 0, slower: false });
    // A release 100 ms slower in its own work: every request moved.
    expect(
      judgeEffect(
        peers.map((ms) => ms + 100),
        peers,
        RULE,
      ),
    ).toMatchObject({ fastShiftMs: 100, slower: true });
  });

  it('needs the ratio: 200 ms against 100 ms is 100 ms more but 2x', () => {
    const random = seededRandom(testSeed());
    const verdict = judgeEffect(times(50, 200, random), times(50, 100, random), RULE);
    expect(verdict.effectMs, `seed ${random.seed}`).toBeGreaterThan(40);
    expect(verdict).toMatchObject({ slower: false });
  });

  it('needs the rank test: two mixes of the same fast and slow answers', () => {
    const mix = (fast: number, slow: number) => [
      ...Array<number>(fast).fill(12),
      ...Array<number>(slow).fill(100),
    ];
    const verdict = judgeEffect(mix(24, 26), mix(26, 24), RULE);
    expect(verdict.ratio).toBeGreaterThan(2.5);
    expect(verdict.effectMs).toBeGreaterThan(40);
    expect(verdict.p).toBeGreaterThan(0.1);
    expect(verdict.slower).toBe(false);
  });
});
