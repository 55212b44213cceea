import { describe, expect, it } from 'vitest';
import type { StatusDistribution } from '../../../proxy-config/core/apply/status-distribution.js';
import { compareStatusDistributions } from '../../../proxy-config/core/deploy/status-watch.js';

const dist = (ok: number, errors: number): StatusDistribution => ({
  total: ok + errors,
  byStatus: { ...(ok ? { '200': ok } : {}), ...(errors ? { '500': errors } : {}) },
  share5xx: ok + errors === 0 ? 0 : errors / (ok + errors),
});

describe('compareStatusDistributions', () => {
  it('regresses when the 5xx share rises by more than the threshold over the one before', () => {
    expect(compareStatusDistributions(dist(100, 0), dist(90, 10), 0.05).verdict).toBe('regressed');
    expect(compareStatusDistributions(dist(100, 0), dist(97, 3), 0.05).verdict).toBe('ok');
  });

  it('compares against the baseline: an already failing service is not blamed on the deploy', () => {
    expect(compareStatusDistributions(dist(80, 20), dist(78, 22), 0.05).verdict).toBe('ok');
    const verdict = compareStatusDistributions(dist(80, 20), dist(60, 40), 0.05);
    expect(verdict.verdict).toBe('regressed');
    expect(verdict.increase).toBeCloseTo(0.2);
  });

  it('does not decide on too few requests, and only reports without a threshold', () => {
    expect(compareStatusDistributions(dist(0, 0), dist(0, 5), 0.05, 20)).toMatchObject({
      verdict: 'ok',
      note: 'too-few-requests',
    });
    expect(compareStatusDistributions(dist(0, 0), dist(0, 50), null)).toMatchObject({
      verdict: 'ok',
      note: 'no-threshold',
    });
  });
});
