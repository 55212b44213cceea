import { isProxyGenerated, lastUpstream, type AccessRecord } from './access-record.js';
import type { Evidence } from './evidence.js';

/** Counts of one status split by who produced it, the upstreams involved and the per-minute counts. */
export interface StatusFacts {
  total: number;
  proxyGenerated: number;
  upstreamReturned: number;
  /** Final-attempt upstream address → count, for this status. */
  upstreams: Record<string, number>;
  /** The same, of the records nginx produced and of those the upstream returned (empty when the split is unknown). */
  proxyUpstreams: Record<string, number>;
  returnedUpstreams: Record<string, number>;
  /** `YYYY-MM-DD HH:MM` (UTC) → count, for this status. */
  perMinute: Record<string, number>;
  requestTimes: number[];
}

function count(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/**
 * Summarises the records with `status` (conventions §4.8: proxy-generated vs upstream-returned).
 * Without `$upstream_header_time` in the log the split is unknown and both counts stay 0.
 */
export function toStatusFacts(
  records: readonly AccessRecord[],
  status: number,
  splitKnown = true,
): StatusFacts {
  const facts: StatusFacts = {
    total: 0,
    proxyGenerated: 0,
    upstreamReturned: 0,
    upstreams: {},
    proxyUpstreams: {},
    returnedUpstreams: {},
    perMinute: {},
    requestTimes: [],
  };
  for (const record of records) {
    if (record.status !== status) continue;
    facts.total++;
    const upstream = lastUpstream(record);
    if (upstream) count(facts.upstreams, upstream);
    if (splitKnown) {
      const proxy = isProxyGenerated(record);
      if (proxy) facts.proxyGenerated++;
      else facts.upstreamReturned++;
      if (upstream) count(proxy ? facts.proxyUpstreams : facts.returnedUpstreams, upstream);
    }
    if (record.time) count(facts.perMinute, record.time.toISOString().slice(0, 16).replace('T', ' '));
    if (record.requestTime !== null) facts.requestTimes.push(record.requestTime);
  }
  return facts;
}

/** The status facts of the evidence's access log (empty when there is none). */
export function statusFacts(evidence: Evidence, status: number): StatusFacts {
  return toStatusFacts(evidence.access?.records ?? [], status, evidence.access?.splitKnown ?? true);
}

/** `127.0.0.1:9101 (12), 127.0.0.1:9102 (3)`, busiest first. */
export function formatCounts(counts: Record<string, number>, limit = 5): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, count]) => `${key} (${count})`)
    .join(', ');
}

/**
 * `before` + the counts + `after` (e.g. ` (upstreams 127.0.0.1:9101 (12))`), or '' when there are none,
 * as for a format without $upstream_addr: an empty list would read as if no upstream were involved.
 */
export function countsPart(counts: Record<string, number>, before: string, after = ''): string {
  return Object.keys(counts).length > 0 ? `${before}${formatCounts(counts)}${after}` : '';
}

/** The busiest minute as `2026-11-22 02:31 (40)`, or '' when no record had a time. */
export function peakMinute(perMinute: Record<string, number>): string {
  return formatCounts(perMinute, 1);
}

/** Median of a list of numbers (0 for an empty list). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Human byte size: `1024 bytes (1.0 KiB)`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = '';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return `${bytes} bytes (${value.toFixed(1)} ${unit})`;
}
