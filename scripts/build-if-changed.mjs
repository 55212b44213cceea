// Builds dist/ (`npm run build:steps`) unless it was built from the files as they are now; with
// --always (`npm run build`), builds anyway. `npm ci` builds (its prepare), then `npm test` (its
// pretest) and `npm run lint:openapi` would build the same files again: twenty seconds each on two
// cores, in every CI run. The build's inputs are hashed by content (a fresh clone's file times say
// nothing); the hash is kept in dist/ only once a build from them succeeded, and removed before any
// build starts, so a build that fails, or one from other files, never leaves it saying fresh.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** What a build leaves: the CLI's entry and bundles' list, tsc's output, the WASM scanner. */
const OUTPUTS = [
  'dist/cli/main.js',
  'dist/cli/bundles.json',
  'dist/proxy-config/shell/system-packages.js',
  'dist/api/server.js',
  'dist/proxy-config/assembly/log-line-scanner.wasm',
];

const fresh =
  !process.argv.includes('--always') &&
  existsSync(stamp) &&
  readFileSync(stamp, 'utf8').trim() === inputs &&
  OUTPUTS.every((output) => existsSync(join(root, output)));
if (!fresh) {
  rmSync(stamp, { force: true });
  try {
    execFileSync('npm', ['run', 'build:steps'], { cwd: root, stdio: 'inherit' });
  } catch (error) {
    // npm has said what failed.
    process.exit(error.status ?? 1);
  }
  writeFileSync(stamp, `${inputs}\n`);
}
