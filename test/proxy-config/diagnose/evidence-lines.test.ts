import { describe, expect, it } from 'vitest';
import type { AccessRecord } from '../../../proxy-config/core/diagnose/access-record.js';
import type { Evidence } from '../../../proxy-config/core/diagnose/evidence.js';
import { rankFindings } from '../../../proxy-config/core/diagnose/rank-findings.js';

const EMPTY: Omit<Evidence, 'symptom'> = {
  access: null,
  errors: null,
  config: null,
  probe: null,
  system: null,
};

/** One request's record: `headerTime` null when nginx made the status itself. */
function record(status: number, path: string, addr: string, headerTime: number | null): AccessRecord {
  return {
    time: new Date('2026-12-06T06:28:00Z'),
    status,
    path,
    requestTime: 0.01,
    upstreamStatus: [status],
    upstreamConnectTime: [headerTime],
    upstreamHeaderTime: [headerTime],
    upstreamAddr: [addr],
  };
}

function evidenceLines(evidence: Evidence, id: string): string[] {
  return rankFindings(evidence).find((finding) => finding.id === id)?.evidence ?? [];
}

describe('diagnose 502: which upstreams each finding names', () => {
  // The newcomer's json.log: B answered 502 itself twice; nginx made 4 502s towards B (refused) and 2
  // with no live upstreams in the group `app`.
  const evidence: Evidence = {
    symptom: '502',
    ...EMPTY,
    errors: {
      source: 'error.log',
      lines: [
        {
          kind: 'upstream-refused',
          time: null,
          level: 'error',
          upstream: 'http://127.0.0.1:19102/direct-b/1',
          request: 'GET /direct-b/1 HTTP/1.1',
          bodyBytes: null,
          line: '2026/12/06 06:28:00 [error] 1#1: *1 connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://127.0.0.1:19102/direct-b/1"',
        },
      ],
    },
    access: {
      source: 'json.log',
      splitKnown: true,
      connectKnown: true,
      records: [
        record(502, '/app502', '127.0.0.1:19102', 0.001),
        record(502, '/app502', '127.0.0.1:19102', 0.001),
        ...[1, 2, 3, 4].map((n) => record(502, `/direct-b/${n}`, '127.0.0.1:19102', null)),
        record(502, '/slow/1', 'app', null),
        record(502, '/slow/2', 'app', null),
      ],
    },
  };

  it('lists only the upstreams of the 502s nginx made under upstream-refused', () => {
    expect(evidenceLines(evidence, 'upstream-refused')).toContainEqual(
      expect.stringMatching(
        /6 of 8 502s produced by nginx .*; upstreams 127\.0\.0\.1:19102 \(4\), app \(2\);/,
      ),
    );
  });

  it('lists only the upstreams that answered 502 themselves under upstream-app-5xx', () => {
    expect(evidenceLines(evidence, 'upstream-app-5xx')).toContain(
      'access log: 2 of 8 502s came from the upstream with its own response header (127.0.0.1:19102 (2))',
    );
  });
});
