import { walkDirectives } from './query.js';
import type { NginxConfig, NginxDirective } from './types.js';

/**
 * The Connection header nginx sends upstream for a plain request (no Upgrade), given the value of
 * `proxy_set_header Connection`. A WebSocket route sets it to a map variable whose value for an
 * empty `$http_upgrade` is "": such a route keeps the upstream connection alive like any other.
 */
export function connectionForPlainRequests(value: string, config: NginxConfig): string {
  const map = findMap(config, value);
  if (!map) return value;
  const entries = map.entries ?? [];
  const entry = entries.find((e) => e.name === '') ?? entries.find((e) => e.name === 'default');
  return entry?.args[0] ?? '';
}

/**
 * The Connection header nginx sends upstream for a WebSocket handshake (`Upgrade: websocket`), given
 * the value of `proxy_set_header Connection`: a literal, or what a `map $http_upgrade` gives
 * "websocket" (nginx compares map strings in lower case, exact keys before regexes in order, then
 * `default`). Undefined where it cannot be told here: another variable (`$http_connection`, a
 * `set`), a map of another source, a map with an include, or a value holding a variable.
 */
export function connectionForUpgradeRequests(value: string, config: NginxConfig): string | undefined {
  if (!value.includes('$')) return value;
  const map = findMap(config, value);
  if (!map || map.args[0] !== '$http_upgrade') return undefined;
  const entries = map.entries ?? [];
  if (entries.some((e) => e.name === 'include')) return undefined;
  const regexMatches = (key: string) => {
    try {
      return new RegExp(key.replace(/^~\*?/, ''), key.startsWith('~*') ? 'i' : '').test('websocket');
    } catch {
      return undefined; // PCRE syntax JavaScript does not read
    }
  };
  const exact = entries.find((e) => e.name.toLowerCase() === 'websocket');
  let entry = exact;
  for (const e of exact ? [] : entries.filter((e) => e.name.startsWith('~'))) {
    const matched = regexMatches(e.name);
    if (matched === undefined) return undefined;
    if (matched) {
      entry = e;
      break;
    }
  }
  entry ??= entries.find((e) => e.name === 'default');
  const result = entry?.args[0] ?? '';
  return result.includes('$') ? undefined : result;
}

/** The `map` defining the variable `value` is (`$name` or `${name}`): the last one read, as nginx uses. */
function findMap(config: NginxConfig, value: string): NginxDirective | undefined {
  const name = /^\$\{?(\w+)\}?$/.exec(value)?.[1];
  if (name === undefined) return undefined;
  let found: NginxDirective | undefined;
  walkDirectives(config, (directive) => {
    const defines = /^\$\{?(\w+)\}?$/.exec(directive.args[1] ?? '')?.[1];
    if (directive.name === 'map' && directive.entries && defines === name) found = directive;
  });
  return found;
}
