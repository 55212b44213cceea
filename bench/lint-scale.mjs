// `proxyops config lint --json` on generated configs of 1 000, 10 000 and 20 000 locations, runs
// alternated so a slow phase of the machine hits every size alike. Goal (issue 17): linear time, i.e.
// the time per location at 20 000 within 1.5x of the time per location at 1 000. The time per
// location is the run's time minus the same command on the config with no locations (node start,
// module loading, the fixed part of the config), divided by the number of locations; the goal is
// judged on CPU time (user + system, GNU time), wall time is shown beside it.
// Usage: node bench/lint-scale.mjs [--runs 5]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateLintConfig } from './_lint-generate.mjs';

const args = process.argv.slice(2);
const runs = Number(
  args.includes('--runs') ? args[args.indexOf('--runs') + 1] : (process.env.BENCH_RUNS ?? 5),
);
const SIZES = [0, 1000, 10000, 20000];
const GOAL = 1.5;

const outDir = fileURLToPath(new URL('./.out/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const timing = `${outDir}lint-time.txt`;
const files = new Map(
  SIZES.map((n) => {
    const file = `${outDir}lint-${n}.conf`;
    writeFileSync(file, generateLintConfig(n));
    return [n, file];
  }),
);

const timeBin = '/usr/bin/time';
if (!existsSync(timeBin))
  throw new Error('needs GNU time at /usr/bin/time (apt-get install -y time) for CPU time');

function lintOnce(n) {
  const result = spawnSync(
    timeBin,
    ['-f', '%e %U %S', '-o', timing, process.execPath, cli, 'config', 'lint', '--json', files.get(n)],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  // Exit 1 means error-severity findings (the generated config has some, on purpose); anything
  // else, or output that is not a report, means lint did not run to the end.
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`config lint (${n}) exited ${result.status}: ${result.stderr}`);
  const report = JSON.parse(result.stdout);
  const [wall, user, sys] = readFileSync(timing, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { wallMs: wall * 1000, cpuMs: (user + sys) * 1000, findings: report.findings.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = new Map(SIZES.map((n) => [n, { wall: [], cpu: [] }]));
const findings = new Map();
for (const n of SIZES) lintOnce(n); // warm the page cache and the compile cache alike
for (let i = 0; i < runs; i++)
  for (const n of SIZES) {
    const { wallMs, cpuMs, findings: count } = lintOnce(n);
    samples.get(n).wall.push(wallMs);
    samples.get(n).cpu.push(cpuMs);
    findings.set(n, count);
  }

console.log(
  `lint-scale: ${availableParallelism()} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, median of ${runs} alternated runs each ${process.env.BENCH_NOTE ?? ''}`,
);
const spread = (xs) =>
  `${median(xs).toFixed(0).padStart(6)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
const perLocation = (kind, n) => ((median(samples.get(n)[kind]) - median(samples.get(0)[kind])) * 1000) / n;
for (const n of SIZES) {
  const { wall, cpu } = samples.get(n);
  console.log(
    `lint-scale: ${String(n).padStart(6)} locations  wall ${spread(wall)}  cpu ${spread(cpu)}  ${findings.get(n)} findings` +
      (n > 0
        ? `  per location above the empty config: wall ${perLocation('wall', n).toFixed(1)} µs, cpu ${perLocation('cpu', n).toFixed(1)} µs`
        : ''),
  );
}
// Judged on CPU time: on a shared machine wall time also measures the other jobs' load.
const ratio = perLocation('cpu', 20000) / perLocation('cpu', 1000);
const wallRatio = perLocation('wall', 20000) / perLocation('wall', 1000);
const warmRatio = perLocation('cpu', 20000) / perLocation('cpu', 10000);
console.log(
  `lint-scale: per-location time 20 000 vs 1 000: cpu ${ratio.toFixed(2)}x (goal <= ${GOAL}x) ${ratio <= GOAL ? 'OK' : 'OVER GOAL'}; wall ${wallRatio.toFixed(2)}x; cpu 20 000 vs 10 000 ${warmRatio.toFixed(2)}x`,
);
if (!(ratio <= GOAL)) process.exit(1);
