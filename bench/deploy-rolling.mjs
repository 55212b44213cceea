// A rolling deploy of 2 API instances through nginx under constant load (`proxyops up` + `proxyops
// deploy`), next to the same load for the same time without a deploy, measured in the same run.
// Prints requests served, failed requests (no answer or non-2xx) and p99 latency of each; goal
// (issue 6): zero failed requests during the deploy.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLoad } from './_load.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const RATE = Number(process.env.BENCH_RATE ?? 200);
const env = { ...process.env, PROXYOPS_RATE_LIMIT: '10000000' };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const root = mkdtempSync(join(tmpdir(), 'proxyops-bench-deploy-'));
chmodSync(root, 0o755);
const dir = join(root, 'stack');
const port = await freePort();
const up = spawn(
  process.execPath,
  [cli, 'up', '--dir', dir, '--port', String(port), '--instances', '2'].concat([
    '--health-interval',
    '0.5',
    '--health-threshold',
    '2',
    '--drain-margin',
    '0.5',
    '--watch',
    '1.5',
  ]),
  { env, stdio: ['ignore', 'pipe', 'inherit'] },
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
    [cli, 'api', 'token', '--user', '00000000-0000-4000-8000-000000000001', '--role', 'admin'],
    { encoding: 'utf8' },
  ).stdout.trim();
  const url = `http://127.0.0.1:${port}/users/00000000-0000-4000-8000-000000000002`;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

  // The deploy first, so the run without a deploy can last exactly as long.
  const during = startLoad(url, headers, { rate: RATE });
  const started = performance.now();
  // Run asynchronously: the load shares this event loop.
  const deploy = await new Promise((resolve) =>
    execFile(process.execPath, [cli, 'deploy', '--dir', dir, '--json'], { env }, (error, stdout, stderr) =>
      resolve({ status: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
  const deployMs = performance.now() - started;
  const withDeploy = await during.stop();
  if (deploy.status !== 0)
    throw new Error(`deploy exited ${deploy.status}:\n${deploy.stdout}${deploy.stderr}`);
  const drains = deploy.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'drain');

  const quiet = startLoad(url, headers, { rate: RATE });
  await sleep(deployMs);
  const without = await quiet.stop();

  const row = (name, r) =>
    `deploy-rolling: ${name.padEnd(14)} served ${String(r.served).padStart(5)}  failed ${r.failed} (no answer ${r.errors}, non-2xx ${r.non2xx})  retried ${r.retried}  p99 ${r.p99.toFixed(1)} ms`;
  console.log(
    `deploy-rolling: ${RATE} req/s over 4 keep-alive connections for ${(deployMs / 1000).toFixed(1)} s each`,
  );
  console.log(row('no deploy', without));
  console.log(row('during deploy', withDeploy));
  console.log(
    `deploy-rolling: drain measured ${drains.map((d) => `${d.measuredMs} ms`).join(', ')} (computed ${drains[0]?.computedMs} ms)`,
  );
  console.log(
    `deploy-rolling: p99 ratio ${(withDeploy.p99 / without.p99).toFixed(2)}x; failed during deploy ${withDeploy.failed} (goal 0) ${withDeploy.failed === 0 ? 'OK' : 'OVER GOAL'}`,
  );
  process.exitCode = withDeploy.failed === 0 ? 0 : 1;
} finally {
  spawnSync(process.execPath, [cli, 'down', '--dir', dir], { env, stdio: 'ignore' });
  await new Promise((resolve) => (up.exitCode !== null ? resolve() : up.once('exit', resolve)));
  rmSync(root, { recursive: true, force: true });
}
