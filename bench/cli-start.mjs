// `proxyops --help` start-up time against a bare `node -e ''`, measured in the same run.
// Goal (issue 2): within 1.5x, so the CLI feels instant to someone on call.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(args) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}`);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

// Interleave warm-up so the page cache treats both alike.
time(['-e', '']);
time([cli, '--help']);
const bare = time(['-e', '']);
const help = time([cli, '--help']);
const ratio = help / bare;
console.log(
  `cli-start: node -e '' ${bare.toFixed(1)} ms, proxyops --help ${help.toFixed(1)} ms (median of ${RUNS})`,
);
console.log(`cli-start: ratio ${ratio.toFixed(2)}x (goal <= 1.5x) ${ratio <= 1.5 ? 'OK' : 'OVER GOAL'}`);
