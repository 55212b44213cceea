// The Prometheus side of `logs stats`: counters and classic histograms kept by prom-client, fed with
// what was read since the last feed (a StatsState of those lines), served on /metrics or written to a
// textfile or printed by --prom. Names, labels and buckets are documented in docs/access-logs.md
// (pipelines). A metric the log format cannot give is left out, never exported as zeros.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { forEachBucket, type Histogram as LogHistogram } from '../core/logs/histogram.js';
import {
  createLabelCap,
  LE_BUCKETS_SECONDS,
  MAX_STATUS_LABELS,
  MAX_UPSTREAM_LABELS,
} from '../core/logs/log-metric-labels.js';
import type { FactsCapabilities } from '../core/logs/line-facts.js';
import type { StatsState } from '../core/logs/stats-state.js';
import { statusKey } from '../core/logs/summarize-stats.js';

/** Counters and histograms of the lines read so far. */
export interface LogMetrics {
  /** Adds the counts of lines read since the last call (a state of those lines only). */
  add(delta: StatsState): void;
  /** The Prometheus text exposition (format 0.0.4). */
  text(): Promise<string>;
  contentType: string;
}

function statusClass(code: number): string {
  return code >= 100 && code < 600 ? `${Math.floor(code / 100)}xx` : 'other';
}

/** Every capability: the metrics of a format that logs all the variables they read. */
const ALL_CAPABILITIES: FactsCapabilities = {
  time: true,
  requestTime: true,
  upstream: true,
  headerTime: true,
  path: true,
};

/**
 * Creates the metrics; `labels` are added to every series (`--label host=web1`). `capabilities` are
 * what the log format can tell: the request-time histogram needs $request_time, the upstream metrics
 * $upstream_addr or $upstream_status, the newest-record gauge a time variable; without them those
 * metrics are left out (no header without samples, no histogram of zeros).
 */
export function createLogMetrics(
  labels: Record<string, string> = {},
  capabilities: FactsCapabilities = ALL_CAPABILITIES,
): LogMetrics {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  const registers = [registry];
  const buckets = [...LE_BUCKETS_SECONDS];
  const lines = new Counter({
    name: 'proxyops_log_lines_total',
    help: 'Access-log lines read, counted when read.',
    registers,
  });
  const malformed = new Counter({
    name: 'proxyops_log_malformed_lines_total',
    help: 'Lines that did not match the log format.',
    registers,
  });
  const filtered = new Counter({
    name: 'proxyops_log_filtered_lines_total',
    help: 'Matched lines dropped by --since, --until, --status, --path or --upstream.',
    registers,
  });
  const requests = new Counter({
    name: 'proxyops_log_requests_total',
    help: 'Requests by $status, status class and who made the response (nginx, upstream, or unknown when the format has no $upstream_header_time).',
    labelNames: ['status', 'status_class', 'origin'],
    registers,
  });
  const requestTime = capabilities.requestTime
    ? new Histogram({
        name: 'proxyops_log_request_duration_seconds',
        help: 'Request time ($request_time) of every request.',
        buckets,
        registers,
      })
    : undefined;
  // Registered only when the format logs upstreams (see below); created here so add() stays one shape.
  const upstreamRegisters = capabilities.upstream ? registers : [];
  const attempts = new Counter({
    name: 'proxyops_log_upstream_attempts_total',
    help: 'Upstream attempts per address: a retried request counts once on each address it tried.',
    labelNames: ['upstream'],
    registers: upstreamRegisters,
  });
  const attempts5xx = new Counter({
    name: 'proxyops_log_upstream_5xx_attempts_total',
    help: 'Upstream attempts ending in a 5xx, by who made it (nginx: no response header from the upstream).',
    labelNames: ['upstream', 'origin'],
    registers: upstreamRegisters,
  });
  const retries = new Counter({
    name: 'proxyops_log_upstream_retries_total',
    help: 'Upstream attempts after which nginx tried another server.',
    labelNames: ['upstream'],
    registers: upstreamRegisters,
  });
  const upstreamTimes = (['connect', 'header', 'response'] as const).map(
    (kind) =>
      [
        kind,
        new Histogram({
          name: `proxyops_log_upstream_${kind}_duration_seconds`,
          help: `Upstream ${kind} time ($upstream_${kind}_time) per attempt; "-" (no attempt) is not counted.`,
          labelNames: ['upstream'],
          buckets,
          registers: upstreamRegisters,
        }),
      ] as const,
  );
  // Registered with the first record's time: before it (or without a time variable) there is no time to give.
  const newest = capabilities.time
    ? new Gauge({
        name: 'proxyops_log_newest_record_timestamp_seconds',
        help: 'Time of the newest record read, by the log its own time (a lagging reader shows here).',
        registers: [],
      })
    : undefined;

  const statusLabel = createLabelCap(MAX_STATUS_LABELS);
  const upstreamLabel = createLabelCap(MAX_UPSTREAM_LABELS);
  let newestMs = -Infinity;

  const countStatuses = (counts: Float64Array, origin: string) => {
    for (let code = 0; code < 1000; code++) {
      const n = counts[code]!;
      if (n > 0)
        requests.inc({ status: statusLabel(statusKey(code)), status_class: statusClass(code), origin }, n);
    }
  };
  const observe = (into: { observe(value: number): void }, h: LogHistogram) => {
    if (h.total === 0) return;
    forEachBucket(h, (ms, count) => {
      const seconds = ms / 1000;
      for (let k = 0; k < count; k++) into.observe(seconds);
    });
  };

  return {
    contentType: registry.contentType,
    text: () => registry.metrics(),
    add(delta) {
      if (delta.lines) lines.inc(delta.lines);
      if (delta.malformed) malformed.inc(delta.malformed);
      if (delta.filtered) filtered.inc(delta.filtered);
      if (delta.capabilities.headerTime) {
        countStatuses(delta.proxyGenerated, 'nginx');
        countStatuses(delta.upstreamReturned, 'upstream');
      } else countStatuses(delta.status, 'unknown');
      if (requestTime) observe(requestTime, delta.requestTime);
      for (const [address, up] of delta.upstreams) {
        const upstream = upstreamLabel(address);
        attempts.inc({ upstream }, up.requests);
        // Without $upstream_header_time nobody can tell who made a 5xx: its origin is unknown.
        if (!delta.capabilities.headerTime) {
          if (up.status5xx) attempts5xx.inc({ upstream, origin: 'unknown' }, up.status5xx);
        } else {
          if (up.status5xx > up.proxyGenerated)
            attempts5xx.inc({ upstream, origin: 'upstream' }, up.status5xx - up.proxyGenerated);
          if (up.proxyGenerated) attempts5xx.inc({ upstream, origin: 'nginx' }, up.proxyGenerated);
        }
        if (up.retries) retries.inc({ upstream }, up.retries);
        for (const [kind, histogram] of upstreamTimes) {
          const h = up[kind];
          if (h.total) observe(histogram.labels({ upstream }), h);
        }
      }
      if (delta.upstreamOverflow) attempts.inc({ upstream: 'other' }, delta.upstreamOverflow);
      if (newest && delta.lastTimeMs > newestMs) {
        if (newestMs === -Infinity) registry.registerMetric(newest);
        newestMs = delta.lastTimeMs;
        newest.set(newestMs / 1000);
      }
    },
  };
}
