// The memory of `proxyops up` (the process that holds the embedded PGlite database) under writes:
// POST /orders through nginx for BENCH_UP_MINUTES minutes (default 10) at BENCH_RATE orders/s (default
// 300) on 4 keep-alive connections, never retried. Prints up's RSS each minute and its growth after
// the first minute; goal (issue 24): under 50 MB, with the database's data on disk under --dir.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './_local.mjs';
import { startLoad } from './_load.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const MINUTES = Number(process.env.BENCH_UP_MINUTES ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const GOAL_MB = 50;
const SAMPLE_MS = 5_000;
const env = { ...process.env, PROXYOPS_RATE_LIMIT: '10000000', DATABASE_URL: '' };

/** Resident set size of `pid` in MB (VmRSS of /proc/PID/status). */
const rssMb = (pid) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

const root = mkdtempSync(join(tmpdir(), 'proxyops-bench-up-memory-'));
chmodSync(root, 0o755);
const dir = join(root, 'stack');
const port = await freePort();
const up = spawn(
  process.execPath,
  [cli, 'up', '--dir', dir, '--port', String(port), '--instances', '2', '--rate-limit', '10000000'],
  {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let output = '';
up.stdout.on('data', (chunk) => (output += chunk));
try {
  for (let waited = 0; !output.includes('local stack is up'); waited += 100) {
    if (up.exitCode !== null || waited > 90_000) throw new Error(`proxyops up did not come up:\n${output}`);
    await sleep(100);
  }
  const token = spawnSync(
    process.execPath,
    [cli, 'api', 'token', '--user', '00000000-0000-4000-8000-000000000002'],
    { encoding: 'utf8' },
  ).stdout.trim();
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const order = () => JSON.stringify({ items: [{ productName: 'bench', quantity: 1, unitPrice: 1 }] });
  console.log(
    `up-memory: ${MINUTES} min of POST /orders at ${RATE}/s on 4 keep-alive connections through nginx (2 instances, embedded database in ${dir}/database)`,
  );
  console.log(`up-memory: minute 0  rss ${rssMb(up.pid).toFixed(0)} MB (up, before the writes)`);
  const load = startLoad(`http://127.0.0.1:${port}/orders`, headers, {
    rate: RATE,
    connections: 4,
    retry: false,
    body: order,
  });
  const started = performance.now();
  const samples = [];
  while (performance.now() - started < MINUTES * 60_000) {
    await sleep(SAMPLE_MS);
    const minute = (performance.now() - started) / 60_000;
    samples.push({ minute, rss: rssMb(up.pid) });
    if (Math.floor(minute) > Math.floor(samples.at(-2)?.minute ?? 0))
      console.log(`up-memory: minute ${Math.floor(minute)}  rss ${samples.at(-1).rss.toFixed(0)} MB`);
  }
  const result = await load.stop();
  const atOne = samples.find((s) => s.minute >= 1) ?? samples[0];
  const after = samples.filter((s) => s.minute >= atOne.minute);
  const peak = Math.max(...after.map((s) => s.rss));
  const growth = peak - atOne.rss;
  console.log(
    `up-memory: ${result.served} orders answered (${result.failed} failed: ${result.errors} no answer, ${result.non2xx} non-2xx); rss at minute 1 ${atOne.rss.toFixed(0)} MB, peak after ${peak.toFixed(0)} MB, at the end ${samples.at(-1).rss.toFixed(0)} MB`,
  );
  console.log(
    `up-memory: growth after the first minute ${growth.toFixed(1)} MB (goal < ${GOAL_MB} MB: ${growth < GOAL_MB ? 'OK' : 'OVER GOAL'})`,
  );
  process.exitCode = growth < GOAL_MB ? 0 : 1;
} finally {
  spawnSync(process.execPath, [cli, 'down', '--dir', dir], { env, stdio: 'ignore' });
  await new Promise((resolve) => (up.exitCode !== null ? resolve() : up.once('exit', resolve)));
  rmSync(root, { recursive: true, force: true });
}
