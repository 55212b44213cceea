// Runs every benchmark in bench/ (one scenario per file), one after another, on the built dist/, then
// prints every goal line again (each bench prints its ratio against its goal on one line) and
// exits 1 when a bench failed or a goal was missed, whatever that bench's own exit code.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../bench/', import.meta.url));
const only = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && !f.startsWith('_'))
  .filter((f) => !only || f.startsWith(only))
  .sort();
/** Words a bench prints on a goal line it missed. */
const MISSED = /OVER GOAL|UNDER GOAL|goal missed|NOT FLAT|DIFFER/;
const goals = [];
const failed = [];
for (const file of files) {
  console.log(`\n== bench/${file}`);
  const result = spawnSync(process.execPath, [dir + file], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout ?? '');
  // A goal line names its goal, or (graphql-nested's flat query count) says OK.
  const lines = (result.stdout ?? '').split('\n').filter((line) => /goal|\(OK\)/i.test(line));
  goals.push(...lines);
  if (result.status !== 0 || lines.some((line) => MISSED.test(line)))
    failed.push(`${file} (exit ${result.status ?? result.signal})`);
}
console.log(
  `\n== goals (${availableParallelism()} cores, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})`,
);
for (const line of goals) console.log(line);
if (goals.length === 0) console.log('(no bench printed a goal line)');
console.log(failed.length ? `missed or failed: ${failed.join(', ')}` : 'every goal met');
process.exit(failed.length ? 1 : 0);
