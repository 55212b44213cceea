// The thin API against an Express hello-world, both on loopback, measured in the same run with
// autocannon: GET one user and POST one order. Goal (issue 2): the API's p50 within 2x of hello-world.
// Runs on the built dist/ (npm run bench:api builds first). BENCH_SECONDS / BENCH_CONNECTIONS tune it.
// The goal is judged at BENCH_CONNECTIONS (default 10); one-connection figures are printed beside it.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import { pino } from 'pino';
import { createToken, resolveJwtSecret } from '../dist/api/auth/tokens.js';
import { API_DEFAULTS } from '../dist/api/defaults.js';
import { createHealthState } from '../dist/api/health/health-state.js';
import { createApp } from '../dist/api/http/app.js';
import { createStore } from '../dist/api/store/create-store.js';
import { insertOrder } from '../dist/api/resources/order-queries.js';
import { seedDemoData, SEED_IDS } from '../dist/api/store/seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const GOAL = 2;

async function listen(handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = API_DEFAULTS.keepAliveTimeoutMs;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}` };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// autocannon's own histogram has whole-millisecond buckets, too coarse for a hello-world on
// loopback; each response's time (hrtime, fractional ms) is collected instead.
function run(title, options) {
  return new Promise((resolve, reject) => {
    const samples = [];
    const instance = autocannon(
      { duration: SECONDS, connections: CONNECTIONS, ...options, title },
      (error, result) => {
        if (error) return reject(error);
        const failed = result.non2xx + result.errors + result.timeouts;
        if (failed > 0)
          return reject(new Error(`${title}: ${failed} failed requests of ${result.requests.total}`));
        samples.sort((a, b) => a - b);
        resolve({
          title,
          rps: result.requests.average,
          p50: percentile(samples, 50),
          p99: percentile(samples, 99),
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => samples.push(responseTime));
  });
}

// The servers run in a child process, so the load generator does not share their event loop.
if (process.argv[2] === 'serve') {
  await serve();
} else {
  await measure();
}

async function serve() {
  const hello = express();
  hello.disable('x-powered-by');
  hello.get('/hello', (_req, res) => res.json({ hello: 'world' }));

  // With DATABASE_URL the API runs on that PostgreSQL server (in its own schema, dropped after), else PGlite.
  const schema = process.env.DATABASE_URL ? `bench_${process.pid}` : undefined;
  const store = await createStore(
    process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL, schema } : {},
  );
  await seedDemoData(store);
  // The floors: Express and the same store doing the same lookup, and the same insert, with nothing
  // else (no auth, logging, rate limit, validation or links). The API cannot beat them, so they show
  // what the goal leaves for the rest.
  hello.get('/floor/:id', async (req, res) => {
    const rows = await store.query('SELECT * FROM users WHERE id = $1', [req.params.id]);
    res.json(rows[0]);
  });
  hello.post('/floor/orders', express.json(), async (req, res) => {
    const items = req.body.items.map((item) => ({
      productName: item.productName,
      quantity: item.quantity,
      unitPriceCents: Math.round(item.unitPrice * 100),
    }));
    res.status(201).json(await insertOrder(store, SEED_IDS.ada, items));
  });
  const jwtSecret = resolveJwtSecret({});
  // Logging stays on (as in production) but goes nowhere, so the terminal does not set the pace.
  const logger = pino({ level: 'info' }, pino.destination('/dev/null'));
  const api = createApp({
    store,
    config: { ...API_DEFAULTS, rateLimitMax: 1e9 },
    logger,
    jwtSecret,
    health: createHealthState('ready'),
  });
  const token = await createToken({ id: SEED_IDS.ada, role: 'user' }, jwtSecret);

  const helloServer = await listen(hello);
  const apiServer = await listen(api);
  process.send({ hello: helloServer.url, api: apiServer.url, token, store: store.kind });
  const stop = async () => {
    helloServer.server.close();
    apiServer.server.close();
    if (schema) await store.exec(`DROP SCHEMA ${schema} CASCADE`);
    await store.close();
    process.exit(0);
  };
  process.on('message', stop);
  // Should the measuring process die, the servers must not linger.
  process.on('disconnect', stop);
}

async function measure() {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], { stdio: 'inherit' });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the servers exited early (${code})`)));
  });
  const helloServer = { url: ready.hello };
  const apiServer = { url: ready.api };
  const auth = { authorization: `Bearer ${ready.token}` };
  const order = JSON.stringify({ items: [{ productName: 'Bench widget', quantity: 2, unitPrice: 4.25 }] });

  // Warm up both, so JIT and connection set-up are not measured.
  await run('warm-up', { url: `${helloServer.url}/hello`, duration: 1 });
  await run('warm-up', { url: `${apiServer.url}/users/${SEED_IDS.ada}`, headers: auth, duration: 1 });

  const scenarios = (connections) => [
    () => run('hello-world GET /hello', { url: `${helloServer.url}/hello`, connections }),
    () => run('floor GET /floor/{id}', { url: `${helloServer.url}/floor/${SEED_IDS.ada}`, connections }),
    () =>
      run('api GET /users/{id}', {
        url: `${apiServer.url}/users/${SEED_IDS.ada}`,
        headers: auth,
        connections,
      }),
    () =>
      run('floor POST /floor/orders', {
        url: `${helloServer.url}/floor/orders`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: order,
        connections,
      }),
    () =>
      run('api POST /orders', {
        url: `${apiServer.url}/orders`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: order,
        connections,
      }),
  ];
  const measureAt = async (connections) => {
    const results = [];
    for (const scenario of scenarios(connections)) results.push(await scenario());
    return results;
  };

  // Loaded (the goal): CONNECTIONS at once, so p50 includes queueing behind the other
  // connections and the ratio is mostly one of throughput. Unloaded: one connection, one request at
  // a time, so p50 is the cost of a single request (the database round trip included).
  const loaded = await measureAt(CONNECTIONS);
  const unloaded = CONNECTIONS === 1 ? loaded : await measureAt(1);

  console.log(`api-latency: ${SECONDS} s per scenario, loopback, store ${ready.store}`);
  const ratios = (results) => results.map((r) => r.p50 / Math.max(results[0].p50, 0.001));
  for (const [label, results] of [
    [`loaded, ${CONNECTIONS} connections`, loaded],
    ['unloaded, 1 connection', unloaded],
  ]) {
    if (label.startsWith('unloaded') && results === loaded) continue;
    console.log(`${label}:`);
    console.log('scenario                    req/s      p50 ms   p99 ms   p50 ratio');
    ratios(results).forEach((ratio, i) => {
      const r = results[i];
      console.log(
        `${r.title.padEnd(26)} ${r.rps.toFixed(0).padStart(7)} ${r.p50.toFixed(2).padStart(9)} ${r.p99
          .toFixed(2)
          .padStart(8)} ${ratio.toFixed(2).padStart(8)}x`,
      );
    });
  }
  const loadedRatios = ratios(loaded);
  const unloadedRatios = ratios(unloaded);
  loaded.forEach((r, index) => {
    if (index === 0) return;
    const ratio = loadedRatios[index];
    const verdict = r.title.startsWith('api ')
      ? ` (goal <= ${GOAL}x) ${ratio <= GOAL ? 'OK' : 'OVER GOAL'}`
      : '';
    console.log(
      `api-latency: ${r.title} p50 ratio ${ratio.toFixed(2)}x at ${CONNECTIONS} connections${verdict}; unloaded ${unloadedRatios[index].toFixed(2)}x`,
    );
  });

  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
}
