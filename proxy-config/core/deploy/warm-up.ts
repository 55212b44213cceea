/** Request times in log order, with the access-log line each was read from (to align two of them in time). */
export interface TimedSample {
  ms: readonly number[];
  lines: readonly number[];
}

/** How a new instance's request times are cut into slices, and when it counts as warm. */
export interface WarmUpRule {
  /** Its first requests are always warm-up, whatever they look like (a multiple of sliceRequests). */
  minWarmupRequests: number;
  /** Requests of the new instance per slice. */
  sliceRequests: number;
  /**
   * It is warm from the first slice whose median, relative to its comparison's, is no longer smaller
   * than the slice before's by more than this factor: its latency has levelled off.
   */
  levelRatio: number;
}

/** One slice of the new instance's requests: indices into its sample, `to` excluded. */
export interface RequestSlice {
  from: number;
  to: number;
}

/** The complete slices of `count` requests (a last, partial one waits for more requests). */
export function sliceRequests(count: number, rule: WarmUpRule): RequestSlice[] {
  const slices: RequestSlice[] = [];
  for (let from = 0; from + rule.sliceRequests <= count; from += rule.sliceRequests)
    slices.push({ from, to: from + rule.sliceRequests });
  return slices;
}

/**
 * The other instances' request times logged over the same stretch of log as a slice of the new
 * instance's (from its first line to its last): same time, same load, same database.
 */
export function sameStretch(mine: TimedSample, slice: RequestSlice, others: TimedSample): number[] {
  const first = mine.lines[slice.from]!;
  const last = mine.lines[slice.to - 1]!;
  return others.ms.filter((_, i) => others.lines[i]! >= first && others.lines[i]! <= last);
}

/**
 * The first warm slice, given each slice's median ratio to its comparison: past the minimum
 * warm-up, the first whose ratio is at least the previous slice's divided by `levelRatio`. A fresh
 * V8 on a starved core answers its first hundreds of requests several times slower than its warm
 * peers and gets faster slice after slice; a slow release is as slow in its tenth slice as in its
 * third. Undefined while it is still getting faster.
 */
export function firstWarmSlice(ratios: readonly number[], rule: WarmUpRule): number | undefined {
  const first = Math.max(1, Math.ceil(rule.minWarmupRequests / rule.sliceRequests));
  for (let i = first; i < ratios.length; i++) if (ratios[i]! * rule.levelRatio >= ratios[i - 1]!) return i;
  return undefined;
}
