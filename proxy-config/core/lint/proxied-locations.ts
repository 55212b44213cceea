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

const proxiedIndex = new WeakMap<readonly BlockScope[], readonly ProxiedLocation[]>();

/**
 * Every location with a `proxy_pass`, resolved to its upstream group when it names one. Most rules
 * ask for this list, so it is built once per config (kept alongside its list of locations). Shared
 * between calls: read it, do not change it.
 */
export function listProxiedLocations(config: NginxConfig): readonly ProxiedLocation[] {
  const locations = listLocations(config);
  let found = proxiedIndex.get(locations);
  if (!found) {
    found = resolveProxied(locations, listUpstreams(config));
    proxiedIndex.set(locations, found);
  }
  return found;
}

function resolveProxied(
  locations: readonly BlockScope[],
  upstreams: ReadonlyMap<string, NginxDirective>,
): ProxiedLocation[] {
  const out: ProxiedLocation[] = [];
  for (const scope of locations) {
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
