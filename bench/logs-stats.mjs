// `proxyops logs stats --json` (every statistic) against the on-call one-liner `awk '{c[$9]++}'`, on the
// same generated file in the same run. Goal (issue 4): >= 2x awk's throughput, peak RSS < 200 MB.
// Usage: node bench/logs-stats.mjs [--size 200MB|1GB] [--runs 3]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateLogs } from './_logs-generate.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizeText = opt('--size', process.env.BENCH_LOG_SIZE ?? '200MB');
const runs = Number(opt('--runs', process.env.BENCH_RUNS ?? 3));
const m = /^(\d+(?:\.\d+)?)\s*(k|m|g)?b?$/i.exec(sizeText);
if (!m) throw new Error(`bad --size ${sizeText}`);
const size = Math.round(
  Number(m[1]) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1),
);

const outDir = fileURLToPath(new URL('./.out/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const file = `${outDir}logs-bench-${size}.log`;
const refFile = `${file}.ref.json`;
if (!existsSync(file) || !existsSync(refFile)) {
  console.log(`logs-stats: generating ${(size / 1e6).toFixed(0)} MB into ${file}`);
  writeFileSync(refFile, JSON.stringify(generateLogs(file, size, 1)));
}
const ref = JSON.parse(readFileSync(refFile, 'utf8'));
const bytes = statSync(file).size;
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const timeBin = '/usr/bin/time';
if (!existsSync(timeBin))
  throw new Error('needs GNU time at /usr/bin/time (apt-get install -y time) for peak RSS');

function measure(command, argv) {
  const result = spawnSync(timeBin, ['-f', '%e %M %U %S', command, ...argv], {
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${command} exited ${result.status}: ${result.stderr}`);
  const [wall, rssKb, user, sys] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, rssMb: rssKb / 1024, cpu: user + sys, stdout: result.stdout };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'inherit'] }); // warm the page cache for both
const awkRuns = [];
const ourRuns = [];
let last;
for (let i = 0; i < runs; i++) {
  awkRuns.push(measure('awk', ['{c[$9]++} END {for (k in c) print k, c[k]}', file]));
  ourRuns.push(
    (last = measure(process.execPath, [cli, 'logs', 'stats', '--json', '--preset', 'proxyops', file])),
  );
}
const awkWall = median(awkRuns.map((r) => r.wall));
const ourWall = median(ourRuns.map((r) => r.wall));
const ourRss = Math.max(...ourRuns.map((r) => r.rssMb));
const doc = JSON.parse(last.stdout);

const expected = Object.fromEntries(
  Object.entries(ref.status).map(([k, v]) => [String(k).padStart(3, '0'), v]),
);
const exact =
  doc.records === ref.records &&
  doc.malformed.count === ref.malformed &&
  doc.lines === ref.lines &&
  doc.proxyGenerated.total === ref.proxyGenerated &&
  doc.retriedRequests === ref.retried &&
  JSON.stringify(doc.status) === JSON.stringify(Object.fromEntries(Object.entries(expected).sort()));
const awkCounts = Object.fromEntries(
  awkRuns[0].stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .map(([k, v]) => [k, Number(v)]),
);
const awkWrong = Object.entries(awkCounts).filter(([k, v]) => expected[k] !== v).length;

const mb = bytes / 1e6;
const line = (name, wall, extra) =>
  console.log(
    `logs-stats: ${name.padEnd(34)} ${wall.toFixed(2)} s  ${(mb / wall).toFixed(0).padStart(5)} MB/s  ${(ref.lines / wall / 1e6).toFixed(2)} M lines/s  ${extra}`,
  );
console.log(
  `logs-stats: ${mb.toFixed(0)} MB, ${ref.lines} lines, median of ${runs} runs, ${process.env.BENCH_NOTE ?? ''}`,
);
line(
  "awk '{c[$9]++}'",
  awkWall,
  `peak RSS ${Math.max(...awkRuns.map((r) => r.rssMb)).toFixed(0)} MB, cpu ${median(awkRuns.map((r) => r.cpu)).toFixed(2)} s`,
);
line(
  'proxyops logs stats --json',
  ourWall,
  `peak RSS ${ourRss.toFixed(0)} MB, cpu ${median(ourRuns.map((r) => r.cpu)).toFixed(2)} s`,
);
console.log(
  `logs-stats: counts ${exact ? 'equal the reference exactly' : 'DIFFER FROM THE REFERENCE'}; awk got ${awkWrong} of its ${Object.keys(awkCounts).length} keys wrong or not statuses`,
);
const ratio = awkWall / ourWall;
console.log(
  `logs-stats: ratio ${ratio.toFixed(2)}x awk's throughput (goal >= 2x) ${ratio >= 2 ? 'OK' : 'UNDER GOAL'}; RSS ${ourRss.toFixed(0)} MB (goal < 200) ${ourRss < 200 ? 'OK' : 'OVER GOAL'}`,
);
if (!exact) process.exit(1);
