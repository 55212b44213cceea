/**
 * One-sided tests on counts of requests (how many of n were 5xx), exact rather than the normal
 * approximation: a deploy's watch often sees a handful of 5xx against none, where a z-test of two
 * proportions calls 2 of 20 against 0 of 600 a certainty (p ≈ 1e-15) and the exact test does not (p ≈ 0.001).
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: relative error about 1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** ln C(n, k). */
function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/**
 * Sums a tail of terms from `first` while they matter: each next term is the last one times
 * `ratio(k)`, and the tails summed here only shrink once past their mode.
 */
function sumTail(first: number, from: number, to: number, ratio: (k: number) => number): number {
  let term = first;
  let sum = first;
  for (let k = from; k < to; k++) {
    term *= ratio(k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return Math.min(1, sum);
}

/**
 * P(X ≥ x) for X ~ Binomial(n, p0): how likely `x` or more 5xx of `n` requests are when the true
 * share is `p0`. Small means the true share is above `p0`.
 */
export function binomialAtLeast(x: number, n: number, p0: number): number {
  if (x <= 0) return 1;
  if (x > n) return 0;
  if (p0 <= 0) return 0;
  if (p0 >= 1) return 1;
  const first = Math.exp(logChoose(n, x) + x * Math.log(p0) + (n - x) * Math.log1p(-p0));
  // Below the mean the upper tail is near 1: take it as 1 minus the lower one (which shrinks going down).
  if (x <= n * p0) {
    const below = binomialAtMost(x - 1, n, p0);
    return Math.max(0, 1 - below);
  }
  return sumTail(first, x, n, (k) => ((n - k) / (k + 1)) * (p0 / (1 - p0)));
}

/** P(X ≤ x) for X ~ Binomial(n, p0). */
function binomialAtMost(x: number, n: number, p0: number): number {
  if (x < 0) return 0;
  if (x >= n) return 1;
  const first = Math.exp(logChoose(n, x) + x * Math.log(p0) + (n - x) * Math.log1p(-p0));
  let term = first;
  let sum = first;
  for (let k = x; k > 0; k--) {
    term *= (k / (n - k + 1)) * ((1 - p0) / p0);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return Math.min(1, sum);
}

/**
 * Fisher's exact test, one-sided: is the share x1/n1 greater than x0/n0? Given the 5xx of both sides
 * together, the p-value is the chance that `n1` requests drawn from all of them hold `x1` or more
 * (the hypergeometric upper tail). 1 when either side is empty or there is no 5xx at all.
 */
export function fisherGreater(x1: number, n1: number, x0: number, n0: number): number {
  const total = n1 + n0;
  const k = x1 + x0;
  if (n1 === 0 || n0 === 0 || k === 0 || x1 === 0) return 1;
  const hi = Math.min(k, n1);
  const logPmf = (i: number) => logChoose(k, i) + logChoose(total - k, n1 - i) - logChoose(total, n1);
  const mode = Math.floor(((n1 + 1) * (k + 1)) / (total + 2));
  // At or below the mode the upper tail is large: 1 minus the lower tail, which shrinks going down.
  if (x1 <= mode) {
    let term = Math.exp(logPmf(x1 - 1));
    let below = term;
    for (let i = x1 - 1; i > Math.max(0, n1 - (total - k)); i--) {
      term *= (i * (total - k - n1 + i)) / ((k - i + 1) * (n1 - i + 1));
      below += term;
      if (term < below * 1e-17) break;
    }
    return Math.max(0, 1 - below);
  }
  return sumTail(
    Math.exp(logPmf(x1)),
    x1,
    hi,
    (i) => ((k - i) * (n1 - i)) / ((i + 1) * (total - k - n1 + i + 1)),
  );
}
