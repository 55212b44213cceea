import { bytesToText, textToBytes } from './decode-log-value.js';
import type { FactsCapabilities, FactsReader, LineFacts } from './line-facts.js';
import { parseLogTime } from './parse-log-time.js';
import { readMillis, readStatus, scanUpstreamList } from './upstream-list.js';

/** The JSON-lines preset expects nginx variable names as keys; these are the ones the statistics read. */
export const JSON_LINES_CAPABILITIES: FactsCapabilities = {
  time: true,
  requestTime: true,
  upstream: true,
  headerTime: true,
  path: true,
};

const TIME_KEYS = ['time_iso8601', 'time_local', 'msec', 'time', 'timestamp', '@timestamp'];

/** What JSON lines holding these keys can tell. */
export function jsonLinesCapabilities(keys: readonly string[]): FactsCapabilities {
  const has = (key: string) => keys.includes(key);
  return {
    time: TIME_KEYS.some(has),
    requestTime: has('request_time'),
    upstream: has('upstream_addr') || has('upstream_status'),
    headerTime: has('upstream_header_time'),
    path: has('request') || has('request_uri') || has('uri'),
  };
}

function text(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : String(value);
}

function list(value: unknown, each: (s: string, a: number, b: number, k: number) => void): number {
  const t = text(value);
  if (t === null || t === '' || t === '-') return 0;
  return scanUpstreamList(t, 0, t.length, (a, b, k) => each(t, a, b, k));
}

/**
 * A reader for JSON lines (one object per line) keyed by nginx variable names: status, request_time,
 * time_iso8601/time_local/msec, request or request_uri/uri, and the upstream_* lists. A line that is not
 * a JSON object, or has no three-digit status, is malformed.
 */
export function createJsonLinesReader(): { read: FactsReader; reset(): void } {
  const read: FactsReader = (s, start, end, f: LineFacts) => {
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(bytesToText(s.slice(start, end))) as Record<string, unknown>;
    } catch {
      return false;
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return false;
    const status = text(obj.status);
    f.status = status === null ? -1 : readStatus(status, 0, status.length);
    if (f.status < 0) return false;
    const timeKey = TIME_KEYS.find((k) => obj[k] !== undefined);
    f.timeMs = timeKey ? parseLogTime(String(obj[timeKey])) : NaN;
    if (timeKey && Number.isNaN(f.timeMs)) return false;
    const rt = text(obj.request_time);
    f.requestTimeMs = rt === null ? -1 : readMillis(rt, 0, rt.length);
    const addrCount = list(obj.upstream_addr, (t, a, b, k) => (f.addr[k] = t.slice(a, b)));
    const statusCount = list(
      obj.upstream_status,
      (t, a, b, k) => (f.upstreamStatus[k] = readStatus(t, a, b)),
    );
    const instance = text(obj.upstream_instance);
    f.instance = instance === null || instance === '-' ? '' : instance;
    const times: Array<[string, number[]]> = [
      ['upstream_connect_time', f.connectMs],
      ['upstream_header_time', f.headerMs],
      ['upstream_response_time', f.responseMs],
    ];
    const counts = times.map(([key, target]) =>
      list(obj[key], (t, a, b, k) => (target[k] = readMillis(t, a, b))),
    );
    // Without upstream_addr and upstream_status keys, the time lists (one value per attempt) tell the attempts.
    const listsAttempts = obj.upstream_addr !== undefined || obj.upstream_status !== undefined;
    f.attempts = listsAttempts ? Math.max(addrCount, statusCount) : Math.max(...counts);
    for (let k = addrCount; k < f.attempts; k++) f.addr[k] = '-';
    for (let k = statusCount; k < f.attempts; k++) f.upstreamStatus[k] = -1;
    times.forEach(([, target], i) => {
      for (let k = counts[i]!; k < f.attempts; k++) target[k] = -1;
    });
    f.path = jsonPath(obj);
    f.src = s;
    f.requestAt = -1;
    return true;
  };
  return { read, reset: () => undefined };
}

function jsonPath(obj: Record<string, unknown>): string | null {
  const uri = text(obj.request_uri) ?? text(obj.uri);
  let value = uri;
  if (value === null) {
    const request = text(obj.request);
    if (request === null) return null;
    const first = request.indexOf(' ');
    const last = request.lastIndexOf(' ');
    value =
      first < 0
        ? '-'
        : request.slice(first + 1, last > first && request.startsWith('HTTP/', last + 1) ? last : undefined);
  }
  const query = value.indexOf('?');
  return bytesToText(textToBytes(query >= 0 ? value.slice(0, query) : value));
}
