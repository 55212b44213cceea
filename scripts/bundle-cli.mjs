// Bundles the CLI over tsc's output into CommonJS files in dist/cli/ (its package.json says
// "commonjs"). Node's ES module loader reads, resolves and compiles every file on its own, and its own
// start-up is a few milliseconds: a short run paid more for that than for its work (bench:cli, a
// one-line `logs stats` loaded some fifty files). So:
//
// - dist/cli/main.js, the front: the entry, every command's options and commander, in one file, so
//   `proxyops --help` loads one file;
// - dist/cli/bundle-<its path>.js: each module imported lazily (a command's work, and the optional
//   parts of that work: --follow, --html, reading an nginx config) bundled on its own, so a command
//   loads one more file, and another only for an option that needs it.
//
// Every import() becomes a require(): of our bundles, and of the few packages loaded on use (execa).
// ES-module-only packages (execa, jose) load through require(), which Node 20.19+ does without a
// warning. Packages stay in node_modules (pglite and the others find their own files there; graphql
// must be one copy), except small ones a whole command needs: commander (the front), chalk (tables).
//
// Bundles share no module: one that several need (errors, the log readers) is in each. So a lazily
// imported module must not share mutable module state with its importer, and errors cross between
// bundles by shape (`isProxyopsError`), never by class identity.
//
// Our modules that locate files next to themselves (templates, migrations, the WASM scanner, the
// worker thread's module, the CLI entry for instances) read `import.meta.url`; in the bundle it
// becomes the URL of their tsc copy, so they find the same files. tsc's files stay in dist/ beside
// the bundle for the worker thread, the tests and bench/, except tsc's dist/cli, which the bundle
// replaces.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const distDir = fileURLToPath(new URL('../dist/', import.meta.url));
const cliDir = resolve(distDir, 'cli');
const fromDist = (path) => relative(distDir, path).split(sep).join('/');

/** Packages bundled; every other package is required from node_modules at run time. */
const BUNDLED_PACKAGES = new Set(['commander', 'chalk']);

const packagesOutside = {
  name: 'packages-outside',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const name = args.path.startsWith('@')
        ? args.path.split('/').slice(0, 2).join('/')
        : args.path.split('/')[0];
      // A bundled package's own imports (commander's node:events) are resolved as usual.
      if (BUNDLED_PACKAGES.has(name) || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const importMetaUrlOfTscCopy = {
  name: 'import-meta-url-of-tsc-copy',
  setup(context) {
    context.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(distDir)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromCli = JSON.stringify(relative(cliDir, args.path).split(sep).join('/'));
      const url = `new URL(${fromCli}, require('node:url').pathToFileURL(__filename)).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
};

// commander requires node:child_process (and with it net, dgram and streams) at load, for
// subcommands that are separate executables, which proxyops has none of: load it on that path only.
const commanderChildProcessOnUse = {
  name: 'commander-child-process-on-use',
  setup(context) {
    context.onLoad({ filter: /commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const eager = "const childProcess = require('node:child_process');";
      if (!source.includes(eager)) throw new Error(`bundle-cli: ${args.path} no longer has ${eager}`);
      const onUse = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
      return { contents: source.replace(eager, onUse), loader: 'js' };
    });
  },
};

/** Every lazy import met so far, by the name of its bundle (`bundle-proxy-config-deploy`). */
const lazyEntries = {};
const lazyImportsToBundles = {
  name: 'lazy-imports-to-bundles',
  setup(context) {
    context.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = resolve(args.resolveDir, args.path);
      const name = `bundle-${fromDist(target).replace(/\.js$/, '').replaceAll('/', '-')}`;
      lazyEntries[name] = target;
      return { path: `./${name}.js`, external: true };
    });
  },
};

const options = {
  outdir: cliDir,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // import() of a CommonJS file would start the ES module loader: require() it instead.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  minifyWhitespace: true,
  legalComments: 'none',
  plugins: [lazyImportsToBundles, packagesOutside, commanderChildProcessOnUse, importMetaUrlOfTscCopy],
};

// The input is tsc's dist/cli; the bundle replaces it, so it cannot be bundled again.
if (!existsSync(resolve(cliDir, 'commands'))) {
  console.error('bundle-cli: dist/cli is already bundled; run `npm run build` to rebuild it');
  process.exit(1);
}

// Built in memory, written once every bundle built: a failed build leaves tsc's dist/cli as it was.
const outputs = (await build({ ...options, entryPoints: [resolve(cliDir, 'main.js')], write: false }))
  .outputFiles;
// A bundle's own lazy imports are bundles too: build until no new one turns up.
const built = new Set();
for (let todo = Object.keys(lazyEntries); todo.length > 0;) {
  const results = await Promise.all(
    todo.map((name) => build({ ...options, entryPoints: { [name]: lazyEntries[name] }, write: false })),
  );
  for (const result of results) outputs.push(...result.outputFiles);
  for (const name of todo) built.add(name);
  todo = Object.keys(lazyEntries).filter((name) => !built.has(name));
}

rmSync(cliDir, { recursive: true });
mkdirSync(cliDir);
for (const file of outputs) writeFileSync(file.path, file.contents, { mode: 0o755 });
writeFileSync(resolve(cliDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
