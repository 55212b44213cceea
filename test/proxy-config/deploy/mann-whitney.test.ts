import { describe, expect, it } from 'vitest';
import { mannWhitneyGreater, median, upperTail } from '../../../proxy-config/core/deploy/mann-whitney.js';

describe('mannWhitneyGreater', () => {
  it('matches the textbook values (scipy mannwhitneyu, alternative greater, asymptotic)', () => {
    const r = mannWhitneyGreater([4, 5, 6], [1, 2, 3]);
    expect(r.u).toBe(9);
    expect(r.z).toBeCloseTo(1.7457, 3);
    expect(r.p).toBeCloseTo(0.04043, 4);
    // The other way round it finds nothing.
    expect(mannWhitneyGreater([1, 2, 3], [4, 5, 6]).p).toBeGreaterThan(0.9);
  });

  it('shares ranks between ties and cannot tell equal samples apart', () => {
    // x = [1, 2, 2, 3], y = [2, 3, 3, 4]: U_x = 3 (pairs with x > y, ties counting one half).
    const r = mannWhitneyGreater([1, 2, 2, 3], [2, 3, 3, 4]);
    expect(r.u).toBe(3);
    expect(r.p).toBeGreaterThan(0.85);
    expect(mannWhitneyGreater([5, 5, 5], [5, 5, 5]).p).toBe(1);
    expect(mannWhitneyGreater([], [1]).p).toBe(1);
  });

  it('grows surer with the sample size for the same shift', () => {
    const shifted = (n: number, by: number) => Array.from({ length: n }, (_, i) => (i % 10) + by);
    const small = mannWhitneyGreater(shifted(10, 2), shifted(10, 0)).p;
    const large = mannWhitneyGreater(shifted(200, 2), shifted(200, 0)).p;
    expect(small).toBeGreaterThan(0.05);
    expect(large).toBeLessThan(0.001);
  });

  it('has a normal tail and a median', () => {
    expect(upperTail(0)).toBeCloseTo(0.5, 6);
    expect(upperTail(1.959964)).toBeCloseTo(0.025, 5);
    expect(upperTail(-1.959964)).toBeCloseTo(0.975, 5);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
