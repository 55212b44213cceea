import { mannWhitneyGreater, median } from './mann-whitney.js';

/** What makes a stretch of the new instance's request times slower in a way that matters. */
export interface EffectRule {
  /** Largest median as a multiple of the comparison's (the spec's maxP99Ratio). */
  maxRatio: number;
  /** One-sided significance of the Mann–Whitney U test. */
  alpha: number;
  /** nginx times requests in whole milliseconds: medians under this compare as this (1 ms against 3 ms is no 3x). */
  medianFloorMs: number;
  /**
   * Smallest rise worth a rollback (ms), whatever the ratio, of the median and of the fastest tenth of
   * its requests alike: 4 → 26 ms is 2.6x of the 10 ms floor, but 22 ms; and a release slower in its
   * own work is slower in every request, where a process waiting for a busy CPU (cold, or beside
   * another tenant) or queueing behind its peers' load still answers some requests fast.
   */
  minEffectMs: number;
}

/** One stretch of the new instance's requests against its comparison, with every number the verdict used. */
export interface EffectVerdict {
  /** Request times on each side. */
  samples: { mine: number; against: number };
  medians: { mine: number; against: number };
  /** The medians' ratio, each raised to the floor first. */
  ratio: number;
  /** The medians' difference (ms). */
  effectMs: number;
  /** The difference of the 10th percentiles (ms): how far its fastest requests moved. */
  fastShiftMs: number;
  /** One-sided Mann–Whitney p-value: is the new instance slower at all? */
  p: number;
  /** True when significant and past both the ratio and the absolute floor. */
  slower: boolean;
}

/**
 * A latency regression needs all of: a rank test that finds the new instance slower (it alone fires
 * on a 5 % slowdown with enough requests), a median ratio past the limit, and a rise past an absolute
 * floor of both its median and its fastest tenth (a fast service doubling from 4 to 9 ms is not worth
 * a rollback; a process starved of CPU is slow in its median but still fast in its fastest tenth).
 * Kayenta pairs its Mann–Whitney test with an effect-size floor the same way.
 */
export function judgeEffect(
  mine: readonly number[],
  against: readonly number[],
  rule: EffectRule,
): EffectVerdict {
  const a = median(mine);
  const b = median(against);
  const ratio = Math.max(a, rule.medianFloorMs) / Math.max(b, rule.medianFloorMs);
  const effectMs = a - b;
  const fastShiftMs = quantile(mine, 0.1) - quantile(against, 0.1);
  const { p } = mannWhitneyGreater(mine, against);
  return {
    samples: { mine: mine.length, against: against.length },
    medians: { mine: a, against: b },
    ratio,
    effectMs,
    fastShiftMs,
    p,
    slower:
      ratio > rule.maxRatio &&
      effectMs > rule.minEffectMs &&
      fastShiftMs > rule.minEffectMs &&
      p < rule.alpha,
  };
}

/** The `q` quantile of a sample (nearest rank below; 0 for none). */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * q)]!;
}
