/** How many responses of each status a stretch of access log holds. */
export interface StatusDistribution {
  total: number;
  byStatus: Record<string, number>;
  /** Share of 5xx responses, 0 when there were none at all. */
  share5xx: number;
}

const TEXT_STATUS = /^\S+ - .*? \[[^\]]*\] "(?:[^"\\]|\\.)*" (\d{3}) /;
const JSON_STATUS = /"status":"(\d{3})"/;

/**
 * Counts statuses in access-log lines of the proxyops text or JSON format; other lines are skipped.
 * A stand-in until the access-log parser of the log tools can take its place.
 */
export function countStatusCodes(lines: Iterable<string>): StatusDistribution {
  const byStatus: Record<string, number> = {};
  let total = 0;
  let fivexx = 0;
  for (const line of lines) {
    const status = (line.startsWith('{') ? JSON_STATUS : TEXT_STATUS).exec(line)?.[1];
    if (!status) continue;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    total++;
    if (status.startsWith('5')) fivexx++;
  }
  return { total, byStatus, share5xx: total === 0 ? 0 : fivexx / total };
}

/** `200×97 404×1 502×2 (5xx 2.0% of 100)`; `no requests` when empty. */
export function formatStatusDistribution(distribution: StatusDistribution): string {
  if (distribution.total === 0) return 'no requests';
  const parts = Object.keys(distribution.byStatus)
    .sort()
    .map((status) => `${status}×${distribution.byStatus[status]}`);
  return `${parts.join(' ')} (5xx ${(distribution.share5xx * 100).toFixed(1)}% of ${distribution.total})`;
}
