// Do the deploy gates cry wolf? Under a steady load that never retries (GET and POST on keep-alive
// connections through nginx, `proxyops up` with 2 instances behind slots), N deploys of the unchanged
// version (goal: none rolled back), then M deploys of a bad version (goal: all rolled back): half made
// 3x slower (`--env PROXYOPS_TEST_DELAY_MS`, twice the median request time nginx logged before, with a
// median of 30 ms at least: the gate counts medians under 10 ms as 10 ms),
// half answering 5 % 500s (`--env PROXYOPS_TEST_ERROR_PERMILLE=50`). The gates are the defaults
// (4xx +5 points, latency 2.5x with the Mann-Whitney test) and `up --max-5xx-increase 0.02`.
// Counts: BENCH_GATES_GOOD (30) and BENCH_GATES_BAD (10). Prints both counts and each rollback's reason.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './_local.mjs';
import { startLoad } from './_load.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const GOOD = Number(process.env.BENCH_GATES_GOOD ?? 30);
const BAD = Number(process.env.BENCH_GATES_BAD ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const env = { ...process.env, PROXYOPS_RATE_LIMIT: '10000000' };

const run = (args) =>
  new Promise((resolve) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ status: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** Median of nginx's request times ($request_time, ms) over the last `count` lines of the access log. */
function loggedMedianMs(accessLog, count) {
  const lines = readFileSync(accessLog, 'utf8').trimEnd().split('\n').slice(-count);
  const times = lines
    .map((line) => /\brt=([\d.]+)/.exec(line)?.[1])
    .filter(Boolean)
    .map((s) => Number(s) * 1000)
    .sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** One deploy; returns whether it was rolled back and why (the abort event's reason). */
async function deploy(dir, extra) {
  const result = await run(['deploy', '--dir', dir, '--json', ...extra]);
  const events = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const abort = events.find((e) => e.type === 'abort');
  if (result.status !== 0 && !abort)
    throw new Error(`deploy exited ${result.status} without an abort:\n${result.stderr}`);
  return { rolledBack: result.status !== 0, reason: abort?.reason ?? '' };
}

const root = mkdtempSync(join(tmpdir(), 'proxyops-bench-gates-'));
chmodSync(root, 0o755);
const dir = join(root, 'stack');
const port = await freePort();
const up = spawn(
  process.execPath,
  [cli, 'up', '--dir', dir, '--port', String(port), '--instances', '2', '--watch', '3'].concat(
    ['--rate-limit', '10000000', '--max-5xx-increase', '0.02'],
    ['--health-interval', '0.5', '--health-threshold', '2', '--drain-margin', '0.5'],
  ),
  { env, stdio: ['ignore', 'pipe', 'inherit'] },
);
let output = '';
up.stdout.on('data', (chunk) => (output += chunk));
const started = performance.now();
try {
  for (let waited = 0; !output.includes('local stack is up'); waited += 100) {
    if (up.exitCode !== null || waited > 90_000) throw new Error(`proxyops up did not come up:\n${output}`);
    await sleep(100);
  }
  const token = spawnSync(
    process.execPath,
    [cli, 'api', 'token', '--user', '00000000-0000-4000-8000-000000000001', '--role', 'admin'],
    { encoding: 'utf8' },
  ).stdout.trim();
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const base = `http://127.0.0.1:${port}`;
  const order = () => JSON.stringify({ items: [{ productName: 'bench', quantity: 1, unitPrice: 1 }] });
  const loads = [
    startLoad(`${base}/users/00000000-0000-4000-8000-000000000002`, headers, {
      rate: RATE,
      connections: 4,
      retry: false,
    }),
    startLoad(`${base}/orders`, headers, { rate: RATE / 2, connections: 2, retry: false, body: order }),
  ];
  await sleep(5000);
  const good = [];
  for (let i = 0; i < GOOD; i++) {
    good.push(await deploy(dir, []));
    process.stderr.write(
      `deploy-gates: unchanged ${i + 1}/${GOOD}: ${good.at(-1).rolledBack ? `rolled back: ${good.at(-1).reason}` : 'deployed'}\n`,
    );
  }
  // Twice the median of the last 1000 requests added to every answer: the bad version's median is three
  // times it. The gate counts medians under 10 ms as 10 ms (a few ms are no regression worth a rollback),
  // so on a fast stack the bad version's median is made 30 ms at least: three times that floor.
  const baselineMs = loggedMedianMs(join(dir, 'logs', 'access.log'), 1000);
  const delayMs = Math.max(1, Math.round(2 * baselineMs), Math.round(30 - baselineMs));
  const bad = [];
  for (let i = 0; i < BAD; i++) {
    const slow = i % 2 === 0;
    const env = slow ? `PROXYOPS_TEST_DELAY_MS=${delayMs}` : 'PROXYOPS_TEST_ERROR_PERMILLE=50';
    bad.push({ kind: slow ? '3x slower' : '5 % 500s', ...(await deploy(dir, ['--env', env])) });
    process.stderr.write(
      `deploy-gates: bad ${i + 1}/${BAD} (${bad.at(-1).kind}): ${bad.at(-1).rolledBack ? `rolled back: ${bad.at(-1).reason}` : 'DEPLOYED'}\n`,
    );
  }
  const [get, post] = await Promise.all(loads.map((load) => load.stop()));
  const goodBack = good.filter((d) => d.rolledBack);
  const badBack = bad.filter((d) => d.rolledBack);
  console.log(
    `deploy-gates: GET ${RATE} req/s on 4 and POST ${RATE / 2} req/s on 2 keep-alive connections, never retried; median request time before the bad deploys ${baselineMs.toFixed(0)} ms (nginx log), slow version +${delayMs} ms; ${((performance.now() - started) / 60_000).toFixed(1)} min`,
  );
  console.log(
    `deploy-gates: load: GET served ${get.served}, no answer ${get.errors}, non-2xx ${get.non2xx}; POST served ${post.served}, no answer ${post.errors}, non-2xx ${post.non2xx} (the bad versions' answers before their rollback included)`,
  );
  for (const d of goodBack) console.log(`deploy-gates: unchanged version rolled back: ${d.reason}`);
  for (const d of bad.filter((d) => !d.rolledBack))
    console.log(`deploy-gates: bad version deployed (${d.kind})`);
  for (const kind of ['3x slower', '5 % 500s']) {
    const of = bad.filter((d) => d.kind === kind);
    if (of.length > 0)
      console.log(
        `deploy-gates: ${kind}: ${of.filter((d) => d.rolledBack).length} of ${of.length} rolled back, e.g. ${of.find((d) => d.rolledBack)?.reason ?? '-'}`,
      );
  }
  const ok = goodBack.length === 0 && badBack.length === bad.length;
  console.log(
    `deploy-gates: unchanged version rolled back ${goodBack.length} of ${GOOD} (goal 0), bad version rolled back ${badBack.length} of ${BAD} (goal ${BAD}): ${ok ? 'OK' : 'goal missed'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  spawnSync(process.execPath, [cli, 'down', '--dir', dir], { env, stdio: 'ignore' });
  await new Promise((resolve) => (up.exitCode !== null ? resolve() : up.once('exit', resolve)));
  rmSync(root, { recursive: true, force: true });
}
