import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { tokenVerifierFor } from '../../auth/token-cache.js';
import type { ApiConfig } from '../../defaults.js';
import type { Caller } from '../../resources/context.js';
import { createRateLimit } from '../../http/rate-limit.js';
import type { Store } from '../../store/store.js';
import { createGraphqlError, formatGraphqlError, GRAPHQL_CODES } from '../errors.js';
import { GRAPHQL_ALLOW } from './request-params.js';
import { sendAnswer } from '../../http/answer.js';
import { fromBodyParserError, PROBLEM_KINDS, renderProblem } from '../../http/problem.js';
import { REPLAYED_HEADER } from '../../http/route-handler.js';
import { fingerprintJsonRequest, parseIdempotencyKey } from '../../idempotency/idempotency-key.js';
import { runOnce } from '../../idempotency/run-once.js';
import { createEventBuffer, type OrderEvents } from '../../resources/order-events.js';
import { createGraphqlMetrics, type GraphqlMetrics } from '../metrics.js';
import { createPersistedQueries } from '../persisted/persisted-queries.js';
import { readAllowList } from '../persisted/read-manifest.js';
import { createGraphqlSchema } from '../schema.js';
import { isKeepableGraphqlAnswer, toGraphqlAnswer } from './graphql-answer.js';
import { handleGraphqlRequest, type GraphqlEndpointDeps } from './handler.js';
import { linkBase } from '../../http/link-base.js';

/** What the GraphQL router takes from the app's dependencies. */
export interface GraphqlRouterDeps {
  store: Store;
  config: ApiConfig;
  logger: Logger;
  jwtSecret: Uint8Array;
  events?: OrderEvents;
  redis?: Redis;
  rateLimitPrefix?: string;
  metrics?: GraphqlMetrics;
  env?: NodeJS.ProcessEnv;
  /** Shared with the WebSocket server; built here when absent. */
  graphql?: GraphqlEndpointDeps;
}

const PATH = '/graphql';

function sendErrors(
  req: Request,
  res: express.Response,
  status: number,
  code: string,
  message: string,
): void {
  const error = formatGraphqlError(createGraphqlError(code, message), String(req.id ?? ''));
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ errors: [error] }));
}

/** The endpoint's shared parts: schema, persisted-query table, allow-list (read once, at start). */
export function createGraphqlEndpoint(deps: GraphqlRouterDeps): GraphqlEndpointDeps {
  const env = deps.env ?? process.env;
  return {
    schema: createGraphqlSchema(),
    store: deps.store,
    config: deps.config,
    ...(deps.events ? { events: deps.events } : {}),
    persisted: createPersistedQueries(deps.store),
    ...(deps.config.graphqlAllowList ? { allowList: readAllowList(deps.config.graphqlAllowList) } : {}),
    metrics: deps.metrics ?? createGraphqlMetrics(),
    exposeQueryCount: env.NODE_ENV !== 'production',
    logger: deps.logger,
  };
}

/**
 * The Express adapter of /graphql (and /metrics): it only translates. It reads the body, checks an
 * optional bearer token (a bad one is 401; none leaves only public fields), hands graphql-http's
 * request type to the protocol core and writes back its `[body, init]`. It is mounted before the
 * REST content negotiation: GraphQL-over-HTTP negotiates its own media types.
 */
export function createGraphqlRouter(deps: GraphqlRouterDeps): Router {
  const endpoint = deps.graphql ?? createGraphqlEndpoint(deps);
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4').send(endpoint.metrics.render());
  });
  // /graphql has its own budget of the same size as REST's, counted apart.
  const rateLimit = createRateLimit({
    max: deps.config.rateLimitMax,
    windowMs: deps.config.rateLimitWindowMs,
    redisTimeoutMs: deps.config.redisTimeoutMs,
    logger: deps.logger,
    ...(deps.redis ? { redis: deps.redis } : {}),
    prefix: `${deps.rateLimitPrefix ?? 'proxyops:rate:'}graphql:`,
  });
  const readBody = express.raw({ type: () => true, limit: deps.config.bodyLimitBytes });
  const serve: RequestHandler = async (req, res, next) => {
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', GRAPHQL_ALLOW);
      return void res.status(204).end();
    }
    // HEAD is answered as GET is, headers and status alike; Node sends no body for it (RFC 9110 §9.3.2).
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    // Before the token, as on REST: a wrong method is 405 whoever asks.
    if (method !== 'GET' && method !== 'POST') {
      res.setHeader('Allow', GRAPHQL_ALLOW);
      return sendErrors(req, res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${PATH}`);
    }
    const requestId = String(req.id ?? '');
    const header = req.headers.authorization;
    let caller: Caller | undefined;
    if (header !== undefined) {
      const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
      try {
        if (!match?.[1]) throw new Error('the Authorization header is not a bearer token');
        caller = await tokenVerifierFor(deps.jwtSecret).verify(match[1]);
      } catch (error) {
        const message = isProxyopsError(error) || error instanceof Error ? error.message : 'bad token';
        res.setHeader('WWW-Authenticate', 'Bearer realm="proxyops", error="invalid_token"');
        return sendErrors(req, res, 401, 'UNAUTHENTICATED', message);
      }
    }
    const controller = new AbortController();
    // A client that gives up stops the work it started.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    const body = Buffer.isBuffer(req.body) ? (req.body as Buffer) : null;
    const run = async (deps: GraphqlEndpointDeps) =>
      toGraphqlAnswer(
        method,
        await handleGraphqlRequest(
          deps,
          {
            method,
            url: req.originalUrl,
            headers: req.headers,
            body: body as unknown as string | null,
            raw: req,
            context: undefined,
          },
          {
            requestId,
            baseUrl: linkBase(deps.config, req.protocol, req.host),
            ...(caller ? { caller } : {}),
            controller,
          },
        ),
        requestId,
      );
    try {
      // Mutations are made safe to retry as REST writes are: a POST with a key runs through runOnce.
      // Anonymous requests cannot write, so their keys have no one to belong to and are not used; a
      // malformed one is refused all the same, as the document's pattern says.
      const key = method === 'POST' ? parseIdempotencyKey(req.get('Idempotency-Key')) : undefined;
      if (key === undefined || !caller) return sendAnswer(res, await run(endpoint));
      const buffer = endpoint.events ? createEventBuffer(endpoint.events) : undefined;
      const { fingerprint, former } = fingerprintJsonRequest(method, req.originalUrl, body);
      const outcome = await runOnce(
        endpoint.store,
        { owner: caller.id, key, fingerprint, former: [former] },
        { ttlMs: deps.config.idempotencyKeyTtlMs, leaseMs: deps.config.idempotencyLeaseMs },
        (store) => run({ ...endpoint, store, ...(buffer ? { events: buffer.events } : {}) }),
        isKeepableGraphqlAnswer,
      );
      if (outcome.replayed) res.setHeader(REPLAYED_HEADER, 'true');
      else buffer?.flush();
      sendAnswer(res, outcome.response);
    } catch (error) {
      next(error);
    } finally {
      controller.abort();
    }
  };
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    // The body reader's failures (too large, incomplete, not decompressible) are the client's, as on REST.
    const translated: unknown = fromBodyParserError(error) ?? error;
    const kind = isProxyopsError(translated) ? PROBLEM_KINDS[translated.code] : undefined;
    // Client errors, and a dependency out (503), are answers with their own code; not faults.
    if (isProxyopsError(translated) && kind && (kind.status < 500 || kind.status === 503)) {
      if (kind.status === 429)
        res.setHeader('Retry-After', String(Math.ceil(deps.config.rateLimitWindowMs / 1000)));
      const retryAfter = renderProblem(translated, '', '').headers['retry-after'];
      if (kind.status !== 429 && retryAfter) res.setHeader('Retry-After', retryAfter);
      return sendErrors(
        req,
        res,
        kind.status,
        GRAPHQL_CODES[translated.code] ?? translated.code,
        translated.message,
      );
    }
    // Internal faults: logged with their stack, answered as a bare 500 with the request id.
    req.log.error({ err: error }, 'graphql request failed');
    if (res.headersSent) return void res.destroy();
    sendErrors(
      req,
      res,
      500,
      'INTERNAL_SERVER_ERROR',
      'the server failed; quote the requestId when reporting it',
    );
  };
  router.all(PATH, rateLimit, readBody, serve, onError);
  return router;
}
