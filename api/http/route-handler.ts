import type { Request, RequestHandler } from 'express';
import { fingerprintRequest, parseIdempotencyKey } from '../idempotency/idempotency-key.js';
import { runOnce } from '../idempotency/run-once.js';
import type { ResourceContext } from '../resources/context.js';
import { createEventBuffer } from '../resources/order-events.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from './app.js';
import { sendAnswer } from './answer.js';
import { parseIfMatch } from './etag.js';
import { problemInstance, renderProblem } from './problem.js';
import { renderResult, sendResult } from './respond.js';
import type { RouteInput, RouteSpec } from './routes.js';

/** The methods whose requests an Idempotency-Key makes safe to retry (the others are idempotent). */
const KEYED_METHODS: ReadonlySet<RouteSpec['method']> = new Set(['post', 'patch']);

/** Tells a client that the response is the stored one of an earlier request with its key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

function routeInput(route: RouteSpec, req: Request): RouteInput {
  const ifMatch = route.ifMatch ? parseIfMatch(req.get('If-Match')) : undefined;
  return {
    params: req.params as Record<string, string>,
    query: { ...(req.query as Record<string, unknown>) },
    body: req.body,
    ...(ifMatch === undefined ? {} : { expectedVersions: ifMatch }),
  };
}

/**
 * The Express handler of one route: it takes the input out of the request, calls the resource
 * function and writes the result. A POST or PATCH with an Idempotency-Key runs through `runOnce`:
 * the result (or the client error) is rendered to a response, stored with the key in the same
 * transaction as the writes, and replayed to a repeat.
 */
export function handleRoute(route: RouteSpec, deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const baseUrl = `${req.protocol}://${req.host}`;
      const user = req.caller as NonNullable<typeof req.caller>;
      const ctx: ResourceContext = {
        user,
        store: deps.store,
        requestId: String(req.id),
        baseUrl,
        limits: deps.config,
        ...(deps.events ? { events: deps.events } : {}),
      };
      const input = routeInput(route, req);
      const key = KEYED_METHODS.has(route.method)
        ? parseIdempotencyKey(req.get('Idempotency-Key'))
        : undefined;
      if (key === undefined) return sendResult(req, res, await route.run(ctx, input), baseUrl);

      const buffer = deps.events ? createEventBuffer(deps.events) : undefined;
      const work = async (store: Store) => {
        try {
          const result = await route.run(
            { ...ctx, store, ...(buffer ? { events: buffer.events } : {}) },
            input,
          );
          return renderResult(req, result, baseUrl);
        } catch (error) {
          // A client error is the request's answer and is stored; a fault is thrown and stores nothing.
          const problem = renderProblem(error, problemInstance(req), ctx.requestId);
          if (problem.status >= 500) throw error;
          return problem;
        }
      };
      const fingerprint = fingerprintRequest([
        req.method,
        req.originalUrl,
        req.get('If-Match') ?? null,
        req.body ?? null,
      ]);
      const outcome = await runOnce(
        deps.store,
        { owner: user.id, key, fingerprint },
        { ttlMs: deps.config.idempotencyKeyTtlMs, leaseMs: deps.config.idempotencyLeaseMs },
        work,
      );
      if (outcome.replayed) res.setHeader(REPLAYED_HEADER, 'true');
      else buffer?.flush();
      sendAnswer(res, outcome.response);
    } catch (error) {
      next(error);
    }
  };
}
