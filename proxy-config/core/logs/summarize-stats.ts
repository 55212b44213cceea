import { toPercentiles, type Percentiles } from './histogram.js';
import type { LogDamage } from './log-damage.js';
import type { MalformedSample, StatsState } from './stats-state.js';
import { unknownFigures, type UnknownFigure } from './unknown-figures.js';

/** Counts keyed by three-digit status ("009", "200", "502") or "-". */
export type StatusCounts = Record<string, number>;

/** One upstream address in the summary. */
export interface UpstreamSummary {
  address: string;
  requests: number;
  final: number;
  status5xx: number;
  /** The 5xx attempts nginx made itself; null when the format cannot tell ($upstream_header_time). */
  proxyGenerated: number | null;
  retries: number;
  connectTime: Percentiles;
  headerTime: Percentiles;
  responseTime: Percentiles;
}

/** One timeline interval. */
export interface TimelineSummary {
  time: string;
  records: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  other: number;
  '499': number;
  /** 5xx made by nginx; null when the format cannot tell ($upstream_header_time). */
  proxy5xx: number | null;
  /** Null when the format has no $request_time. */
  requestTime: Percentiles | null;
}

/** The `--json` document of `proxyops logs stats` (schema in docs/access-logs.md). */
export interface StatsSummary {
  schema: 'proxyops.logs.stats/1';
  format: string;
  /** Where the format came from: a flag, the running nginx's config, or detection on the first lines. */
  formatSource: string;
  inputs: string[];
  /**
   * The `.gz` inputs that broke off, whose lines before the damage are all the counts hold of them;
   * always present (`[]`), so a consumer tells a whole count from a partial one by one stable key.
   */
  damaged: LogDamage[];
  lines: number;
  records: number;
  filtered: number;
  malformed: { count: number; samples: MalformedSample[] };
  timeRange: { first: string; last: string } | null;
  status: StatusCounts;
  statusClass: Record<'1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'other', number>;
  ratios: { '4xx': number; '5xx': number; '499': number; proxy5xx: number | null };
  upstreamStatus: StatusCounts | null;
  proxyGenerated: { total: number; status: StatusCounts } | null;
  upstreamReturned: { total: number; status: StatusCounts } | null;
  clientClosed: {
    count: number;
    ratio: number;
    /** 499s before any upstream attempt; null when the format has no $upstream_addr/$upstream_status. */
    noUpstream: number | null;
    /** Null when the format has no $request_time. */
    requestTime: Percentiles | null;
    /** Null when the format has no upstream variables. */
    upstreamConnectTime: Percentiles | null;
    upstreamResponseTime: Percentiles | null;
  };
  /** Requests with more than one upstream attempt; null when the format has no upstream variables. */
  retriedRequests: number | null;
  upstreams: UpstreamSummary[];
  upstreamOverflow: number;
  /** Null when the format has no $request_time. */
  latency: { requestTime: Percentiles | null };
  topPaths5xx: { paths: Array<{ path: string; count: number }>; maxError: number };
  timeline: { intervalSeconds: number; points: TimelineSummary[] };
  /** Figures the format cannot give (their fields above are null, not zero). */
  unknown: UnknownFigure[];
}

/** How many paths `topPaths5xx` lists. */
export const TOP_PATHS = 10;

/** Status code as nginx writes it: three digits. */
export function statusKey(code: number): string {
  return String(code).padStart(3, '0');
}

function toStatusCounts(counts: Float64Array): StatusCounts {
  const out: StatusCounts = {};
  for (let code = 0; code < 1000; code++) if (counts[code]) out[statusKey(code)] = counts[code]!;
  if (counts.length > 1000 && counts[1000]) out['-'] = counts[1000]!;
  return out;
}

function sum(counts: Float64Array, from = 0, to = counts.length): number {
  let total = 0;
  for (let i = from; i < to; i++) total += counts[i]!;
  return total;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1e6) / 1e6;
}

/** Turns the mergeable state into the plain summary every output is made from. */
export function summarizeStats(
  state: StatsState,
  meta: { format: string; formatSource?: string; inputs: string[] },
): StatsSummary {
  const caps = state.capabilities;
  const records = state.records;
  const statusClass = {
    '1xx': sum(state.status, 100, 200),
    '2xx': sum(state.status, 200, 300),
    '3xx': sum(state.status, 300, 400),
    '4xx': sum(state.status, 400, 500),
    '5xx': sum(state.status, 500, 600),
    other: sum(state.status, 0, 100) + sum(state.status, 600, 1000),
  };
  const proxy5xx = sum(state.proxyGenerated, 500, 600);
  const points: TimelineSummary[] = [...state.timeline.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([start, point]) => {
      // A literal in TIMELINE_COUNTS order: one object shape for thousands of points.
      const c = point.counts;
      return {
        time: new Date(start).toISOString(),
        records: c[0]!,
        '1xx': c[1]!,
        '2xx': c[2]!,
        '3xx': c[3]!,
        '4xx': c[4]!,
        '5xx': c[5]!,
        other: c[6]!,
        '499': c[7]!,
        proxy5xx: caps.headerTime ? c[8]! : null,
        requestTime: caps.requestTime ? toPercentiles(point.requestTime) : null,
      };
    });
  return {
    schema: 'proxyops.logs.stats/1',
    format: meta.format,
    formatSource: meta.formatSource ?? 'given',
    inputs: meta.inputs,
    damaged: state.damaged,
    lines: state.lines,
    records,
    filtered: state.filtered,
    malformed: { count: state.malformed, samples: state.malformedSamples },
    timeRange:
      state.firstTimeMs <= state.lastTimeMs
        ? { first: new Date(state.firstTimeMs).toISOString(), last: new Date(state.lastTimeMs).toISOString() }
        : null,
    status: toStatusCounts(state.status),
    statusClass,
    ratios: {
      '4xx': ratio(statusClass['4xx'], records),
      '5xx': ratio(statusClass['5xx'], records),
      '499': ratio(state.status[499]!, records),
      proxy5xx: caps.headerTime ? ratio(proxy5xx, records) : null,
    },
    upstreamStatus: caps.upstream ? toStatusCounts(state.upstreamFinal) : null,
    proxyGenerated: caps.headerTime
      ? { total: sum(state.proxyGenerated), status: toStatusCounts(state.proxyGenerated) }
      : null,
    upstreamReturned: caps.headerTime
      ? { total: sum(state.upstreamReturned), status: toStatusCounts(state.upstreamReturned) }
      : null,
    clientClosed: {
      count: state.clientClosed.count,
      ratio: ratio(state.clientClosed.count, records),
      noUpstream: caps.upstream ? state.clientClosed.noUpstream : null,
      requestTime: caps.requestTime ? toPercentiles(state.clientClosed.requestTime) : null,
      upstreamConnectTime: caps.upstream ? toPercentiles(state.clientClosed.upstreamConnect) : null,
      upstreamResponseTime: caps.upstream ? toPercentiles(state.clientClosed.upstreamResponse) : null,
    },
    retriedRequests: caps.upstream ? state.retriedRequests : null,
    upstreams: [...state.upstreams.entries()]
      .map(([address, up]) => ({
        address,
        requests: up.requests,
        final: up.final,
        status5xx: up.status5xx,
        proxyGenerated: caps.headerTime ? up.proxyGenerated : null,
        retries: up.retries,
        connectTime: toPercentiles(up.connect),
        headerTime: toPercentiles(up.header),
        responseTime: toPercentiles(up.response),
      }))
      .sort((x, y) => y.requests - x.requests || x.address.localeCompare(y.address)),
    upstreamOverflow: state.upstreamOverflow,
    latency: { requestTime: caps.requestTime ? toPercentiles(state.requestTime) : null },
    topPaths5xx: {
      paths: [...state.paths5xx.entries()]
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .slice(0, TOP_PATHS)
        .map(([path, count]) => ({ path, count })),
      maxError: state.paths5xxError,
    },
    timeline: { intervalSeconds: state.intervalMs / 1000, points },
    unknown: unknownFigures(caps),
  };
}

/** One NDJSON line of a live run: the interval's counts, status codes and request-time percentiles. */
export function toIntervalLine(summary: StatsSummary, endMs: number): Record<string, unknown> {
  return {
    time: new Date(endMs).toISOString(),
    records: summary.records,
    malformed: summary.malformed.count,
    ...summary.statusClass,
    '499': summary.clientClosed.count,
    proxy5xx: summary.proxyGenerated
      ? Object.entries(summary.proxyGenerated.status).reduce((n, [k, v]) => (k[0] === '5' ? n + v : n), 0)
      : null,
    status: summary.status,
    upstreamStatus: summary.upstreamStatus,
    requestTime: summary.latency.requestTime,
  };
}
