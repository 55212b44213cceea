// The fixed cost of a CLI run, against a bare `node -e ''` measured in the same run: `proxyops --help`,
// every subcommand's `--help`, and `logs stats` of a one-line log (what every `--fail-if` check in a
// pipeline pays). Runs alternate (bare, then each command, BENCH_RUNS rounds) so drift hits all alike.
// Goals (issue 29, raised from issue 18's 1.25x and 1.5x): each --help within 1.15x of bare node, the one-line
// `logs stats` within 1.3x.
// Exits 1 when a goal is missed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// 31 rounds: on the 2-core VM single pairs spread 0.75-1.8x, and the median of 15 still moved by +-0.1x.
const RUNS = Math.max(5, Number(process.env.BENCH_RUNS ?? 31));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'proxyops-bench-cli-'));
const oneLine = join(dir, 'access.log');
writeFileSync(
  oneLine,
  '203.0.113.7 - - [25/Nov/2026:08:00:00 +0000] "GET /orders?page=2 HTTP/1.1" 200 612 "-" "curl/8.5.0"\n',
);

const HELP_GOAL = 1.15;
const STATS_GOAL = 1.3;
// The program, every command and group, and every subcommand of a group.
const subcommands = [
  [],
  ['api'],
  ['api', 'openapi'],
  ['api', 'token'],
  ['api', 'graphql-manifest'],
  ['cert'],
  ['cert', 'check'],
  ['config'],
  ['config', 'render'],
  ['config', 'validate'],
  ['config', 'diff'],
  ['config', 'apply'],
  ['config', 'history'],
  ['config', 'rollback'],
  ['config', 'lint'],
  ['deploy'],
  ['diagnose'],
  ['logs'],
  ['logs', 'stats'],
  ['logs', 'rotate'],
  ['up'],
  ['down'],
];
const cases = [
  ...subcommands.map((words) => ({
    name: `proxyops ${[...words, '--help'].join(' ')}`,
    args: [cli, ...words, '--help'],
    goal: HELP_GOAL,
  })),
  { name: 'proxyops logs stats (one line)', args: [cli, 'logs', 'stats', oneLine], goal: STATS_GOAL },
];

function once(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// One warm-up round so the page cache treats every file alike, then the counted rounds. Each command's
// time is divided by the bare start measured just before it, and the ratios' median is the figure.
once(['-e', '']);
for (const c of cases) once(c.args);
const bare = [];
const ratios = new Map(cases.map((c) => [c.name, []]));
const times = new Map(cases.map((c) => [c.name, []]));
for (let round = 0; round < RUNS; round++) {
  for (const c of cases) {
    const base = once(['-e', '']);
    const took = once(c.args);
    bare.push(base);
    times.get(c.name).push(took);
    ratios.get(c.name).push(took / base);
  }
}
rmSync(dir, { recursive: true, force: true });

console.log(
  `cli-start: ${availableParallelism()} cores, node ${process.version}, ${RUNS} alternating rounds; node -e '' median ${median(bare).toFixed(1)} ms`,
);
console.log(
  "cli-start: ms is each command's median time; ratio is the median of its per-pair ratios (each run against the bare start just before it)",
);
let missed = 0;
for (const c of cases) {
  const r = ratios.get(c.name);
  const ratio = median(r);
  const ok = ratio <= c.goal;
  if (!ok) missed++;
  console.log(
    `cli-start: ${c.name.padEnd(36)} ${median(times.get(c.name)).toFixed(1).padStart(6)} ms  ratio ${ratio.toFixed(2)}x (spread ${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)}; goal <= ${c.goal}x) ${ok ? 'OK' : 'OVER GOAL'}`,
  );
}
process.exitCode = missed ? 1 : 0;
