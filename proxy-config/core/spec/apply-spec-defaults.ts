import { DEFAULTS } from './defaults.js';
import type { DeploySpec, ProxySpec, RouteSpec, ServerSpec, StaticSpec, UpstreamSpec } from './proxy-spec.js';

type Loose<T> = {
  [K in keyof T]?: T[K] extends Array<infer U> ? Loose<U>[] : T[K] extends object ? Loose<T[K]> : T[K];
};

/** A spec as written: the schema has accepted it, every defaulted field may be missing. */
export type ProxySpecInput = Loose<ProxySpec>;

/** Fills every omitted field from DEFAULTS; container mode points omitted log paths at stdout/stderr. */
export function applySpecDefaults(input: ProxySpecInput): ProxySpec {
  const mode = input.mode ?? DEFAULTS.mode;
  const container = mode === 'container';
  return {
    version: 1,
    mode,
    layerName: input.layerName ?? DEFAULTS.layerName,
    trustForwardedProto: input.trustForwardedProto ?? DEFAULTS.trustForwardedProto,
    unknownHosts: input.unknownHosts ?? DEFAULTS.unknownHosts,
    security: {
      hsts: input.security?.hsts === null ? null : { ...DEFAULTS.security.hsts, ...input.security?.hsts },
      headers: input.security?.headers ?? DEFAULTS.security.headers,
    },
    gzip: {
      ...DEFAULTS.gzip,
      ...withoutUndefined({ enabled: input.gzip?.enabled, minLength: input.gzip?.minLength }),
      types: [...(input.gzip?.types ?? DEFAULTS.gzip.types)].filter(
        (t): t is string => typeof t === 'string',
      ),
    },
    trustedProxies: {
      addresses: [...(input.trustedProxies?.addresses ?? [])].filter(
        (a): a is string => typeof a === 'string',
      ),
      header: input.trustedProxies?.header ?? DEFAULTS.trustedProxies.header,
    },
    resolver: input.resolver
      ? {
          addresses: [...(input.resolver.addresses ?? [])].filter((a): a is string => typeof a === 'string'),
          valid: input.resolver.valid ?? 30,
        }
      : null,
    cache: input.cache ? { ...DEFAULTS.cache, ...input.cache } : null,
    paths: { ...DEFAULTS.paths, ...input.paths },
    workers: { ...DEFAULTS.workers, ...input.workers },
    timeouts: { ...DEFAULTS.timeouts, ...input.timeouts },
    limits: { ...DEFAULTS.limits, ...input.limits },
    accessLog: {
      ...DEFAULTS.accessLog,
      ...(container ? { path: DEFAULTS.containerLogs.access } : {}),
      ...input.accessLog,
    },
    errorLog: {
      ...DEFAULTS.errorLog,
      ...(container ? { path: DEFAULTS.containerLogs.error } : {}),
      ...input.errorLog,
    },
    certificates: { ...DEFAULTS.certificates, ...input.certificates },
    upstreams: Object.fromEntries(
      Object.entries(input.upstreams ?? {}).map(([name, upstream]) => [name, toUpstream(upstream ?? {})]),
    ),
    servers: (input.servers ?? []).map(toServer),
    proxies: (input.proxies ?? []).map((p) => ({ ssh: p.ssh ?? '', target: p.target ?? '' })),
    ...(input.nginx?.conf
      ? {
          nginx: {
            conf: input.nginx.conf,
            ...(input.nginx.pidFile === undefined ? {} : { pidFile: input.nginx.pidFile }),
            state: input.nginx.state ?? DEFAULTS.nginx.state,
          },
        }
      : {}),
  };
}

function toUpstream(input: Loose<UpstreamSpec>): UpstreamSpec {
  return {
    servers: (input.servers ?? []).map((s) => {
      const { alternate, ...rest } = s;
      const host = s.host ?? '';
      const pair = toAlternate(alternate as unknown, host);
      return {
        ...DEFAULTS.upstreamServer,
        ...rest,
        host,
        port: s.port ?? 0,
        ...(pair ? { alternate: pair } : {}),
      };
    }),
    ...DEFAULTS.upstream,
    ...withoutUndefined({
      keepalive: input.keepalive,
      keepaliveTimeout: input.keepaliveTimeout,
      keepaliveRequests: input.keepaliveRequests,
    }),
    app: { ...DEFAULTS.app, ...input.app },
    healthCheck: { ...DEFAULTS.healthCheck, ...input.healthCheck },
    ...(input.deploy ? { deploy: toDeploy(input.deploy) } : {}),
  };
}

/** `alternate` as written (a port on the same host, or `HOST:PORT`) as an address. */
function toAlternate(written: unknown, host: string): { host: string; port: number } | undefined {
  if (typeof written === 'number') return { host, port: written };
  if (typeof written !== 'string') return undefined;
  const colon = written.lastIndexOf(':');
  const name = written.slice(0, colon);
  return { host: name.startsWith('[') ? name.slice(1, -1) : name, port: Number(written.slice(colon + 1)) };
}

function toDeploy(input: Loose<DeploySpec>): DeploySpec {
  const argv = (value: unknown) =>
    Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : undefined;
  return {
    ...DEFAULTS.deploy,
    ...input,
    ...withoutUndefined({
      command: argv(input.command),
      start: argv(input.start),
      stop: argv(input.stop),
      ready: typeof input.ready === 'string' ? input.ready : argv(input.ready),
    }),
  };
}

function toServer(input: Loose<ServerSpec>): ServerSpec {
  return {
    names: (input.names ?? []).filter((n): n is string => typeof n === 'string'),
    listen: (input.listen ?? []).map((l) => ({
      ...(l.address === undefined ? {} : { address: l.address }),
      port: l.port ?? 0,
      tls: l.tls ?? false,
      defaultServer: l.defaultServer ?? false,
    })),
    ...(input.tls?.certificate && input.tls.certificateKey
      ? { tls: { certificate: input.tls.certificate, certificateKey: input.tls.certificateKey } }
      : {}),
    redirectToHttps: input.redirectToHttps ?? false,
    http2: input.http2 ?? true,
    snippets: strings(input.snippets),
    routes: (input.routes ?? []).map(toRoute),
    static: (input.static ?? []).map(toStatic),
  };
}

function toRoute(input: Loose<RouteSpec>): RouteSpec {
  return {
    path: input.path ?? '/',
    upstream: input.upstream ?? '',
    ...(input.clientMaxBodySize === undefined ? {} : { clientMaxBodySize: input.clientMaxBodySize }),
    allowLargerBody: input.allowLargerBody ?? false,
    websocket: input.websocket ?? false,
    ...(input.rateLimit?.rate
      ? {
          rateLimit: {
            rate: input.rateLimit.rate,
            burst: input.rateLimit.burst ?? 0,
            nodelay: input.rateLimit.nodelay ?? true,
          },
        }
      : {}),
    ...(input.connectionLimit === undefined ? {} : { connectionLimit: input.connectionLimit }),
    cache: input.cache ?? false,
    snippets: strings(input.snippets),
    timeouts: { ...input.timeouts },
  };
}

function toStatic(input: Loose<StaticSpec>): StaticSpec {
  return { path: input.path ?? '/', root: input.root ?? '', contentHashed: input.contentHashed ?? false };
}

function strings(values: readonly unknown[] | undefined): string[] {
  return (values ?? []).filter((v): v is string => typeof v === 'string');
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
