import { ProxyopsError } from '../proxy-config/core/errors.js';

/**
 * Every limit and timing of the API, as data: one row per option with its flag, environment
 * variable and default. The CLI declares its flags from this table and `resolveApiConfig` reads it,
 * so a new setting is one new row (and one line in docs/api.md).
 */
export interface ApiConfig {
  port: number;
  host: string;
  /** A unix socket path to listen on instead of host:port (an upstream slot); empty: TCP. */
  socket: string;
  /** Sent in X-Proxyops-Instance, so an access log behind an upstream slot says which process answered; empty: not sent. */
  instanceName: string;
  bodyLimitBytes: number;
  rateLimitMax: number;
  rateLimitWindowMs: number;
  /** Redis key prefix of the rate-limit counters: instances with the same prefix share them. */
  rateLimitPrefix: string;
  pageSizeDefault: number;
  pageSizeMax: number;
  healthCheckIntervalMs: number;
  healthCheckFailureThreshold: number;
  drainMarginMs: number;
  shutdownTimeoutMs: number;
  keepAliveTimeoutMs: number;
  proxyKeepAliveTimeoutMs: number;
  requestTimeoutMs: number;
  dbPoolMax: number;
  dbConnectTimeoutMs: number;
  dbQueryTimeoutMs: number;
  redisTimeoutMs: number;
  idempotencyKeyTtlMs: number;
  idempotencyLeaseMs: number;
  trustProxy: string;
  /** Origin (and optional path) absolute links are built from; empty: the request's own. */
  publicBaseUrl: string;
  graphqlDepthLimit: number;
  graphqlCostLimit: number;
  graphqlAliasLimit: number;
  graphqlDirectiveLimit: number;
  /** Schema introspection and "did you mean" hints: on, off, or auto (off when NODE_ENV=production). */
  graphqlIntrospection: 'auto' | 'on' | 'off';
  /**
   * How a stop signal drains on TCP: `readiness` (readiness turns 503, serve on for the drain wait,
   * for a balancer that polls it) or `hand-over` (one of a blue/green pair the proxy lists both of:
   * listen only once ready, close the listener first, never an idle connection).
   */
  drain: 'readiness' | 'hand-over';
  graphqlTokenLimit: number;
  graphqlTimeoutMs: number;
  /** Path of a persisted-query manifest; when set only its operations run (empty: off). */
  graphqlAllowList: string;
  /** Test only (bench:gates): milliseconds added to every answer but the health checks', to make a version slow on purpose. */
  testDelayMs: number;
  /** Test only (bench:gates): the one route `testDelayMs` slows, `METHOD /path-prefix` or `/path-prefix`; empty: every route. */
  testDelayRoute: string;
  /** Test only (bench:gates): this many answers per thousand (but the health checks') are 500s, evenly spread. */
  testErrorPermille: number;
}

/** One configurable setting: how it is named on the command line and in the environment. */
export interface ApiOption {
  key: keyof ApiConfig;
  flag: string;
  env: string;
  description: string;
  kind: 'integer' | 'string' | 'url' | 'choice';
  /** The values a `choice` option takes. */
  choices?: readonly string[];
  min?: number;
  max?: number;
}

/** Named defaults; the option table of docs/api.md lists the same values. */
export const API_DEFAULTS: ApiConfig = {
  port: 8080,
  host: '127.0.0.1',
  socket: '',
  instanceName: '',
  bodyLimitBytes: 262_144,
  rateLimitMax: 600,
  rateLimitWindowMs: 60_000,
  rateLimitPrefix: 'proxyops:rate:',
  pageSizeDefault: 20,
  pageSizeMax: 100,
  healthCheckIntervalMs: 5_000,
  healthCheckFailureThreshold: 3,
  drainMarginMs: 5_000,
  shutdownTimeoutMs: 10_000,
  // nginx's upstream keepalive_timeout defaults to 60 s; ours must outlive it (see docs/api.md, "Operations").
  keepAliveTimeoutMs: 65_000,
  proxyKeepAliveTimeoutMs: 60_000,
  requestTimeoutMs: 30_000,
  dbPoolMax: 10,
  // A dependency that stalls must cost a request a bounded wait, never a hang (docs/api.md "Failure model").
  dbConnectTimeoutMs: 2_000,
  dbQueryTimeoutMs: 10_000,
  redisTimeoutMs: 250,
  // Idempotency-Key (docs/api.md "Retrying a write"): remembered a day; an attempt holds its key 30 s.
  idempotencyKeyTtlMs: 86_400_000,
  idempotencyLeaseMs: 30_000,
  // Only the proxy's own address may set X-Forwarded-*: the rendered nginx runs on this host and
  // connects from loopback. A wider default would let any host on a private network pick its own
  // client address (and so its own rate-limit budget).
  trustProxy: 'loopback',
  publicBaseUrl: '',
  // GraphQL abuse limits (docs/graphql.md, "Limits"): a list field multiplies its children's cost by first/last.
  graphqlDepthLimit: 10,
  graphqlCostLimit: 10_000,
  graphqlAliasLimit: 30,
  graphqlDirectiveLimit: 50,
  graphqlIntrospection: 'auto',
  drain: 'readiness',
  graphqlTokenLimit: 3_000,
  graphqlTimeoutMs: 5_000,
  graphqlAllowList: '',
  testDelayMs: 0,
  testDelayRoute: '',
  testErrorPermille: 0,
};

/** The option table: flag, environment variable and meaning of every API setting. */
export const API_OPTIONS: readonly ApiOption[] = [
  {
    key: 'port',
    flag: '--port',
    env: 'PROXYOPS_PORT',
    kind: 'integer',
    min: 0,
    max: 65535,
    description: 'TCP port',
  },
  { key: 'host', flag: '--host', env: 'PROXYOPS_HOST', kind: 'string', description: 'address to bind' },
  {
    key: 'socket',
    flag: '--socket',
    env: 'PROXYOPS_SOCKET',
    kind: 'string',
    description:
      'listen on this unix socket instead of host:port (an nginx upstream slot; a stop signal then drains without closing idle connections)',
  },
  {
    key: 'instanceName',
    flag: '--instance-name',
    env: 'PROXYOPS_INSTANCE_NAME',
    kind: 'string',
    description:
      'sent in the X-Proxyops-Instance response header, which the rendered access log records and nginx strips (empty: not sent)',
  },
  {
    key: 'bodyLimitBytes',
    flag: '--body-limit',
    env: 'PROXYOPS_BODY_LIMIT',
    kind: 'integer',
    min: 1,
    description: 'largest accepted request body in bytes (413 above it)',
  },
  {
    key: 'rateLimitMax',
    flag: '--rate-limit',
    env: 'PROXYOPS_RATE_LIMIT',
    kind: 'integer',
    min: 1,
    description: 'requests per client per window (429 above it)',
  },
  {
    key: 'rateLimitWindowMs',
    flag: '--rate-window-ms',
    env: 'PROXYOPS_RATE_WINDOW_MS',
    kind: 'integer',
    min: 1_000,
    description: 'rate-limit window in milliseconds',
  },
  {
    key: 'rateLimitPrefix',
    flag: '--rate-limit-prefix',
    env: 'PROXYOPS_RATE_LIMIT_PREFIX',
    kind: 'string',
    description:
      'Redis key prefix of the rate-limit counters: instances that share it share the limit (up gives each stack its own)',
  },
  {
    key: 'pageSizeDefault',
    flag: '--page-size',
    env: 'PROXYOPS_PAGE_SIZE',
    kind: 'integer',
    min: 1,
    description: 'items per page when `limit` is absent',
  },
  {
    key: 'pageSizeMax',
    flag: '--page-size-max',
    env: 'PROXYOPS_PAGE_SIZE_MAX',
    kind: 'integer',
    min: 1,
    description: 'largest accepted `limit`',
  },
  {
    key: 'healthCheckIntervalMs',
    flag: '--health-interval-ms',
    env: 'PROXYOPS_HEALTH_INTERVAL_MS',
    kind: 'integer',
    min: 0,
    description: "the load balancer's readiness-check interval",
  },
  {
    key: 'healthCheckFailureThreshold',
    flag: '--health-threshold',
    env: 'PROXYOPS_HEALTH_THRESHOLD',
    kind: 'integer',
    min: 1,
    description: 'failed checks before the load balancer removes an instance',
  },
  {
    key: 'drainMarginMs',
    flag: '--drain-margin-ms',
    env: 'PROXYOPS_DRAIN_MARGIN_MS',
    kind: 'integer',
    min: 0,
    description: 'margin added to interval x threshold for the drain wait',
  },
  {
    key: 'shutdownTimeoutMs',
    flag: '--shutdown-timeout-ms',
    env: 'PROXYOPS_SHUTDOWN_TIMEOUT_MS',
    kind: 'integer',
    min: 0,
    description: 'after the drain, longest wait for in-flight requests before closing them',
  },
  {
    key: 'keepAliveTimeoutMs',
    flag: '--keep-alive-ms',
    env: 'PROXYOPS_KEEP_ALIVE_MS',
    kind: 'integer',
    min: 1,
    description: 'idle keep-alive timeout; must exceed the proxy upstream keep-alive timeout',
  },
  {
    key: 'proxyKeepAliveTimeoutMs',
    flag: '--proxy-keep-alive-ms',
    env: 'PROXYOPS_PROXY_KEEP_ALIVE_MS',
    kind: 'integer',
    min: 0,
    description: "the proxy's upstream keep-alive timeout (nginx keepalive_timeout in upstream)",
  },
  {
    key: 'requestTimeoutMs',
    flag: '--request-timeout-ms',
    env: 'PROXYOPS_REQUEST_TIMEOUT_MS',
    kind: 'integer',
    min: 1,
    description: 'longest time to receive one whole request',
  },
  {
    key: 'dbPoolMax',
    flag: '--db-pool-max',
    env: 'PROXYOPS_DB_POOL_MAX',
    kind: 'integer',
    min: 1,
    description: 'PostgreSQL pool size (with DATABASE_URL)',
  },
  {
    key: 'dbConnectTimeoutMs',
    flag: '--db-connect-timeout-ms',
    env: 'PROXYOPS_DB_CONNECT_TIMEOUT_MS',
    kind: 'integer',
    min: 1,
    description: 'longest wait for a PostgreSQL connection (pool slot and login); then 503',
  },
  {
    key: 'dbQueryTimeoutMs',
    flag: '--db-query-timeout-ms',
    env: 'PROXYOPS_DB_QUERY_TIMEOUT_MS',
    kind: 'integer',
    min: 1,
    description: 'longest PostgreSQL statement (cancelled on the server, abandoned by the client); then 503',
  },
  {
    key: 'redisTimeoutMs',
    flag: '--redis-timeout-ms',
    env: 'PROXYOPS_REDIS_TIMEOUT_MS',
    kind: 'integer',
    min: 1,
    description: 'longest Redis command; then the rate limit falls back to this instance alone',
  },
  {
    key: 'idempotencyKeyTtlMs',
    flag: '--idempotency-key-ttl-ms',
    env: 'PROXYOPS_IDEMPOTENCY_KEY_TTL_MS',
    kind: 'integer',
    min: 1_000,
    description: 'how long an Idempotency-Key and its stored response are kept',
  },
  {
    key: 'idempotencyLeaseMs',
    flag: '--idempotency-lease-ms',
    env: 'PROXYOPS_IDEMPOTENCY_LEASE_MS',
    kind: 'integer',
    min: 100,
    description: 'how long a request holds its Idempotency-Key (409 to repeats) before a retry may take over',
  },
  {
    key: 'trustProxy',
    flag: '--trust-proxy',
    env: 'PROXYOPS_TRUST_PROXY',
    kind: 'string',
    description:
      'which peers may set X-Forwarded-* and X-Request-ID: addresses, CIDRs or loopback/linklocal/uniquelocal (Express "trust proxy")',
  },
  {
    key: 'publicBaseUrl',
    flag: '--public-base-url',
    env: 'PROXYOPS_PUBLIC_BASE_URL',
    kind: 'url',
    description:
      'build absolute links (Location, Link, _links) from this http(s) URL instead of the request’s Host (e.g. https://api.example.com)',
  },
  {
    key: 'graphqlDepthLimit',
    flag: '--graphql-depth-limit',
    env: 'PROXYOPS_GRAPHQL_DEPTH_LIMIT',
    kind: 'integer',
    min: 1,
    description: 'deepest field nesting a GraphQL operation may have',
  },
  {
    key: 'graphqlCostLimit',
    flag: '--graphql-cost-limit',
    env: 'PROXYOPS_GRAPHQL_COST_LIMIT',
    kind: 'integer',
    min: 1,
    description: 'highest GraphQL cost score (1 per field, lists multiplied by first/last)',
  },
  {
    key: 'graphqlAliasLimit',
    flag: '--graphql-alias-limit',
    env: 'PROXYOPS_GRAPHQL_ALIAS_LIMIT',
    kind: 'integer',
    min: 0,
    description: 'most aliases one GraphQL document may use',
  },
  {
    key: 'drain',
    flag: '--drain',
    env: 'PROXYOPS_DRAIN',
    kind: 'choice',
    choices: ['readiness', 'hand-over'],
    description:
      'on TCP, how a stop signal drains: readiness (readiness turns 503, serve on for interval x threshold + margin) or hand-over (listen only once ready; on the stop signal close the listener first, answer with Connection: close, exit once the proxy closed its connections)',
  },
  {
    key: 'graphqlIntrospection',
    flag: '--graphql-introspection',
    env: 'PROXYOPS_GRAPHQL_INTROSPECTION',
    kind: 'choice',
    choices: ['auto', 'on', 'off'],
    description:
      'GraphQL schema introspection and "did you mean" hints: on, off, or auto (off when NODE_ENV=production)',
  },
  {
    key: 'graphqlDirectiveLimit',
    flag: '--graphql-directive-limit',
    env: 'PROXYOPS_GRAPHQL_DIRECTIVE_LIMIT',
    kind: 'integer',
    min: 0,
    description: 'most directives (@include, @skip, …) one GraphQL document may use',
  },
  {
    key: 'graphqlTokenLimit',
    flag: '--graphql-token-limit',
    env: 'PROXYOPS_GRAPHQL_TOKEN_LIMIT',
    kind: 'integer',
    min: 10,
    description: 'most lexical tokens one GraphQL document may have (parsing stops beyond)',
  },
  {
    key: 'graphqlTimeoutMs',
    flag: '--graphql-timeout-ms',
    env: 'PROXYOPS_GRAPHQL_TIMEOUT_MS',
    kind: 'integer',
    min: 1,
    description: 'longest GraphQL execution; then its store queries are cancelled and it answers TIMEOUT',
  },
  {
    key: 'graphqlAllowList',
    flag: '--graphql-allow-list',
    env: 'PROXYOPS_GRAPHQL_ALLOW_LIST',
    kind: 'string',
    description: 'persisted-query manifest: only its operations run (off when unset)',
  },
  {
    key: 'testDelayMs',
    flag: '--test-delay-ms',
    env: 'PROXYOPS_TEST_DELAY_MS',
    kind: 'integer',
    min: 0,
    max: 60_000,
    description:
      'test only: add this many ms to every answer but the health checks (a slow version for bench:gates)',
  },
  {
    key: 'testDelayRoute',
    flag: '--test-delay-route',
    env: 'PROXYOPS_TEST_DELAY_ROUTE',
    kind: 'string',
    description:
      'test only: --test-delay-ms slows only the requests of this route, `METHOD /path-prefix` or `/path-prefix` (a version slower on one route)',
  },
  {
    key: 'testErrorPermille',
    flag: '--test-error-permille',
    env: 'PROXYOPS_TEST_ERROR_PERMILLE',
    kind: 'integer',
    min: 0,
    max: 1000,
    description:
      'test only: answer 500 to this many requests per thousand but the health checks (a failing version)',
  },
];

/** Converts an option's command-line name (`--body-limit`) to commander's property name (`bodyLimit`). */
export function toFlagProperty(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function parseValue(option: ApiOption, raw: string, source: string): number | string {
  if (option.kind === 'url') return parseBaseUrl(option, raw, source);
  if (option.kind === 'choice') {
    if (!option.choices?.includes(raw.trim()))
      throw badOption(option, raw, source, `must be one of ${option.choices?.join(', ')}`);
    return raw.trim();
  }
  if (option.kind === 'string') {
    if (raw.trim() === '') throw badOption(option, raw, source, 'must not be empty');
    return raw;
  }
  if (!/^\d+$/.test(raw.trim())) throw badOption(option, raw, source, 'must be a whole number');
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw badOption(option, raw, source, 'is too large');
  if (option.min !== undefined && value < option.min)
    throw badOption(option, raw, source, `must be at least ${option.min}`);
  if (option.max !== undefined && value > option.max)
    throw badOption(option, raw, source, `must be at most ${option.max}`);
  return value;
}

/** An http(s) URL with no query or fragment, without its trailing slash: links append paths to it. */
function parseBaseUrl(option: ApiOption, raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw badOption(option, raw, source, 'must be an absolute URL such as https://api.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badOption(option, raw, source, 'must be an http or https URL');
  if (url.search || url.hash || url.username || url.password)
    throw badOption(option, raw, source, 'must have no query, fragment or credentials');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function badOption(option: ApiOption, raw: string, source: string, why: string): ProxyopsError {
  return new ProxyopsError('BAD_OPTION', `${source} ${JSON.stringify(raw)} ${why}`, {
    details: { option: option.key },
  });
}

/**
 * The effective configuration: a command-line value wins over the environment, which wins over
 * the default. Values are checked here, at the edge, with a message naming the option and the value.
 */
export function resolveApiConfig(
  flags: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): ApiConfig {
  const config: Record<string, number | string> = { ...API_DEFAULTS };
  for (const option of API_OPTIONS) {
    const fromFlag = flags[toFlagProperty(option.flag)];
    const fromEnv = env[option.env];
    if (fromFlag !== undefined) config[option.key] = parseValue(option, String(fromFlag), option.flag);
    else if (fromEnv !== undefined && fromEnv !== '')
      config[option.key] = parseValue(option, fromEnv, option.env);
  }
  const resolved = config as unknown as ApiConfig;
  // The schema is no secret, but in production it is a map for whoever probes the API.
  if (resolved.graphqlIntrospection === 'auto')
    resolved.graphqlIntrospection = env.NODE_ENV === 'production' ? 'off' : 'on';
  validateApiConfig(resolved);
  return resolved;
}

/** Cross-field rules: a page default within the maximum, keep-alive outliving the proxy's, a delayed route with a delay. */
export function validateApiConfig(config: ApiConfig): void {
  if (config.testDelayRoute !== '') {
    if (!/^(?:[A-Z]+ )?\/\S*$/.test(config.testDelayRoute))
      throw new ProxyopsError(
        'BAD_OPTION',
        `--test-delay-route ${JSON.stringify(config.testDelayRoute)} must be a path prefix, after a method or not: "POST /orders" or "/orders"`,
      );
    // A route alone slows nothing: said rather than deploying a "slow" version that is not.
    if (config.testDelayMs === 0)
      throw new ProxyopsError('BAD_OPTION', '--test-delay-route needs --test-delay-ms above 0');
  }
  if (config.pageSizeDefault > config.pageSizeMax)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--page-size ${config.pageSizeDefault} exceeds --page-size-max ${config.pageSizeMax}`,
    );
  if (config.keepAliveTimeoutMs <= config.proxyKeepAliveTimeoutMs)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--keep-alive-ms ${config.keepAliveTimeoutMs} must exceed the proxy's upstream keep-alive ` +
        `timeout (--proxy-keep-alive-ms ${config.proxyKeepAliveTimeoutMs}), or the proxy may reuse a ` +
        'connection the API is closing and answer 502',
    );
}

/** The drain wait of a graceful shutdown: health-check interval x failure threshold + margin. */
export function drainWaitMs(config: ApiConfig): number {
  return config.healthCheckIntervalMs * config.healthCheckFailureThreshold + config.drainMarginMs;
}
