// `config apply` of one change to N nginx hosts over ssh, against the same kind of change applied to
// one host at a time, N times. Each host is a network namespace with its own sshd and nginx, made as
// the tests make them (test/support/ssh-hosts.ts, through bench/_hosts.mjs). A change reaches the
// hosts in parallel for what can overlap (ssh connection, version check, upload, lint and nginx -t) and
// switches them in turn (swap, reload, new workers confirmed). Rounds alternate (one host at a time,
// then all) so drift hits both alike. Goal (issue 28): N hosts take under half of N × one host.
// Needs root (ip netns, sshd). BENCH_HOSTS (default 10), BENCH_ROUNDS (default 3).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, startBenchHosts, timedRun } from './_hosts.mjs';

const N = Math.max(2, Number(process.env.BENCH_HOSTS ?? 10));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const GOAL = 0.5;

const scratch = mkdtempSync(join(tmpdir(), 'proxyops-bench-hosts-'));
const names = Array.from({ length: N }, (_, i) => `edge${i + 1}`);
const hosts = await startBenchHosts(scratch, names);
const env = { ...process.env, ...hosts.env };
const mp = hosts.host(names[0]).mountPoint;
let specs = 0;

/** Applies a spec answering with `layer` to `targets`; returns the wall time in seconds. */
async function apply(layer, targets) {
  const spec = {
    version: 1,
    layerName: layer,
    paths: { pidFile: `${mp}/run/nginx.pid`, tempDir: `${mp}/temp` },
    workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
    accessLog: { path: `${mp}/logs/access.log`, buffer: null },
    errorLog: { path: `${mp}/logs/error.log` },
    upstreams: { app: { servers: [{ host: '127.0.0.1', port: 9 }] } },
    servers: [
      {
        names: ['localhost'],
        listen: [{ port: 8080, defaultServer: true }],
        routes: [{ path: '/', upstream: 'app' }],
      },
    ],
    proxies: targets.map((ssh) => ({ ssh, target: `${mp}/etc` })),
  };
  const path = join(scratch, `spec-${++specs}.json`);
  writeFileSync(path, JSON.stringify(spec));
  const result = await timedRun(['config', 'apply', '--spec', path], env);
  if (result.status !== 0) throw new Error(`config apply failed: ${result.stderr}`);
  return result.seconds;
}

try {
  for (const name of names)
    for (const sub of ['run', 'logs', 'temp'])
      mkdirSync(join(hosts.host(name).dir, sub), { recursive: true, mode: 0o755 });
  await apply('first', names);
  for (const name of names) hosts.exec(name, ['nginx', '-c', `${mp}/etc/current/nginx.conf`]);
  const one = [];
  const all = [];
  for (let round = 0; round < ROUNDS; round++) {
    let sum = 0;
    for (const name of names) sum += await apply(`one-${round}`, [name]);
    one.push(sum);
    all.push(await apply(`all-${round}`, names));
  }
  const ratio = median(all) / median(one);
  console.log(
    `rounds: ${one.map((s, i) => `${N} x one host ${s.toFixed(2)} s, ${N} hosts ${all[i].toFixed(2)} s`).join('; ')}`,
  );
  console.log(
    `hosts-apply: one change to ${N} hosts ${median(all).toFixed(2)} s against ${N} x one host ${median(one).toFixed(2)} s: ` +
      `${ratio.toFixed(2)}x (goal < ${GOAL}x) ${ratio < GOAL ? 'OK' : 'OVER GOAL'}`,
  );
  if (ratio >= GOAL) process.exitCode = 1;
} finally {
  await hosts.teardown();
  rmSync(scratch, { recursive: true, force: true });
}
