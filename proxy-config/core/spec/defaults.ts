/**
 * Every default of the spec in one place. Values follow conventions §4.7, §4.8 and §8: 1 MB body
 * limit, 64 KB access-log buffer flushed every 5 s, error log at warn, certificate warning 30 days.
 */
export const DEFAULTS = {
  mode: 'host',
  layerName: 'proxyops-nginx',
  trustForwardedProto: false,
  unknownHosts: 'misdirected',
  /** A year of HSTS without subdomains: a subdomain still on plain HTTP would become unreachable. */
  security: { hsts: { maxAge: 31_536_000, includeSubDomains: false, preload: false }, headers: true },
  gzip: {
    enabled: false,
    types: ['text/css', 'text/plain', 'application/javascript', 'application/json', 'image/svg+xml'],
    minLength: 1024,
  },
  trustedProxies: { addresses: [] as string[], header: 'X-Forwarded-For' },
  /** maintenanceDir: the files `proxyops maintenance` writes and nginx tests on each request. */
  paths: {
    pidFile: '/run/nginx.pid',
    tempDir: '/var/lib/nginx',
    modulesDir: '/usr/lib/nginx/modules',
    maintenanceDir: '/var/lib/proxyops/maintenance',
  },
  /** 1 GB of bodies; 10 MB of keys holds about 80 000 entries; an unused entry leaves after 10 minutes. */
  cache: { maxSize: '1g', keysZone: '10m', inactive: 600 },
  workers: { processes: 'auto', connections: 1024, rlimitNofile: 4096 },
  /** Proxy read 55 s stays under a 60 s outer load balancer (a common default) and over the app's 50 s. */
  timeouts: { proxyConnect: 5, proxyRead: 55, proxySend: 55, clientKeepalive: 75 },
  limits: { clientMaxBodySize: '1m' },
  accessLog: { path: '/var/log/nginx/access.log', format: 'text', buffer: '64k', flush: 5 },
  errorLog: { path: '/var/log/nginx/error.log', level: 'warn' },
  /** In container mode the logs go to the container's standard streams. */
  containerLogs: { access: 'stdout', error: 'stderr' },
  certificates: { warnDays: 30 },
  /** An adopted config's proxyops state lives beside the maintenance files, not in nginx's tree. */
  nginx: { state: '/var/lib/proxyops' },
  upstreamServer: { maxFails: 3, failTimeout: 10, weight: 1 },
  upstream: { keepalive: 32, keepaliveTimeout: 60, keepaliveRequests: 1000 },
  /** Node's http server defaults are 5 s keep-alive and 300 s request timeout; the spec asks for explicit ones. */
  app: { requestTimeout: 50, keepAliveTimeout: 65 },
  healthCheck: { readinessPath: '/health/ready', interval: 5, failureThreshold: 3, margin: 5 },
  /** SIGQUIT is the graceful stop signal of containers (conventions §4.7 rule 4). */
  deploy: {
    drainMode: 'reload',
    stopSignal: 'SIGQUIT',
    readyTimeout: 30,
    stopTimeout: 10,
    watchMode: 'gates',
    minRequests: 20,
    maxWatch: 60,
    watch: 5,
    // The 5xx gate is on for every deploy (DEFAULT_5XX in core/deploy/fivexx-gate.ts says why these).
    max5xxIncrease: 0.01,
    max5xxShare: 0.05,
  },
} as const;
