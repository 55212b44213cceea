// `proxyops logs stats --follow` on a log receiving 5 000 lines a second, run twice at once on the same
// log: plain, and with --metrics-listen scraped every 5 s (as a Prometheus would, more often than its
// default 15 s). Samples each follower's RSS and CPU from /proc. Goals (issue 27): RSS flat over the
// run (the last quarter's median within 10 % or 10 MB of the first quarter's), the metrics follower's
// CPU at most 2x the plain one's, and both count every line written. The log is rotated (moved, then
// a new file) every minute, as logrotate would, and moved files are deleted once read.
// Usage: node bench/logs-follow.mjs   (env BENCH_FOLLOW_SECONDS, default 600; BENCH_FOLLOW_RATE, default 5000)
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { generateLogs } from './_logs-generate.mjs';

const seconds = Number(process.env.BENCH_FOLLOW_SECONDS ?? 600);
const rate = Number(process.env.BENCH_FOLLOW_RATE ?? 5000);
const CPU_GOAL = 2;
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'proxyops-bench-follow-'));
const log = join(dir, 'access.log');
/** Clock ticks per second of /proc/PID/stat's CPU times. */
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

// Realistic lines from the logs bench's generator (statuses, retries, 499s, malformed lines).
generateLogs(join(dir, 'pool.log'), 4 * 1024 * 1024, 27);
const pool = readFileSync(join(dir, 'pool.log'), 'latin1').split('\n').filter(Boolean);
writeFileSync(log, '');

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function follower(extra) {
  const child = spawn(
    process.execPath,
    [cli, 'logs', 'stats', '--follow', log, '--preset', 'proxyops', '--json', '--interval', '10s', ...extra],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let last = '';
  let partial = '';
  child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop();
    if (lines.length) last = lines.at(-1);
  });
  const exited = new Promise((resolve) => child.on('exit', () => resolve(last || partial)));
  return { child, samples: [], exited };
}

function sample(f) {
  const stat = readFileSync(`/proc/${f.child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) / TICK;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${f.child.pid}/status`, 'utf8'))[1]) / 1024;
  f.samples.push({ at: performance.now() / 1000, cpu, rss });
}

const metricsPort = await freePort();
const plain = follower([]);
const metrics = follower(['--metrics-listen', `127.0.0.1:${metricsPort}`]);
await sleep(2000); // both hold the file before the first line

let written = 0;
let scrapes = 0;
const started = performance.now();
const end = started + seconds * 1000;
let nextRotation = started + 60_000;
let next = started;
let lastSample = 0;
const scraper = setInterval(() => {
  fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    .then((r) => r.text())
    .then(() => scrapes++)
    .catch(() => undefined);
}, 5000);
while (performance.now() < end) {
  // 100 ms batches: a busy nginx writes its buffer in pieces, not line by line.
  const batch = rate / 10;
  let text = '';
  for (let i = 0; i < batch; i++) text += pool[(written + i) % pool.length] + '\n';
  appendFileSync(log, text, 'latin1');
  written += batch;
  if (performance.now() >= nextRotation) {
    const moved = `${log}.${written}`;
    renameSync(log, moved);
    writeFileSync(log, '');
    setTimeout(() => rmSync(moved, { force: true }), 15_000);
    nextRotation += 60_000;
  }
  if (performance.now() - lastSample >= 5000) {
    sample(plain);
    sample(metrics);
    lastSample = performance.now();
  }
  next += 100;
  await sleep(Math.max(0, next - performance.now()));
}
clearInterval(scraper);
await sleep(8000); // the followers read what is left (a moved file is drained once idle 6 s)
sample(plain);
sample(metrics);
const served = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
const metricsLines = Number(/^proxyops_log_lines_total (\d+)/m.exec(served)?.[1]);
plain.child.kill('SIGINT');
metrics.child.kill('SIGINT');
const [plainLast, metricsLast] = await Promise.all([plain.exited, metrics.exited]);
rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function report(name, f, lines) {
  const s = f.samples;
  // CPU share after the first sample (start-up and JIT warm-up are not the steady cost).
  const cpuShare = (s.at(-1).cpu - s[0].cpu) / (s.at(-1).at - s[0].at);
  const quarter = Math.max(1, Math.floor(s.length / 4));
  const first = median(s.slice(0, quarter).map((x) => x.rss));
  const last = median(s.slice(-quarter).map((x) => x.rss));
  const flat = last - first <= Math.max(10, first * 0.1);
  console.log(
    `${name.padEnd(26)} CPU ${(cpuShare * 100).toFixed(2)} % of one core, RSS first quarter ${first.toFixed(1)} MB, ` +
      `last quarter ${last.toFixed(1)} MB, peak ${Math.max(...s.map((x) => x.rss)).toFixed(1)} MB ` +
      `(${flat ? 'flat' : 'NOT FLAT'}); lines counted ${lines} of ${written}${lines === written ? '' : ' (DIFFER)'}`,
  );
  return cpuShare;
}

console.log(
  `logs stats --follow, ${rate} lines/s for ${seconds} s (${written} lines, rotated every 60 s; ` +
    `${availableParallelism()} cores, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
);
const plainCpu = report('plain --follow', plain, JSON.parse(plainLast).lines);
const metricsCpu = report(
  '--metrics-listen (scraped)',
  metrics,
  Math.min(JSON.parse(metricsLast).lines, metricsLines),
);
const ratio = metricsCpu / plainCpu;
console.log(
  `metrics cost: ${ratio.toFixed(2)}x the plain follow's CPU over ${scrapes} scrapes (goal <= ${CPU_GOAL}x)` +
    (ratio <= CPU_GOAL ? '' : ' OVER GOAL'),
);
const failed =
  ratio > CPU_GOAL ||
  [plain, metrics].some((f) => {
    const s = f.samples;
    const q = Math.max(1, Math.floor(s.length / 4));
    const a = median(s.slice(0, q).map((x) => x.rss));
    return median(s.slice(-q).map((x) => x.rss)) - a > Math.max(10, a * 0.1);
  }) ||
  JSON.parse(plainLast).lines !== written ||
  metricsLines !== written;
process.exit(failed ? 1 : 0);
