import { ProxyopsError } from '../errors.js';
import { linePath, type FactsCapabilities, type LineFacts } from './line-facts.js';
import type { LogEscape } from './parse-log-format.js';
import { LOG_FORMAT_TO_ADD } from './unknown-figures.js';

/** Which lines count: all given parts must hold. */
export interface LogFilter {
  sinceMs?: number;
  untilMs?: number;
  /** Status ranges, inclusive, e.g. [[500, 599], [499, 499]]. */
  status?: Array<[number, number]>;
  /** A path prefix, or an nginx-style regex when it starts with "~" ("~*" for case-insensitive). */
  path?: string;
  /** Upstream addresses: a request matches when any attempt went to one (a bare host matches any port). */
  upstream?: string[];
}

function badOption(message: string): ProxyopsError {
  return new ProxyopsError('BAD_OPTION', message);
}

/** Parses `--status` values such as "5xx", "499", "500-504", comma-separated. */
export function parseStatusFilter(text: string): Array<[number, number]> {
  return text.split(',').map((part) => {
    const p = part.trim();
    let m = /^([0-9])xx$/i.exec(p);
    if (m) return [Number(m[1]) * 100, Number(m[1]) * 100 + 99];
    m = /^(\d{3})(?:-(\d{3}))?$/.exec(p);
    if (m && Number(m[2] ?? m[1]) < Number(m[1]))
      throw badOption(`--status: "${p}" is a range from high to low; write ${m[2]}-${m[1]}`);
    if (m) return [Number(m[1]), Number(m[2] ?? m[1])];
    throw badOption(`--status: "${p}" is not a status, a class like 5xx, or a range like 500-504`);
  });
}

const HOST = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;
const IPV6 = /^\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[A-Za-z0-9_.-]+)?\]$/;

/**
 * Checks one `--upstream` value against the forms `$upstream_addr` holds: `host` or an IPv4 address
 * (any port), `host:port`, `[IPv6]`, `[IPv6]:port`, `unix:/path`, or an upstream group's name (what
 * nginx logs when no server was available). Anything else could never match a line.
 */
export function parseUpstreamFilter(text: string): string {
  const bad = (why: string) => badOption(`--upstream: "${text}" ${why}`);
  if (text === '') throw bad('is empty; give an address such as 10.0.1.11 or 10.0.1.11:8080');
  if (text.startsWith('unix:')) {
    if (text.length === 5 || /\s/.test(text))
      throw bad('is not a unix socket address like unix:/run/app.sock');
    return text;
  }
  const m = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(text);
  const host = m?.[1] ?? '';
  if (!m || !(IPV6.test(host) || HOST.test(host)))
    throw bad('is not an address: host, host:port, [IPv6]:port or unix:/path');
  if (
    /^[\d.]+$/.test(host) &&
    !/^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/.test(host)
  )
    throw bad('is not an IPv4 address');
  const port = m[2];
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    throw bad('has no port from 1 to 65535');
  return text;
}

/** Builds the per-line predicate, or null when nothing is filtered. Throws BAD_OPTION on a filter the format cannot serve. */
export function createLineFilter(
  filter: LogFilter,
  capabilities: FactsCapabilities,
  escape: LogEscape,
): ((facts: LineFacts) => boolean) | null {
  const checks: Array<(f: LineFacts) => boolean> = [];
  const { sinceMs, untilMs, status, path, upstream } = filter;
  if (sinceMs !== undefined || untilMs !== undefined) {
    if (!capabilities.time) throw badOption('--since/--until: the log format has no time variable');
    if (sinceMs !== undefined && untilMs !== undefined && sinceMs >= untilMs)
      throw badOption(
        `--since (${new Date(sinceMs).toISOString()}) must be earlier than --until (${new Date(untilMs).toISOString()})`,
      );
    const lo = sinceMs ?? -Infinity;
    const hi = untilMs ?? Infinity;
    checks.push((f) => f.timeMs >= lo && f.timeMs < hi);
  }
  if (status?.length) checks.push((f) => status.some(([lo, hi]) => f.status >= lo && f.status <= hi));
  if (path !== undefined) {
    if (!capabilities.path) throw badOption('--path: the log format has no $request, $request_uri or $uri');
    const regex = toPathRegex(path);
    // A line without a path (a JSON line with no request key) matches no --path.
    checks.push((f) => {
      const p = linePath(f, escape);
      return p !== null && (regex ? regex.test(p) : p.startsWith(path));
    });
  }
  if (upstream?.length) {
    if (!capabilities.upstream)
      throw badOption(
        `--upstream: the log format has no $upstream_addr, so no line can match; leave out --upstream, or log $upstream_addr, e.g. with ${LOG_FORMAT_TO_ADD}`,
      );
    checks.push((f) => {
      for (let k = 0; k < f.attempts; k++) {
        const a = f.addr[k]!;
        if (upstream.some((u) => a === u || (a.startsWith(u) && a[u.length] === ':'))) return true;
      }
      return false;
    });
  }
  if (checks.length === 0) return null;
  return (f) => checks.every((check) => check(f));
}

function toPathRegex(path: string): RegExp | null {
  if (!path.startsWith('~')) return null;
  const insensitive = path.startsWith('~*');
  const source = path.slice(insensitive ? 2 : 1).trim();
  try {
    return new RegExp(source, insensitive ? 'i' : '');
  } catch (error) {
    throw new ProxyopsError('BAD_OPTION', `--path: "${source}" is not a valid regular expression`, {
      cause: error,
    });
  }
}
