import { parseProxyPassTarget } from '../nginx-config/proxy-pass-target.js';
import {
  effectiveProxyHeaders,
  effectiveValue,
  findBlocks,
  listLocations,
  listUpstreams,
  locationMatch,
  proxyPassOf,
  rootBlock,
  childrenNamed,
  type ScopeChain,
} from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';
import { parseNginxSize, parseNginxTime } from '../nginx-config/units.js';
import type { ConfigEvidence, LocationFacts } from './evidence.js';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_READ_TIMEOUT_MS = 60_000;

function serverLabel(chain: ScopeChain): string {
  const server = [...chain].reverse().find((block) => block.name === 'server');
  const listen = server ? childrenNamed(server, 'listen')[0]?.args[0] : undefined;
  return listen ? `server ${listen}` : 'server';
}

function locationFacts(
  block: NginxDirective,
  chain: ScopeChain,
  upstreams: Map<string, NginxDirective>,
): LocationFacts {
  const proxyPass = proxyPassOf(block)?.args[0] ?? null;
  const target = proxyPass ? parseProxyPassTarget(proxyPass) : undefined;
  const group = target && !target.hasPort ? upstreams.get(target.host) : undefined;
  const keepalive = group ? childrenNamed(group, 'keepalive')[0]?.args[0] : undefined;
  const bodyLimit = effectiveValue(chain, 'client_max_body_size');
  const readTimeout = effectiveValue(chain, 'proxy_read_timeout');
  const { modifier, path } = locationMatch(block);
  return {
    where: `${block.file}:${block.line} ${serverLabel(chain)} location ${modifier ? `${modifier} ` : ''}${path}`,
    path: modifier.startsWith('~') ? `${modifier}${path}` : path,
    exact: modifier === '=',
    clientMaxBodySize: (bodyLimit ? parseNginxSize(bodyLimit) : undefined) ?? DEFAULT_BODY_LIMIT,
    proxyPass,
    proxyReadTimeoutMs: (readTimeout ? parseNginxTime(readTimeout) : undefined) ?? DEFAULT_READ_TIMEOUT_MS,
    proxyHttpVersion: effectiveValue(chain, 'proxy_http_version', '1.0') ?? '1.0',
    proxySetHeaders: Object.fromEntries(effectiveProxyHeaders(chain)),
    upstreamKeepalive: keepalive === undefined ? null : Number(keepalive),
    upstreamServers: group
      ? childrenNamed(group, 'server').map((server) => server.args[0] ?? '')
      : target && target.hasPort
        ? [target.host]
        : [],
  };
}

/** Reduces a parsed nginx config to the facts the diagnosis rules read, one entry per location. */
export function toConfigEvidence(config: NginxConfig): ConfigEvidence {
  const upstreams = listUpstreams(config);
  const root = rootBlock(config);
  const events = findBlocks(config, 'events')[0]?.block;
  const rlimit = childrenNamed(root, 'worker_rlimit_nofile')[0]?.args[0];
  const connections = events ? childrenNamed(events, 'worker_connections')[0]?.args[0] : undefined;
  return {
    source: config.mainFile,
    locations: listLocations(config).map(({ block, chain }) => locationFacts(block, chain, upstreams)),
    workerRlimitNofile: rlimit === undefined ? null : Number(rlimit),
    workerConnections: connections === undefined ? null : Number(connections),
  };
}
