import type { CompiledLogFormat } from './compile-log-format.js';
import { decodeLogValue, textToBytes } from './decode-log-value.js';
import { parseLogTime } from './parse-log-time.js';
import { parseUpstreamList, readMillis, readStatus } from './upstream-list.js';

/** One upstream attempt of a request; times in seconds, null where nginx wrote "-". */
export interface UpstreamAttempt {
  address: string;
  status: number | null;
  connectTime: number | null;
  headerTime: number | null;
  responseTime: number | null;
}

/** One access-log line as plain data. `fields` holds every variable decoded ("-" kept as written). */
export interface LogRecord {
  fields: Record<string, string>;
  /** Epoch milliseconds, null when the format has no time. */
  time: number | null;
  status: number;
  /** The status as written, three digits ("009"). */
  statusText: string;
  method: string | null;
  path: string | null;
  protocol: string | null;
  requestTime: number | null;
  bodyBytesSent: number | null;
  remoteAddr: string | null;
  requestId: string | null;
  /** Attempts in order; the last is the final one. Empty when no upstream was tried. */
  upstream: UpstreamAttempt[];
  /** The proxy made the response (final attempt got no header, or no upstream); null when the format cannot tell. */
  proxyGenerated: boolean | null;
}

function value(fields: Record<string, string>, name: string): string | null {
  const v = fields[name];
  return v === undefined || v === '-' || v === '' ? null : v;
}

function seconds(text: string | undefined): number | null {
  if (text === undefined) return null;
  const ms = readMillis(text, 0, text.length);
  return ms < 0 ? null : ms / 1000;
}

/** Parses one line (ordinary text, no newline) with a compiled format; null when it does not match. */
export function parseLogLine(format: CompiledLogFormat, line: string): LogRecord | null {
  const s = textToBytes(line.endsWith('\r') ? line.slice(0, -1) : line);
  const { match } = format.createMatcher();
  const pos = new Int32Array(format.variables.length * 2);
  if (!match(s, 0, s.length, pos)) return null;
  const fields: Record<string, string> = {};
  format.variables.forEach((name, i) => {
    if (fields[name] === undefined)
      fields[name] = decodeLogValue(s.slice(pos[2 * i], pos[2 * i + 1]), format.escape);
  });
  const statusText = fields.status ?? '';
  const status = readStatus(statusText, 0, statusText.length);
  if (status < 0) return null;
  const timeText = fields.time_local ?? fields.time_iso8601 ?? fields.msec;
  const time = timeText === undefined ? null : parseLogTime(timeText);
  if (time !== null && Number.isNaN(time)) return null;

  const list = (name: string) => {
    const v = value(fields, name);
    return v === null ? [] : parseUpstreamList(v);
  };
  const addrs = list('upstream_addr');
  const statuses = list('upstream_status');
  const connect = list('upstream_connect_time');
  const header = list('upstream_header_time');
  const response = list('upstream_response_time');
  // Without an address or status logged, the time lists (one value per attempt) tell the attempts.
  const listsAttempts =
    format.slots.upstream_addr !== undefined || format.slots.upstream_status !== undefined;
  const timed = (values: string[]) => (values.length === 1 && values[0] === '-' ? 0 : values.length);
  const attempts = listsAttempts
    ? Math.max(addrs.length, statuses.length)
    : Math.max(timed(connect), timed(header), timed(response));
  const upstream: UpstreamAttempt[] = [];
  for (let k = 0; k < attempts; k++) {
    const st = statuses[k] ?? '-';
    const code = readStatus(st, 0, st.length);
    upstream.push({
      address: addrs[k] ?? '-',
      status: code < 0 ? null : code,
      connectTime: seconds(connect[k]),
      headerTime: seconds(header[k]),
      responseTime: seconds(response[k]),
    });
  }
  const hasHeaderTime = format.slots.upstream_header_time !== undefined;
  const request = value(fields, 'request');
  const [method, target, protocol] = splitRequestLine(request);
  const uri = value(fields, 'request_uri') ?? value(fields, 'uri') ?? target;
  const bytes = value(fields, 'body_bytes_sent');
  return {
    fields,
    time,
    status,
    statusText,
    method: value(fields, 'request_method') ?? method,
    path: uri === null ? null : uri.split('?')[0]!,
    protocol: value(fields, 'server_protocol') ?? protocol,
    requestTime: seconds(fields.request_time),
    bodyBytesSent: bytes === null || !/^\d+$/.test(bytes) ? null : Number(bytes),
    remoteAddr: value(fields, 'remote_addr'),
    requestId: value(fields, 'request_id') ?? value(fields, 'proxyops_request_id'),
    upstream,
    proxyGenerated: hasHeaderTime ? attempts === 0 || upstream.at(-1)!.headerTime === null : null,
  };
}

/** "GET /a b?c HTTP/1.1" → method, target (may hold raw spaces), protocol; nulls for "-" or HTTP/0.9. */
export function splitRequestLine(request: string | null): [string | null, string | null, string | null] {
  if (request === null) return [null, null, null];
  const first = request.indexOf(' ');
  if (first < 0) return [null, null, null];
  const last = request.lastIndexOf(' ');
  if (last > first && request.startsWith('HTTP/', last + 1))
    return [request.slice(0, first), request.slice(first + 1, last), request.slice(last + 1)];
  return [request.slice(0, first), request.slice(first + 1), null];
}
