import { describe, expect, it } from 'vitest';
import { firstWarmSlice, sameStretches, sliceRequests } from '../../../proxy-config/core/deploy/warm-up.js';

const RULE = { minWarmupRequests: 100, sliceRequests: 50, levelRatio: 1.25 };

describe('sliceRequests', () => {
  it('cuts whole slices only: a last partial slice waits for more requests', () => {
    expect(sliceRequests(149, RULE)).toEqual([
      { from: 0, to: 50 },
      { from: 50, to: 100 },
    ]);
    expect(sliceRequests(150, RULE)).toHaveLength(3);
    expect(sliceRequests(49, RULE)).toEqual([]);
  });
});

describe('sameStretches', () => {
  it("takes the other instances' requests logged from each slice's first line to its last", () => {
    // The new instance answers every other line from line 1; the others the lines between.
    const mine = { ms: [1, 2, 3, 4, 5, 6], lines: [1, 3, 5, 7, 9, 11] };
    const others = { ms: [10, 20, 30, 40, 50, 60], lines: [2, 4, 6, 8, 10, 12] };
    expect(sameStretches(mine, [{ from: 0, to: 4 }], others)).toEqual([{ from: 0, to: 3 }]);
    // Line 4 falls between the slices' stretches (lines 1-3 and 5-11): in neither.
    expect(
      sameStretches(
        mine,
        [
          { from: 0, to: 2 },
          { from: 2, to: 6 },
        ],
        others,
      ),
    ).toEqual([
      { from: 0, to: 1 },
      { from: 2, to: 5 },
    ]);
  });
});

describe('firstWarmSlice', () => {
  it('waits for the minimum warm-up, then for the latency relative to the peers to stop falling', () => {
    // A fresh V8 on a starved core: 6x its peers, then faster slice after slice, then level.
    expect(firstWarmSlice([6, 5, 3.8, 2.9, 2.2, 1.7, 1.3, 1.2, 1.1], RULE)).toBe(7);
    // A release slow from its first request: as slow in every slice, warm as soon as the minimum has passed.
    expect(firstWarmSlice([10, 10.4, 9.9, 10.2], RULE)).toBe(2);
    // Getting slower is not getting warmer: warm.
    expect(firstWarmSlice([1, 1, 1, 3], RULE)).toBe(2);
  });

  it('is undefined while the new instance still gets faster, or before the minimum', () => {
    expect(firstWarmSlice([6, 4.5, 3.4, 2.6], RULE)).toBeUndefined();
    expect(firstWarmSlice([1, 1], RULE)).toBeUndefined();
  });
});
