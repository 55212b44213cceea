import { describe, expect, it } from 'vitest';
import { mayRestart, RESTART_LIMIT } from '../../../proxy-config/core/deploy/restart-policy.js';

describe('mayRestart', () => {
  const limit = { count: 3, windowMs: 60_000 };

  it('allows restarts until the limit is reached within the window', () => {
    expect(mayRestart([], 100_000, limit)).toBe(true);
    expect(mayRestart([50_000, 60_000], 100_000, limit)).toBe(true);
    expect(mayRestart([50_000, 60_000, 70_000], 100_000, limit)).toBe(false);
  });

  it('forgets restarts older than the window', () => {
    expect(mayRestart([10_000, 20_000, 70_000], 100_000, limit)).toBe(true);
    expect(mayRestart([40_000, 50_000, 60_000], 99_999, limit)).toBe(false);
    expect(mayRestart([40_000, 50_000, 60_000], 100_000, limit)).toBe(true);
  });

  it('defaults to five restarts a minute', () => {
    expect(RESTART_LIMIT).toEqual({ count: 5, windowMs: 60_000 });
    expect(mayRestart([1, 2, 3, 4], 5)).toBe(true);
    expect(mayRestart([1, 2, 3, 4, 5], 6)).toBe(false);
  });
});
