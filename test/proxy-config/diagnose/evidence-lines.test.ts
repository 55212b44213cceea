import { describe, expect, it } from 'vitest';
import type { AccessRecord } from '../../../proxy-config/core/diagnose/access-record.js';
import type { Evidence } from '../../../proxy-config/core/diagnose/evidence.js';
import type { ClassifiedErrorLine } from '../../../proxy-config/core/diagnose/classify-error-log.js';
import { toConfigEvidence } from '../../../proxy-config/core/diagnose/config-facts.js';
import type { ErrorLogKind } from '../../../proxy-config/core/diagnose/error-log-patterns.js';
import { rankFindings } from '../../../proxy-config/core/diagnose/rank-findings.js';
import { serversWritingLog } from '../../../proxy-config/core/diagnose/servers-writing-log.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';

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

// The newcomer's two servers: the same locations, each server its own proxy_read_timeout and access log.
const TWO_SERVERS = `http {
  client_max_body_size 1k;
  upstream app { server 127.0.0.1:19101; server 127.0.0.1:19102; }
  server {
    listen 127.0.0.1:18480;
    proxy_read_timeout 3s;
    access_log /logs/timed.log;
    location / { proxy_pass http://app; }
    location /direct-a/ { proxy_pass http://127.0.0.1:19101/; }
  }
  server {
    listen 127.0.0.1:18481;
    proxy_read_timeout 2s;
    access_log /logs/json.log;
    location / { proxy_pass http://app; }
    location /direct-a/ { proxy_pass http://127.0.0.1:19101/; }
  }
}
`;

function twoServers(): NginxConfig {
  return {
    mainFile: 'nginx.conf',
    files: ['nginx.conf'],
    directives: parseNginxConfig(TWO_SERVERS, 'nginx.conf'),
  };
}

function errorLine(kind: ErrorLogKind, request: string, port: number): ClassifiedErrorLine {
  return {
    kind,
    time: null,
    level: 'error',
    upstream: 'http://127.0.0.1:19101/x',
    request,
    host: `127.0.0.1:${port}`,
    bodyBytes: kind === 'body-too-large' ? 10_000 : null,
    line: `2026/12/06 06:28:27 [error] 1#1: *1 (${kind}), request: "${request}", host: "127.0.0.1:${port}"`,
  };
}

describe('diagnose: the setting in effect where the symptom happened, in the right server', () => {
  const config = twoServers();
  // The error log is shared: timeouts on both servers, on other paths too.
  const errors = {
    source: 'error.log',
    lines: [
      errorLine('upstream-read-timeout', 'GET /slow/1 HTTP/1.1', 18480),
      errorLine('upstream-read-timeout', 'GET /direct-a/slow/x1 HTTP/1.1', 18481),
    ],
  };
  const slow = (path: string, file: string) => ({
    ...record(504, path, '127.0.0.1:19101', null),
    upstreamConnectTime: [0],
    servers: serversWritingLog(config, null, file) ?? undefined,
  });

  it('names the location of the server that writes the access log read, not the first server', () => {
    const lines = evidenceLines(
      {
        symptom: '504',
        ...EMPTY,
        config: toConfigEvidence(config),
        errors,
        access: {
          source: 'json.log',
          splitKnown: true,
          connectKnown: true,
          records: [slow('/direct-a/slow/x1', '/logs/json.log')],
        },
      },
      'upstream-read-timeout',
    );
    const configLines = lines.filter((line) => line.startsWith('config:'));
    expect(configLines).toHaveLength(1);
    expect(configLines[0]).toMatch(
      /^config: proxy_read_timeout 2s \(2 s\) at nginx\.conf:13, in server, inherited: in effect for nginx\.conf:16 server 127\.0\.0\.1:18481 location \/direct-a\/;/,
    );
  });

  it('names each candidate server when the log read is written by no access_log line the config has', () => {
    const lines = evidenceLines(
      {
        symptom: '504',
        ...EMPTY,
        config: toConfigEvidence(config),
        access: {
          source: 'other.log',
          splitKnown: true,
          connectKnown: true,
          records: [slow('/direct-a/slow/x1', '/logs/other.log')],
        },
      },
      'upstream-read-timeout',
    ).filter((line) => line.startsWith('config:'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/locations in 2 servers; proxy_read_timeout in effect in each:$/);
    expect(lines[1]).toMatch(
      /^config: proxy_read_timeout 3s .* nginx\.conf:9 server 127\.0\.0\.1:18480 location \/direct-a\//,
    );
    expect(lines[2]).toMatch(
      /^config: proxy_read_timeout 2s .* nginx\.conf:16 server 127\.0\.0\.1:18481 location \/direct-a\//,
    );
  });

  it('413: names only the locations the 413 paths reach, in the server of each error line (its Host port)', () => {
    const lines = evidenceLines(
      {
        symptom: '413',
        ...EMPTY,
        config: toConfigEvidence(config),
        errors: {
          source: 'error.log',
          lines: [...errors.lines, errorLine('body-too-large', 'POST /upload HTTP/1.1', 18481)],
        },
      },
      'proxy-body-limit',
    ).filter((line) => line.startsWith('config:'));
    expect(lines).toEqual([
      expect.stringMatching(/in effect for nginx\.conf:15 server 127\.0\.0\.1:18481 location \/;/),
    ]);
  });
});
