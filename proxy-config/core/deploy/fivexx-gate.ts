import { binomialAtLeast, fisherGreater } from './proportion-test.js';

/**
 * The 5xx gate's defaults, the spec's `deploy.max5xxIncrease` and `deploy.max5xxShare`: a new
 * instance is rolled back when its 5xx share is higher than the comparison's by more than 1 point
 * (and an exact test says it is higher at all), or above 5 % whatever the comparison answers.
 */
export const DEFAULT_5XX = { max5xxIncrease: 0.01, max5xxShare: 0.05 } as const;

/**
 * One-sided significance of both 5xx tests. The watch looks again at every poll (4 a second, 20 over
 * the default 5 s watch), so one look must be strict: a version that is no worse fires at most
 * looks × ALPHA of the time (Bonferroni), 2 % over 20 looks, and far less since the looks share their requests.
 */
export const FIVEXX_ALPHA = 0.001;

/** The 5xx gate's limits; null turns a part off (the rise only reported, no floor). */
export interface FivexxLimits {
  /** Largest rise of the new instance's 5xx share over the comparison's that passes (0.01 = 1 point). */
  max5xxIncrease: number | null;
  /** The floor: a 5xx share above this fails whatever the comparison answered (0.05 = 5 %). */
  max5xxShare: number | null;
}

/** Requests and their 5xx on one side. */
export interface FivexxCounts {
  requests: number;
  fivexx: number;
  share: number;
}

/** What the 5xx gate weighed, fired or not: both sides, both tests, the limits. */
export interface FivexxEvidence {
  mine: FivexxCounts;
  /** The other instances in the same window, or the log before the deploy. */
  against: 'others' | 'before';
  comparison: FivexxCounts;
  /** Fisher's exact test, one-sided: the new instance's share is higher than the comparison's. */
  p: number;
  /** Binomial test, one-sided: the new instance's share is above the floor (1 without a floor). */
  pFloor: number;
  alpha: number;
  /** max5xxIncrease. */
  limit: number | null;
  /** max5xxShare. */
  floor: number | null;
  /** `rise` and `floor` fired; `too-few`: fewer requests than the look asks for, nothing decided. */
  verdict: 'rise' | 'floor' | 'ok' | 'too-few';
}

const counts = (requests: number, fivexx: number): FivexxCounts => ({
  requests,
  fivexx,
  share: requests === 0 ? 0 : fivexx / requests,
});

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
const pValue = (p: number) => (p >= 0.01 ? p.toFixed(2) : p.toExponential(1));

/**
 * The 5xx rule. It fires when the new instance's share is higher than the comparison's by a one-sided
 * Fisher exact test at FIVEXX_ALPHA **and** by more than `max5xxIncrease` (a significant rise of a
 * tenth of a point is not a broken release), or when a one-sided binomial test says its share is
 * above `max5xxShare` at FIVEXX_ALPHA (the floor: a comparison that fails as much, such as an
 * instance this deploy already replaced with the same release, excuses nothing). Both tests weigh
 * how many requests there were, so one stray 502 among a busy host's requests fires neither.
 */
export function judge5xx(
  mine: { requests: number; fivexx: number },
  comparison: { requests: number; fivexx: number },
  against: 'others' | 'before',
  limits: FivexxLimits,
  minRequests = 1,
): FivexxEvidence {
  const m = counts(mine.requests, mine.fivexx);
  const c = counts(comparison.requests, comparison.fivexx);
  const p = fisherGreater(m.fivexx, m.requests, c.fivexx, c.requests);
  const pFloor = limits.max5xxShare === null ? 1 : binomialAtLeast(m.fivexx, m.requests, limits.max5xxShare);
  const evidence = {
    mine: m,
    against,
    comparison: c,
    p,
    pFloor,
    alpha: FIVEXX_ALPHA,
    limit: limits.max5xxIncrease,
    floor: limits.max5xxShare,
  };
  if (m.requests < Math.max(1, minRequests)) return { ...evidence, verdict: 'too-few' };
  const rise =
    limits.max5xxIncrease !== null && m.share - c.share > limits.max5xxIncrease && p < FIVEXX_ALPHA;
  if (rise) return { ...evidence, verdict: 'rise' };
  return { ...evidence, verdict: pFloor < FIVEXX_ALPHA ? 'floor' : 'ok' };
}

/** One line for people: both sides, both tests and the limits, and what was decided. */
export function describe5xx(e: FivexxEvidence): string {
  const side = (what: string, s: FivexxCounts) => `${what} ${s.fivexx} of ${s.requests} (${pct(s.share)})`;
  const compared =
    e.against === 'others' ? 'the other instances in the same window' : 'the log before the deploy';
  const rise = `rise ${e.mine.share >= e.comparison.share ? '+' : ''}${((e.mine.share - e.comparison.share) * 100).toFixed(1)} points (limit ${e.limit === null ? 'report only' : `+${(e.limit * 100).toFixed(1)}`}; Fisher p = ${pValue(e.p)})`;
  const floor = e.floor === null ? 'no floor' : `floor ${pct(e.floor)} (binomial p = ${pValue(e.pFloor)})`;
  const decided = {
    rise: 'the new instance answers more 5xx',
    floor: `the new instance answers more than ${pct(e.floor ?? 0)} 5xx`,
    ok: 'ok',
    'too-few': 'too few requests yet',
  }[e.verdict];
  return `5xx: ${side('new instance', e.mine)} against ${side(compared, e.comparison)}; ${rise}; ${floor}; α ${e.alpha} → ${decided}`;
}
