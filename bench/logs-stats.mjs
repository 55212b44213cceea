// `proxyops logs stats --json` (every statistic) against the on-call one-liner `gawk '{c[$9]++}'`, on
// the same generated file, alternating run by run. Goals (issue 18): 200 MB >= 2x gawk's throughput,
// 1 GB >= 2.5x, exact counts, peak RSS < 150 MB. Exits 1 when a goal is missed or a count differs.
// Usage: node bench/logs-stats.mjs [--size 200MB,1GB] [--runs 5] [--dir DIR] [--clean]
//   --dir (or BENCH_LOG_DIR): where the generated logs go (default bench/.out/; kept unless --clean).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateLogs } from './_logs-generate.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = opt('--size', process.env.BENCH_LOG_SIZE ?? '200MB,1GB').split(',');
const runs = Number(opt('--runs', process.env.BENCH_RUNS ?? 5));
const outDir = opt(
  '--dir',
  process.env.BENCH_LOG_DIR ?? fileURLToPath(new URL('./.out/', import.meta.url)),
).replace(/\/?$/, '/');
const clean = args.includes('--clean');
/** Throughput goal against gawk per file size in bytes: the first whose size is at least the file's. */
const GOALS = [
  { upTo: 512 * 1024 ** 2, ratio: 2 },
  { upTo: Infinity, ratio: 2.5 },
];
const RSS_GOAL_MB = 150;

function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g)?b?$/i.exec(text);
  if (!m) throw new Error(`bad --size ${text}`);
  return Math.round(
    Number(m[1]) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1),
  );
}

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const timeBin = '/usr/bin/time';
if (!existsSync(timeBin))
  throw new Error('needs GNU time at /usr/bin/time (apt-get install -y time) for peak RSS');
const awk = spawnSync('gawk', ['--version']).status === 0 ? 'gawk' : 'awk';

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
const spread = (xs, digits = 2) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** True when the --json document has exactly the generator's reference counts. */
function exactCounts(doc, ref) {
  const expected = Object.fromEntries(
    Object.entries(ref.status)
      .map(([k, v]) => [String(k).padStart(3, '0'), v])
      .sort(),
  );
  return (
    doc.records === ref.records &&
    doc.malformed.count === ref.malformed &&
    doc.lines === ref.lines &&
    doc.proxyGenerated.total === ref.proxyGenerated &&
    doc.retriedRequests === ref.retried &&
    JSON.stringify(doc.status) === JSON.stringify(expected)
  );
}

console.log(
  `logs-stats: ${availableParallelism()} cores, node ${process.version}, ${awk}, ${runs} alternating runs per size, load average ${load()}`,
);
mkdirSync(outDir, { recursive: true });
let missed = 0;
for (const sizeText of sizes) {
  const size = parseSize(sizeText);
  const file = `${outDir}logs-bench-${size}.log`;
  const refFile = `${file}.ref.json`;
  if (!existsSync(file) || !existsSync(refFile)) {
    console.log(`logs-stats: generating ${(size / 1e6).toFixed(0)} MB into ${file}`);
    writeFileSync(refFile, JSON.stringify(generateLogs(file, size, 1)));
  }
  const ref = JSON.parse(readFileSync(refFile, 'utf8'));
  const mb = statSync(file).size / 1e6;
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'inherit'] }); // warm the page cache for both
  const awkRuns = [];
  const ourRuns = [];
  let exact = true;
  for (let i = 0; i < runs; i++) {
    awkRuns.push(measure(awk, ['{c[$9]++} END {for (k in c) print k, c[k]}', file]));
    const ours = measure(process.execPath, [cli, 'logs', 'stats', '--json', '--preset', 'proxyops', file]);
    exact &&= exactCounts(JSON.parse(ours.stdout), ref);
    ourRuns.push({ ...ours, stdout: '' });
  }
  // Alternating runs: each of ours is judged against the gawk run just before it.
  const ratios = ourRuns.map((r, i) => awkRuns[i].wall / r.wall);
  const ratio = median(ratios);
  const rss = Math.max(...ourRuns.map((r) => r.rssMb));
  const goal = GOALS.find((g) => size <= g.upTo).ratio;
  const row = (name, rs) => {
    const wall = median(rs.map((r) => r.wall));
    console.log(
      `logs-stats: ${mb.toFixed(0)} MB ${name.padEnd(28)} ${wall.toFixed(2)} s (${spread(rs.map((r) => r.wall))})  ${(mb / wall).toFixed(0).padStart(5)} MB/s  cpu ${median(rs.map((r) => r.cpu)).toFixed(2)} s (${spread(rs.map((r) => r.cpu))})  peak RSS ${Math.max(...rs.map((r) => r.rssMb)).toFixed(0)} MB`,
    );
  };
  console.log(
    `logs-stats: ${mb.toFixed(0)} MB, ${ref.lines} lines, medians of ${runs}, load average now ${load()}`,
  );
  row(`${awk} '{c[$9]++}'`, awkRuns);
  row('proxyops logs stats --json', ourRuns);
  const misses = [
    ...(ratio >= goal ? [] : ['ratio']),
    ...(rss < RSS_GOAL_MB ? [] : ['peak RSS']),
    ...(exact ? [] : ['counts']),
  ];
  if (misses.length) missed++;
  console.log(
    `logs-stats: ${mb.toFixed(0)} MB ratio ${ratio.toFixed(2)}x ${awk}'s throughput (spread ${spread(ratios)}; goal >= ${goal}x), peak RSS ${rss.toFixed(0)} MB (goal < ${RSS_GOAL_MB} MB), counts ${exact ? 'exact' : 'DIFFER FROM THE REFERENCE'}: ${misses.length ? `UNDER GOAL (${misses.join(', ')})` : 'OK'}`,
  );
  if (clean) {
    rmSync(file, { force: true });
    rmSync(refFile, { force: true });
  }
}
process.exitCode = missed ? 1 : 0;
