// The latency rules of _gate-options.mjs judged again on deploys bench:gates kept (BENCH_GATES_SAVE):
// each option's unchanged / 3x slower deploys rolled back, per condition, without running a deploy.
// Usage: npm run bench:gates-replay -- DIR [DIR ...]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeOptions, LATENCY_OPTIONS } from './_gate-options.mjs';

/** The deploy's watch (s), as in deploy-gates.mjs. */
const WATCH_S = 5;

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('gates-replay: name the directories bench:gates saved its deploys in (BENCH_GATES_SAVE)');
  process.exit(2);
}
const saved = dirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8'))),
);
if (saved.length === 0) {
  console.error(`gates-replay: no saved deploys in ${dirs.join(', ')}`);
  process.exit(2);
}
const conditions = new Map();
for (const d of saved) {
  const c = conditions.get(d.condition) ?? { deploys: [], deployed: undefined };
  // The last deploy that went through before this one: the old release's own start (none where
  // every deploy was a first deploy, BENCH_GATES_FIRST).
  d.options = judgeOptions(
    d.text,
    d.news,
    WATCH_S,
    d.condition.endsWith('first deploys') ? undefined : c.deployed,
  );
  if (!d.rolledBack) c.deployed = { text: d.text, news: d.news };
  c.deploys.push(d);
  conditions.set(d.condition, c);
}
const names = [...conditions.keys()];
const count = (deploys, kind, test) => {
  const of = deploys.filter((d) => d.kind === kind);
  return `${of.filter(test).length} of ${of.length}`;
};
console.log(`| rule | ${names.join(' | ')} |`);
console.log(`|---|${names.map(() => '---|').join('')}`);
console.log(
  `| the deploys' own verdicts | ${names
    .map((n) => conditions.get(n).deploys)
    .map((ds) => `${count(ds, 'good', (d) => d.rolledBack)} / ${count(ds, 'slow', (d) => d.rolledBack)}`)
    .join(' | ')} |`,
);
for (const option of Object.keys(LATENCY_OPTIONS)) {
  const rolls = (d) => d.options.some((o) => o[option]);
  console.log(
    `| ${option} | ${names
      .map((n) => conditions.get(n).deploys)
      .map((ds) => `${count(ds, 'good', rolls)} / ${count(ds, 'slow', rolls)}`)
      .join(' | ')} |`,
  );
}
