// Writes test/file-durations.json, the order the test sequencer runs files in (longest first), from a
// vitest JSON report: `npx vitest run --reporter=default --reporter=json --outputFile.json=REPORT`,
// then `npm run test:durations -- REPORT`. Seconds per file, relative to the repository root.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const report = process.argv[2];
if (!report) {
  console.error('test:durations: name the JSON report vitest wrote (--outputFile.json=REPORT)');
  process.exit(2);
}
const root = fileURLToPath(new URL('..', import.meta.url));
const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
const out = fileURLToPath(new URL('../test/file-durations.json', import.meta.url));
// Merged into what was measured before: a run of a few files updates those alone.
const before = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
// By the path under this checkout: the longest tail of the report's path that names a file here (the
// report may come from another clone).
const here = (name) => {
  const parts = name.split('/');
  for (let i = 1; i < parts.length; i++) {
    const path = parts.slice(i).join('/');
    if (existsSync(join(root, path))) return path;
  }
  return relative(root, name);
};
const measured = testResults.map((t) => [here(t.name), Math.round((t.endTime - t.startTime) / 100) / 10]);
const seconds = Object.fromEntries(
  Object.entries({ ...before, ...Object.fromEntries(measured) }).sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(out, `${JSON.stringify(seconds, null, 2)}\n`);
console.log(
  `test:durations: ${measured.length} files measured, ${Object.keys(seconds).length} in ${relative(root, out)}`,
);
