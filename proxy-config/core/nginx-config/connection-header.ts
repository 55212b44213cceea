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

function findMap(config: NginxConfig, variable: string): NginxDirective | undefined {
  if (!variable.startsWith('$')) return undefined;
  let found: NginxDirective | undefined;
  walkDirectives(config, (directive) => {
    if (directive.name === 'map' && directive.entries && directive.args[1] === variable) found = directive;
  });
  return found;
}
