import { INSTANCE_LOG_VARIABLE } from '../render/log-formats.js';
import type { CompiledLogFormat } from './compile-log-format.js';
import { decodeLogValue } from './decode-log-value.js';
import type { LogEscape } from './parse-log-format.js';
import { createLogTimeReader, type LogTimeKind } from './parse-log-time.js';
import { readMillis, readStatus, scanUpstreamList } from './upstream-list.js';

/**
 * What the statistics need from one line, refilled in place for every line so that reading a line
 * allocates nothing in the common case. Times are whole milliseconds, -1 when absent ("-").
 */
export interface LineFacts {
  timeMs: number;
  status: number;
  requestTimeMs: number;
  /** Upstream attempts; 0 when the request never reached an upstream. */
  attempts: number;
  addr: string[];
  /** The instance that answered, as it named itself (X-Proxyops-Instance); '' when not logged. */
  instance: string;
  upstreamStatus: number[];
  connectMs: number[];
  headerMs: number[];
  responseMs: number[];
  /** The request path without query, decoded lazily through `linePath`. */
  path: string | null;
  src: string;
  requestAt: number;
  requestEnd: number;
  uriIsRequestLine: boolean;
}

/** What a format lets the statistics know. */
export interface FactsCapabilities {
  time: boolean;
  requestTime: boolean;
  upstream: boolean;
  /** $upstream_header_time is logged, so proxy-generated responses can be told apart. */
  headerTime: boolean;
  path: boolean;
}

/** Fills `facts` from the line `[start, end)` of `s`; false when the line does not match the format. */
export type FactsReader = (s: string, start: number, end: number, facts: LineFacts) => boolean;

/** An empty, reusable LineFacts. */
export function createLineFacts(): LineFacts {
  return {
    timeMs: NaN,
    status: 0,
    requestTimeMs: -1,
    attempts: 0,
    addr: [],
    instance: '',
    upstreamStatus: [],
    connectMs: [],
    headerMs: [],
    responseMs: [],
    path: null,
    src: '',
    requestAt: -1,
    requestEnd: -1,
    uriIsRequestLine: false,
  };
}

export const TIME_VARIABLES: LogTimeKind[] = ['time_local', 'time_iso8601', 'msec'];

/** The variables the fast path captures. */
const FAST_VARIABLES = [
  'status',
  ...TIME_VARIABLES,
  'request_time',
  'upstream_addr',
  'upstream_status',
  'upstream_connect_time',
  'upstream_header_time',
  'upstream_response_time',
  INSTANCE_LOG_VARIABLE,
  'request',
  'request_uri',
  'uri',
];

/**
 * A copy of `text` that does not share memory with the string it was cut from: V8 keeps a slice of
 * 13 or more characters as a view of its parent, so a slice kept in a map would pin a whole chunk.
 */
export function flatCopy(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** Which statistics a compiled format supports. */
export function factsCapabilities(format: CompiledLogFormat): FactsCapabilities {
  const has = (name: string) => format.slots[name] !== undefined;
  return {
    time: TIME_VARIABLES.some(has),
    requestTime: has('request_time'),
    upstream: has('upstream_addr') || has('upstream_status'),
    headerTime: has('upstream_header_time'),
    path: has('request') || has('request_uri') || has('uri'),
  };
}

function slot(format: CompiledLogFormat, name: string): number {
  return format.slots[name] ?? -1;
}

/**
 * Builds the per-line reader for a compiled format (one per thread: it keeps scan memos). A line the
 * format's regex matches is read from its captures; any other line goes through the matcher, which
 * `fastPath` false forces for every line (the tests compare both).
 */
export function createFactsReader(
  format: CompiledLogFormat,
  fastPath = true,
): { read: FactsReader; reset(): void } {
  const { match, reset } = format.createMatcher();
  const pos = new Int32Array(format.variables.length * 2);
  const statusSlot = slot(format, 'status');
  const timeKind = TIME_VARIABLES.find((k) => format.slots[k] !== undefined);
  const timeSlot = timeKind ? slot(format, timeKind) : -1;
  const readTime = timeKind ? createLogTimeReader(timeKind) : null;
  const requestTimeSlot = slot(format, 'request_time');
  const addrSlot = slot(format, 'upstream_addr');
  const ustatusSlot = slot(format, 'upstream_status');
  const uctSlot = slot(format, 'upstream_connect_time');
  const uhtSlot = slot(format, 'upstream_header_time');
  const urtSlot = slot(format, 'upstream_response_time');
  const instanceSlot = slot(format, INSTANCE_LOG_VARIABLE);
  const requestSlot = slot(format, 'request');
  const uriSlot = requestSlot >= 0 ? requestSlot : Math.max(slot(format, 'request_uri'), slot(format, 'uri'));
  const recent: string[] = [];
  let f: LineFacts = createLineFacts();
  let src = '';

  const internAddr = (a: number, b: number): string => {
    const n = b - a;
    const lastCode = src.charCodeAt(b - 1);
    for (let i = 0; i < recent.length; i++) {
      const r = recent[i]!;
      if (r.length === n && r.charCodeAt(n - 1) === lastCode && src.startsWith(r, a)) return r;
    }
    const value = flatCopy(src.slice(a, b));
    if (recent.length >= 16) recent.pop();
    recent.unshift(value);
    return value;
  };
  // A captured value may be a slice of the whole chunk: keep a flat copy, never the slice.
  const internValue = (v: string): string => {
    for (let i = 0; i < recent.length; i++) if (recent[i] === v) return recent[i]!;
    const value = flatCopy(v);
    if (recent.length >= 16) recent.pop();
    recent.unshift(value);
    return value;
  };
  const onAddr = (a: number, b: number, k: number) => {
    f.addr[k] = internAddr(a, b);
  };
  const onStatus = (a: number, b: number, k: number) => {
    f.upstreamStatus[k] = readStatus(src, a, b);
  };
  const onConnect = (a: number, b: number, k: number) => {
    f.connectMs[k] = readMillis(src, a, b);
  };
  const onHeader = (a: number, b: number, k: number) => {
    f.headerMs[k] = readMillis(src, a, b);
  };
  const onResponse = (a: number, b: number, k: number) => {
    f.responseMs[k] = readMillis(src, a, b);
  };
  const fill = (list: number[], from: number, to: number) => {
    for (let k = from; k < to; k++) list[k] = -1;
  };
  // Bounds of the list field at a slot in la/lb; false when absent or "-".
  let la = 0;
  let lb = 0;
  const bounds = (at: number): boolean => {
    if (at < 0) return false;
    la = pos[2 * at]!;
    lb = pos[2 * at + 1]!;
    return lb > la && !(lb - la === 1 && src.charCodeAt(la) === 45);
  };
  const hasSpace = (a: number, b: number): boolean => {
    for (let i = a; i < b; i++) if (src.charCodeAt(i) === 32) return true;
    return false;
  };
  // One value is the common case: parse it directly, and only a value that does not parse is a list.
  const times = (at: number, list: number[], each: (a: number, b: number, k: number) => void): number => {
    if (!bounds(at)) return 0;
    const v = readMillis(src, la, lb);
    if (v < 0) return scanUpstreamList(src, la, lb, each);
    list[0] = v;
    return 1;
  };
  // Without $upstream_addr and $upstream_status (the nginx blog's upstream_time format), each time
  // list holds one value per attempt, so the longest tells how many attempts there were.
  const listsAttempts = addrSlot >= 0 || ustatusSlot >= 0;
  const setAttempts = (addrCount: number, statusCount: number, c: number, h: number, r: number) => {
    const attempts = listsAttempts ? Math.max(addrCount, statusCount) : Math.max(c, h, r);
    f.attempts = attempts;
    for (let k = addrCount; k < attempts; k++) f.addr[k] = '-';
    fill(f.upstreamStatus, statusCount, attempts);
    fill(f.connectMs, c, attempts);
    fill(f.headerMs, h, attempts);
    fill(f.responseMs, r, attempts);
  };

  const readGeneral: FactsReader = (s, start, end, facts) => {
    if (!match(s, start, end, pos)) return false;
    src = s;
    f = facts;
    facts.src = s;
    facts.path = null;
    facts.status = statusSlot < 0 ? 0 : readStatus(s, pos[2 * statusSlot]!, pos[2 * statusSlot + 1]!);
    if (facts.status < 0) return false;
    if (readTime) {
      facts.timeMs = readTime(s, pos[2 * timeSlot]!, pos[2 * timeSlot + 1]!);
      if (Number.isNaN(facts.timeMs)) return false;
    }
    facts.requestTimeMs =
      requestTimeSlot < 0 ? -1 : readMillis(s, pos[2 * requestTimeSlot]!, pos[2 * requestTimeSlot + 1]!);
    const addrCount = !bounds(addrSlot)
      ? 0
      : hasSpace(la, lb)
        ? scanUpstreamList(s, la, lb, onAddr)
        : ((facts.addr[0] = internAddr(la, lb)), 1);
    const statusCount = !bounds(ustatusSlot)
      ? 0
      : lb - la === 3
        ? ((facts.upstreamStatus[0] = readStatus(s, la, lb)), 1)
        : scanUpstreamList(s, la, lb, onStatus);
    const c = times(uctSlot, facts.connectMs, onConnect);
    const h = times(uhtSlot, facts.headerMs, onHeader);
    const r = times(urtSlot, facts.responseMs, onResponse);
    setAttempts(addrCount, statusCount, c, h, r);
    facts.instance = bounds(instanceSlot) ? internAddr(la, lb) : '';
    if (uriSlot >= 0) {
      facts.requestAt = pos[2 * uriSlot]!;
      facts.requestEnd = pos[2 * uriSlot + 1]!;
      facts.uriIsRequestLine = uriSlot === requestSlot;
    }
    return true;
  };
  // The fast path: one sticky regex per line, values captured as small strings (see compileLinePattern).
  const pattern = format.createPattern(FAST_VARIABLES);
  const rx = pattern.regex;
  const g = (name: string) => pattern.groups[name] ?? -1;
  const gStatus = g('status');
  const gTime = timeKind ? g(timeKind) : -1;
  const minuteTime = timeKind === 'time_local' || timeKind === 'time_iso8601';
  const gRequestTime = g('request_time');
  const gAddr = g('upstream_addr');
  const gUstatus = g('upstream_status');
  const gConnect = g('upstream_connect_time');
  const gHeader = g('upstream_header_time');
  const gResponse = g('upstream_response_time');
  const gInstance = g(INSTANCE_LOG_VARIABLE);
  const gUri = uriSlot >= 0 ? g(format.variables[uriSlot]!) : -1;
  const uriIsRequestLine = uriSlot >= 0 && uriSlot === requestSlot;
  let minuteKey = '';
  let zoneKey = '';
  let minuteMs = NaN;

  const readFastTime = (m: RegExpExecArray): number => {
    if (!minuteTime) {
      const t = m[gTime]!;
      return readTime!(t, 0, t.length);
    }
    const minute = m[gTime]!;
    const sec = m[gTime + 1]!;
    const zone = m[gTime + 2]!;
    const seconds = (sec.charCodeAt(0) - 48) * 10 + sec.charCodeAt(1) - 48;
    if (minute === minuteKey && zone === zoneKey) return seconds < 61 ? minuteMs + seconds * 1000 : NaN;
    const whole = `${minute}:${sec}${zone}`;
    const t = readTime!(whole, 0, whole.length);
    if (Number.isNaN(t)) return t;
    minuteKey = minute;
    zoneKey = zone;
    minuteMs = t - seconds * 1000;
    return t;
  };
  // A list value held in its own string: "-" is none, one value parses directly, else it is scanned.
  const fastTimes = (
    m: RegExpExecArray,
    group: number,
    list: number[],
    each: (a: number, b: number, k: number) => void,
  ): number => {
    if (group <= 0) return 0;
    const v = m[group]!;
    if (v === '-' || v === '') return 0;
    const ms = readMillis(v, 0, v.length);
    if (ms < 0) {
      src = v;
      return scanUpstreamList(v, 0, v.length, each);
    }
    list[0] = ms;
    return 1;
  };
  const readFast = (m: RegExpExecArray, facts: LineFacts): boolean => {
    f = facts;
    facts.path = null;
    const st = m[gStatus]!;
    facts.status = readStatus(st, 0, 3);
    if (facts.status < 0) return false;
    if (gTime > 0) {
      facts.timeMs = readFastTime(m);
      if (Number.isNaN(facts.timeMs)) return false;
    }
    if (gRequestTime > 0) {
      const rt = m[gRequestTime]!;
      facts.requestTimeMs = readMillis(rt, 0, rt.length);
    } else facts.requestTimeMs = -1;
    let addrCount = 0;
    if (gAddr > 0) {
      const a = m[gAddr]!;
      if (a === '-' || a === '') addrCount = 0;
      else if (a.indexOf(' ') < 0) {
        facts.addr[0] = internValue(a);
        addrCount = 1;
      } else {
        src = a;
        addrCount = scanUpstreamList(a, 0, a.length, onAddr);
      }
    }
    let statusCount = 0;
    if (gUstatus > 0) {
      const u = m[gUstatus]!;
      if (u.length === 3) {
        facts.upstreamStatus[0] = readStatus(u, 0, 3);
        statusCount = 1;
      } else if (u !== '-' && u !== '') {
        src = u;
        statusCount = scanUpstreamList(u, 0, u.length, onStatus);
      }
    }
    const c = fastTimes(m, gConnect, facts.connectMs, onConnect);
    const h = fastTimes(m, gHeader, facts.headerMs, onHeader);
    const r = fastTimes(m, gResponse, facts.responseMs, onResponse);
    setAttempts(addrCount, statusCount, c, h, r);
    const instance = gInstance > 0 ? m[gInstance]! : '';
    facts.instance = instance === '-' || instance === '' ? '' : internValue(instance);
    if (gUri > 0) {
      const uri = m[gUri]!;
      facts.src = uri;
      facts.requestAt = 0;
      facts.requestEnd = uri.length;
      facts.uriIsRequestLine = uriIsRequestLine;
    } else facts.requestAt = -1;
    return true;
  };

  const read: FactsReader = (s, start, end, facts) => {
    if (!fastPath) return readGeneral(s, start, end, facts);
    rx.lastIndex = start;
    const m = rx.exec(s);
    if (m !== null && rx.lastIndex === end) return readFast(m, facts);
    return readGeneral(s, start, end, facts);
  };
  return {
    read,
    reset: () => {
      reset();
      recent.length = 0;
    },
  };
}

/** The request path of a line (no query string), decoded to text; null when the format has none. */
export function linePath(facts: LineFacts, escape: LogEscape): string | null {
  if (facts.path !== null) return facts.path;
  if (facts.requestAt < 0) return null;
  let a = facts.requestAt;
  let b = facts.requestEnd;
  const s = facts.src;
  if (facts.uriIsRequestLine) {
    // "METHOD /path?q PROTO"; the URI may hold raw spaces, so take the text between the first and last space.
    const first = s.indexOf(' ', a);
    if (first < 0 || first >= b) return (facts.path = '-');
    const last = s.lastIndexOf(' ', b - 1);
    a = first + 1;
    if (last > first && s.startsWith('HTTP/', last + 1)) b = last;
  }
  const query = s.indexOf('?', a);
  if (query >= 0 && query < b) b = query;
  facts.path = decodeLogValue(s.slice(a, b), escape);
  return facts.path;
}
