// Runs `npm run build` unless dist/ was built from the files as they are now. `npm ci` builds (its
// prepare), then `npm test` (its pretest) and `npm run lint:openapi` would build the same files again:
// twenty seconds each on two cores, in every CI run. The build's inputs are hashed by content (a fresh
// clone's file times say nothing), and the hash is kept in dist/ once a build from them succeeded.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-inputs');
/** What the build reads: the sources tsc and asc compile, the bundler and its entry, the configs, the locked packages. */
const INPUTS = [
  'api',
  'cli',
  'proxy-config',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** The files under `path` (itself, when a file), in a stable order. */
function* files(path) {
  if (!existsSync(path)) return;
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const name of readdirSync(path).sort()) yield* files(join(path, name));
}

const hash = createHash('sha256');
for (const input of INPUTS)
  for (const file of files(join(root, input)))
    hash.update(`${relative(root, file)}\0`).update(readFileSync(file));
const inputs = hash.digest('hex');

const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (built !== inputs || !existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, `${inputs}\n`);
}
