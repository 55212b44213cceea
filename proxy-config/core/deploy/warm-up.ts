/** Request times in log order, with the access-log line each was read from (to align two of them in time). */
export interface TimedSample extends RoutedSample {
  lines: readonly number[];
}

/**
 * Request times with the route each went to ("GET /api": method and first path segment), when the
 * log format logs the request; the latency gate then judges each route apart as well.
 */
export interface RoutedSample {
  ms: readonly number[];
  routes?: readonly string[];
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
 * For each slice of the new instance's requests (in order, as sliceRequests cuts them), the other
 * instances' requests logged over the same stretch of log (from its first line to its last): same
 * time, same load, same database. Indices into `others`, `to` excluded; one walk over their lines.
 */
export function sameStretches(
  mine: TimedSample,
  slices: readonly RequestSlice[],
  others: TimedSample,
): RequestSlice[] {
  let at = 0;
  return slices.map((slice) => {
    const first = mine.lines[slice.from]!;
    const last = mine.lines[slice.to - 1]!;
    while (at < others.lines.length && others.lines[at]! < first) at++;
    const from = at;
    while (at < others.lines.length && others.lines[at]! <= last) at++;
    return { from, to: at };
  });
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
