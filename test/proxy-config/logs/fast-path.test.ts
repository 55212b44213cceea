import { describe, expect, it } from 'vitest';
import { compileLogFormat } from '../../../proxy-config/core/logs/compile-log-format.js';
import {
  createFactsReader,
  createLineFacts,
  linePath,
  type LineFacts,
} from '../../../proxy-config/core/logs/line-facts.js';
import { LOG_FORMAT_PRESETS } from '../../../proxy-config/core/logs/log-format-presets.js';
import type { LogEscape } from '../../../proxy-config/core/logs/parse-log-format.js';

const TEXT = LOG_FORMAT_PRESETS.proxyops!;
const JSON_FORMAT = LOG_FORMAT_PRESETS['proxyops-json']!;
const format = (spec: typeof TEXT) => (spec.kind === 'format' ? spec.format : '');

function textLine(parts: Partial<Record<string, string>> = {}): string {
  const v = {
    addr: '2001:db8::1',
    time: '21/Nov/2026:10:00:01 +0000',
    request: 'GET /users/42?q=1 HTTP/1.1',
    status: '200',
    agent: 'curl/8.5.0',
    rt: '0.012',
    uct: '0.001',
    uht: '0.010',
    urt: '0.011',
    ua: '10.0.1.11:8080',
    us: '200',
    ...parts,
  };
  return (
    `${v.addr} - - [${v.time}] "${v.request}" ${v.status} 512 "-" "${v.agent}" rt=${v.rt} ` +
    `uct="${v.uct}" uht="${v.uht}" urt="${v.urt}" ua="${v.ua}" us="${v.us}" rid="0f3a"`
  );
}

const TEXT_LINES = [
  textLine(),
  textLine({ status: '502', uht: '-', us: '502', request: 'POST /orders/7 HTTP/1.1' }),
  textLine({
    ua: '10.0.1.11:8080, 10.0.1.12:8080',
    us: '502, 200',
    uct: '-, 0.001',
    uht: '-, 0.004',
    urt: '0.000, 0.005',
  }),
  textLine({
    ua: '10.0.1.11:8080 : unix:/run/app.sock',
    us: '504 : 200',
    uht: '- : 0.002',
    urt: '1.002 : 0.003',
  }),
  textLine({ ua: '-', us: '-', uct: '-', uht: '-', urt: '-', status: '413' }),
  textLine({ status: '009', request: '\\x16\\x03' }),
  textLine({ request: '-', status: '400' }),
  textLine({ request: 'GET /with raw space HTTP/1.1', status: '503' }),
  textLine({ request: 'GET /caf\\xC3\\xA9 HTTP/1.1', status: '500' }),
  textLine({ agent: 'bot \\x22quoted\\x22', rt: '12.5' }),
  textLine({ time: '21/Nov/2026:10:00:59 +0200' }),
  textLine({ time: '21/Nov/2026:10:01:00 +0200' }),
  textLine({ time: '21/Nov/2026:10:01:0x +0000' }),
  textLine({ time: '21/Nov/2026:10:01:61 +0000' }),
  textLine({ ua: '' }),
  textLine({ rt: '1' }),
  textLine({ agent: 'x" rt=1' }),
  textLine() + '\r',
  'garbage',
  '',
];

const jsonLine = (agent: string, us = '200') =>
  `{"remote_addr":"10.0.0.9","remote_user":"-","time_local":"21/Nov/2026:10:00:01 +0000",` +
  `"request":"GET /p HTTP/1.1","status":"${us}","body_bytes_sent":"5","http_referer":"-",` +
  `"http_user_agent":"${agent}","request_time":"0.010","upstream_connect_time":"0.001",` +
  `"upstream_header_time":"0.002","upstream_response_time":"0.003","upstream_addr":"10.0.0.1:80",` +
  `"upstream_status":"${us}","request_id":"r1"}`;

const JSON_LINES = [jsonLine('curl'), jsonLine('say \\"hi\\"', '502'), jsonLine('back\\\\slash')];

/** Every prefix of each line, and each line with one character replaced by each of a few delimiters. */
function mutations(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    for (let k = 0; k <= line.length; k++) out.push(line.slice(0, k));
    for (let k = 0; k < line.length; k++)
      for (const c of ['"', ' ', '-', ',', ':', '\\', 'x', '5'])
        out.push(line.slice(0, k) + c + line.slice(k + 1));
  }
  return out;
}

function snapshot(ok: boolean, f: LineFacts, escape: LogEscape) {
  if (!ok) return null;
  const n = f.attempts;
  return {
    status: f.status,
    timeMs: f.timeMs,
    requestTimeMs: f.requestTimeMs,
    addr: f.addr.slice(0, n),
    upstreamStatus: f.upstreamStatus.slice(0, n),
    connectMs: f.connectMs.slice(0, n),
    headerMs: f.headerMs.slice(0, n),
    responseMs: f.responseMs.slice(0, n),
    path: linePath(f, escape),
  };
}

/** Reads each line with the regex fast path and with the matcher alone; returns both and the fast hits. */
function readBoth(spec: typeof TEXT, lines: string[]) {
  const compiled = compileLogFormat(format(spec), spec.kind === 'format' ? spec.escape : 'json');
  const fast = createFactsReader(compiled);
  const slow = createFactsReader(compiled, false);
  const pattern = compiled.createPattern(['status']).regex;
  const a = createLineFacts();
  const b = createLineFacts();
  const fastOut = [];
  const slowOut = [];
  let regexHits = 0;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // The whole text holds a line before and after, as a chunk does; the line's end excludes "\r".
    const s = `x\n${raw}\ny`;
    fast.reset();
    slow.reset();
    fastOut.push(snapshot(fast.read(s, 2, 2 + line.length, a), a, compiled.escape));
    slowOut.push(snapshot(slow.read(s, 2, 2 + line.length, b), b, compiled.escape));
    pattern.lastIndex = 2;
    if (pattern.exec(s) && pattern.lastIndex === 2 + line.length) regexHits++;
  }
  return { fastOut, slowOut, regexHits };
}

describe('the regex fast path', () => {
  it('reads the common lines of the rendered format itself', () => {
    const normal = TEXT_LINES.slice(0, 12);
    const { fastOut, slowOut, regexHits } = readBoth(TEXT, normal);
    expect(regexHits).toBe(normal.length);
    expect(fastOut).toEqual(slowOut);
    expect(fastOut[2]).toMatchObject({ addr: ['10.0.1.11:8080', '10.0.1.12:8080'], headerMs: [-1, 4] });
    expect(fastOut[3]).toMatchObject({ upstreamStatus: [504, 200], responseMs: [1002, 3] });
    expect(fastOut[5]).toMatchObject({ status: 9 });
    expect(fastOut[8]).toMatchObject({ path: '/café' });
    expect(fastOut[10]!.timeMs - fastOut[0]!.timeMs).toBe(58_000 - 2 * 3600_000);
  });

  it('gives what the matcher gives on every line, odd, truncated or mutated (text format)', () => {
    const lines = mutations(TEXT_LINES);
    const { fastOut, slowOut, regexHits } = readBoth(TEXT, lines);
    expect(regexHits).toBeGreaterThan(lines.length / 4);
    for (let i = 0; i < lines.length; i++) expect([lines[i], fastOut[i]]).toEqual([lines[i], slowOut[i]]);
  });

  it('leaves escaped quotes of escape=json to the matcher and still agrees', () => {
    const lines = mutations(JSON_LINES);
    const { fastOut, slowOut } = readBoth(JSON_FORMAT, lines);
    for (let i = 0; i < lines.length; i++) expect([lines[i], fastOut[i]]).toEqual([lines[i], slowOut[i]]);
    const plain = readBoth(JSON_FORMAT, JSON_LINES);
    expect(plain.regexHits).toBe(1);
    expect(plain.fastOut[1]).toMatchObject({ status: 502 });
  });

  it('handles other time variables and formats without upstream fields', () => {
    const iso = compileLogFormat('$time_iso8601 $status "$request_uri" $msec');
    const reader = createFactsReader(iso);
    const f = createLineFacts();
    const s = '2026-11-21T10:00:01+02:00 503 "/a?b" 1.5\n2026-11-21T10:00:07+02:00 200 "/c" 2\n';
    const nl = s.indexOf('\n');
    expect(reader.read(s, 0, nl, f)).toBe(true);
    expect([f.timeMs, f.status, linePath(f, 'default'), f.attempts]).toEqual([
      Date.UTC(2026, 10, 21, 8, 0, 1),
      503,
      '/a',
      0,
    ]);
    expect(reader.read(s, nl + 1, s.length - 1, f)).toBe(true);
    expect(f.timeMs).toBe(Date.UTC(2026, 10, 21, 8, 0, 7));
  });
});
