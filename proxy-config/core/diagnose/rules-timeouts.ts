import { countsPart, median, peakMinute, statusFacts } from './access-facts.js';
import { hasConnected, isProxyGenerated, type AccessRecord } from './access-record.js';
import type { DiagnosisRule } from './diagnosis-rule.js';
import { describeErrors, errorsOf } from './error-facts.js';
import type { Evidence } from './evidence.js';
import { candidatesNote, locationsServing } from './locations-serving.js';
import { describeSettingInEffect } from './setting-in-effect.js';
import { symptomRequests } from './symptom-requests.js';

/** nginx's proxy_read_timeout when the config does not set one. */
export const DEFAULT_PROXY_READ_TIMEOUT_MS = 60_000;

/** How many 499s, and how tightly grouped in time, make "something in front gives up at a fixed time". */
export const LAYERING_MIN_COUNT = 3;
export const LAYERING_MAX_SPREAD = 0.1;

function waitingFor499(evidence: Evidence): AccessRecord[] {
  const splitKnown = evidence.access?.splitKnown ?? true;
  return (evidence.access?.records ?? []).filter(
    (record) => record.status === 499 && (!splitKnown || isProxyGenerated(record)),
  );
}

/** Proxy-made 504s split by whether the upstream connection was made (`$upstream_connect_time`). */
function proxy504s(evidence: Evidence): { connected: AccessRecord[]; notConnected: AccessRecord[] } {
  const access = evidence.access;
  const made = (access?.records ?? []).filter(
    (record) => record.status === 504 && (!(access?.splitKnown ?? true) || isProxyGenerated(record)),
  );
  if (!(access?.connectKnown ?? false)) return { connected: made, notConnected: [] };
  return {
    connected: made.filter(hasConnected),
    notConnected: made.filter((record) => !hasConnected(record)),
  };
}

function describe504s(records: readonly AccessRecord[], total: number, what: string): string[] {
  if (records.length === 0) return [];
  const upstreams: Record<string, number> = {};
  for (const record of records) {
    const upstream = record.upstreamAddr.at(-1);
    if (upstream && upstream !== '-') upstreams[upstream] = (upstreams[upstream] ?? 0) + 1;
  }
  const times = records.map((record) => record.requestTime).filter((time): time is number => time !== null);
  const waited = times.length > 0 ? `; request time median ${median(times).toFixed(3)} s` : '';
  return [
    `access log: ${records.length} of ${total} 504s produced by nginx ${what}${countsPart(upstreams, ' (upstreams ', ')')}${waited}`,
  ];
}

/** The request times of 499s when they sit within LAYERING_MAX_SPREAD of their median, else null. */
function clusteredGiveUp(
  records: readonly AccessRecord[],
): { median: number; min: number; max: number } | null {
  const times = records.map((record) => record.requestTime).filter((time): time is number => time !== null);
  if (times.length < LAYERING_MIN_COUNT) return null;
  const mid = median(times);
  const min = Math.min(...times);
  const max = Math.max(...times);
  if (mid <= 0 || (max - min) / mid > LAYERING_MAX_SPREAD) return null;
  return { median: mid, min, max };
}

/**
 * The proxy_read_timeout in effect where the symptom's requests went: the longest (what nginx waits at
 * most), and one line per candidate location, each server's named when the logs cannot tell which.
 */
function readTimeoutMs(evidence: Evidence): { ms: number; where: string[] } {
  const proxied = locationsServing(symptomRequests(evidence), evidence.config).filter(
    (location) => location.proxyPass,
  );
  if (proxied.length === 0)
    return {
      ms: DEFAULT_PROXY_READ_TIMEOUT_MS,
      where: ['config: not given; nginx default proxy_read_timeout 60s assumed'],
    };
  return {
    ms: Math.max(...proxied.map((location) => location.proxyReadTimeoutMs)),
    where: [
      ...candidatesNote(proxied, 'proxy_read_timeout'),
      ...proxied.map((location) =>
        describeSettingInEffect(
          location.proxyReadTimeoutSet,
          `${location.proxyReadTimeoutMs / 1000} s`,
          location.where,
        ),
      ),
    ],
  };
}

/** Diagnoses of 504 and 499 (conventions §7.2, §4.7.5): slow upstreams and timeouts out of order. */
export const TIMEOUT_RULES: readonly DiagnosisRule[] = [
  {
    id: 'upstream-read-timeout',
    severity: 'high',
    title: 'the upstream accepted the connection but did not answer within proxy_read_timeout',
    symptoms: ['504'],
    test(evidence) {
      const timedOut = errorsOf(evidence, ['upstream-read-timeout']);
      const { connected } = proxy504s(evidence);
      if (timedOut.length === 0 && connected.length === 0) return null;
      const total = statusFacts(evidence, 504);
      return [
        ...describeErrors(timedOut, 'upstream timed out while reading the response header'),
        ...describe504s(connected, total.total, 'after connecting'),
        ...(connected.length > 0 ? [`access log: busiest minute ${peakMinute(total.perMinute)}`] : []),
        ...(evidence.config ? readTimeoutMs(evidence).where : []),
      ];
    },
    nextSteps: [
      'Find what the application waits on for these paths: slow queries, locks, calls to other services.',
      'Only raise proxy_read_timeout for endpoints that are slow by design, and keep it shorter than the layer in front.',
      'Watch the 504 and 499 counts after the fix: `proxyops logs stats --status 499,504 ACCESS_LOG`.',
    ],
    runbook: 'runbooks/504.md#the-upstream-is-slow',
    clientCount: (evidence) => (evidence.access?.splitKnown ? proxy504s(evidence).connected.length : null),
  },
  {
    id: 'upstream-connect-timeout',
    severity: 'high',
    title: 'connecting to the upstream timed out (host down, firewall, or full backlog)',
    symptoms: ['504'],
    test(evidence) {
      const timedOut = errorsOf(evidence, ['upstream-connect-timeout']);
      const { notConnected } = proxy504s(evidence);
      if (timedOut.length === 0 && notConnected.length === 0) return null;
      return [
        ...describeErrors(timedOut, 'upstream timed out while connecting'),
        ...describe504s(notConnected, statusFacts(evidence, 504).total, 'without ever connecting'),
      ];
    },
    nextSteps: [
      'Check that the upstream host is up and reachable from the nginx host on that port (firewall, security group).',
      "Check the application's listen backlog and whether it accepts connections at all under load.",
    ],
    runbook: 'runbooks/504.md#connecting-times-out',
    clientCount: (evidence) =>
      evidence.access?.splitKnown && evidence.access.connectKnown
        ? proxy504s(evidence).notConnected.length
        : null,
  },
  {
    id: 'timeout-layering',
    severity: 'high',
    title: 'a layer in front gives up before nginx does: the inner timeout is longer than the outer one',
    symptoms: ['499', '504'],
    test(evidence) {
      const cluster = clusteredGiveUp(waitingFor499(evidence));
      if (!cluster) return null;
      const timeout = readTimeoutMs(evidence);
      if (cluster.median * 1000 >= timeout.ms) return null;
      return [
        `access log: ${waitingFor499(evidence).length} × 499 after ${cluster.min.toFixed(3)}–${cluster.max.toFixed(3)} s (median ${cluster.median.toFixed(3)} s): the client side closes at a fixed time`,
        `nginx waits up to ${timeout.ms / 1000} s, longer than the ~${cluster.median.toFixed(1)} s at which the outer layer gives up`,
        ...timeout.where,
      ];
    },
    nextSteps: [
      'Find the layer in front (load balancer, CDN, another proxy) whose timeout matches the 499 request time; it answers 504 itself.',
      'Make each inner timeout shorter than the outer one (conventions §4.7.5): app < nginx proxy_read_timeout < load balancer idle timeout.',
      'Then nginx, which logs the upstream and its timings, reports the 504 instead of a 499.',
    ],
    runbook: 'runbooks/504.md#timeouts-per-layer',
  },
  {
    id: 'slow-upstream-499',
    severity: 'medium',
    title: 'clients give up while the upstream has not answered yet: the service has become slow',
    symptoms: ['499'],
    test(evidence) {
      const waiting = waitingFor499(evidence);
      if (waiting.length === 0) return null;
      const facts = statusFacts(evidence, 499);
      const total = evidence.access?.records.length ?? 0;
      return [
        `access log: ${waiting.length} × 499 before the upstream sent a response header, ${((facts.total / Math.max(1, total)) * 100).toFixed(1)}% of ${total} requests`,
        `access log: clients waited ${Math.min(...facts.requestTimes).toFixed(3)}–${Math.max(...facts.requestTimes).toFixed(3)} s (median ${median(facts.requestTimes).toFixed(3)} s)${countsPart(facts.upstreams, '; upstreams ')}; busiest minute ${peakMinute(facts.perMinute)}`,
      ];
    },
    nextSteps: [
      'Treat a rising 499 count like a latency alert: find which paths and upstreams got slow (`proxyops logs stats`).',
      'Look at upstream_header_time of the requests that did complete for the same paths.',
    ],
    runbook: 'runbooks/499.md#the-upstream-is-slow',
  },
];
