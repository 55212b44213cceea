import { parseProxyPassTarget, type ProxyPassTarget } from '../nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  listLocations,
  listUpstreams,
  locationMatch,
  proxyPassOf,
  type BlockScope,
} from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';

/** A location that proxies, with what its `proxy_pass` points at. */
export interface ProxiedLocation extends BlockScope {
  proxyPass: NginxDirective;
  target: ProxyPassTarget | undefined;
  /** The `upstream {}` group the target names, when it names one. */
  upstream: NginxDirective | undefined;
}

/** Every location with a `proxy_pass`, resolved to its upstream group when it names one. */
export function listProxiedLocations(config: NginxConfig): ProxiedLocation[] {
  const upstreams = listUpstreams(config);
  const out: ProxiedLocation[] = [];
  for (const scope of listLocations(config)) {
    const proxyPass = proxyPassOf(scope.block);
    if (!proxyPass) continue;
    const target = parseProxyPassTarget(proxyPass.args[0] ?? '');
    const upstream = target && !target.hasPort ? upstreams.get(target.host) : undefined;
    out.push({ ...scope, proxyPass, target, upstream });
  }
  return out;
}

/** `location /api/` as written, for messages. */
export function describeBlock(block: NginxDirective): string {
  return [block.name, ...block.args].join(' ');
}

/** A location no client can request directly: a named one (`@x`) or one marked `internal`. */
export function isInternalLocation(block: NginxDirective): boolean {
  return (
    block.name === 'location' &&
    (locationMatch(block).path.startsWith('@') || childrenNamed(block, 'internal').length > 0)
  );
}
