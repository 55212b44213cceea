import type { IncomingMessage, Server } from 'node:http';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { tokenVerifierFor } from '../auth/token-cache.js';
import { pickRequestId } from '../http/logging.js';
import type { Caller } from '../resources/context.js';
import { createGraphqlContext, type GraphqlContext } from './context.js';
import { createErrorFormatter } from './errors.js';
import { executeWithTimeout } from './execute-with-timeout.js';
import type { GraphqlEndpointDeps } from './http/handler.js';
import { resolveQuery } from './persisted/resolve-query.js';
import { prepareOperation } from './prepare-operation.js';
import { linkBase } from '../http/link-base.js';

/** A running graphql-ws endpoint; `close` ends every socket (1001) and stops accepting. */
export interface GraphqlWsServer {
  close(): Promise<void>;
}

interface SocketState {
  caller?: Caller;
  /** The upgrade request's X-Request-ID (or a fresh one): shared by the socket's operations. */
  requestId: string;
  request: IncomingMessage;
  controllers: Map<string, AbortController>;
}

function readBearer(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.authorization ?? params?.Authorization;
  if (typeof value !== 'string') return undefined;
  return /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(value.trim())?.[1];
}

/**
 * Serves subscriptions (and queries) over WebSocket on /graphql with the graphql-transport-ws
 * protocol. The client authenticates in `connection_init` with `{ authorization: "Bearer <token>" }`;
 * without a valid token the socket is closed with 4403 Forbidden, as the protocol prescribes for a
 * refused connection. Operations go through the same persisted-query, allow-list and limit checks
 * as over HTTP.
 */
export function attachGraphqlWs(
  server: Server,
  endpoint: GraphqlEndpointDeps,
  options: { jwtSecret: Uint8Array; logger: Logger },
): GraphqlWsServer {
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const sockets = new WeakMap<object, SocketState>();
  const stateOf = (extra: { request: IncomingMessage; socket: object }): SocketState => {
    let state = sockets.get(extra.socket);
    if (!state) {
      state = {
        request: extra.request,
        requestId: pickRequestId(extra.request.headers['x-request-id']),
        controllers: new Map(),
      };
      sockets.set(extra.socket, state);
    }
    return state;
  };
  const requestIdOf = (state: SocketState) => state.requestId;
  const formatterOf = (extra: { request: IncomingMessage; socket: object }) => {
    const requestId = requestIdOf(stateOf(extra));
    return createErrorFormatter(requestId, (err) =>
      options.logger.error({ err, requestId }, 'graphql subscription failed'),
    );
  };
  const disposable = useServer(
    {
      schema: endpoint.schema,
      async onConnect(ctx) {
        const token = readBearer(ctx.connectionParams);
        if (!token) return false;
        try {
          stateOf(ctx.extra).caller = await tokenVerifierFor(options.jwtSecret).verify(token);
          return true;
        } catch {
          return false;
        }
      },
      async onSubscribe(ctx, id, payload) {
        const state = stateOf(ctx.extra);
        const requestId = requestIdOf(state);
        const format = (errors: readonly Error[]) => errors.map(formatterOf(ctx.extra));
        const resolved = await resolveQuery(payload, endpoint);
        if (resolved instanceof Error) return format([resolved]);
        const prepared = prepareOperation(
          endpoint.schema,
          { query: resolved.query, operationName: payload.operationName, variables: payload.variables },
          endpoint.config,
        );
        if (Array.isArray(prepared)) return format(prepared);
        const { document } = prepared as Exclude<typeof prepared, readonly unknown[]>;
        if (resolved.register) await endpoint.persisted.register(resolved.register.hash, resolved.query);
        const controller = new AbortController();
        state.controllers.set(id, controller);
        const proto = state.request.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
        const contextValue: GraphqlContext = createGraphqlContext({
          ...(state.caller ? { caller: state.caller } : {}),
          requestId,
          baseUrl: linkBase(endpoint.config, proto, state.request.headers.host ?? 'localhost'),
          store: endpoint.store,
          config: endpoint.config,
          ...(endpoint.events ? { events: endpoint.events } : {}),
          signal: controller.signal,
          cache: false,
          onQuery: endpoint.metrics.countStoreQuery,
        });
        const args: ExecutionArgs = {
          schema: endpoint.schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue,
        };
        return args;
      },
      execute: (args) => {
        const context = args.contextValue as GraphqlContext;
        const controller = new AbortController();
        context.signal.addEventListener('abort', () => controller.abort(context.signal.reason), {
          once: true,
        });
        return executeWithTimeout(args, controller, endpoint.config.graphqlTimeoutMs);
      },
      onNext(ctx, _id, _payload, _args, result) {
        if (!result.errors) return result;
        return { ...result, errors: result.errors.map(formatterOf(ctx.extra)) };
      },
      onError(ctx, _id, _payload, errors) {
        return errors.map(formatterOf(ctx.extra));
      },
      onComplete(ctx, id) {
        const state = stateOf(ctx.extra);
        state.controllers.get(id)?.abort();
        state.controllers.delete(id);
      },
      onClose(ctx) {
        const state = stateOf(ctx.extra);
        for (const controller of state.controllers.values()) controller.abort();
        state.controllers.clear();
      },
    },
    wss,
  );
  wss.on('error', (error) => options.logger.error({ err: error }, 'graphql websocket server failed'));
  return {
    async close() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await Promise.resolve(disposable.dispose()).catch((error: unknown) =>
        options.logger.warn({ err: error }, 'closing graphql websockets failed'),
      );
    },
  };
}
