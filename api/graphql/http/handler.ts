import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import {
  createHandler,
  type Request as GraphqlHttpRequest,
  type Response as GraphqlHttpResponse,
} from 'graphql-http';
import type { Logger } from 'pino';
import type { ApiConfig } from '../../defaults.js';
import type { Caller } from '../../resources/context.js';
import type { OrderEvents } from '../../resources/order-events.js';
import type { Store } from '../../store/store.js';
import { createGraphqlContext, type GraphqlContext } from '../context.js';
import { createErrorFormatter, createGraphqlError, formatGraphqlError } from '../errors.js';
import { executeWithTimeout } from '../execute-with-timeout.js';
import type { GraphqlMetrics } from '../metrics.js';
import type { PersistedQueries } from '../persisted/persisted-queries.js';
import { hasPersistedQuery, resolveQuery } from '../persisted/resolve-query.js';
import { prepareOperation } from '../prepare-operation.js';
import { readRequestParams } from './request-params.js';

/** What the query endpoint works with; shared by every request of one app. */
export interface GraphqlEndpointDeps {
  schema: GraphQLSchema;
  store: Store;
  config: ApiConfig;
  events?: OrderEvents;
  persisted: PersistedQueries;
  allowList?: ReadonlyMap<string, string>;
  metrics: GraphqlMetrics;
  /** Outside production each response carries `extensions.storeQueries`. */
  exposeQueryCount: boolean;
  /** Where faults inside resolvers are logged (the client only sees INTERNAL_SERVER_ERROR). */
  logger?: Logger;
}

/** Facts about one request the framework adapter has established. */
export interface GraphqlRequestInfo {
  requestId: string;
  baseUrl: string;
  caller?: Caller;
  /** Aborted on timeout, or when the client goes away. */
  controller: AbortController;
}

const isErrorList = (value: unknown): value is readonly GraphQLError[] => Array.isArray(value);

/**
 * The protocol core of POST/GET /graphql on graphql-http: envelope, persisted queries and the
 * allow-list, limits, then execution under the timeout. Works on graphql-http's own request type and
 * returns its `[body, init]` tuple; it knows nothing of Express.
 */
export function handleGraphqlRequest(
  deps: GraphqlEndpointDeps,
  req: GraphqlHttpRequest<unknown, unknown>,
  info: GraphqlRequestInfo,
): Promise<GraphqlHttpResponse> {
  let context: GraphqlContext | undefined;
  // Text sent with its hash: registered once it has passed validation and the limits.
  let pending: { hash: string; query: string } | undefined;
  let started = 0;
  let kind = 'query';
  const handler = createHandler<unknown, unknown, Record<PropertyKey, unknown>>({
    schema: deps.schema,
    formatError: createErrorFormatter(info.requestId, (err) =>
      deps.logger?.error({ err, requestId: info.requestId }, 'graphql operation failed'),
    ),
    // The query text is resolved here (it may come from the persisted-query table) so that every
    // later step sees an ordinary request.
    async parseRequestParams(request) {
      const params = await readRequestParams(request);
      if (Array.isArray(params)) return params as GraphqlHttpResponse;
      const raw = params as Exclude<typeof params, GraphqlHttpResponse>;
      if (request.method === 'GET' && (raw.query !== undefined || !hasPersistedQuery(raw.extensions)))
        return getNeedsPersistedQuery(info.requestId);
      const resolved = await resolveQuery(raw, deps);
      if (resolved instanceof Error) throw resolved;
      pending = resolved.register ? { hash: resolved.register.hash, query: resolved.query } : undefined;
      return {
        query: resolved.query,
        ...(typeof raw.operationName === 'string' ? { operationName: raw.operationName } : {}),
        ...(raw.variables ? { variables: raw.variables as Record<string, unknown> } : {}),
        ...(raw.extensions ? { extensions: raw.extensions as Record<string, unknown> } : {}),
      };
    },
    async onSubscribe(_request, params) {
      const prepared = prepareOperation(deps.schema, params, deps.config);
      if (isErrorList(prepared)) return prepared;
      kind = prepared.operation.operation;
      if (kind === 'subscription')
        return [
          createGraphqlError(
            'BAD_REQUEST',
            'subscriptions run over WebSocket (graphql-transport-ws) on /graphql',
          ),
        ];
      // Registered only once it is known to be a valid query within the limits.
      if (pending) await deps.persisted.register(pending.hash, pending.query);
      context = createGraphqlContext({
        ...(info.caller ? { caller: info.caller } : {}),
        requestId: info.requestId,
        baseUrl: info.baseUrl,
        store: deps.store,
        config: deps.config,
        ...(deps.events ? { events: deps.events } : {}),
        signal: info.controller.signal,
        onQuery: deps.metrics.countStoreQuery,
      });
      return {
        schema: deps.schema,
        document: prepared.document,
        operationName: params.operationName ?? null,
        variableValues: params.variables ?? null,
        contextValue: context as unknown as Record<PropertyKey, unknown>,
      };
    },
    execute: (args) => {
      started = performance.now();
      return executeWithTimeout(args, info.controller, deps.config.graphqlTimeoutMs);
    },
    onOperation(_request, _args, result) {
      const queries = context?.store.queryCount ?? 0;
      deps.metrics.recordOperation(kind, queries, (performance.now() - started) / 1000);
      if (!deps.exposeQueryCount) return;
      const executed = result as ExecutionResult;
      return { ...executed, extensions: { ...executed.extensions, storeQueries: queries } };
    },
  });
  return handler(req);
}

/**
 * GET runs persisted queries only (by hash, never text): a GET without one is a malformed request
 * (400) whatever the Accept, not a wrong method: GET is one of the path's methods, and its Allow
 * stays the same.
 */
function getNeedsPersistedQuery(requestId: string): GraphqlHttpResponse {
  const error = createGraphqlError(
    'BAD_REQUEST',
    'GET runs persisted queries only: send extensions.persistedQuery without query text, or POST the query',
  );
  return [
    JSON.stringify({ errors: [formatGraphqlError(error, requestId)] }),
    {
      status: 400,
      statusText: 'Bad Request',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    },
  ];
}
