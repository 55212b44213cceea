import { describe, expect, it } from 'vitest';
import { DIAGNOSIS_RULES } from '../../../proxy-config/core/diagnose/diagnosis-rules.js';
import type { Evidence } from '../../../proxy-config/core/diagnose/evidence.js';
import { rankFindings } from '../../../proxy-config/core/diagnose/rank-findings.js';
import { SYMPTOMS } from '../../../proxy-config/core/diagnose/symptoms.js';

// Finding ids are a public contract (scripts and runbooks name them): changing one is a breaking change.
const PINNED_IDS = [
  'proxy-body-limit',
  'upstream-body-limit',
  'other-layer-body-limit',
  'fd-exhausted',
  'no-upstream-keepalive',
  'upstream-refused',
  'no-live-upstreams',
  'upstream-reset',
  'upstream-header-too-big',
  'upstream-app-5xx',
  'upstream-read-timeout',
  'upstream-connect-timeout',
  'timeout-layering',
  'slow-upstream-499',
  'forwarded-proto-missing',
  'html-cached',
  'rotated-log-held-open',
  'trailing-slash-mismatch',
];

const EMPTY: Omit<Evidence, 'symptom'> = {
  access: null,
  errors: null,
  config: null,
  probe: null,
  system: null,
};

describe('DIAGNOSIS_RULES', () => {
  it('holds exactly the pinned ids, each once', () => {
    expect(DIAGNOSIS_RULES.map((rule) => rule.id)).toEqual(PINNED_IDS);
  });

  it('gives every rule a symptom, next steps and a runbook section', () => {
    for (const rule of DIAGNOSIS_RULES) {
      expect(rule.symptoms.length, rule.id).toBeGreaterThan(0);
      expect(
        rule.symptoms.every((symptom) => (SYMPTOMS as readonly string[]).includes(symptom)),
        rule.id,
      ).toBe(true);
      expect(rule.nextSteps.length, rule.id).toBeGreaterThan(0);
      expect(rule.runbook, rule.id).toMatch(/^runbooks\/[a-z0-9-]+\.md#[a-z0-9_-]+$/);
    }
  });

  it('finds nothing without evidence, for every symptom', () => {
    for (const symptom of SYMPTOMS) expect(rankFindings({ symptom, ...EMPTY }), symptom).toEqual([]);
  });

  it('ranks by severity, then by table order', () => {
    const line = (kind: string, text: string) =>
      `2026/11/22 02:31:05 [error] 1#1: *1 ${text}, upstream: "http://127.0.0.1:9109/" (${kind})`;
    const evidence: Evidence = {
      symptom: '502',
      ...EMPTY,
      errors: {
        source: 'error.log',
        lines: [
          {
            kind: 'upstream-header-too-big',
            time: null,
            level: 'error',
            upstream: null,
            request: null,
            bodyBytes: null,
            line: line('a', 'upstream sent too big header'),
          },
          {
            kind: 'upstream-refused',
            time: null,
            level: 'error',
            upstream: 'http://127.0.0.1:9109/',
            request: null,
            bodyBytes: null,
            line: line('b', 'connect() failed (111: Connection refused)'),
          },
        ],
      },
    };
    const findings = rankFindings(evidence);
    expect(findings.map((finding) => [finding.rank, finding.id, finding.severity])).toEqual([
      [1, 'upstream-refused', 'critical'],
      [2, 'upstream-header-too-big', 'high'],
    ]);
    expect(findings[0]?.evidence[0]).toMatch(
      /1 × connect\(\) to the upstream failed towards http:\/\/127\.0\.0\.1:9109\//,
    );
  });

  it('takes no refused connect that nginx passed on to the next server for the 502 (an idle blue/green address)', () => {
    const refusedAt = (address: string) => ({
      kind: 'upstream-refused' as const,
      time: null,
      level: 'error',
      upstream: `http://${address}/orders`,
      request: null,
      bodyBytes: null,
      line: `2026/11/22 02:31:05 [error] 1#1: *1 connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://${address}/orders"`,
    });
    const record = (status: number, addrs: string[], headerTimes: (number | null)[]) => ({
      time: null,
      status,
      path: '/orders',
      requestTime: 0.01,
      upstreamStatus: addrs.map(() => status),
      upstreamConnectTime: headerTimes,
      upstreamHeaderTime: headerTimes,
      upstreamAddr: addrs,
    });
    const evidence: Evidence = {
      symptom: '502',
      ...EMPTY,
      errors: { source: 'error.log', lines: [refusedAt('127.0.0.2:3002'), refusedAt('127.0.0.9:4000')] },
      access: {
        source: 'access.log',
        splitKnown: true,
        connectKnown: true,
        records: [
          // Refused, passed on, answered: the idle alternate.
          record(201, ['127.0.0.2:3002', '127.0.0.2:3001'], [null, 0.002]),
          // Refused and nothing else to try: the client got nginx's 502.
          record(502, ['127.0.0.9:4000'], [null]),
        ],
      },
    };
    const refused = rankFindings(evidence).find((finding) => finding.id === 'upstream-refused')!;
    expect(refused.evidence[0]).toMatch(
      /1 × connect\(\) to the upstream failed towards http:\/\/127\.0\.0\.9:4000\//,
    );
    evidence.access!.records.pop();
    expect(rankFindings(evidence).map((finding) => finding.id)).not.toContain('upstream-refused');
  });
});

describe('ranking by what clients saw', () => {
  const at = (second: number) => new Date(Date.UTC(2026, 10, 22, 2, 31, second));
  const errorLine = (kind: 'upstream-refused' | 'upstream-reset', request: string, second: number) => ({
    kind,
    time: at(second),
    level: 'error',
    upstream: 'http://127.0.0.1:9101/',
    request,
    bodyBytes: null,
    line: `2026/11/22 02:31:${second} [error] 1#1: *1 ${kind}, request: "${request}"`,
  });
  // A combined log: no upstream, no header time; only status, path and time.
  const record = (status: number, path: string, second: number) => ({
    time: at(second),
    status,
    path,
    requestTime: 0.01,
    upstreamStatus: [],
    upstreamConnectTime: [],
    upstreamHeaderTime: [],
    upstreamAddr: [],
  });

  it('puts the cause of the client 502s first, and one clients never saw (retried elsewhere) last and low', () => {
    const evidence: Evidence = {
      symptom: '502',
      ...EMPTY,
      access: {
        source: 'access.log',
        splitKnown: false,
        connectKnown: false,
        records: [
          record(200, '/page', 1),
          record(200, '/page', 2),
          ...[3, 3, 4].map((second) => record(502, '/orders', second)),
        ],
      },
      errors: {
        source: 'error.log',
        lines: [
          errorLine('upstream-refused', 'GET /page HTTP/1.1', 1),
          errorLine('upstream-refused', 'GET /page HTTP/1.1', 2),
          ...[3, 3, 4].map((second) => errorLine('upstream-reset', 'POST /orders HTTP/1.1', second)),
        ],
      },
    };
    const findings = rankFindings(evidence);
    expect(findings.map((finding) => [finding.id, finding.severity])).toEqual([
      ['upstream-reset', 'critical'],
      ['upstream-refused', 'low'],
    ]);
    expect(findings[0]?.evidence.at(-1)).toBe('access log: clients saw 3 of the 3 502s from this cause');
    expect(findings[1]?.evidence.at(-1)).toBe('access log: clients saw none of the 3 502s from this cause');
  });

  it('keeps severity and table order where the access log cannot tell (no record near an error line)', () => {
    const evidence: Evidence = {
      symptom: '502',
      ...EMPTY,
      access: {
        source: 'access.log',
        splitKnown: false,
        connectKnown: false,
        records: [record(502, '/x', 50)],
      },
      errors: {
        source: 'error.log',
        lines: [
          errorLine('upstream-refused', 'GET /page HTTP/1.1', 1),
          errorLine('upstream-reset', 'POST /orders HTTP/1.1', 3),
        ],
      },
    };
    const findings = rankFindings(evidence);
    expect(findings.map((finding) => [finding.id, finding.severity])).toEqual([
      ['upstream-refused', 'critical'],
      ['upstream-reset', 'critical'],
    ]);
    expect(findings.flatMap((finding) => finding.evidence).join('\n')).not.toContain('clients saw');
  });
});
