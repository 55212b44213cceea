import { ProxyopsError } from '../errors.js';
import { linePath, type FactsCapabilities, type LineFacts } from './line-facts.js';
import type { LogEscape } from './parse-log-format.js';

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
    if (m) return [Number(m[1]), Number(m[2] ?? m[1])];
    throw badOption(`--status: "${p}" is not a status, a class like 5xx, or a range like 500-504`);
  });
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
    if (!capabilities.upstream) throw badOption('--upstream: the log format has no $upstream_addr');
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
