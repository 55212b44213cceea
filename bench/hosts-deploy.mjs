// `deploy` of one upstream whose instances run on N app hosts, all at once (`--batch 100%`), against N
// deploys of one app host each, one after the other. Each host is a network namespace with its own
// sshd, made as the tests make them (test/support/ssh-hosts.ts, compiled here with esbuild); one nginx
// host fronts them. Every instance has a blue/green pair (the alternate path: no nginx change), and
// the lifecycle hooks start and stop a small app on its host over ssh. Needs root (ip netns, sshd).
// BENCH_HOSTS (default 10). Goal (issue 28): N hosts take under half of N × one host.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const N = Math.max(2, Number(process.env.BENCH_HOSTS ?? 10));
const GOAL = 0.5;
const [A, B] = [4101, 4102];
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const support = fileURLToPath(new URL('../test/support/ssh-hosts.ts', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'proxyops-bench-hosts-deploy-'));
const compiled = join(scratch, 'ssh-hosts.mjs');
writeFileSync(
  compiled,
  (await transform(readFileSync(support, 'utf8'), { loader: 'ts', format: 'esm' })).code,
);
const { startTestHosts } = await import(compiled);

// The app: 200 everywhere; on SIGTERM it closes its listener first (a blue/green hand-over) and exits.
const app = join(scratch, 'app.mjs');
writeFileSync(
  app,
  `import { createServer } from 'node:http';
const server = createServer((req, res) => res.end('ok')).listen(Number(process.argv[3]), process.argv[2]);
process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeIdleConnections(); });
`,
);
const script = join(scratch, 'app.sh');
writeFileSync(
  script,
  `#!/bin/sh
case "$1" in
start) setsid ${process.execPath} ${app} "$2" "$3" >> "$4/app-$3.log" 2>&1 < /dev/null & echo $! > "$4/app-$3.pid" ;;
stop) kill -TERM "$(cat "$4/app-$3.pid")" ;;
esac
`,
);
chmodSync(script, 0o755);

const apps = Array.from({ length: N }, (_, i) => `app${i + 1}`);
const hosts = await startTestHosts(['web1', ...apps], { trusted: true, routed: true, cli });
const env = { ...process.env, ...hosts.env };
const mp = hosts.host('web1').mountPoint;
const hook = (action) => [script, action, '{host}', '{port}', `${mp}/apps`];

const run = (args) =>
  new Promise((resolve) =>
    execFile(process.execPath, [cli, ...args], { env }, (error, stdout, stderr) =>
      resolve({ status: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

/** A spec for the app hosts `names`, each serving on `from` with `to` as its alternate; nginx on web1 with its own target. */
function writeSpec(name, names, from, to) {
  const spec = {
    version: 1,
    paths: { pidFile: `${mp}/run/nginx.pid`, tempDir: `${mp}/temp` },
    workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
    accessLog: { path: `${mp}/logs/access.log`, buffer: null, flush: null },
    errorLog: { path: `${mp}/logs/error.log` },
    upstreams: {
      app: {
        servers: names.map((ssh) => ({
          host: hosts.host(ssh).address,
          port: from,
          alternate: to,
          ssh,
          maxFails: 1,
          failTimeout: 1,
        })),
        healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
        deploy: { watch: 1, readyTimeout: 30, stopTimeout: 10, start: hook('start'), stop: hook('stop') },
      },
    },
    servers: [
      {
        names: ['localhost'],
        listen: [{ port: 8080, defaultServer: true }],
        routes: [{ path: '/', upstream: 'app' }],
      },
    ],
    proxies: [{ ssh: 'web1', target: `${mp}/${name}` }],
  };
  const path = join(scratch, `${name}.json`);
  writeFileSync(path, JSON.stringify(spec));
  return path;
}

/** Runs one deploy; returns its wall time in seconds. */
async function deploy(spec, ...flags) {
  const started = process.hrtime.bigint();
  // Readiness only: this times the rounds and sends no traffic, so the watch would have nothing to judge.
  const watch = ['--watch', 'readiness-only'];
  const result = await run(['deploy', '--spec', spec, '--dir', join(scratch, 'here'), ...watch, ...flags]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`deploy failed: ${result.stdout}\n${result.stderr}`);
  return seconds;
}

try {
  for (const name of ['web1', ...apps])
    for (const sub of ['run', 'logs', 'temp', 'apps'])
      mkdirSync(join(hosts.host(name).dir, sub), { recursive: true, mode: 0o755 });
  for (const name of apps)
    hosts.exec(name, [script, 'start', hosts.host(name).address, String(A), `${mp}/apps`]);
  const applied = await run(['config', 'apply', '--spec', writeSpec('etc', apps, A, B)]);
  if (applied.status !== 0) throw new Error(`config apply failed: ${applied.stderr}`);
  hosts.exec('web1', ['nginx', '-c', `${mp}/etc/current/nginx.conf`]);
  // All at once: every instance from A to B. Then each host alone, from B back to A.
  const all = await deploy(writeSpec('etc-all', apps, A, B), '--batch', '100%');
  let one = 0;
  for (const name of apps) one += await deploy(writeSpec(`etc-${name}`, [name], B, A));
  const ratio = all / one;
  console.log(
    `hosts-deploy: one deploy to ${N} app hosts (--batch 100%) ${all.toFixed(2)} s against ${N} x one host ${one.toFixed(2)} s: ` +
      `${ratio.toFixed(2)}x (goal < ${GOAL}x) ${ratio < GOAL ? 'OK' : 'OVER GOAL'}`,
  );
  if (ratio >= GOAL) process.exitCode = 1;
} finally {
  await hosts.teardown();
  rmSync(scratch, { recursive: true, force: true });
}
