// The servers of bench/api-latency.mjs, in a child process of their own so the load generator does not
// share their event loop, and so this process's CPU time is the servers' alone. It serves the API and
// its floor (and, with BENCH_STEPS=1, the floor plus one piece of the API at a time), each on its own
// port, all over one store, and answers the parent's `sample` message with its CPU time and the
// requests each server has received: the parent divides the one by the other.
import { createServer } from 'node:http';
import express from 'express';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createToken, resolveJwtSecret } from '../dist/api/auth/tokens.js';
import { API_DEFAULTS } from '../dist/api/defaults.js';
import { createGraphqlRouter } from '../dist/api/graphql/http/graphql-router.js';
import { createHealthRouter } from '../dist/api/health/health-routes.js';
import { createHealthState } from '../dist/api/health/health-state.js';
import { createApp } from '../dist/api/http/app.js';
import { authenticate } from '../dist/api/http/authenticate.js';
import { createHttpLogger } from '../dist/api/http/logging.js';
import { markResponse, redirectTrailingSlash, requireAcceptableJson } from '../dist/api/http/protocol.js';
import { rejectUnknownQuery } from '../dist/api/http/query-names.js';
import { createRateLimit } from '../dist/api/http/rate-limit.js';
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

/** Sets what the API's earlier middleware would have set, for a step that reads it. */
const asAuthenticated = (req, _res, next) => {
  req.caller = caller;
  req.id = 'bench';
  req.log = logger;
  next();
};

/**
 * The per-step floors (BENCH_STEPS=1): the floor plus one piece of the API, each measured against the
 * floor alone, to tell what each piece costs. `before` is middleware in front of every route; `route`
 * is middleware in front of one route; `handler` replaces the floor's handler with the API's own.
 */
const STEPS = {
  'mark response': { before: [markResponse] },
  'access log': { before: [createHttpLogger(logger)] },
  'trailing-slash check': { before: [redirectTrailingSlash(config)] },
  'graphql router': { before: [createGraphqlRouter(deps)] },
  'accept check': { before: [requireAcceptableJson] },
  'health router': { before: [createHealthRouter({ state: deps.health, store })] },
  'rate limit': {
    before: [
      createRateLimit({
        max: config.rateLimitMax,
        windowMs: config.rateLimitWindowMs,
        redisTimeoutMs: config.redisTimeoutMs,
        logger,
        prefix: `${rateLimitPrefix}step:`,
        ...(redis ? { redis } : {}),
      }),
    ],
  },
  auth: { route: () => [authenticate(jwtSecret)] },
  'query check': { route: (spec) => [rejectUnknownQuery(spec, config.pageSizeMax)] },
  'route handler (validation, views, links)': {
    handler: (spec) => [asAuthenticated, handleRoute(spec, deps)],
  },
};

function floorApp(step = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  for (const middleware of step.before ?? []) app.use(middleware);
  for (const floor of FLOOR_ROUTES) {
    const spec = routeSpec(floor.method, floor.path);
    const chain = [...(step.route?.(spec) ?? [])];
    if (step.handler) {
      if (floor.parse) chain.push(floor.parse);
      chain.push(...step.handler(spec));
    } else {
      if (floor.parse) chain.push(floor.parse);
      chain.push(floor.handler);
    }
    app[floor.method](floor.path, ...chain);
  }
  return app;
}

const served = {};
async function listen(name, handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = API_DEFAULTS.keepAliveTimeoutMs;
  served[name] = 0;
  server.on('request', () => served[name]++);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

const servers = { floor: await listen('floor', floorApp()), api: await listen('api', createApp(deps)) };
if (process.env.BENCH_STEPS === '1')
  for (const [name, step] of Object.entries(STEPS)) servers[name] = await listen(name, floorApp(step));

process.send({
  urls: Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, s.url])),
  token,
  userId: SEED_IDS.ada,
  store: store.kind,
  rateLimitStore: redis ? 'redis' : 'memory',
});

const stop = async () => {
  for (const { server } of Object.values(servers)) server.close();
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
  if (message === 'sample') process.send({ cpu: process.cpuUsage(), served: { ...served } });
});
// Should the measuring process die, the servers must not linger.
process.on('disconnect', stop);
