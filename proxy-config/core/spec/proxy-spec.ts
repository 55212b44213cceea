/**
 * The front-proxy spec after defaults are applied: every field present. Durations are seconds,
 * sizes are nginx size strings (`1m`, `512k`). The input shape is the same with most fields optional
 * (see `proxy-config/schema/proxy-spec.schema.json`).
 */
export interface ProxySpec {
  version: 1;
  /** `container`: foreground nginx, access log to stdout, error log to stderr. */
  mode: 'host' | 'container';
  /** Value of the `X-Served-By` response header: names the layer that answered. */
  layerName: string;
  /** Forward the client's X-Forwarded-Proto (set by a trusted outer load balancer) instead of `$scheme`. */
  trustForwardedProto: boolean;
  /**
   * What a request gets when its Host names none of the servers on a socket that no server is the
   * `defaultServer` of: 421 with a problem body (`misdirected`) or a closed connection (`close`).
   */
  unknownHosts: 'misdirected' | 'close';
  /** Response headers for browsers: HSTS on TLS servers (null: off) and the usual hardening headers. */
  security: {
    hsts: { maxAge: number; includeSubDomains: boolean; preload: boolean } | null;
    headers: boolean;
  };
  /** Compression of text responses; off by default (BREACH: a secret and reflected input in one compressed body). */
  gzip: { enabled: boolean; types: string[]; minLength: number };
  /** Load balancers or CDNs in front whose client-address header nginx believes (set_real_ip_from). */
  trustedProxies: { addresses: string[]; header: 'X-Forwarded-For' | 'X-Real-IP' };
  /** DNS servers for upstreams named by DNS in variables; null: none. */
  resolver: { addresses: string[]; valid: number } | null;
  /**
   * The response cache that routes with `cache: true` share (under `paths.tempDir/cache`); null when
   * the spec sets none (routes that cache then get the defaults).
   */
  cache: CacheSpec | null;
  /**
   * `modulesDir`: where nginx's dynamic modules are (Debian's), for the ones an option loads;
   * `maintenanceDir`: where `proxyops maintenance` puts the files nginx tests on each request.
   */
  paths: { pidFile: string; tempDir: string; modulesDir: string; maintenanceDir: string };
  workers: { processes: number | 'auto'; connections: number; rlimitNofile: number };
  timeouts: {
    /** Request timeout of the load balancer in front of nginx; absent when nothing sits in front. */
    outerLoadBalancer?: number;
    proxyConnect: number;
    proxyRead: number;
    proxySend: number;
    /** nginx's keep-alive timeout towards clients. */
    clientKeepalive: number;
  };
  limits: { clientMaxBodySize: string };
  accessLog: { path: string; format: 'text' | 'json'; buffer: string | null; flush: number | null };
  errorLog: { path: string; level: ErrorLogLevel };
  certificates: { warnDays: number };
  upstreams: Record<string, UpstreamSpec>;
  servers: ServerSpec[];
  /**
   * The nginx hosts this spec is applied to, over SSH, as one change; empty: the machine proxyops
   * runs on, at `--target`.
   */
  proxies: ProxyHostSpec[];
  /**
   * A hand-written nginx config proxyops adopts instead of rendering one: `upstreams` then describe
   * its `upstream NAME { }` blocks, `servers` is empty, and each `proxies[].target` is that host's
   * `state` directory. Absent for a rendered spec.
   */
  nginx?: AdoptedNginxSpec;
}

/** The existing config of `nginx.conf` specs (issue 36): proxyops edits only lines of its upstream blocks. */
export interface AdoptedNginxSpec {
  /** The main file the master runs (`-c`), the same path on every host. */
  conf: string;
  /** The master's pid file; absent: the conf's own `pid` directive, else `/run/nginx.pid` (read with the tree). */
  pidFile?: string;
  /** proxyops' own directory: history, instances, locks (`--target` overrides it). */
  state: string;
}

/** One nginx host: an ssh destination and the config directory (`--target`) there (with `nginx.conf`: the state directory). */
export interface ProxyHostSpec {
  /** A Host of ~/.ssh/config, or user@host. */
  ssh: string;
  /** Absolute path on that host; nginx there runs with -c TARGET/current/nginx.conf. */
  target: string;
}

/** Size and lifetime of the shared response cache. */
export interface CacheSpec {
  /** Disk the cached bodies may use (`max_size`). */
  maxSize: string;
  /** Shared memory for the keys (`keys_zone`; about 8000 keys per megabyte). */
  keysZone: string;
  /** Seconds an entry nobody asked for stays, fresh or not (`inactive`). */
  inactive: number;
}

export type ErrorLogLevel = 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit' | 'alert' | 'emerg';

/** One upstream pool and what proxyops knows of the application behind it. */
export interface UpstreamSpec {
  /**
   * `socket` (a unix socket path) makes the server an upstream slot: proxyops replaces the process
   * behind it by renaming a new socket over the path, without a reload; host and port are then unset ('' and 0).
   */
  servers: Array<{
    host: string;
    port: number;
    socket?: string;
    /**
     * The other address of a blue/green pair (written as a port on the same host, or `HOST:PORT`):
     * nginx lists both, the idle one refuses connections, and a deploy moves between them with no reload.
     */
    alternate?: { host: string; port: number };
    /** The ssh destination of the machine that runs this server (and its alternate): its hooks run there. */
    ssh?: string;
    maxFails: number;
    failTimeout: number;
    weight: number;
  }>;
  /** Idle keep-alive connections each worker keeps to this pool. */
  keepalive: number;
  keepaliveTimeout: number;
  keepaliveRequests: number;
  app: {
    /** The application's own request timeout. */
    requestTimeout: number;
    /** The application server's idle keep-alive timeout (Node's `server.keepAliveTimeout`). */
    keepAliveTimeout: number;
  };
  healthCheck: { readinessPath: string; interval: number; failureThreshold: number; margin: number };
  /** How `proxyops deploy` replaces this pool's instances; absent when the pool is not deployed by proxyops. */
  deploy?: DeploySpec;
}

/** How drained instances leave: `reload` (nginx drops them) or `health-check` (an outer balancer does, after interval × threshold). */
export type DrainMode = 'reload' | 'health-check';

/** The rolling-deploy settings of one upstream pool. Durations are seconds. */
export interface DeploySpec {
  /**
   * argv of a new instance proxyops runs as its child; `{host}` and `{port}` are replaced by its
   * address, `{socket}` by its fresh socket path behind a slot. Absent when `start` is given.
   */
  command?: string[];
  /**
   * Lifecycle hooks, in place of `command`, for instances something else runs (systemd, supervisord,
   * Docker): `start` starts one at `{host}:{port}` (or `{socket}`) and returns, `stop` stops one after
   * its drain; `{version}` is `deploy --version`. proxyops knows such an instance by its address and
   * readiness, never by a pid.
   */
  start?: string[];
  stop?: string[];
  /** Readiness of a new instance: a URL path (instead of healthCheck.readinessPath) or an argv that exits 0 when ready. */
  ready?: string | string[];
  drainMode: DrainMode;
  /** Graceful stop signal (SIGQUIT, as for containers). */
  stopSignal: 'SIGQUIT' | 'SIGTERM' | 'SIGINT';
  /** Longest wait for a new instance's readiness to answer 200. */
  readyTimeout: number;
  /** Longest wait for an old instance to exit after its drain wait. */
  stopTimeout: number;
  /**
   * `gates` judges the new instance's own requests in the access log; `readiness-only` only that it
   * stays alive and ready (a log the watch cannot read), named on every verdict.
   */
  watchMode: 'gates' | 'readiness-only';
  /** Requests the new instance must answer before the gates may call it good. */
  minRequests: number;
  /** Longest watch, in seconds, while the new instance has answered fewer than minRequests. */
  maxWatch: number;
  /** How long the access log is watched after each step. */
  watch: number;
  /** Roll back when the new instance's 5xx share is significantly higher than the others' (or the one before the deploy) by more than this (0.01 = 1 point); null reports only. */
  max5xxIncrease: number | null;
  /** Roll back when the new instance's 5xx share is significantly above this, whatever the others answer (0.05 = 5 %); null: no floor. */
  max5xxShare: number | null;
}

/** One virtual server: names, listeners, optional TLS, proxied routes and static locations. */
export interface ServerSpec {
  names: string[];
  listen: Array<{ address?: string; port: number; tls: boolean; defaultServer: boolean }>;
  tls?: { certificate: string; certificateKey: string };
  redirectToHttps: boolean;
  /** HTTP/2 on this server's TLS listeners. */
  http2: boolean;
  /** Raw directives added to the server block (escape hatch; linted with the rest). */
  snippets: string[];
  routes: RouteSpec[];
  static: StaticSpec[];
}

/** A path prefix proxied to an upstream pool; the path is forwarded unchanged. */
export interface RouteSpec {
  path: string;
  upstream: string;
  clientMaxBodySize?: string;
  /** Lets this route accept bodies above the global limit (uploads). */
  allowLargerBody: boolean;
  /** Pass WebSocket upgrades through (GraphQL subscriptions); plain requests keep upstream keep-alive. */
  websocket: boolean;
  /** Requests per client address (limit_req), answered 429 with Retry-After above it. */
  rateLimit?: { rate: string; burst: number; nodelay: boolean };
  /** Concurrent connections per client address (limit_conn), 429 above it. */
  connectionLimit?: number;
  /**
   * Serve GET/HEAD answers from the shared cache, with `Age`, when the app marks them cacheable
   * (Cache-Control/Expires; never private, no-cache, no-store or with Set-Cookie) and the request has
   * no Authorization.
   */
  cache: boolean;
  /** Raw directives added to the location (escape hatch; linted with the rest). */
  snippets: string[];
  timeouts: { connect?: number; read?: number; send?: number };
}

/** Files served from disk; content-hashed files are cached forever, everything else revalidated. */
export interface StaticSpec {
  path: string;
  root: string;
  contentHashed: boolean;
}
