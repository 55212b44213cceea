import { isUtf8 } from 'node:buffer';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isProxyopsError, ProxyopsError } from '../../proxy-config/core/errors.js';
import type { ApiConfig } from '../defaults.js';
import { createHealthRouter } from '../health/health-routes.js';
import type { HealthState } from '../health/health-state.js';
import type { OrderEvents } from '../resources/order-events.js';
import type { Store } from '../store/store.js';
import { authenticate } from './authenticate.js';
import { createHttpLogger } from './logging.js';
import { buildOpenApi } from './openapi.js';
import { fromBodyParserError, PROBLEM_KINDS, sendProblem } from './problem.js';
import {
  checksEmptyBody,
  JSON_BODY_TYPES,
  markResponse,
  redirectTrailingSlash,
  requireAcceptableJson,
  requireJsonBody,
} from './protocol.js';
import { createGraphqlRouter } from '../graphql/http/graphql-router.js';
import type { GraphqlEndpointDeps } from '../graphql/http/handler.js';
import { createRateLimit } from './rate-limit.js';
import { createTestFaults } from './test-faults.js';
import { rejectUnknownQuery } from './query-names.js';
import { handleRoute } from './route-handler.js';
import { ROUTES, toExpressPath } from './routes.js';
import { memoizeTrust, type TrustFunction } from './trust-proxy.js';

/** Everything the app needs; it opens nothing itself, so tests and the server wire it alike. */
export interface AppDeps {
  store: Store;
  config: ApiConfig;
  logger: Logger;
  jwtSecret: Uint8Array;
  health: HealthState;
  redis?: Redis;
  events?: OrderEvents;
  /** Redis key prefix of the rate-limit counters. */
  rateLimitPrefix?: string;
  /** The /graphql endpoint's shared parts, when the server also serves it over WebSocket. */
  graphql?: GraphqlEndpointDeps;
}

/** Paths served outside ROUTES that only answer GET: other methods get 405 with Allow, as on ROUTES. */
const READ_ONLY_PATHS = ['/health/live', '/health/ready', '/health/deep', '/metrics', '/openapi.json'];
const READ_ONLY_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** The paths each router serves: it is entered only for them, not asked to match every request. */
const GRAPHQL_PATHS: ReadonlySet<string> = new Set(['/graphql', '/metrics']);
const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready', '/health/deep']);
const OPENAPI_PATHS: ReadonlySet<string> = new Set(['/openapi.json']);

function methodsOf(path: string): string[] {
  const methods = ROUTES.filter((r) => r.path === path).map((r) => r.method.toUpperCase());
  if (methods.includes('GET')) methods.push('HEAD');
  return [...methods, 'OPTIONS'];
}

/** Answers OPTIONS with 204 and Allow, any other method with 405 (for methods a path does not serve). */
function answerOtherMethods(path: string, allow: string[]): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow.join(', '));
      return void res.status(204).end();
    }
    next(
      new ProxyopsError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`, {
        details: { allow },
      }),
    );
  };
}

/** Runs `handler` for the requests to `paths` only. */
function forPaths(paths: ReadonlySet<string>, handler: RequestHandler): RequestHandler {
  return (req, res, next) => (paths.has(req.path) ? handler(req, res, next) : next());
}

/**
 * Everything a request passes before the REST routes, in the protocol's order, each named (the
 * benchmark's per-step floors measure them one at a time: bench/_api-servers.mjs).
 */
export function frontMiddleware(deps: AppDeps): Array<[name: string, handler: RequestHandler]> {
  const readOnlyAnswers = new Map(
    READ_ONLY_PATHS.map((path) => [path, answerOtherMethods(path, READ_ONLY_METHODS)]),
  );
  const openapi = buildOpenApi(deps.config);
  const faults = createTestFaults({
    delayMs: deps.config.testDelayMs,
    delayRoute: deps.config.testDelayRoute,
    errorPermille: deps.config.testErrorPermille,
  });
  return [
    ['response marks', markResponse],
    ['access log', createHttpLogger(deps.logger)],
    ['trailing-slash redirect', redirectTrailingSlash(deps.config)],
    // Before the routers that serve them: a Router answers OPTIONS itself, as text/plain.
    [
      'read-only paths 405',
      (req, res, next) => {
        const answer = readOnlyAnswers.get(req.path);
        if (!answer || (req.method !== 'OPTIONS' && READ_ONLY_METHODS.includes(req.method))) return next();
        answer(req, res, next);
      },
    ],
    // GraphQL-over-HTTP negotiates its own media types, so it comes before the REST Accept check.
    ['graphql', forPaths(GRAPHQL_PATHS, createGraphqlRouter(deps))],
    ['accept check', requireAcceptableJson],
    [
      'health',
      forPaths(
        HEALTH_PATHS,
        createHealthRouter({
          state: deps.health,
          store: deps.store,
          ...(deps.redis ? { redis: deps.redis } : {}),
        }),
      ),
    ],
    [
      'openapi document',
      forPaths(OPENAPI_PATHS, (_req, res) => {
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.json(openapi);
      }),
    ],
    ...(faults ? [['test faults', faults] as [string, RequestHandler]] : []),
    [
      'rate limit',
      createRateLimit({
        max: deps.config.rateLimitMax,
        windowMs: deps.config.rateLimitWindowMs,
        redisTimeoutMs: deps.config.redisTimeoutMs,
        logger: deps.logger,
        ...(deps.redis ? { redis: deps.redis } : {}),
        ...(deps.rateLimitPrefix ? { prefix: deps.rateLimitPrefix } : {}),
      }),
    ],
  ];
}

/** The Express app of the API, without listening: middleware order is the protocol's order. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Our ETags are resource versions, set by the routes; Express must not hash bodies.
  app.set('etag', false);
  app.set('trust proxy', deps.config.trustProxy);
  app.set('trust proxy fn', memoizeTrust(app.get('trust proxy fn') as TrustFunction));
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', 'simple');

  for (const [, handler] of frontMiddleware(deps)) app.use(handler);

  const auth = authenticate(deps.jwtSecret);
  const parseJson = express.json({
    limit: deps.config.bodyLimitBytes,
    type: JSON_BODY_TYPES,
    strict: true,
    // Invalid UTF-8 would otherwise be decoded into U+FFFD and stored silently.
    verify: (_req, _res, buffer) => {
      if (!isUtf8(buffer)) throw new Error('the request body is not valid UTF-8');
    },
  });
  // One Express route per path, in ROUTES order (so /users/search is not taken for /users/{user_id}):
  // its methods' chains, then, for any other method, 405 with Allow. The method is so checked before
  // the token: a wrong method is 405 whoever asks.
  for (const path of new Set(ROUTES.map((r) => r.path))) {
    const expressRoute = app.route(toExpressPath(path));
    for (const route of ROUTES.filter((r) => r.path === path)) {
      const chain: RequestHandler[] = [auth, rejectUnknownQuery(route, deps.config.pageSizeMax)];
      if (route.body) chain.push(requireJsonBody, parseJson);
      else if (route.method !== 'get') chain.push(...checksEmptyBody(parseJson));
      expressRoute[route.method](...chain, handleRoute(route, deps));
    }
    expressRoute.all(answerOtherMethods(path, methodsOf(path)));
  }
  app.use((req, _res, next) => {
    next(new ProxyopsError('NOT_FOUND', `no resource at ${req.path}`));
  });

  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const translated = fromBodyParserError(error) ?? error;
    const kind = isProxyopsError(translated) ? PROBLEM_KINDS[translated.code] : undefined;
    // Client mistakes are answers, not faults; anything unmapped is a fault worth its stack in the log.
    if (!kind || kind.status >= 500) req.log.error({ err: error }, 'request failed');
    if (res.headersSent) return void res.destroy();
    sendProblem(req, res, translated);
  };
  app.use(onError);
  return app;
}
