import { PASS_DIRECTIVES } from '../nginx-config/pass-directives.js';
import { parseProxyPassTarget, type ProxyPassTarget } from '../nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  isMainConfig,
  listLocations,
  listUpstreams,
  locationMatch,
  proxyPassOf,
  walkDirectives,
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

/**
 * The `upstream {}` groups no `*_pass` can send to: none names them, and none has variables (which
 * may hold a group's name). In a snippet a group's user may sit in another file, so a snippet's
 * groups count as unused only when it has a `server` of its own (a site file, whose groups serve
 * it): a file of upstream groups only (conf.d/upstreams.conf) keeps them all.
 */
export function unusedUpstreams(config: NginxConfig): Set<NginxDirective> {
  const named = new Set<string>();
  let dynamic = false;
  let servers = false;
  walkDirectives(config, (d) => {
    if (d.name === 'server' && d.children) servers = true;
    if (!PASS_DIRECTIVES.has(d.name)) return;
    const arg = d.args[0] ?? '';
    if (arg.includes('$')) dynamic = true;
    named.add(arg.replace(/^[a-z]+:\/\//i, '').split('/')[0] as string);
  });
  if (dynamic || (!isMainConfig(config) && !servers)) return new Set();
  return new Set([...listUpstreams(config)].filter(([name]) => !named.has(name)).map(([, block]) => block));
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
