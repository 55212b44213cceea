import type { LogWindow } from '../../../proxy-config/core/deploy/log-window.js';

/** A log window of these statuses and request times (their lines 1, 2, … unless given), for the gate tests. */
export function windowOf(
  byStatus: Record<string, number>,
  latencyMs: number[] = [],
  latencyLines = latencyMs.map((_, i) => i + 1),
): LogWindow {
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const fivexx = Object.entries(byStatus)
    .filter(([s]) => s.startsWith('5'))
    .reduce((a, [, n]) => a + n, 0);
  return {
    distribution: { total, byStatus, share5xx: total === 0 ? 0 : fivexx / total },
    byAddress: {},
    skipped: 0,
    named: 0,
    p99Ms: 0,
    latencyMs,
    latencyLines,
    latencyRoutes: latencyMs.map(() => ''),
  };
}
