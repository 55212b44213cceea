import { describe, expect, it } from 'vitest';
import {
  addToHistogram,
  createHistogram,
  exponentialIndex,
  histogramQuantiles,
  indexSlot,
  mergeHistogram,
  slotCount,
  slotIndex,
  slotOf,
} from '../../../proxy-config/core/logs/histogram.js';
import { loadLogLineScanner } from '../../../proxy-config/shell/logs/load-log-line-scanner.js';

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

/**
 * For every bucket bound 1000·2^((i+1)/2^scale) ms between 1 ms and 2^31-1 ms, the largest whole
 * millisecond n at or below it, found with exact integer arithmetic: n^(2^scale) ≤ 1000^(2^scale)·2^(i+1).
 */
function boundFloors(scale: number): Array<{ index: number; floor: number }> {
  const k = BigInt(1 << scale);
  const thousand = 1000n ** k;
  const atOrBelow = (n: number, e: number) =>
    e >= 0 ? BigInt(n) ** k <= thousand * 2n ** BigInt(e) : BigInt(n) ** k * 2n ** BigInt(-e) <= thousand;
  const out: Array<{ index: number; floor: number }> = [];
  for (let i = exponentialIndex(1, scale); i < exponentialIndex(2 ** 31 - 1, scale); i++) {
    let n = Math.floor(1000 * 2 ** ((i + 1) / (1 << scale)));
    while (!atOrBelow(n, i + 1)) n--;
    while (atOrBelow(n + 1, i + 1)) n++;
    out.push({ index: i, floor: n });
  }
  return out;
}

describe('base-2 exponential histogram', () => {
  it('puts every whole millisecond in the bucket its exact bound says, in JavaScript and WebAssembly', () => {
    const module = loadLogLineScanner();
    expect(module, 'npm run build makes the scanner').not.toBeNull();
    const wasm = new WebAssembly.Instance(module!).exports as Record<string, unknown>;
    const memory = wasm.memory as WebAssembly.Memory;
    const need = Math.ceil(((wasm.INPUT as WebAssembly.Global).value as number) / 65536) + 1;
    memory.grow(need - memory.buffer.byteLength / 65536);
    (wasm.configure as () => void)();
    const wasmSlot = wasm.histogramSlot as (ms: number, scale: number) => number;
    // The scanner's histograms have room for every slot.
    expect((wasm.HISTOGRAM_BYTES as WebAssembly.Global).value).toBe(16 + 4 * slotCount(7));
    const slotBytes = (wasm.SLOT_BYTES as WebAssembly.Global).value as number;
    expect(slotBytes % 8).toBe(0);
    expect(slotBytes).toBeGreaterThanOrEqual(48 + 16 + 4 * slotCount(5));
    for (const scale of [5, 7]) {
      const bounds = boundFloors(scale);
      for (const { index, floor } of bounds) {
        // floor is at or below bound `index`, floor + 1 above it: the index only grows with the value,
        // so checking both sides of every bound checks every whole millisecond.
        if (floor >= 1) expect(slotIndex(slotOf(floor, scale), scale)).toBeLessThanOrEqual(index);
        expect(slotIndex(slotOf(floor + 1, scale), scale)).toBeGreaterThan(index);
        if (floor >= 1) expect(wasmSlot(floor, scale)).toBe(slotOf(floor, scale));
        expect(wasmSlot(floor + 1, scale)).toBe(slotOf(floor + 1, scale));
      }
      expect(slotOf(1, scale)).toBe(1);
      expect(indexSlot(slotIndex(700, scale), scale)).toBe(700);
      expect(indexSlot(exponentialIndex(1, scale) + 1, scale)).toBe(-1); // no whole ms in it
      expect(wasmSlot(0, scale)).toBe(0);
    }
  });

  it('is exact up to 197 ms and within 0.27 % above, for p50/p90/p99/max', () => {
    const values = sample(50_000, 7);
    const h = createHistogram();
    for (const v of values) addToHistogram(h, v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1]) {
      const exact = exactQuantile(sorted, q);
      const got = histogramQuantiles(h, [q])[0]!;
      if (exact <= 197) expect(got).toBe(exact);
      else expect(Math.abs(got - exact) / exact).toBeLessThanOrEqual(0.0027);
    }
    expect(h.max).toBe(sorted.at(-1));
  });

  it('every whole millisecond up to 197 ms has a bucket of its own (55 ms at scale 5)', () => {
    const firstShared = (scale: number) => {
      let v = 1;
      while (slotOf(v + 1, scale) > slotOf(v, scale)) v++;
      return v;
    };
    expect(firstShared(7)).toBe(197);
    expect(firstShared(5)).toBe(55);
  });

  it('the coarse variant (scale 5) stays within 1.1 %', () => {
    const values = sample(20_000, 3);
    const h = createHistogram(5);
    for (const v of values) addToHistogram(h, v);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) {
      const exact = exactQuantile(sorted, q);
      expect(Math.abs(histogramQuantiles(h, [q])[0]! - exact) / exact).toBeLessThanOrEqual(0.011);
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

  it('ignores absent values ("-", -1) and counts 0 ms in a bucket of its own', () => {
    const h = createHistogram();
    addToHistogram(h, -1);
    expect(histogramQuantiles(h, [0.5])[0]).toBeNull();
    addToHistogram(h, 0);
    addToHistogram(h, 0);
    addToHistogram(h, 1);
    expect(h.total).toBe(3);
    expect(h.counts[0]).toBe(2);
    expect(histogramQuantiles(h, [0.5, 1])).toEqual([0, 1]);
  });
});
