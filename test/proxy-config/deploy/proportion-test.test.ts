import { describe, expect, it } from 'vitest';
import { DEFAULT_5XX, judge5xx } from '../../../proxy-config/core/deploy/fivexx-gate.js';
import {
  binomialAtLeast,
  fisherGreater,
  logGamma,
} from '../../../proxy-config/core/deploy/proportion-test.js';
import { seededRandom, testSeed } from '../../support/seeded-random.js';

// Reference values from SciPy 1.17 (fisher_exact(..., alternative='greater'), binom.sf(x - 1, n, p)).
describe('the exact tests of proportions', () => {
  it('gives ln Γ to 1e-12', () => {
    expect(logGamma(10)).toBeCloseTo(Math.log(362_880), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(1)).toBeCloseTo(0, 12);
  });

  it("matches SciPy's one-sided Fisher exact test, small counts and large", () => {
    const cases: Array<[number, number, number, number, number]> = [
      [2, 20, 0, 600, 0.0009901506071186617],
      [10, 200, 0, 400, 1.4528864277700464e-5],
      [5, 100, 0, 300, 0.0009046958243424467],
      [1, 300, 0, 600, 0.3333333333333333],
      [3, 10, 5, 50, 0.12030570907038789],
      [1, 10, 5, 50, 0.6825913942712368],
      [20, 100, 20, 100, 0.5700624473875242],
      [7, 300, 0, 600, 0.0004362010124100651],
      [5, 300, 0, 600, 0.004024184435139692],
      [3, 1000, 1, 2000, 0.11096286413164329],
    ];
    for (const [x1, n1, x0, n0, p] of cases)
      expect(fisherGreater(x1, n1, x0, n0) / p, `${x1}/${n1} vs ${x0}/${n0}`).toBeCloseTo(1, 8);
    expect(fisherGreater(800, 800, 40_000, 50_000) / 1.4437332279749112e-77).toBeCloseTo(1, 6);
    // Nothing to weigh: no 5xx at all, none on the new side, or an empty side.
    expect(fisherGreater(0, 10, 3, 10)).toBe(1);
    expect(fisherGreater(0, 100, 0, 100)).toBe(1);
    expect(fisherGreater(5, 5, 0, 0)).toBe(1);
  });

  it("matches SciPy's binomial upper tail", () => {
    const cases: Array<[number, number, number, number]> = [
      [6, 20, 0.05, 0.0003292943245282763],
      [5, 20, 0.05, 0.0025739403346522792],
      [1, 20, 0.05, 0.6415140775914578],
      [14, 100, 0.05, 0.00046327338320381617],
      [3, 3, 0.05, 0.000125],
      [70, 1000, 0.05, 0.0034743586988460833],
      [3, 200, 0.05, 0.9976637058099361],
      [10, 10, 0.5, 0.0009765625],
    ];
    for (const [x, n, p0, p] of cases)
      expect(binomialAtLeast(x, n, p0) / p, `${x}/${n} > ${p0}`).toBeCloseTo(1, 8);
    expect(binomialAtLeast(0, 20, 0.05)).toBe(1);
    expect(binomialAtLeast(21, 20, 0.05)).toBe(0);
  });
});

describe('the 5xx gate (judge5xx)', () => {
  it('rolls back a release answering 500 to everything within its first requests, against others or the log before', () => {
    expect(
      judge5xx({ requests: 20, fivexx: 20 }, { requests: 40, fivexx: 0 }, 'others', DEFAULT_5XX, 20),
    ).toMatchObject({
      verdict: 'rise',
      mine: { share: 1 },
      comparison: { share: 0 },
    });
    expect(
      judge5xx({ requests: 20, fivexx: 20 }, { requests: 5000, fivexx: 3 }, 'before', DEFAULT_5XX, 20)
        .verdict,
    ).toBe('rise');
  });

  it('rolls back a release answering 5 % 500s once its requests show it (about 200 against twice as many)', () => {
    expect(
      judge5xx({ requests: 60, fivexx: 3 }, { requests: 120, fivexx: 0 }, 'others', DEFAULT_5XX, 20).verdict,
    ).toBe('ok');
    expect(
      judge5xx({ requests: 200, fivexx: 10 }, { requests: 400, fivexx: 0 }, 'others', DEFAULT_5XX, 20),
    ).toMatchObject({
      verdict: 'rise',
      limit: 0.01,
    });
  });

  it('the floor fails a release whose comparison fails as much (an instance this deploy already replaced with it)', () => {
    const sameBroken = judge5xx(
      { requests: 50, fivexx: 50 },
      { requests: 100, fivexx: 100 },
      'others',
      DEFAULT_5XX,
      20,
    );
    expect(sameBroken).toMatchObject({ verdict: 'floor', floor: 0.05 });
    expect(sameBroken.p).toBe(1);
    expect(sameBroken.pFloor).toBeLessThan(1e-50);
    expect(
      judge5xx({ requests: 50, fivexx: 50 }, { requests: 100, fivexx: 100 }, 'others', {
        ...DEFAULT_5XX,
        max5xxShare: null,
      }).verdict,
    ).toBe('ok');
  });

  it('fires on neither a stray 502 nor a tiny significant rise, and decides nothing on too few requests', () => {
    expect(
      judge5xx({ requests: 300, fivexx: 1 }, { requests: 600, fivexx: 0 }, 'others', DEFAULT_5XX, 20).verdict,
    ).toBe('ok');
    expect(
      judge5xx({ requests: 20, fivexx: 1 }, { requests: 600, fivexx: 0 }, 'others', DEFAULT_5XX, 20).verdict,
    ).toBe('ok');
    // 0.4 % against 0.1 % over 20 000 requests each: significant (p ≈ 1e-9), but a rise of 0.3 points.
    const tiny = judge5xx(
      { requests: 20_000, fivexx: 80 },
      { requests: 20_000, fivexx: 20 },
      'others',
      DEFAULT_5XX,
    );
    expect(tiny.p).toBeLessThan(1e-6);
    expect(tiny.verdict).toBe('ok');
    expect(
      judge5xx({ requests: 19, fivexx: 19 }, { requests: 40, fivexx: 0 }, 'others', DEFAULT_5XX, 20).verdict,
    ).toBe('too-few');
    expect(
      judge5xx({ requests: 3, fivexx: 3 }, { requests: 40, fivexx: 40 }, 'others', DEFAULT_5XX, 1).verdict,
    ).toBe('floor');
  });

  it('looked at 4 times a second over a watch, an unchanged release with stray 5xx is never rolled back; a 5 % one always', () => {
    const random = seededRandom(testSeed());
    const errors = (n: number, permille: number) => {
      let k = 0;
      for (let i = 0; i < n; i++) if (random.int(1, 1000) <= permille) k++;
      return k;
    };
    /** One watch of 20 looks; each look adds `rate` requests for the new instance and twice as many for the others. */
    const watch = (newPermille: number, rate: number) => {
      const mine = { requests: 0, fivexx: 0 };
      const others = { requests: 0, fivexx: 0 };
      for (let look = 0; look < 20; look++) {
        mine.requests += rate;
        mine.fivexx += errors(rate, newPermille);
        others.requests += 2 * rate;
        others.fivexx += errors(2 * rate, 2);
        const v = judge5xx(mine, others, 'others', DEFAULT_5XX, 20).verdict;
        if (v === 'rise' || v === 'floor') return true;
      }
      return false;
    };
    let falseRollbacks = 0;
    for (let i = 0; i < 300; i++) if (watch(2, 25)) falseRollbacks++;
    expect(falseRollbacks, `seed ${random.seed}`).toBe(0);
    let caught = 0;
    for (let i = 0; i < 100; i++) if (watch(50, 25)) caught++;
    expect(caught, `seed ${random.seed}`).toBe(100);
  });
});
