// One server of bench/api-latency.mjs, named by the first argument: `api`, `floor`, or one of the
// per-step floors (the floor plus one piece of the API). Each runs in a child process of its own, as
// the API runs in production: the load generator does not share its event loop, this process's CPU
// time is that server's alone, and no other app's objects share its JIT's inline caches or its heap.
// It answers the parent's `sample` message with its CPU time and the requests it has received.
import { createServer } from 'node:http';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createToken, resolveJwtSecret } from '../dist/api/auth/tokens.js';
import { API_DEFAULTS } from '../dist/api/defaults.js';
import { createHealthState } from '../dist/api/health/health-state.js';
import { createApp, frontMiddleware } from '../dist/api/http/app.js';
import { authenticate } from '../dist/api/http/authenticate.js';
import { rejectUnknownQuery } from '../dist/api/http/query-names.js';
import { handleRoute } from '../dist/api/http/route-handler.js';
import { ROUTES } from '../dist/api/http/routes.js';
import { insertOrder, selectItemsByOrder, selectOrderRows } from '../dist/api/resources/order-queries.js';
import { findUserRow } from '../dist/api/resources/users.js';
import { toCents } from '../dist/api/resources/views.js';
import { createStore } from '../dist/api/store/create-store.js';
import { seedDemoData, SEED_IDS } from '../dist/api/store/seed.js';

// With DATABASE_URL the store is that PostgreSQL server (in a schema of its own, dropped after), else PGlite.
const schema = process.env.DATABASE_URL ? `bench_${process.pid}` : undefined;
const store = await createStore(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {},
);
await seedDemoData(store);
// With REDIS_URL the rate limiter counts in Redis, as a deployment that sets it does.
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL, { lazyConnect: false }) : undefined;
const rateLimitPrefix = `bench:${process.pid}:rate:`;
const jwtSecret = resolveJwtSecret({});
// Logging stays on (as in production) but goes nowhere, so the terminal does not set the pace.
const logger = pino({ level: 'info' }, pino.destination('/dev/null'));
// The limit is never reached: the bench measures what counting costs, not refusals.
const config = { ...API_DEFAULTS, rateLimitMax: 1e9 };
const deps = {
  store,
  config,
  logger,
  jwtSecret,
  health: createHealthState('ready'),
  rateLimitPrefix,
  ...(redis ? { redis } : {}),
};
const caller = { id: SEED_IDS.ada, role: 'user' };
const token = await createToken(caller, jwtSecret);

/** The floors: what each route's SQL costs through Express, with nothing else. */
const FLOOR_ROUTES = [
  {
    method: 'get',
    path: '/users/:user_id',
    handler: async (req, res) => res.json(await findUserRow({ store }, req.params.user_id)),
  },
  {
    method: 'get',
    path: '/users/:user_id/orders',
    handler: async (req, res) => {
      // The route's three statements: the user exists, a page of its orders, their items.
      const userId = req.params.user_id;
      await findUserRow({ store }, userId);
      const rows = await selectOrderRows(store, { after: '0', limit: config.pageSizeDefault }, { userId });
      const items = await selectItemsByOrder(
        store,
        rows.slice(0, config.pageSizeDefault).map((row) => row.id),
      );
      res.json({ rows, items: Object.fromEntries(items) });
    },
  },
  {
    method: 'post',
    path: '/orders',
    parse: express.json(),
    handler: async (req, res) => {
      const items = req.body.items.map((item) => ({
        productName: item.productName,
        quantity: item.quantity,
        unitPriceCents: toCents(item.unitPrice),
      }));
      res.status(201).json(await insertOrder(store, caller.id, items));
    },
  },
];

const routeSpec = (method, path) =>
  ROUTES.find((r) => r.method === method && r.path === path.replace(/:([a-z_]+)/g, '{$1}'));

/** Sets what the API's earlier middleware would have set, for the route handler's step. */
const asAuthenticated = (req, _res, next) => {
  req.caller = caller;
  req.id = 'bench';
  next();
};

/**
 * The per-step floors (BENCH_STEPS=1): the floor plus one piece of the API, each measured against the
 * floor alone, to tell what each piece costs. `before` is middleware in front of every route (the
 * API's own front middleware, one at a time); `route` is middleware in front of one route; `handler`
 * replaces the floor's handler with the API's own. Each is built only in the process that serves it.
 */
// A second floor, measured like a step: how far apart two identical servers measure is the noise.
const CONTROL_STEP = 'nothing (a second floor: the noise)';
const FRONT = frontMiddleware(deps);
const STEP_NAMES = [
  CONTROL_STEP,
  ...FRONT.map(([name]) => name),
  'auth',
  'query check',
  'route handler (validation, views, links)',
];
function stepOf(name) {
  if (name === CONTROL_STEP) return {};
  const front = FRONT.find(([frontName]) => frontName === name);
  if (front) return { before: [front[1]] };
  if (name === 'auth') return { route: () => [authenticate(jwtSecret)] };
  if (name === 'query check') return { route: (spec) => [rejectUnknownQuery(spec, config.pageSizeMax)] };
  return { handler: (spec) => [asAuthenticated, handleRoute(spec, deps)] };
}

function floorApp(step = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  for (const middleware of step.before ?? []) app.use(middleware);
  for (const floor of FLOOR_ROUTES) {
    const spec = routeSpec(floor.method, floor.path);
    const chain = [...(step.route?.(spec) ?? [])];
    if (floor.parse) chain.push(floor.parse);
    chain.push(...(step.handler?.(spec) ?? [floor.handler]));
    app[floor.method](floor.path, ...chain);
  }
  return app;
}

const role = process.argv[2] ?? 'api';
const app = role === 'api' ? createApp(deps) : role === 'floor' ? floorApp() : floorApp(stepOf(role));
const server = createServer(app);
server.keepAliveTimeout = API_DEFAULTS.keepAliveTimeoutMs;
let served = 0;
server.on('request', () => served++);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

process.send({
  url: `http://127.0.0.1:${server.address().port}`,
  steps: STEP_NAMES,
  token,
  userId: SEED_IDS.ada,
  store: store.kind,
  rateLimitStore: redis ? 'redis' : 'memory',
});

const stop = async () => {
  server.close();
  if (schema) await store.exec(`DROP SCHEMA ${schema} CASCADE`);
  await store.close();
  if (redis) {
    const keys = await redis.keys(`${rateLimitPrefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
  process.exit(0);
};
process.on('message', (message) => {
  if (message === 'stop') return void stop();
  if (message === 'sample') process.send({ cpu: process.cpuUsage(), served });
});
// Should the measuring process die, the servers must not linger.
process.on('disconnect', stop);
