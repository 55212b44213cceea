// `logs stats --host` over N hosts at once against N runs of `logs stats --host` over one host each.
// Each host is a network namespace with its own sshd and its own copy of a generated access log
// (bench/_logs-generate.mjs), made as the tests make them (test/support/ssh-hosts.ts, through
// bench/_hosts.mjs). Every host reads its log there and sends back only its state; the hosts are
// reached in parallel and the states merged here. Rounds alternate (one host at a time, then all) so
// drift hits both alike. Goal (issue 28): N hosts take under half of N × one host. On one machine the
// hosts share its cores, so the reading itself overlaps only as far as the cores allow: the ratio is
// an upper bound of what N real hosts give. Needs root (ip netns, sshd).
// BENCH_HOSTS (default 10), BENCH_ROUNDS (default 3), BENCH_LOG_SIZE (bytes per host, default 4 MB).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, startBenchHosts, timedRun } from './_hosts.mjs';
import { generateLogs } from './_logs-generate.mjs';

const N = Math.max(2, Number(process.env.BENCH_HOSTS ?? 10));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const SIZE = Math.max(1024, Number(process.env.BENCH_LOG_SIZE ?? 4 * 1024 * 1024));
const GOAL = 0.5;

const scratch = mkdtempSync(join(tmpdir(), 'proxyops-bench-hosts-logs-'));
const names = Array.from({ length: N }, (_, i) => `edge${i + 1}`);
const hosts = await startBenchHosts(scratch, names);
const env = { ...process.env, ...hosts.env };
const mp = hosts.host(names[0]).mountPoint;

/** `logs stats --json --host H…` over `targets`; the wall time in seconds, checked against the lines expected. */
async function stats(targets, lines) {
  const result = await timedRun(
    ['logs', 'stats', '--json', ...targets.flatMap((name) => ['--host', name]), `${mp}/logs/access.log`],
    env,
  );
  if (result.status !== 0) throw new Error(`logs stats --host failed: ${result.stderr}`);
  const read = JSON.parse(result.stdout).lines;
  if (read !== lines * targets.length)
    throw new Error(`logs stats --host read ${read} lines, not ${lines * targets.length}`);
  return result.seconds;
}

try {
  const log = join(scratch, 'access.log');
  const { lines } = generateLogs(log, SIZE, 7);
  for (const name of names) {
    mkdirSync(join(hosts.host(name).dir, 'logs'), { recursive: true, mode: 0o755 });
    copyFileSync(log, join(hosts.host(name).dir, 'logs', 'access.log'));
  }
  await stats(names, lines);
  const one = [];
  const all = [];
  for (let round = 0; round < ROUNDS; round++) {
    let sum = 0;
    for (const name of names) sum += await stats([name], lines);
    one.push(sum);
    all.push(await stats(names, lines));
  }
  const ratio = median(all) / median(one);
  console.log(
    `rounds: ${one.map((s, i) => `${N} x one host ${s.toFixed(2)} s, ${N} hosts ${all[i].toFixed(2)} s`).join('; ')}`,
  );
  console.log(
    `hosts-logs: logs stats over ${N} hosts (${(SIZE / 1e6).toFixed(1)} MB, ${lines} lines each) ${median(all).toFixed(2)} s ` +
      `against ${N} x one host ${median(one).toFixed(2)} s: ${ratio.toFixed(2)}x (goal < ${GOAL}x) ` +
      `${ratio < GOAL ? 'OK' : 'OVER GOAL'} (load average ${loadavg()[0].toFixed(2)})`,
  );
  if (ratio >= GOAL) process.exitCode = 1;
} finally {
  await hosts.teardown();
  rmSync(scratch, { recursive: true, force: true });
}
