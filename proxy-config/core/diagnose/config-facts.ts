import { connectionForPlainRequests } from '../nginx-config/connection-header.js';
import { locationSettings } from '../nginx-config/location-settings.js';
import { parseProxyPassTarget } from '../nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  findBlocks,
  listLocations,
  listServers,
  locationMatch,
  rootBlock,
  type BlockScope,
} from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';
import type { ConfigEvidence, LocationFacts } from './evidence.js';
import { settingInEffect } from './setting-in-effect.js';

function serverOf(scope: BlockScope): NginxDirective | null {
  return [...scope.chain].reverse().find((block) => block.name === 'server') ?? null;
}

function serverLabel(scope: BlockScope): string {
  const server = serverOf(scope);
  const listen = server ? childrenNamed(server, 'listen')[0]?.args[0] : undefined;
  return listen ? `server ${listen}` : 'server';
}

function locationFacts(config: NginxConfig, scope: BlockScope): LocationFacts {
  const settings = locationSettings(config, scope);
  const proxyPass = settings.proxyPass?.args[0] ?? null;
  const target = proxyPass ? parseProxyPassTarget(proxyPass) : undefined;
  const { block } = scope;
  const { modifier, path } = locationMatch(block);
  return {
    block,
    where: `${block.file}:${block.line} ${serverLabel(scope)} location ${modifier ? `${modifier} ` : ''}${path}`,
    server: serverOf(scope),
    path: modifier.startsWith('~') ? `${modifier}${path}` : path,
    exact: modifier === '=',
    // nginx's defaults (1m, 60s) parse; only a value nginx -t would refuse leaves these undefined.
    clientMaxBodySize: settings.clientMaxBodySize.parsed ?? 1024 * 1024,
    clientMaxBodySizeSet: settingInEffect(scope.chain, 'client_max_body_size', settings.clientMaxBodySize),
    proxyReadTimeoutSet: settingInEffect(scope.chain, 'proxy_read_timeout', settings.proxyReadTimeout),
    proxyPass,
    proxyReadTimeoutMs: settings.proxyReadTimeout.parsed ?? 60_000,
    proxyHttpVersion: settings.proxyHttpVersion.value,
    proxySetHeaders: Object.fromEntries(
      [...settings.proxyHeaders].map(([name, value]) => [
        name,
        // What a plain request carries: a WebSocket route's map resolves to "" there.
        name === 'connection' ? connectionForPlainRequests(value, config) : value,
      ]),
    ),
    upstreamKeepalive: settings.upstream?.keepalive ?? null,
    upstreamServers: settings.upstream
      ? childrenNamed(settings.upstream.block, 'server').map((server) => server.args[0] ?? '')
      : target && target.hasPort
        ? [target.host]
        : [],
  };
}

/** Reduces a parsed nginx config to the facts the diagnosis rules read, one entry per location. */
export function toConfigEvidence(config: NginxConfig): ConfigEvidence {
  const root = rootBlock(config);
  const events = findBlocks(config, 'events')[0]?.block;
  const rlimit = childrenNamed(root, 'worker_rlimit_nofile')[0]?.args[0];
  const connections = events ? childrenNamed(events, 'worker_connections')[0]?.args[0] : undefined;
  return {
    source: config.mainFile,
    servers: [...listServers(config)],
    locations: listLocations(config).map((scope) => locationFacts(config, scope)),
    workerRlimitNofile: rlimit === undefined ? null : Number(rlimit),
    workerConnections: connections === undefined ? null : Number(connections),
  };
}
