import { DEFAULTS } from '../spec/defaults.js';
import type { ProxySpec, RouteSpec, ServerSpec } from '../spec/proxy-spec.js';
import { toNginxDuration } from '../spec/units.js';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_NAMES,
  PROXYOPS_LOG_FORMAT_TEXT,
} from './log-formats.js';
import { hostHeaderPattern, planCatchAllServers, primaryName } from './host-safety.js';
import { NJS_MODULE } from './nginx-modules.js';
import { buildMaintenanceMaps, buildMaintenancePages, toMaintenanceTest } from './maintenance-view.js';
import { RETRY_AFTER_VARIABLE, toNginxProblemViews } from './nginx-problems.js';
import { REQUEST_ID_PATTERN } from './request-id.js';

/** Where `stdout`/`stderr` in the spec point in nginx terms. */
const ACCESS_LOG_STREAMS: Record<string, string> = { stdout: '/dev/stdout', stderr: '/dev/stderr' };
const ERROR_LOG_STREAMS: Record<string, string> = { stdout: '/dev/stdout', stderr: 'stderr' };

/** The njs script a render holds when a route caches; nginx.conf names it relative to itself. */
export const CACHE_AGE_SCRIPT = 'proxyops-cache-age.js';

/** True when some route of the spec caches its answers. */
export function usesResponseCache(spec: ProxySpec): boolean {
  return spec.servers.some((server) => server.routes.some((route) => route.cache));
}

/** Turns a validated spec into the plain strings and lists the templates place; all formatting happens here. */
export function buildRenderView(spec: ProxySpec) {
  const { accessLog, errorLog } = spec;
  const logFormatName = PROXYOPS_LOG_FORMAT_NAMES[accessLog.format];
  const cache = usesResponseCache(spec) ? (spec.cache ?? DEFAULTS.cache) : undefined;
  const buffering =
    accessLog.buffer === null
      ? ''
      : ` buffer=${accessLog.buffer}${accessLog.flush === null ? '' : ` flush=${toNginxDuration(accessLog.flush)}`}`;
  return {
    daemonOff: spec.mode === 'container',
    // Loaded only when an option needs it: a config without the cache runs on a bare nginx.
    loadModules: cache
      ? [
          {
            path: `${spec.paths.modulesDir.replace(/\/+$/, '')}/${NJS_MODULE.file}`,
            why: `for ${NJS_MODULE.neededBy}: njs, from the Debian package ${NJS_MODULE.package}`,
          },
        ]
      : [],
    cache: cache
      ? {
          path: `${spec.paths.tempDir.replace(/\/+$/, '')}/cache`,
          keysZone: cache.keysZone,
          maxSize: cache.maxSize,
          inactive: toNginxDuration(cache.inactive),
          script: CACHE_AGE_SCRIPT,
        }
      : false,
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
    forwardedProto: forwardedProto(spec),
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
          // A blue/green pair is listed whole: the idle address refuses, nginx passes to the next server.
          servers: upstream.servers.flatMap((s) =>
            [s, ...(s.alternate ? [{ ...s, ...s.alternate, socket: undefined }] : [])].map((entry) => ({
              address:
                entry.socket === undefined
                  ? `${toHostPart(entry.host)}:${entry.port}`
                  : `unix:${entry.socket}`,
              maxFails: s.maxFails,
              failTimeout: toNginxDuration(s.failTimeout),
              weight: s.weight,
            })),
          ),
          keepalive: upstream.keepalive,
          keepaliveTimeout: toNginxDuration(upstream.keepaliveTimeout),
          keepaliveRequests: upstream.keepaliveRequests,
          appKeepAliveTimeout: toNginxDuration(upstream.app.keepAliveTimeout),
        };
      }),
    securityHeaders: spec.security.headers ? SECURITY_HEADERS : [],
    hsts: '',
    // A server that serves both plain HTTP and TLS must not send HSTS on the plain answers
    // (RFC 6797 section 7.2): its header value comes from this map of $https.
    hstsOverTlsOnly: spec.servers.some(servesPlainAndTls) ? hstsValue(spec) : '',
    gzip: spec.gzip.enabled ? { types: spec.gzip.types.join(' '), minLength: spec.gzip.minLength } : false,
    realIp:
      spec.trustedProxies.addresses.length > 0
        ? { addresses: spec.trustedProxies.addresses, header: spec.trustedProxies.header }
        : false,
    resolver: spec.resolver
      ? {
          addresses: spec.resolver.addresses.map(toHostPart).join(' '),
          valid: toNginxDuration(spec.resolver.valid),
        }
      : false,
    limitZones: listLimitZones(spec),
    maintenance: buildMaintenanceMaps(spec),
    servers: spec.servers.map((server, index) => toServerView(server, index, spec)),
    hostMaps: spec.servers.map((server, index) => ({
      variable: forwardedHostVariable(index),
      pattern: hostHeaderPattern(server.names) ?? '',
      fallback: primaryName(server.names),
    })),
    catchAll: planCatchAllServers(spec.servers, spec.unknownHosts, spec.layerName, toSocket),
    problems: toNginxProblemViews(spec.layerName, { retryAfterPerLocation: hasSlowRateLimit(spec) }),
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

/** Hardening headers on every response, errors included (`always`); the app's own are hidden upstream. */
const SECURITY_HEADERS = [
  { name: 'X-Content-Type-Options', value: 'nosniff' },
  { name: 'X-Frame-Options', value: 'DENY' },
  { name: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
];

/** The limit_req/limit_conn zone names of a route, numbered in spec order across servers. */
function limitZoneNames(serverIndex: number, routeIndex: number) {
  return {
    req: `proxyops_req_${serverIndex}_${routeIndex}`,
    conn: `proxyops_conn_${serverIndex}_${routeIndex}`,
  };
}

/** One zone per limited route: a client's limit on one route does not spend its budget on another. */
function listLimitZones(spec: ProxySpec) {
  return spec.servers.flatMap((server, s) =>
    server.routes.flatMap((route, r) => {
      const names = limitZoneNames(s, r);
      return [
        ...(route.rateLimit
          ? [`limit_req_zone $binary_remote_addr zone=${names.req}:10m rate=${route.rateLimit.rate}`]
          : []),
        ...(route.connectionLimit !== undefined
          ? [`limit_conn_zone $binary_remote_addr zone=${names.conn}:10m`]
          : []),
      ];
    }),
  );
}

/**
 * Seconds until a rate-limited route lets the next request through: `10r/m` frees a slot every 6 s,
 * so a client told `Retry-After: 1` would be refused again five times.
 */
function rateLimitRetryAfter(rate: string): number {
  const [count, unit] = rate.split('r/') as [string, string];
  return Math.ceil((unit === 'm' ? 60 : 1) / Number(count));
}

/** True when some route's rate limit frees a slot less than once a second: Retry-After then varies by location. */
function hasSlowRateLimit(spec: ProxySpec): boolean {
  return spec.servers.some((server) =>
    server.routes.some((route) => route.rateLimit && rateLimitRetryAfter(route.rateLimit.rate) > 1),
  );
}

/** The variable a server that also listens on plain HTTP sends as HSTS: empty there, so nginx sends none. */
const HSTS_OVER_TLS_ONLY = '$proxyops_hsts';

/** True when a server answers on plain listeners itself (no redirect) as well as on TLS ones. */
function servesPlainAndTls(server: ServerSpec): boolean {
  return !server.redirectToHttps && server.listen.some((l) => l.tls) && server.listen.some((l) => !l.tls);
}

/** The HSTS header value of the spec, or '' when it is turned off. */
function hstsValue(spec: ProxySpec): string {
  const { hsts } = spec.security;
  if (!hsts) return '';
  return [
    `max-age=${hsts.maxAge}`,
    ...(hsts.includeSubDomains ? ['includeSubDomains'] : []),
    ...(hsts.preload ? ['preload'] : []),
  ].join('; ');
}

/** What a server sends as HSTS: nothing without TLS, the map's variable when it also answers plain HTTP. */
function serverHsts(spec: ProxySpec, server: ServerSpec): string {
  const value = hstsValue(spec);
  if (!value || !server.tls) return '';
  return servesPlainAndTls(server) ? HSTS_OVER_TLS_ONLY : value;
}

function toServerView(server: ServerSpec, index: number, spec: ProxySpec) {
  const listen = (tls: boolean) =>
    server.listen
      .filter((l) => l.tls === tls)
      .map(
        (l) =>
          `${toSocket(l)}${tls ? ' ssl' : ''}${tls && server.http2 ? ' http2' : ''}${l.defaultServer ? ' default_server' : ''}`,
      );
  const redirect = server.redirectToHttps;
  // The redirect keeps a TLS port other than 443, or the client lands on a port nothing serves.
  const tlsPort = server.listen.find((l) => l.tls)?.port ?? 443;
  return {
    names: server.names.join(' '),
    forwardedHost: forwardedHostVariable(index),
    // HSTS only over TLS: on the plain redirect a browser ignores it.
    redirects: redirect
      ? [{ listen: listen(false), port: tlsPort === 443 ? '' : `:${tlsPort}`, hsts: '' }]
      : [],
    hsts: serverHsts(spec, server),
    // The Retry-After of 429s from locations that set none (limit_conn, 1 s); the server's rewrite
    // phase runs before a location's, which may set its own.
    retryAfterDefault: hasSlowRateLimit(spec) ? `set ${RETRY_AFTER_VARIABLE} 1` : '',
    snippets: server.snippets,
    listen: redirect ? listen(true) : [...listen(false), ...listen(true)],
    tls: server.tls ?? false,
    locations: [
      ...server.routes.map((route, r) => ({
        path: route.path,
        proxy: {
          ...toProxyView(route, limitZoneNames(index, r), cacheKey(spec, index)),
          maintenance: toMaintenanceTest(spec, route.upstream),
        },
        static: false,
      })),
      ...server.static.map((s) => ({ path: s.path, proxy: false, static: s })),
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    maintenancePages: buildMaintenancePages(
      spec,
      server.routes.map((route) => route.upstream),
    ),
  };
}

/** The scheme the app is told: the outer balancer's when trusted, else the one the client used. */
function forwardedProto(spec: ProxySpec): string {
  return spec.trustForwardedProto ? '$proxyops_forwarded_proto' : '$scheme';
}

/**
 * The cache key of server N's routes: the port the request came in on, the scheme and host the app
 * is told (a link built from them is right for whoever gets the cached answer), and the URI.
 */
function cacheKey(spec: ProxySpec, index: number): string {
  return `$server_port ${forwardedProto(spec)}://${forwardedHostVariable(index)}$request_uri`;
}

function toProxyView(route: RouteSpec, zones: { req: string; conn: string }, key: string) {
  const directives: string[] = [];
  if (route.rateLimit) {
    const { burst, nodelay } = route.rateLimit;
    directives.push(
      `limit_req zone=${zones.req}${burst > 0 ? ` burst=${burst}` : ''}${nodelay ? ' nodelay' : ''}`,
    );
    directives.push('limit_req_status 429');
    // Read by the server's 429 location (error_page keeps the variables of the request).
    const retryAfter = rateLimitRetryAfter(route.rateLimit.rate);
    if (retryAfter > 1) directives.push(`set ${RETRY_AFTER_VARIABLE} ${retryAfter}`);
  }
  if (route.connectionLimit !== undefined) {
    directives.push(`limit_conn ${zones.conn} ${route.connectionLimit}`);
    directives.push('limit_conn_status 429');
  }
  if (route.timeouts.connect !== undefined)
    directives.push(`proxy_connect_timeout ${toNginxDuration(route.timeouts.connect)}`);
  if (route.timeouts.read !== undefined)
    directives.push(`proxy_read_timeout ${toNginxDuration(route.timeouts.read)}`);
  if (route.timeouts.send !== undefined)
    directives.push(`proxy_send_timeout ${toNginxDuration(route.timeouts.send)}`);
  if (route.clientMaxBodySize !== undefined)
    directives.push(`client_max_body_size ${route.clientMaxBodySize}`);
  directives.push(...route.snippets);
  return {
    upstream: route.upstream,
    directives,
    largerBodyAllowed: route.allowLargerBody,
    websocket: route.websocket,
    cacheKey: route.cache ? key : '',
  };
}

/** An address as it goes before `:port`: IPv6 in brackets. */
function toHostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
