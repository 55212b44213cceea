// `proxyops logs stats --json` (every statistic) against the on-call one-liner `gawk '{c[$9]++}'`, on
// the same generated log, alternating run by run. Per size: the log as one file (goals, issue 18:
// 200 MB >= 2x gawk's throughput, 1 GB >= 2.5x); from 512 MB on, the same log cut into 4 files at line
// starts (issue 29: no slower than the one file, within 1.1x; against `cat ... | gawk` for
// reference) and those 4 files gzipped as logrotate does (gzip -6; goal >= 2.5x `zcat ... | gawk`).
// Every case: exact counts, peak RSS < 150 MB. Exits 1 when a goal is missed or a count differs.
// Usage: node bench/logs-stats.mjs [--size 200MB,1GB] [--runs 5] [--dir DIR] [--clean]
//   --dir (or BENCH_LOG_DIR): where the generated logs go (default bench/.out/; kept unless --clean).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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
/** From this size on, the log is also read as 4 files and as 4 .gz files (issue 29). */
const MULTI_FROM = 512 * 1024 ** 2;
/** 4 gzipped files against `zcat | gawk`, and 4 plain files against the one file of the same bytes. */
const GZ_GOAL = 2.5;
const SAME_BYTES_GOAL = 1.1;

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

/** A shell pipeline, timed as one command (GNU time reports the peak RSS of the shell, not of the pipeline). */
const pipeline = (text) => ['sh', ['-c', text]];
const quote = (path) => `'${path.replace(/'/g, "'\\''")}'`;

/** Cuts `file` into `parts` files at line starts (same lines, same order), and gzips them (-6, as logrotate). */
function cutAndGzip(file, parts) {
  const names = Array.from({ length: parts }, (_, i) => `${file}.part${i + 1}.log`);
  if (names.every((name) => existsSync(name) && existsSync(`${name}.gz`))) return names;
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(64 * 1024);
  const cuts = [0];
  for (let i = 1; i < parts; i++) {
    const at = Math.floor((size * i) / parts);
    readSync(fd, buf, 0, buf.length, at);
    cuts.push(at + buf.indexOf(10) + 1);
  }
  cuts.push(size);
  closeSync(fd);
  names.forEach((name, i) => {
    const r = spawnSync('sh', [
      '-c',
      `tail -c +${cuts[i] + 1} ${quote(file)} | head -c ${cuts[i + 1] - cuts[i]} > ${quote(name)}`,
    ]);
    if (r.status !== 0) throw new Error(`cannot cut ${file}: ${r.stderr}`);
    const z = spawnSync('sh', ['-c', `gzip -6 -c ${quote(name)} > ${quote(name)}.gz`]);
    if (z.status !== 0) throw new Error(`cannot gzip ${name}: ${z.stderr}`);
  });
  return names;
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
  const parts = size >= MULTI_FROM ? cutAndGzip(file, 4) : [];
  const gz = parts.map((part) => `${part}.gz`);
  // Warm the page cache for every contestant.
  spawnSync('cat', [file, ...parts, ...gz], { stdio: ['ignore', 'ignore', 'inherit'] });
  const ours = (inputs) => [
    process.execPath,
    [cli, 'logs', 'stats', '--json', '--preset', 'proxyops', ...inputs],
  ];
  const awkProgram = '{c[$9]++} END {for (k in c) print k, c[k]}';
  const cases = [
    {
      name: 'one file',
      theirs: [awk, [awkProgram, file]],
      theirName: `${awk} '{c[$9]++}'`,
      ours: ours([file]),
      goal: GOALS.find((g) => size <= g.upTo).ratio,
    },
    ...(parts.length
      ? [
          {
            name: '4 files',
            theirs: pipeline(`cat ${parts.map(quote).join(' ')} | ${awk} '${awkProgram}'`),
            theirName: `cat 4 files | ${awk}`,
            ours: ours(parts),
            goal: null,
          },
          {
            name: '4 .gz files',
            theirs: pipeline(`zcat ${gz.map(quote).join(' ')} | ${awk} '${awkProgram}'`),
            theirName: `zcat 4 .gz | ${awk}`,
            ours: ours(gz),
            goal: GZ_GOAL,
            bytes: gz.reduce((sum, f) => sum + statSync(f).size, 0),
          },
        ]
      : []),
  ];
  const runsOf = cases.map(() => ({ theirs: [], ours: [], exact: true }));
  // Alternating, case after case within a round: drift in the machine's speed hits every case alike.
  for (let i = 0; i < runs; i++)
    cases.forEach((c, k) => {
      runsOf[k].theirs.push(measure(...c.theirs));
      const run = measure(...c.ours);
      runsOf[k].exact &&= exactCounts(JSON.parse(run.stdout), ref);
      runsOf[k].ours.push({ ...run, stdout: '' });
    });
  const row = (label, name, rs) => {
    const wall = median(rs.map((r) => r.wall));
    console.log(
      `logs-stats: ${label.padEnd(18)} ${name.padEnd(28)} ${wall.toFixed(2)} s (${spread(rs.map((r) => r.wall))})  ${(mb / wall).toFixed(0).padStart(5)} MB/s  cpu ${median(rs.map((r) => r.cpu)).toFixed(2)} s (${spread(rs.map((r) => r.cpu))})  peak RSS ${Math.max(...rs.map((r) => r.rssMb)).toFixed(0)} MB`,
    );
  };
  console.log(
    `logs-stats: ${mb.toFixed(0)} MB, ${ref.lines} lines, medians of ${runs}, load average now ${load()}`,
  );
  cases.forEach((c, k) => {
    const label = `${mb.toFixed(0)} MB ${c.name}`;
    const { theirs, ours: mine, exact } = runsOf[k];
    row(label, c.theirName, theirs);
    row(label, 'proxyops logs stats --json', mine);
    // Alternating runs: each of ours is judged against the run just before it.
    const ratios = mine.map((r, i) => theirs[i].wall / r.wall);
    const ratio = median(ratios);
    const rss = Math.max(...mine.map((r) => r.rssMb));
    const misses = [
      ...(c.goal === null || ratio >= c.goal ? [] : ['ratio']),
      ...(rss < RSS_GOAL_MB ? [] : ['peak RSS']),
      ...(exact ? [] : ['counts']),
    ];
    // The 4 files against the one file of the same bytes, run in the same rounds.
    const oneCost = c.name === '4 files' ? median(mine.map((r, i) => r.wall / runsOf[0].ours[i].wall)) : null;
    if (oneCost !== null && oneCost > SAME_BYTES_GOAL) misses.push('time against one file');
    if (misses.length) missed++;
    const of = c.bytes ? ` (${(c.bytes / 1e6).toFixed(0)} MB compressed)` : '';
    console.log(
      `logs-stats: ${label}${of} ratio ${ratio.toFixed(2)}x ${c.theirName}'s throughput (spread ${spread(ratios)}${c.goal === null ? ', no goal' : `; goal >= ${c.goal}x`})` +
        (oneCost === null
          ? ''
          : `, time ${oneCost.toFixed(2)}x the one file's (goal <= ${SAME_BYTES_GOAL}x)`) +
        `, peak RSS ${rss.toFixed(0)} MB (goal < ${RSS_GOAL_MB} MB), counts ${exact ? 'exact' : 'DIFFER FROM THE REFERENCE'}: ${misses.length ? `UNDER GOAL (${misses.join(', ')})` : 'OK'}`,
    );
  });
  if (clean) for (const f of [file, refFile, ...parts, ...gz]) rmSync(f, { force: true });
}
process.exitCode = missed ? 1 : 0;
