import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createToken, resolveJwtSecret } from '../../../../api/auth/tokens.js';
import type { ApiConfig } from '../../../../api/defaults.js';
import {
  createOrderEventBus,
  type EventBusOptions,
  type OrderEventBus,
} from '../../../../api/events/order-event-bus.js';
import { createOrderLoader } from '../../../../api/events/load-order.js';
import { createGraphqlEndpoint } from '../../../../api/graphql/http/graphql-router.js';
import { attachGraphqlWs } from '../../../../api/graphql/ws-server.js';
import { createHealthState } from '../../../../api/health/health-state.js';
import { createApp } from '../../../../api/http/app.js';
import type { Store } from '../../../../api/store/store.js';
import { sendJson, send, type TestResponse } from '../../support/http-client.js';
import { afterAll, beforeAll } from 'vitest';
import { captureLogs, STORE_VARIANTS, TEST_CONFIG } from '../../support/harness.js';

/** One API instance as the server runs it: the app, the WebSocket endpoint and the event bus. */
export interface GraphqlTestApi {
  url: string;
  wsUrl: string;
  store: Store;
  config: ApiConfig;
  /** The signing secret this instance verifies tokens with. */
  jwtSecret: Uint8Array;
  events: OrderEventBus;
  adminToken: string;
  logLines: Array<Record<string, unknown>>;
  /** Event listeners registered by this instance's subscriptions right now. */
  listeners(): number;
  tokenFor(id: string, role?: 'user' | 'admin'): Promise<string>;
  createUser(name?: string): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** Starts an instance on `store` (which the caller closes) with the given settings and event transport. */
export async function startGraphqlApi(
  store: Store,
  options: {
    config?: Partial<ApiConfig>;
    bus?: EventBusOptions;
    /** An event bus shared with another instance of this process (then not closed here). */
    events?: OrderEventBus;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<GraphqlTestApi> {
  const config: ApiConfig = { ...TEST_CONFIG, ...options.config };
  const { logger, logLines } = captureLogs();
  const jwtSecret = resolveJwtSecret({});
  const bus = options.events ?? createOrderEventBus({ ...options.bus, loadOrder: createOrderLoader(store) });
  await bus.ready;
  // Counts live listeners so a test can wait until a subscription is registered, not sleep and hope.
  let listeners = 0;
  const events: OrderEventBus = {
    ...bus,
    subscribe(listener) {
      listeners += 1;
      const stop = bus.subscribe(listener);
      return () => {
        listeners -= 1;
        stop();
      };
    },
  };
  const graphql = createGraphqlEndpoint({
    store,
    config,
    logger,
    jwtSecret,
    events,
    ...(options.env ? { env: options.env } : {}),
  });
  const app = createApp({
    store,
    config,
    logger,
    jwtSecret,
    health: createHealthState('ready'),
    events,
    graphql,
    rateLimitPrefix: `test:${randomUUID()}:`,
  });
  const server: Server = createServer(app);
  const ws = attachGraphqlWs(server, graphql, { jwtSecret, logger });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const tokenFor = (id: string, role: 'user' | 'admin' = 'user') => createToken({ id, role }, jwtSecret);
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    store,
    config,
    jwtSecret,
    events,
    logLines,
    listeners: () => listeners,
    adminToken: await tokenFor('00000000-0000-4000-8000-00000000a0a0', 'admin'),
    tokenFor,
    async createUser(name = 'Test User') {
      const rows = await store.query<{ id: string }>(
        'INSERT INTO users (name, email) VALUES ($1, $2) RETURNING id',
        [name, `u-${randomUUID()}@example.com`],
      );
      const id = (rows[0] as { id: string }).id;
      return { id, token: await tokenFor(id) };
    },
    async close() {
      await ws.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.events) await bus.close();
    },
  };
}

/**
 * One instance on the embedded store for the whole describe block that calls it (for tests whose
 * subject is not the store); the returned function gives the running instance.
 */
export function useGraphqlApiOnEmbeddedStore(): () => GraphqlTestApi {
  let api: GraphqlTestApi | undefined;
  let store: Store | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ store, drop } = await STORE_VARIANTS[0]!.open());
    api = await startGraphqlApi(store);
  });
  afterAll(async () => {
    await api?.close();
    await store?.close();
    await drop?.();
  });
  return () => api!;
}

/** Options of one GraphQL request. */
export interface GqlOptions {
  variables?: Record<string, unknown>;
  token?: string;
  accept?: string;
  extensions?: Record<string, unknown>;
  operationName?: string;
}

/** POSTs a GraphQL request as application/json. */
export function gql(
  api: { url: string },
  query: string | undefined,
  options: GqlOptions = {},
): Promise<TestResponse> {
  return sendJson(
    `${api.url}/graphql`,
    'POST',
    {
      ...(query === undefined ? {} : { query }),
      ...(options.variables ? { variables: options.variables } : {}),
      ...(options.extensions ? { extensions: options.extensions } : {}),
      ...(options.operationName ? { operationName: options.operationName } : {}),
    },
    {
      ...(options.token ? { token: options.token } : {}),
      headers: { accept: options.accept ?? 'application/json' },
    },
  );
}

/** GETs a persisted query by hash. */
export function gqlGet(api: { url: string }, params: Record<string, unknown>, options: GqlOptions = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  return send(`${api.url}/graphql?${search.toString()}`, {
    ...(options.token ? { token: options.token } : {}),
    headers: { accept: options.accept ?? 'application/json' },
  });
}

/** A graphql-ws client on loopback. */
export function wsClient(api: { wsUrl: string }, connectionParams?: Record<string, unknown>): Client {
  return createClient({
    url: api.wsUrl,
    webSocketImpl: WebSocket,
    lazy: true,
    retryAttempts: 0,
    ...(connectionParams ? { connectionParams } : {}),
  });
}

/** Seeds `users` users with `orders` orders of two items each, in few statements. */
export async function seedBulk(store: Store, users: number, orders: number): Promise<string[]> {
  const ids = await store.query<{ id: string }>(
    `INSERT INTO users (name, email)
     SELECT 'Bulk ' || g, 'bulk-' || g || '-' || md5(random()::text) || '@example.com' FROM generate_series(1, $1) g
     RETURNING id`,
    [users],
  );
  await store.query(
    `INSERT INTO orders (user_id, status, total_price_cents)
     SELECT u.id, 'PENDING', 1000 FROM users u, generate_series(1, $1) WHERE u.id = ANY($2::uuid[])`,
    [orders, ids.map((r) => r.id)],
  );
  await store.query(
    `INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents)
     SELECT o.id, p, 'Item ' || p, 1, 500 FROM orders o, generate_series(1, 2) p WHERE o.user_id = ANY($1::uuid[])`,
    [ids.map((r) => r.id)],
  );
  return ids.map((r) => r.id);
}
