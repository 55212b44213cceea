import type { ProxySpec } from './proxy-spec.js';
import { toBytes } from './units.js';

/** A finding of one cross-field rule, before the rule id is attached. */
export interface CrossFieldFinding {
  path: string;
  message: string;
}

/** A check the JSON Schema cannot express: relations between fields. Ids are stable (pinned by a test). */
export interface CrossFieldRule {
  id: string;
  description: string;
  check(spec: ProxySpec): CrossFieldFinding[];
}

const s = (seconds: number) => `${seconds} s`;

/** Every cross-field rule, in reporting order. Adding a rule is adding a row. */
export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  {
    id: 'adopted-config-renders-no-servers',
    description:
      'a spec naming an existing config (`nginx.conf`) renders nothing: it gives no `servers` (its own config has them)',
    // Rendered servers beside a hand-written tree would need a second owner of nginx.conf's includes.
    check: (spec) =>
      spec.nginx && spec.servers.length > 0
        ? [
            {
              path: 'servers',
              message: `is refused with nginx.conf (${spec.nginx.conf}): that config's own server blocks serve; remove servers, or drop nginx to render them`,
            },
          ]
        : [],
  },
  {
    id: 'route-upstream-exists',
    description: 'every route names an upstream pool defined under `upstreams`',
    check: (spec) =>
      eachRoute(spec).flatMap(({ route, path }) =>
        spec.upstreams[route.upstream]
          ? []
          : [{ path: `${path}.upstream`, message: `names no defined upstream ("${route.upstream}")` }],
      ),
  },
  {
    id: 'proxy-timeout-below-outer',
    description:
      'the proxy read timeout (global and per route) is strictly shorter than the outer load balancer timeout',
    check: (spec) => {
      const outer = spec.timeouts.outerLoadBalancer;
      if (outer === undefined) return [];
      const candidates = [
        { path: 'timeouts.proxyRead', value: spec.timeouts.proxyRead },
        ...eachRoute(spec).flatMap(({ route, path }) =>
          route.timeouts.read === undefined
            ? []
            : [{ path: `${path}.timeouts.read`, value: route.timeouts.read }],
        ),
      ];
      return candidates
        .filter((c) => c.value >= outer)
        .map((c) => ({
          path: c.path,
          message: `must be shorter than timeouts.outerLoadBalancer (${s(outer)}), is ${s(c.value)}`,
        }));
    },
  },
  {
    id: 'app-timeout-below-proxy',
    description:
      "an application's request timeout is strictly shorter than the proxy read timeout of every route to it",
    check: (spec) =>
      eachRoute(spec).flatMap(({ route, path }) => {
        const upstream = spec.upstreams[route.upstream];
        if (!upstream) return [];
        const read = route.timeouts.read ?? spec.timeouts.proxyRead;
        const readPath = route.timeouts.read === undefined ? 'timeouts.proxyRead' : `${path}.timeouts.read`;
        return upstream.app.requestTimeout < read
          ? []
          : [
              {
                path: `upstreams.${route.upstream}.app.requestTimeout`,
                message: `must be shorter than ${readPath} (${s(read)}) used by ${path}, is ${s(upstream.app.requestTimeout)}`,
              },
            ];
      }),
  },
  {
    id: 'app-keepalive-above-upstream-keepalive',
    description:
      "the application's keep-alive timeout is longer than nginx's upstream keepalive_timeout, so nginx closes idle connections first",
    check: (spec) =>
      Object.entries(spec.upstreams).flatMap(([name, upstream]) =>
        upstream.app.keepAliveTimeout > upstream.keepaliveTimeout
          ? []
          : [
              {
                path: `upstreams.${name}.app.keepAliveTimeout`,
                message: `must be longer than upstreams.${name}.keepaliveTimeout (${s(upstream.keepaliveTimeout)}), is ${s(upstream.app.keepAliveTimeout)}`,
              },
            ],
      ),
  },
  {
    id: 'rlimit-covers-connections',
    description:
      'worker_rlimit_nofile is at least 2 × worker_connections (a proxied request holds two descriptors)',
    check: (spec) =>
      spec.workers.rlimitNofile >= 2 * spec.workers.connections
        ? []
        : [
            {
              path: 'workers.rlimitNofile',
              message: `must be at least 2 × workers.connections (${2 * spec.workers.connections}), is ${spec.workers.rlimitNofile}`,
            },
          ],
  },
  {
    id: 'route-body-within-global',
    description: 'a route body limit is not above the global one unless the route sets allowLargerBody',
    check: (spec) =>
      eachRoute(spec).flatMap(({ route, path }) =>
        route.clientMaxBodySize === undefined ||
        route.allowLargerBody ||
        toBytes(route.clientMaxBodySize) <= toBytes(spec.limits.clientMaxBodySize)
          ? []
          : [
              {
                path: `${path}.clientMaxBodySize`,
                message: `must not exceed limits.clientMaxBodySize (${spec.limits.clientMaxBodySize}), is ${route.clientMaxBodySize}; set allowLargerBody: true if meant`,
              },
            ],
      ),
  },
  {
    id: 'tls-listener-has-certificate',
    description: 'a server with a TLS listener names its certificate and key',
    check: (spec) =>
      spec.servers.flatMap((server, i) =>
        server.listen.some((l) => l.tls) && !server.tls
          ? [{ path: `servers[${i}].tls`, message: 'is required when a listener has tls: true' }]
          : [],
      ),
  },
  {
    id: 'redirect-needs-tls-listener',
    description: 'redirectToHttps needs both a plain and a TLS listener',
    check: (spec) =>
      spec.servers.flatMap((server, i) =>
        server.redirectToHttps && !(server.listen.some((l) => l.tls) && server.listen.some((l) => !l.tls))
          ? [{ path: `servers[${i}].redirectToHttps`, message: 'needs both a plain and a tls listener' }]
          : [],
      ),
  },
  {
    id: 'unique-location-path',
    description: 'no two routes or static locations of a server share a path',
    check: (spec) =>
      spec.servers.flatMap((server, i) => {
        const seen = new Set<string>();
        const locations = [
          ...server.routes.map((r, j) => ({ path: r.path, at: `servers[${i}].routes[${j}].path` })),
          ...server.static.map((r, j) => ({ path: r.path, at: `servers[${i}].static[${j}].path` })),
        ];
        return locations.flatMap((l) =>
          seen.has(l.path)
            ? [{ path: l.at, message: `repeats location "${l.path}"` }]
            : (seen.add(l.path), []),
        );
      }),
  },
  {
    id: 'server-has-locations',
    description: 'a server has at least one route or static location',
    check: (spec) =>
      spec.servers.flatMap((server, i) =>
        server.routes.length + server.static.length === 0 && !server.redirectToHttps
          ? [{ path: `servers[${i}]`, message: 'has no routes and no static locations' }]
          : [],
      ),
  },
  {
    id: 'cache-has-routes',
    description: 'cache settings are given only when some route caches (routes[].cache: true)',
    // Settings with no route using them read as "the cache is on" while nothing is cached.
    check: (spec) =>
      spec.cache && !eachRoute(spec).some(({ route }) => route.cache)
        ? [{ path: 'cache', message: 'is set but no route caches; set cache: true on the routes to cache' }]
        : [],
  },
  {
    id: 'deploy-command-or-hooks',
    description:
      'a deploy section starts instances one way: `command` (proxyops runs them) or lifecycle hooks (`start`, `stop`, `ready`)',
    check: (spec) =>
      Object.entries(spec.upstreams).flatMap(([name, upstream]) => {
        const deploy = upstream.deploy;
        if (!deploy) return [];
        const path = `upstreams.${name}.deploy`;
        const hooks = ['start', 'stop'].filter((k) => deploy[k as 'start' | 'stop'] !== undefined);
        if (deploy.command && hooks.length > 0)
          return [
            {
              path,
              message: `names both command and ${hooks.join(' and ')}: keep one way to start instances`,
            },
          ];
        if (!deploy.command && hooks.length === 0)
          return [
            {
              path,
              message:
                'names no way to start instances: command (proxyops runs them) or start/stop hooks (systemd, supervisord, Docker)',
            },
          ];
        return [];
      }),
  },
  {
    id: 'alternate-pairs-distinct',
    description:
      "an `alternate` is a TCP address other than its server's, and no address is listed twice in a pool (primaries and alternates together)",
    check: (spec) =>
      Object.entries(spec.upstreams).flatMap(([name, upstream]) => {
        if (!upstream.servers.some((server) => server.alternate)) return [];
        const seen = new Map<string, string>();
        return upstream.servers.flatMap((server, i) => {
          const path = `upstreams.${name}.servers[${i}]`;
          if (server.socket !== undefined && !server.alternate) return [];
          if (server.socket !== undefined)
            return [
              {
                path: `${path}.alternate`,
                message: 'is for TCP servers; a socket server (slot) is replaced by a rename',
              },
            ];
          const own = `${server.host}:${server.port}`;
          const other = server.alternate ? `${server.alternate.host}:${server.alternate.port}` : undefined;
          if (own === other)
            return [{ path: `${path}.alternate`, message: `is the server's own address (${own})` }];
          return [own, ...(other === undefined ? [] : [other])].flatMap((address) => {
            const first = seen.get(address);
            seen.set(address, first ?? path);
            return first === undefined
              ? []
              : [{ path, message: `lists ${address}, which ${first} lists too` }];
          });
        });
      }),
  },
];

function eachRoute(spec: ProxySpec) {
  return spec.servers.flatMap((server, i) =>
    server.routes.map((route, j) => ({ route, path: `servers[${i}].routes[${j}]` })),
  );
}
