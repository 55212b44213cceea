// `proxyops config lint --json` on generated configs of 1 000, 10 000 and 20 000 locations, runs
// alternated so a slow phase of the machine hits every size alike. Goal (issue 17): linear time, i.e.
// the time per location at 20 000 within 1.5x of the time per location at 1 000. The time per
// location is the run's time minus the same command on the config with no locations (node start,
// module loading, the fixed part of the config), divided by the number of locations.
// Usage: node bench/lint-scale.mjs [--runs 5]
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
const files = new Map(
  SIZES.map((n) => {
    const file = `${outDir}lint-${n}.conf`;
    writeFileSync(file, generateLintConfig(n));
    return [n, file];
  }),
);

function lintOnce(n) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, 'config', 'lint', '--json', files.get(n)], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // Exit 1 means error-severity findings (the generated config has some, on purpose); anything
  // else, or output that is not a report, means lint did not run to the end.
  if (result.status !== 0 && result.status !== 1)
    throw new Error(`config lint (${n}) exited ${result.status}: ${result.stderr}`);
  const report = JSON.parse(result.stdout);
  return { ms, findings: report.findings.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const samples = new Map(SIZES.map((n) => [n, []]));
const findings = new Map();
for (const n of SIZES) lintOnce(n); // warm the page cache and the compile cache alike
for (let i = 0; i < runs; i++)
  for (const n of SIZES) {
    const { ms, findings: count } = lintOnce(n);
    samples.get(n).push(ms);
    findings.set(n, count);
  }

console.log(
  `lint-scale: ${availableParallelism()} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, median of ${runs} alternated runs each ${process.env.BENCH_NOTE ?? ''}`,
);
const base = median(samples.get(0));
const perLocation = new Map();
for (const n of SIZES) {
  const xs = samples.get(n);
  const m = median(xs);
  if (n > 0) perLocation.set(n, ((m - base) * 1000) / n);
  console.log(
    `lint-scale: ${String(n).padStart(6)} locations  ${m.toFixed(0).padStart(6)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})` +
      `  ${findings.get(n)} findings` +
      (n > 0 ? `  ${perLocation.get(n).toFixed(1).padStart(6)} µs/location above the empty config` : ''),
  );
}
const ratio = perLocation.get(20000) / perLocation.get(1000);
console.log(
  `lint-scale: per-location time 20 000 vs 1 000: ${ratio.toFixed(2)}x (goal <= ${GOAL}x) ${ratio <= GOAL ? 'OK' : 'OVER GOAL'}`,
);
if (!(ratio <= GOAL)) process.exit(1);
