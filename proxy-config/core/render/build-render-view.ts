import type { ProxySpec, RouteSpec, ServerSpec } from '../spec/proxy-spec.js';
import { toNginxDuration } from '../spec/units.js';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_NAMES,
  PROXYOPS_LOG_FORMAT_TEXT,
} from './log-formats.js';
import { hostHeaderPattern, planCatchAllServers, primaryName } from './host-safety.js';
import { toNginxProblemViews } from './nginx-problems.js';
import { REQUEST_ID_PATTERN } from './request-id.js';

/** Where `stdout`/`stderr` in the spec point in nginx terms. */
const ACCESS_LOG_STREAMS: Record<string, string> = { stdout: '/dev/stdout', stderr: '/dev/stderr' };
const ERROR_LOG_STREAMS: Record<string, string> = { stdout: '/dev/stdout', stderr: 'stderr' };

/** Turns a validated spec into the plain strings and lists the templates place; all formatting happens here. */
export function buildRenderView(spec: ProxySpec) {
  const { accessLog, errorLog } = spec;
  const logFormatName = PROXYOPS_LOG_FORMAT_NAMES[accessLog.format];
  const buffering =
    accessLog.buffer === null
      ? ''
      : ` buffer=${accessLog.buffer}${accessLog.flush === null ? '' : ` flush=${toNginxDuration(accessLog.flush)}`}`;
  return {
    daemonOff: spec.mode === 'container',
    workers: {
      processes: String(spec.workers.processes),
      connections: spec.workers.connections,
      rlimitNofile: spec.workers.rlimitNofile,
    },
    pidFile: spec.paths.pidFile,
    tempDir: spec.paths.tempDir.replace(/\/+$/, ''),
    errorLog: `${ERROR_LOG_STREAMS[errorLog.path] ?? errorLog.path} ${errorLog.level}`,
    clientKeepalive: toNginxDuration(spec.timeouts.clientKeepalive),
    clientMaxBodySize: spec.limits.clientMaxBodySize,
    trustForwardedProto: spec.trustForwardedProto,
    requestIdPattern: REQUEST_ID_PATTERN,
    websocket: spec.servers.some((s) => s.routes.some((r) => r.websocket)),
    forwardedProto: spec.trustForwardedProto ? '$proxyops_forwarded_proto' : '$scheme',
    layerName: spec.layerName,
    logFormats: [
      { name: PROXYOPS_LOG_FORMAT_NAMES.text, escape: '', format: PROXYOPS_LOG_FORMAT_TEXT },
      { name: PROXYOPS_LOG_FORMAT_NAMES.json, escape: ' escape=json', format: PROXYOPS_LOG_FORMAT_JSON },
    ],
    accessLog: `${ACCESS_LOG_STREAMS[accessLog.path] ?? accessLog.path} ${logFormatName}${buffering}`,
    proxyTimeouts: {
      connect: toNginxDuration(spec.timeouts.proxyConnect),
      read: toNginxDuration(spec.timeouts.proxyRead),
      send: toNginxDuration(spec.timeouts.proxySend),
    },
    upstreams: Object.keys(spec.upstreams)
      .sort()
      .map((name) => {
        const upstream = spec.upstreams[name]!;
        return {
          name,
          servers: upstream.servers.map((s) => ({
            address: s.socket === undefined ? `${toHostPart(s.host)}:${s.port}` : `unix:${s.socket}`,
            maxFails: s.maxFails,
            failTimeout: toNginxDuration(s.failTimeout),
            weight: s.weight,
          })),
          keepalive: upstream.keepalive,
          keepaliveTimeout: toNginxDuration(upstream.keepaliveTimeout),
          keepaliveRequests: upstream.keepaliveRequests,
          appKeepAliveTimeout: toNginxDuration(upstream.app.keepAliveTimeout),
        };
      }),
    servers: spec.servers.map(toServerView),
    hostMaps: spec.servers.map((server, index) => ({
      variable: forwardedHostVariable(index),
      pattern: hostHeaderPattern(server.names) ?? '',
      fallback: primaryName(server.names),
    })),
    catchAll: planCatchAllServers(spec.servers, spec.unknownHosts, spec.layerName, toSocket),
    problems: toNginxProblemViews(spec.layerName),
  };
}

/** The variable holding the X-Forwarded-Host of server N: its Host when it names the server, else its first name. */
function forwardedHostVariable(index: number): string {
  return `$proxyops_forwarded_host_${index}`;
}

/** A listen socket as nginx tells sockets apart: address and port. */
function toSocket(l: ServerSpec['listen'][number]): string {
  return `${l.address ? `${toHostPart(l.address)}:` : ''}${l.port}`;
}

function toServerView(server: ServerSpec, index: number) {
  const listen = (tls: boolean) =>
    server.listen
      .filter((l) => l.tls === tls)
      .map((l) => `${toSocket(l)}${tls ? ' ssl' : ''}${l.defaultServer ? ' default_server' : ''}`);
  const redirect = server.redirectToHttps;
  return {
    names: server.names.join(' '),
    forwardedHost: forwardedHostVariable(index),
    redirect: redirect ? { listen: listen(false) } : false,
    listen: redirect ? listen(true) : [...listen(false), ...listen(true)],
    tls: server.tls ?? false,
    locations: [
      ...server.routes.map((route) => ({ path: route.path, proxy: toProxyView(route), static: false })),
      ...server.static.map((s) => ({ path: s.path, proxy: false, static: s })),
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}

function toProxyView(route: RouteSpec) {
  const directives: string[] = [];
  if (route.timeouts.connect !== undefined)
    directives.push(`proxy_connect_timeout ${toNginxDuration(route.timeouts.connect)}`);
  if (route.timeouts.read !== undefined)
    directives.push(`proxy_read_timeout ${toNginxDuration(route.timeouts.read)}`);
  if (route.timeouts.send !== undefined)
    directives.push(`proxy_send_timeout ${toNginxDuration(route.timeouts.send)}`);
  if (route.clientMaxBodySize !== undefined)
    directives.push(`client_max_body_size ${route.clientMaxBodySize}`);
  return {
    upstream: route.upstream,
    directives,
    largerBodyAllowed: route.allowLargerBody,
    websocket: route.websocket,
  };
}

/** An address as it goes before `:port`: IPv6 in brackets. */
function toHostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
