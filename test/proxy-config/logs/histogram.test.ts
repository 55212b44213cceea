import { describe, expect, it } from 'vitest';
import {
  addToHistogram,
  createHistogram,
  histogramQuantiles,
  mergeHistogram,
} from '../../../proxy-config/core/logs/histogram.js';

function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

/** A deterministic long-tailed sample of millisecond latencies. */
function sample(n: number, seed: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const u = x / 2147483648;
    out.push(Math.floor(Math.exp(u * 14))); // 1 ms .. ~20 min
  }
  return out;
}

describe('log-bucket histogram', () => {
  it('is exact below 256 ms and within 0.39 % above, for p50/p90/p99/max', () => {
    const values = sample(50_000, 7);
    const h = createHistogram();
    for (const v of values) addToHistogram(h, v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1]) {
      const exact = exactQuantile(sorted, q);
      const got = histogramQuantiles(h, [q])[0]!;
      if (exact < 256) expect(got).toBe(exact);
      else expect(Math.abs(got - exact) / exact).toBeLessThanOrEqual(1 / 256);
    }
    expect(h.max).toBe(sorted.at(-1));
  });

  it('the coarse variant (subBits 5) stays within 1.6 %', () => {
    const values = sample(20_000, 3);
    const h = createHistogram(5);
    for (const v of values) addToHistogram(h, v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) {
      const exact = exactQuantile(sorted, q);
      expect(Math.abs(histogramQuantiles(h, [q])[0]! - exact) / exact).toBeLessThanOrEqual(1 / 64);
    }
  });

  it('merging equals adding everything to one', () => {
    const a = createHistogram();
    const b = createHistogram();
    const all = createHistogram();
    sample(1000, 1).forEach((v, i) => {
      addToHistogram(i % 2 ? a : b, v);
      addToHistogram(all, v);
    });
    mergeHistogram(a, b);
    expect(a.total).toBe(all.total);
    for (const q of [0.5, 0.9, 0.99])
      expect(histogramQuantiles(a, [q])[0]).toBe(histogramQuantiles(all, [q])[0]);
  });

  it('ignores absent values and has no quantile when empty', () => {
    const h = createHistogram();
    addToHistogram(h, -1);
    expect(histogramQuantiles(h, [0.5])[0]).toBeNull();
  });
});
