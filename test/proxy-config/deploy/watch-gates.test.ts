import { describe, expect, it } from 'vitest';
import type { LogWindow } from '../../../proxy-config/core/deploy/log-window.js';
import {
  breakDown4xx,
  DEFAULT_GATES,
  judgeGates,
  judgeNewInstance,
} from '../../../proxy-config/core/deploy/watch-gates.js';

const window = (byStatus: Record<string, number>, p99Ms = 5): LogWindow => {
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const fivexx = Object.entries(byStatus)
    .filter(([s]) => s.startsWith('5'))
    .reduce((a, [, n]) => a + n, 0);
  return {
    distribution: { total, byStatus, share5xx: total === 0 ? 0 : fivexx / total },
    byAddress: {},
    skipped: 0,
    named: 0,
    p99Ms,
  };
};
const limits = { max5xxIncrease: 0.05, ...DEFAULT_GATES };

describe('judgeGates', () => {
  it('fires the 5xx gate on a rise above its limit, compared with the share before the deploy', () => {
    expect(judgeGates(window({ '200': 100 }), window({ '200': 90, '500': 10 }), limits)).toMatchObject({
      gate: '5xx',
    });
    expect(judgeGates(window({ '200': 100 }), window({ '200': 97, '500': 3 }), limits)).toBeUndefined();
    expect(
      judgeGates(window({ '200': 80, '500': 20 }), window({ '200': 78, '500': 22 }), limits),
    ).toBeUndefined();
  });

  it('fires the 4xx gate for a version that answers 429 (or 401/403, 404) to everyone, naming each kind', () => {
    const fired = judgeGates(
      window({ '200': 100 }),
      window({ '200': 10, '429': 80, '404': 5, '403': 5 }),
      limits,
    );
    expect(fired).toMatchObject({ gate: '4xx' });
    expect(fired!.text).toContain('429×80');
    expect(fired!.text).toContain('401/403×5');
    expect(fired!.text).toContain('404×5');
    // The same 4xx share as before is no regression.
    expect(
      judgeGates(window({ '200': 90, '404': 10 }), window({ '200': 89, '404': 11 }), limits),
    ).toBeUndefined();
  });

  it('fires the p99 gate on a version three times slower, not on noise under the floor', () => {
    expect(judgeGates(window({ '200': 100 }, 40), window({ '200': 100 }, 120), limits)).toMatchObject({
      gate: 'p99',
    });
    expect(judgeGates(window({ '200': 100 }, 40), window({ '200': 100 }, 70), limits)).toBeUndefined();
    expect(judgeGates(window({ '200': 100 }, 1), window({ '200': 100 }, 6), limits)).toBeUndefined();
    // Too few requests on either side: no p99 verdict (of 50 requests, the p99 is the slowest one).
    expect(judgeGates(window({ '200': 5 }, 40), window({ '200': 100 }, 400), limits)).toBeUndefined();
    expect(judgeGates(window({ '200': 100 }, 40), window({ '200': 50 }, 400), limits)).toBeUndefined();
  });

  it('decides nothing on fewer requests than asked, and a null limit only reports', () => {
    expect(judgeGates(window({ '200': 100 }), window({ '500': 5 }), limits, 20)).toBeUndefined();
    const off = { max5xxIncrease: null, max4xxIncrease: null, maxP99Ratio: null };
    expect(judgeGates(window({ '200': 100 }, 5), window({ '500': 50, '429': 50 }, 500), off)).toBeUndefined();
  });

  it('breaks the 4xx down the way people tell them apart', () => {
    expect(breakDown4xx({ '200': 3, '401': 1, '403': 2, '404': 4, '429': 5, '400': 6 })).toEqual({
      '429': 5,
      '401/403': 3,
      '404': 4,
      other: 6,
    });
  });
});

describe('judgeNewInstance', () => {
  it('judges the new instance against the other instances of the same window when they answered enough', () => {
    // Overall 10 % 429 would pass a 5-point limit against a 6 % baseline; the new instance alone does not.
    const before = window({ '200': 94, '429': 6 });
    const fired = judgeNewInstance(before, window({ '429': 30 }), window({ '200': 270 }), limits);
    expect(fired).toMatchObject({ gate: '4xx', against: 'others' });
    expect(fired!.text).toMatch(/^the new instance, against the other instances in the same window: /);
    expect(judgeNewInstance(before, window({ '200': 30 }), window({ '200': 270 }), limits)).toBeUndefined();
  });

  it('judges the p99 against the log before the deploy, not against warm peers', () => {
    const before = window({ '200': 100 }, 20);
    // Three times slower than before the deploy: rolled back, whatever its peers do.
    expect(
      judgeNewInstance(before, window({ '200': 100 }, 90), window({ '200': 50 }, 80), limits),
    ).toMatchObject({ gate: 'p99', against: 'before' });
    // A new process's first slow requests against its warm peers alone are no regression.
    expect(
      judgeNewInstance(
        window({ '200': 100 }, 60),
        window({ '200': 100 }, 90),
        window({ '200': 50 }, 20),
        limits,
      ),
    ).toBeUndefined();
  });

  it('falls back to the log before the deploy when the others answered too few requests', () => {
    const fired = judgeNewInstance(
      window({ '200': 100 }),
      window({ '500': 30 }),
      window({ '200': 3 }),
      limits,
    );
    expect(fired).toMatchObject({ gate: '5xx', against: 'before' });
  });
});
