/** The outcome of a one-sided Mann–Whitney U test. */
export interface MannWhitneyResult {
  /** U of the first sample: how many (x, y) pairs have x > y, ties counting one half. */
  u: number;
  /** The normal approximation's z (tie- and continuity-corrected). */
  z: number;
  /** One-sided p-value for "x tends to be greater than y"; 1 when the samples cannot tell (all equal, one empty). */
  p: number;
}

/**
 * One-sided Mann–Whitney U test of x against y (is x stochastically greater?), as canary analysis
 * (Kayenta) uses it: it compares ranks, so one slow outlier moves it by one rank rather than setting
 * a percentile, and its p-value shrinks with the sample size instead of ignoring it. Normal
 * approximation with the tie correction; meant for samples of 20 and more each.
 */
export function mannWhitneyGreater(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) return { u: 0, z: 0, p: 1 };
  const all = [...x.map((v) => ({ v, first: true })), ...y.map((v) => ({ v, first: false }))].sort(
    (a, b) => a.v - b.v,
  );
  const n = n1 + n2;
  let rankSumX = 0;
  let tieTerm = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && all[j + 1]!.v === all[i]!.v) j++;
    // Tied values share the mean of the ranks they span (ranks are 1-based).
    const rank = (i + j + 2) / 2;
    const t = j - i + 1;
    tieTerm += t * t * t - t;
    for (let k = i; k <= j; k++) if (all[k]!.first) rankSumX += rank;
    i = j + 1;
  }
  const u = rankSumX - (n1 * (n1 + 1)) / 2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u, z: 0, p: 1 };
  const z = (u - mean - 0.5) / Math.sqrt(variance);
  return { u, z, p: upperTail(z) };
}

/** P(Z > z) for a standard normal Z. */
export function upperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

// Numerical Recipes' erfc (Chebyshev fit), relative error below 1.2e-7 everywhere.
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** The median of a sample (0 for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
