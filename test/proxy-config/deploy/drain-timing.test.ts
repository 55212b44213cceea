import { describe, expect, it } from 'vitest';
import { formatWait, planDrainTiming } from '../../../proxy-config/core/deploy/drain-timing.js';

describe('planDrainTiming', () => {
  it('is interval × threshold + margin, in whole milliseconds', () => {
    expect(planDrainTiming({ interval: 5, failureThreshold: 3, margin: 5 })).toEqual({
      detectMs: 15_000,
      marginMs: 5_000,
      waitMs: 20_000,
    });
    expect(planDrainTiming({ interval: 0.2, failureThreshold: 2, margin: 0.2 }).waitMs).toBe(600);
  });

  it('keeps sub-second intervals exact (0.1 × 3 is 300 ms, not 300.00000000000006)', () => {
    expect(planDrainTiming({ interval: 0.1, failureThreshold: 3, margin: 0 })).toEqual({
      detectMs: 300,
      marginMs: 0,
      waitMs: 300,
    });
  });

  it('grows with each of its three inputs', () => {
    const base = planDrainTiming({ interval: 1, failureThreshold: 2, margin: 1 }).waitMs;
    expect(planDrainTiming({ interval: 2, failureThreshold: 2, margin: 1 }).waitMs).toBe(base + 2_000);
    expect(planDrainTiming({ interval: 1, failureThreshold: 3, margin: 1 }).waitMs).toBe(base + 1_000);
    expect(planDrainTiming({ interval: 1, failureThreshold: 2, margin: 1.5 }).waitMs).toBe(base + 500);
  });

  it('formats waits for people', () => {
    expect(formatWait(400)).toBe('400 ms');
    expect(formatWait(1_500)).toBe('1.5 s');
    expect(formatWait(20_000)).toBe('20 s');
  });
});
