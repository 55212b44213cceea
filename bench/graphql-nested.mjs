// The nested GraphQL query of issue 5 at first: 10, 100 and 1000 users:
//   users(first: N) { orders(last: 5) { items { productName } user { name } } }
// prints store queries per request (response extension `storeQueries`) and latency. The baseline is
// the same query at first: 10, measured in the same run: the query count must stay flat (ratio 1.00)
// while latency grows with the data returned. Runs on the built dist/ (npm run bench:graphql builds
// first); BENCH_RUNS sets requests per size. Embedded PGlite unless DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { pino } from 'pino';
import { createToken, resolveJwtSecret } from '../dist/api/auth/tokens.js';
import { API_DEFAULTS } from '../dist/api/defaults.js';
import { createHealthState } from '../dist/api/health/health-state.js';
import { createApp } from '../dist/api/http/app.js';
import { createStore } from '../dist/api/store/create-store.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SIZES = [10, 100, 1000];
const USERS = 1000;
const ORDERS_PER_USER = 6;

function post(url, token, body) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const schema = process.env.DATABASE_URL ? `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}` : undefined;
const store = await createStore(
  process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {},
);
try {
  await store.query(
    `INSERT INTO users (name, email) SELECT 'User ' || g, 'user-' || g || '@example.com' FROM generate_series(1, $1) g`,
    [USERS],
  );
  await store.query(
    `INSERT INTO orders (user_id, total_price_cents) SELECT u.id, 1000 FROM users u, generate_series(1, $1)`,
    [ORDERS_PER_USER],
  );
  await store.query(
    `INSERT INTO order_items (order_id, position, product_name, quantity, unit_price_cents)
     SELECT o.id, p, 'Item ' || p, 1, 500 FROM orders o, generate_series(1, 2) p`,
  );
  const config = {
    ...API_DEFAULTS,
    port: 0,
    pageSizeMax: 1000,
    graphqlCostLimit: 10_000_000,
    rateLimitMax: 1e9,
  };
  const secret = resolveJwtSecret({});
  const app = createApp({
    store,
    config,
    logger: pino({ level: 'silent' }),
    jwtSecret: secret,
    health: createHealthState('ready'),
  });
  const server = createServer(app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/graphql`;
  const token = await createToken({ id: randomUUID(), role: 'admin' }, secret);

  const results = [];
  for (const first of SIZES) {
    const query = `{ users(first: ${first}) { orders(last: 5) { items { productName } user { name } } } }`;
    await post(url, token, { query }); // warm-up
    const times = [];
    const counts = new Set();
    for (let i = 0; i < RUNS; i++) {
      const started = process.hrtime.bigint();
      const body = await post(url, token, { query });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (body.errors) throw new Error(`first: ${first}: ${JSON.stringify(body.errors[0])}`);
      if (body.data.users.length !== first)
        throw new Error(`first: ${first}: ${body.data.users.length} users`);
      counts.add(body.extensions.storeQueries);
    }
    results.push({ first, queries: [...counts], p50: median(times) });
  }
  server.close();

  const [baseline] = results;
  console.log(
    `graphql-nested: ${availableParallelism()} cores, node ${process.version}, store ${store.kind}, ${RUNS} requests per size`,
  );
  for (const r of results)
    console.log(
      `graphql-nested: first ${String(r.first).padStart(4)}: store queries/request ${r.queries.join(',')}, ` +
        `p50 ${r.p50.toFixed(1)} ms (median of ${RUNS}); queries ratio to first 10: ` +
        `${(Math.max(...r.queries) / Math.max(...baseline.queries)).toFixed(2)}x`,
    );
  const flat = results.every((r) => r.queries.length === 1 && r.queries[0] === baseline.queries[0]);
  console.log(
    `graphql-nested: store query count ${flat ? 'FLAT' : 'NOT FLAT'} in list size (goal: flat) ${flat ? 'OK' : 'goal missed'}`,
  );
  process.exitCode = flat ? 0 : 1;
} finally {
  await store.close();
  if (schema) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
