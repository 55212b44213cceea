import { countsPart, peakMinute, statusFacts } from './access-facts.js';
import { isProxyGenerated, lastUpstream } from './access-record.js';
import type { ClassifiedErrorLine } from './classify-error-log.js';
import type { DiagnosisRule } from './diagnosis-rule.js';
import { clientVisibleCount } from './client-impact.js';
import { describeErrors, errorsOf } from './error-facts.js';
import type { Evidence } from './evidence.js';
import { symptomStatus } from './symptoms.js';
import { toHostPort } from './upstream-endpoints.js';

/**
 * The refused connects that clients saw: with an access log, those towards an address that ended a
 * request as a 502 nginx produced. nginx passes a refused connect on to the next server, where the
 * request then succeeds; the idle address of a blue/green pair (`alternate` in the spec) refuses
 * between deploys by design, and its error-log lines are no incident.
 */
function refusalsOf(evidence: Evidence): ClassifiedErrorLine[] {
  return refusalsClientsSaw(evidence, errorsOf(evidence, ['upstream-refused', 'upstream-connect-failed']));
}

function refusalsClientsSaw(evidence: Evidence, lines: ClassifiedErrorLine[]): ClassifiedErrorLine[] {
  const records = evidence.access?.records;
  // Without $upstream_header_time and $upstream_addr (a `combined` log) no refusal can be cleared.
  if (!records || records.length === 0 || !evidence.access!.splitKnown) return lines;
  const failed = new Set(
    records
      .filter((record) => record.status === 502 && isProxyGenerated(record))
      .map((record) => lastUpstream(record))
      .map((addr) => (addr === null ? null : toHostPort(addr))),
  );
  return lines.filter((line) => {
    const address = line.upstream === null ? null : toHostPort(line.upstream);
    return address === null || failed.has(address);
  });
}

function proxyGeneratedLine(evidence: Evidence, status: number): string[] {
  const facts = statusFacts(evidence, status);
  if (facts.proxyGenerated === 0) return [];
  return [
    `access log: ${facts.proxyGenerated} of ${facts.total} ${status}s produced by nginx (no response header from the upstream)` +
      countsPart(facts.proxyUpstreams, '; upstreams ') +
      (Object.keys(facts.perMinute).length > 0 ? `; busiest minute ${peakMinute(facts.perMinute)}` : ''),
  ];
}

/** Diagnoses of 502 where the upstream connection failed or the upstream answered badly (conventions §7.2). */
export const UPSTREAM_RULES: readonly DiagnosisRule[] = [
  {
    id: 'upstream-refused',
    severity: 'critical',
    title: 'nothing accepts connections on the upstream address (down, or wrong port)',
    symptoms: ['502'],
    test(evidence) {
      const refused = refusalsOf(evidence);
      if (refused.length === 0) return null;
      return [
        ...describeErrors(refused, 'connect() to the upstream failed'),
        ...proxyGeneratedLine(evidence, 502),
      ];
    },
    nextSteps: [
      'Check that the application process is running and listening on the address nginx names (`ss -ltnp`).',
      'Compare the port in proxy_pass / the upstream block with the port the application binds.',
      'If it runs in a container, check that it binds 0.0.0.0 rather than 127.0.0.1 inside the container.',
    ],
    runbook: 'runbooks/502.md#connection-refused',
    clientCount: (evidence) => clientVisibleCount(evidence, refusalsOf(evidence), 502),
  },
  {
    id: 'no-live-upstreams',
    severity: 'critical',
    title: 'every server of the upstream group is marked failed',
    symptoms: ['502'],
    test(evidence) {
      const none = errorsOf(evidence, ['no-live-upstreams']);
      if (none.length === 0) return null;
      return [
        ...describeErrors(none, 'no live upstreams'),
        ...describeErrors(errorsOf(evidence, ['upstream-disabled']), 'upstream server temporarily disabled'),
      ];
    },
    nextSteps: [
      'Look earlier in the error log for why each server was disabled (refused, timed out, reset).',
      'Fix that cause; review max_fails and fail_timeout on the upstream servers.',
    ],
    runbook: 'runbooks/502.md#no-live-upstreams',
    // No client count: its 502s follow from what disabled the servers (refused, reset, timed out),
    // which is the finding to rank by them.
  },
  {
    id: 'upstream-reset',
    severity: 'critical',
    title: 'the upstream accepted the connection but closed it or sent a broken response',
    symptoms: ['502'],
    test(evidence) {
      const reset = errorsOf(evidence, ['upstream-reset']);
      const invalid = errorsOf(evidence, ['upstream-invalid-header']);
      if (reset.length === 0 && invalid.length === 0) return null;
      return [
        ...describeErrors(reset, 'upstream closed or reset the connection before a full response'),
        ...describeErrors(invalid, 'upstream sent no valid HTTP response header'),
        ...proxyGeneratedLine(evidence, 502),
      ];
    },
    nextSteps: [
      "Read the application's own log at the same times: crashes, worker restarts, OOM kills.",
      "Compare the application server's keep-alive timeout with nginx's upstream keepalive_timeout (the upstream must keep idle connections longer).",
      'Check that the upstream speaks HTTP on that port (not TLS, gRPC or another protocol).',
    ],
    runbook: 'runbooks/502.md#upstream-closed-the-connection',
    clientCount: (evidence) =>
      clientVisibleCount(evidence, errorsOf(evidence, ['upstream-reset', 'upstream-invalid-header']), 502),
  },
  {
    id: 'upstream-header-too-big',
    severity: 'high',
    title: "the upstream's response headers exceed nginx's proxy buffer",
    symptoms: ['502'],
    test(evidence) {
      const big = errorsOf(evidence, ['upstream-header-too-big']);
      return big.length === 0 ? null : describeErrors(big, 'upstream sent too big header');
    },
    nextSteps: [
      'Find which response carries large headers (often many or large Set-Cookie headers).',
      'Shrink them in the application, or raise proxy_buffer_size (and proxy_buffers) for that location.',
    ],
    runbook: 'runbooks/502.md#response-headers-too-big',
    clientCount: (evidence) =>
      clientVisibleCount(evidence, errorsOf(evidence, ['upstream-header-too-big']), 502),
  },
  {
    id: 'upstream-app-5xx',
    severity: 'high',
    title: 'the application itself returns the error; nginx only passes it on',
    symptoms: ['502', '504'],
    test(evidence) {
      const status = symptomStatus(evidence.symptom) ?? 502;
      const facts = statusFacts(evidence, status);
      const get = evidence.probe?.get;
      const probed = get !== null && get !== undefined && get.status === status && !get.nginxPage;
      if (facts.upstreamReturned === 0 && !probed) return null;
      return [
        ...(facts.upstreamReturned > 0
          ? [
              `access log: ${facts.upstreamReturned} of ${facts.total} ${status}s came from the upstream with its own response header${countsPart(facts.returnedUpstreams, ' (', ')')}`,
            ]
          : []),
        ...(probed && get
          ? [
              `probe: GET ${evidence.probe?.url} → ${get.status} (Server: ${get.server ?? 'none'}), and the body is not nginx's error page`,
            ]
          : []),
      ];
    },
    nextSteps: [
      "The fault is in the application or what it depends on: read the application's log for these requests (join on the request id).",
      "Check the application's own upstreams (database, other services) for the same window.",
    ],
    runbook: 'runbooks/502.md#the-application-returns-502',
    // Counted from the access log when it tells who made each status (never guessed from the error log).
    clientCount: (evidence) =>
      evidence.access?.splitKnown
        ? statusFacts(evidence, symptomStatus(evidence.symptom) ?? 502).upstreamReturned
        : null,
  },
];
