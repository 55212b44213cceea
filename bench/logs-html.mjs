// What `--html` adds to `proxyops logs stats`: the same run on the same generated file with and
// without `--html report.html`, alternating run by run (which goes first alternates too). Goal (issue
// 30): the run that writes the report takes no more than 5 % longer, the report stays under 1 MB.
// The goal is judged on CPU time (user + system, from GNU time): on a shared machine a run's wall time
// varies by more than the 5 % measured. Both are printed. Exits 1 when a goal is missed.
// Usage: node bench/logs-html.mjs [--size 1GB] [--runs 5] [--dir DIR] [--clean]
//   --dir (or BENCH_LOG_DIR): where the generated log goes (default bench/.out/, shared with logs-stats).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateLogs } from './_logs-generate.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = opt('--size', process.env.BENCH_LOG_SIZE ?? '1GB').split(',');
const runs = Number(opt('--runs', process.env.BENCH_RUNS ?? 5));
const outDir = opt(
  '--dir',
  process.env.BENCH_LOG_DIR ?? fileURLToPath(new URL('./.out/', import.meta.url)),
).replace(/\/?$/, '/');
const clean = args.includes('--clean');
const GOAL_RATIO = 1.05;
const GOAL_BYTES = 1_000_000;

function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g)?b?$/i.exec(text);
  if (!m) throw new Error(`bad --size ${text}`);
  return Math.round(
    Number(m[1]) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1),
  );
}

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}`;

const timeBin = '/usr/bin/time';
if (!existsSync(timeBin)) throw new Error('needs GNU time at /usr/bin/time (apt-get install -y time)');

/** Wall and CPU seconds of one run; the table goes nowhere. */
function timeRun(argv) {
  const result = spawnSync(
    timeBin,
    ['-f', '%e %U %S', process.execPath, cli, 'logs', 'stats', '--preset', 'proxyops', ...argv],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`logs stats exited ${result.status}: ${result.stderr}`);
  const [wall, user, sys] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: user + sys };
}

console.log(
  `logs-html: ${availableParallelism()} cores, node ${process.version}, ${runs} alternating pairs per size, load average ${load()}`,
);
mkdirSync(outDir, { recursive: true });
let missed = 0;
for (const sizeText of sizes) {
  const size = parseSize(sizeText);
  const file = `${outDir}logs-bench-${size}.log`;
  if (!existsSync(file) || !existsSync(`${file}.ref.json`)) {
    console.log(`logs-html: generating ${(size / 1e6).toFixed(0)} MB into ${file}`);
    writeFileSync(`${file}.ref.json`, JSON.stringify(generateLogs(file, size, 1)));
  }
  const report = `${outDir}logs-html-report.html`;
  const mb = statSync(file).size / 1e6;
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'inherit'] }); // warm the page cache for both
  const plain = [];
  const html = [];
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ['plain', 'html'] : ['html', 'plain'];
    for (const which of order) {
      if (which === 'plain') plain.push(timeRun([file]));
      else html.push(timeRun([file, '--html', report]));
    }
  }
  // Each run with --html is judged against the run without it of the same pair.
  const ratios = html.map((h, i) => h.cpu / plain[i].cpu);
  const wallRatios = html.map((h, i) => h.wall / plain[i].wall);
  const ratio = median(ratios);
  const bytes = statSync(report).size;
  const row = (name, rs) =>
    console.log(
      `logs-html: ${mb.toFixed(0)} MB ${name.padEnd(14)} cpu ${median(rs.map((r) => r.cpu)).toFixed(3)} s (${spread(rs.map((r) => r.cpu))})  wall ${median(rs.map((r) => r.wall)).toFixed(3)} s (${spread(rs.map((r) => r.wall))})`,
    );
  row('without --html', plain);
  row('with --html', html);
  console.log(
    `logs-html: wall time ratio ${median(wallRatios).toFixed(3)}x (spread ${spread(wallRatios)}), load average now ${load()}`,
  );
  const misses = [...(ratio <= GOAL_RATIO ? [] : ['ratio']), ...(bytes < GOAL_BYTES ? [] : ['report size'])];
  if (misses.length) missed++;
  console.log(
    `logs-html: ${mb.toFixed(0)} MB --html run ${ratio.toFixed(3)}x the CPU time of the run without (spread ${spread(ratios)}; goal <= ${GOAL_RATIO}x), report ${(bytes / 1024).toFixed(0)} KiB (goal < 1 MB): ${misses.length ? `OVER GOAL (${misses.join(', ')})` : 'OK'}`,
  );
  rmSync(report, { force: true });
  if (clean) {
    rmSync(file, { force: true });
    rmSync(`${file}.ref.json`, { force: true });
  }
}
process.exitCode = missed ? 1 : 0;
