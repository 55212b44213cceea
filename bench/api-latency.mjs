// Each API endpoint against its own floor: the same Express 5 and the same store running the same SQL
// statements the route runs, with nothing else (no auth, access log, rate limit, validation or links).
// Goal (issue 18): each endpoint within 1.2x of its floor. Floor and API run alternately (floor, api,
// floor, api, ...) for BENCH_RUNS pairs; each pair gives a ratio, and the goal is judged on the median.
//
// The cost is the server process's CPU time per request (process.cpuUsage() in the server child over
// the requests it received in that run): on a machine whose few cores the load generator and
// PostgreSQL share with the server, req/s and latency mostly measure who got the cores; CPU time per
// request measures the server's own work. req/s and p50 ratios are printed beside it.
//
// Runs on the built dist/ (npm run bench:api builds first). DATABASE_URL: a PostgreSQL server instead of
// PGlite; REDIS_URL: rate-limit counters in Redis. BENCH_RUNS (5), BENCH_SECONDS (4), BENCH_CONNECTIONS
// (10) tune it; BENCH_ONLY=NAMES
// (comma-separated, as printed) measures only those endpoints. BENCH_STEPS=1 also measures the floor plus one piece of the API at a time (see
// _api-servers.mjs), to tell what each piece costs.
import { fork } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const STEPS = process.env.BENCH_STEPS === '1';
const GOAL = 1.2;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Starts one server (see _api-servers.mjs) in a child process of its own. */
async function startServer(role) {
  const child = fork(fileURLToPath(new URL('./_api-servers.mjs', import.meta.url)), [role], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the ${role} server exited early (${code})`)));
  });
  const sample = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('sample');
    });
  const stop = async () => {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return { ...ready, sample, stop };
}

const servers = { floor: await startServer('floor'), api: await startServer('api') };
const ready = servers.api;

// autocannon's own histogram has whole-millisecond buckets, too coarse on loopback; each response's
// time (fractional ms) is collected instead.
function load(options) {
  return new Promise((resolve, reject) => {
    const samples = [];
    const instance = autocannon(
      { duration: SECONDS, connections: CONNECTIONS, ...options },
      (error, result) => {
        if (error) return reject(error);
        const failed = result.non2xx + result.errors + result.timeouts;
        if (failed > 0)
          return reject(new Error(`${options.url}: ${failed} failed of ${result.requests.total}`));
        samples.sort((a, b) => a - b);
        resolve({ rps: result.requests.average, p50: percentile(samples, 50) });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => samples.push(responseTime));
  });
}

/** One run against one server: req/s, p50, and the server's CPU microseconds per request received. */
async function measure(name, endpoint, duration) {
  const server = servers[name];
  const before = await server.sample();
  const result = await load({ ...endpoint.request(server.url), ...(duration ? { duration } : {}) });
  const after = await server.sample();
  const cpu = after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system;
  const requests = after.served - before.served;
  return { ...result, cpuPerRequest: cpu / requests };
}

const auth = { authorization: `Bearer ${ready.token}` };
const order = JSON.stringify({ items: [{ productName: 'Bench widget', quantity: 2, unitPrice: 4.25 }] });
// Floor and API get byte-identical requests (token included), so parsing them costs both the same.
const ALL_ENDPOINTS = [
  {
    name: 'GET /users/{id}',
    request: (url) => ({ url: `${url}/users/${ready.userId}`, headers: auth }),
  },
  {
    name: 'GET /users/{id}/orders',
    request: (url) => ({ url: `${url}/users/${ready.userId}/orders`, headers: auth }),
  },
  {
    name: 'POST /orders',
    request: (url) => ({
      url: `${url}/orders`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: order,
    }),
  },
];

// BENCH_ONLY='POST /orders' (names, comma-separated) measures only those endpoints.
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const ENDPOINTS = ALL_ENDPOINTS.filter((e) => !only || only.includes(e.name));

/** Alternating runs of `floor` and `other`; each pair is a ratio (other / floor). */
async function pairs(endpoint, other, runs) {
  const ratios = [];
  for (let i = 0; i < runs; i++) {
    const floor = await measure('floor', endpoint);
    const measured = await measure(other, endpoint);
    ratios.push({
      cpu: measured.cpuPerRequest / floor.cpuPerRequest,
      rps: floor.rps / measured.rps,
      p50: measured.p50 / floor.p50,
      floorCpu: floor.cpuPerRequest,
      otherCpu: measured.cpuPerRequest,
      floorRps: floor.rps,
      otherRps: measured.rps,
    });
  }
  const of = (key) => ratios.map((r) => r[key]);
  return {
    cpu: median(of('cpu')),
    min: Math.min(...of('cpu')),
    max: Math.max(...of('cpu')),
    rps: median(of('rps')),
    p50: median(of('p50')),
    floorCpu: median(of('floorCpu')),
    otherCpu: median(of('otherCpu')),
    floorRps: median(of('floorRps')),
    otherRps: median(of('otherRps')),
  };
}

/** Warms a server up on every endpoint, so JIT and connection set-up are not measured. */
async function warmUp(name) {
  for (const endpoint of ENDPOINTS) await measure(name, endpoint, 1);
}
for (const name of Object.keys(servers)) await warmUp(name);

const x = (n) => `${n.toFixed(2)}x`;
console.log(
  `api-latency: ${availableParallelism()} cores, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}, node ${process.version}, store ${ready.store}, rate limit ${ready.rateLimitStore}; ` +
    `${RUNS} alternating floor/api pairs of ${SECONDS} s at ${CONNECTIONS} connections`,
);
console.log(
  'endpoint                  cpu µs/req floor   api   ratio (spread)        req/s floor   api  ratio  p50 ratio',
);
const results = [];
for (const endpoint of ENDPOINTS) {
  const r = await pairs(endpoint, 'api', RUNS);
  results.push({ endpoint, r });
  console.log(
    `${endpoint.name.padEnd(26)} ${r.floorCpu.toFixed(0).padStart(15)} ${r.otherCpu.toFixed(0).padStart(5)}   ${x(r.cpu)} (${x(r.min)}–${x(r.max)})   ${r.floorRps
      .toFixed(0)
      .padStart(11)} ${r.otherRps.toFixed(0).padStart(5)}  ${x(r.rps)}  ${x(r.p50)}`,
  );
}

if (STEPS) {
  console.log('\nper-step floors: the floor plus one piece of the API (CPU per request, median, spread)');
  // One step server at a time: each holds a pool of database connections.
  for (const step of ready.steps) {
    servers[step] = await startServer(step);
    await warmUp(step);
    for (const endpoint of ENDPOINTS) {
      const r = await pairs(endpoint, step, RUNS);
      const extra = r.otherCpu - r.floorCpu;
      console.log(
        `  ${endpoint.name.padEnd(24)} + ${step.padEnd(42)} ${x(r.cpu)} (${x(r.min)}–${x(r.max)})  ${extra >= 0 ? '+' : ''}${extra.toFixed(0)} µs/req`,
      );
    }
    await servers[step].stop();
    delete servers[step];
  }
}

let missed = false;
for (const { endpoint, r } of results) {
  const ok = r.cpu <= GOAL;
  missed ||= !ok;
  console.log(
    `api-latency: ${endpoint.name} ${x(r.cpu)} its floor's CPU per request (median of ${RUNS}, spread ${x(r.min)}–${x(r.max)}; ` +
      `req/s ${x(r.rps)}, p50 ${x(r.p50)}; ${ready.store}, ${availableParallelism()} cores) (goal <= ${GOAL}x) ${ok ? 'OK' : 'OVER GOAL'}`,
  );
}

for (const server of Object.values(servers)) await server.stop();
process.exit(missed ? 1 : 0);
