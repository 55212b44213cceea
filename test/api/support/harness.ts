import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { createToken, resolveJwtSecret } from '../../../api/auth/tokens.js';
import { API_DEFAULTS, type ApiConfig } from '../../../api/defaults.js';
import { createHealthState, type HealthState } from '../../../api/health/health-state.js';
import { createApp, type AppDeps } from '../../../api/http/app.js';
import { createOrderEvents, type OrderEvent } from '../../../api/resources/order-events.js';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { DATABASE_URL } from '../../support/services.js';

/** One place the API's data can live in tests: embedded PGlite, or the real server when configured. */
export interface StoreVariant {
  name: 'pglite' | 'postgres';
  open(): Promise<{ store: Store; drop(): Promise<void> }>;
}

const pgliteVariant: StoreVariant = {
  name: 'pglite',
  async open() {
    const store = await createStore();
    return { store, drop: async () => undefined };
  },
};

// Parallel test files share one database: each run gets its own schema, dropped afterwards.
const postgresVariant = (databaseUrl: string): StoreVariant => ({
  name: 'postgres',
  async open() {
    const db = postgresSchema(databaseUrl);
    return { store: await db.open(), drop: db.drop };
  },
});

/** A PostgreSQL schema of its own for one test file; `open` may be called once per instance. */
export function postgresSchema(databaseUrl: string) {
  const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  return {
    schema,
    open: () => createStore({ databaseUrl, schema, poolMax: 4 }),
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Every store the API suites run against: PGlite and the PostgreSQL server. */
export const STORE_VARIANTS: StoreVariant[] = [pgliteVariant, postgresVariant(DATABASE_URL)];

/** A running API on loopback with helpers to make users and tokens. */
export interface TestApi {
  url: string;
  store: Store;
  health: HealthState;
  config: ApiConfig;
  logLines: Array<Record<string, unknown>>;
  events: OrderEvent[];
  secret: Uint8Array;
  adminToken: string;
  /** Inserts a user straight into the store and returns its id and a token for it. */
  createUser(fields?: {
    name?: string;
    email?: string;
  }): Promise<{ id: string; token: string; email: string }>;
  tokenFor(id: string, role?: 'user' | 'admin'): Promise<string>;
  /** Starts another app instance on the same store (and Redis), e.g. for cross-instance limits. */
  startSibling(overrides?: Partial<AppDeps>): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Test settings: generous rate limit, small pages so pagination is easy to reach. */
export const TEST_CONFIG: ApiConfig = { ...API_DEFAULTS, host: '127.0.0.1', port: 0, rateLimitMax: 100_000 };

/** A pino logger at `info` whose lines land, parsed, in `logLines` for a test to read. */
export function captureLogs(): { logger: Logger; logLines: Array<Record<string, unknown>> } {
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  return { logger, logLines };
}

async function listen(handler: RequestListener) {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Opens a store of `variant`, builds the real app on it and listens on 127.0.0.1. */
export async function startTestApi(
  variant: StoreVariant,
  options: { config?: Partial<ApiConfig>; deps?: Partial<AppDeps> } = {},
): Promise<TestApi> {
  const { store, drop } = await variant.open();
  const config = { ...TEST_CONFIG, ...options.config };
  const { logger, logLines } = captureLogs();
  const secret = resolveJwtSecret({});
  const health = createHealthState('ready');
  const events: OrderEvent[] = [];
  const orderEvents = createOrderEvents();
  orderEvents.subscribe((event) => events.push(event));
  const baseDeps: AppDeps = {
    store,
    config,
    logger,
    jwtSecret: secret,
    health,
    events: orderEvents,
    ...options.deps,
  };
  const main = await listen(createApp(baseDeps));
  const siblings: Array<{ close(): Promise<void> }> = [];
  const tokenFor = (id: string, role: 'user' | 'admin' = 'user') => createToken({ id, role }, secret);
  return {
    url: main.url,
    store,
    health,
    config,
    logLines,
    events,
    secret,
    adminToken: await tokenFor('test-admin', 'admin'),
    tokenFor,
    async createUser(fields = {}) {
      const email = fields.email ?? `u-${randomUUID()}@example.com`;
      const rows = await store.query<{ id: string }>(
        'INSERT INTO users (name, email) VALUES ($1, $2) RETURNING id',
        [fields.name ?? 'Test User', email],
      );
      const id = (rows[0] as { id: string }).id;
      return { id, email, token: await tokenFor(id) };
    },
    async startSibling(overrides = {}) {
      const sibling = await listen(createApp({ ...baseDeps, ...overrides }));
      siblings.push(sibling);
      return sibling;
    },
    async close() {
      for (const sibling of siblings) await sibling.close();
      await main.close();
      try {
        await store.close();
      } finally {
        // A test may have closed the store itself; the schema must go either way.
        await drop();
      }
    },
  };
}

/** Row counts and a checksum of every table: equal snapshots mean no stored data changed. */
export async function snapshotData(store: Store): Promise<string> {
  const parts: string[] = [];
  for (const table of ['users', 'orders', 'order_items']) {
    const rows = await store.query<{ digest: string | null; n: string | number }>(
      `SELECT count(*) AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
    );
    parts.push(`${table}:${rows[0]?.n}:${rows[0]?.digest}`);
  }
  return parts.join(' ');
}
