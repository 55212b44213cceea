import { linePath, type LineFacts } from '../../../proxy-config/core/logs/line-facts.js';
import { LOG_FORMAT_PRESETS } from '../../../proxy-config/core/logs/log-format-presets.js';
import type { LogEscape } from '../../../proxy-config/core/logs/parse-log-format.js';

// Lines of the rendered formats, odd ones included, shared by the tests of the fast paths.
export const TEXT = LOG_FORMAT_PRESETS.proxyops!;
export const JSON_FORMAT = LOG_FORMAT_PRESETS['proxyops-json']!;
export const format = (spec: typeof TEXT) => (spec.kind === 'format' ? spec.format : '');

export function textLine(parts: Partial<Record<string, string>> = {}): string {
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
    `uct="${v.uct}" uht="${v.uht}" urt="${v.urt}" ua="${v.ua}" us="${v.us}" rid="0f3a" ui="-"`
  );
}

export const TEXT_LINES = [
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
  `"upstream_status":"${us}","request_id":"r1","upstream_instance":""}`;

export const JSON_LINES = [jsonLine('curl'), jsonLine('say \\"hi\\"', '502'), jsonLine('back\\\\slash')];

/** Every prefix of each line, and each line with one character replaced by each of a few delimiters. */
export function mutations(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    for (let k = 0; k <= line.length; k++) out.push(line.slice(0, k));
    for (let k = 0; k < line.length; k++)
      for (const c of ['"', ' ', '-', ',', ':', '\\', 'x', '5'])
        out.push(line.slice(0, k) + c + line.slice(k + 1));
  }
  return out;
}

/** What the statistics read from one line (null when it did not match). */
export function snapshot(ok: boolean, f: LineFacts, escape: LogEscape) {
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
