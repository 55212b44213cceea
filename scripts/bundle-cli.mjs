// Bundles the CLI over tsc's output into CommonJS files in dist/cli/ (its package.json says
// "commonjs"). Node's ES module loader reads, resolves and compiles every file on its own, and its own
// start-up is a few milliseconds: a short run paid more for that than for its work (bench:cli, a
// one-line `logs stats` loaded some fifty files). So:
//
// - dist/cli/front.js, the front: the entry, every command's options and commander, in one file, so
//   `proxyops --help` loads one file besides dist/cli/main.js (scripts/cli-entry.cjs), which turns on
//   a compile cache (Node's own on 22.1+, V8's code cache of our bundles on 20) and requires the front;
// - dist/cli/bundle-<its path>.js: each module imported lazily (a command's work, and the optional
//   parts of that work: --follow, --html, reading an nginx config) bundled on its own, so a command
//   loads one more file, and another only for an option that needs it.
//
// Every import() becomes a require(): of our bundles, and of packages loaded on use. Packages that
// require() can load stay in node_modules (pglite and the others find their own files there; graphql
// must be one copy). Those it cannot load on every supported Node (ES-module-only: execa,
// jose) are bundled, and so is commander, which the front needs on every run.
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
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootDir = fileURLToPath(new URL('../', import.meta.url));
const distDir = resolve(rootDir, 'dist');
const cliDir = resolve(distDir, 'cli');
const fromDist = (path) => relative(distDir, path).split(sep).join('/');

/** Bundled for speed although require() could load it. */
const BUNDLED_FOR_SPEED = new Set(['commander']);

/** The package a bare import names: `@scope/name` or `name`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * True when require() loads the package on every supported Node: it says how to require it, or it is
 * CommonJS. Node 20.19 and 22.12 were the first to require() an ES module unflagged; 22.0-22.11 throw.
 */
function requireLoads(name) {
  const manifest = JSON.parse(readFileSync(resolve(rootDir, 'node_modules', name, 'package.json'), 'utf8'));
  if (manifest.exports === undefined) return manifest.type !== 'module';
  return JSON.stringify(manifest.exports).includes('"require"') || manifest.type !== 'module';
}

const bundled = (name) => BUNDLED_FOR_SPEED.has(name) || !requireLoads(name);

const packagesOutside = {
  name: 'packages-outside',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      // A bundled package's own imports are resolved and bundled as usual.
      if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
      if (bundled(packageOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Rewrites `import.meta.url` in our modules to the URL their tsc copy has, computed from the URL of the
 * bundle file they end up in (`here`, an expression), which is written to `outDir`.
 */
const importMetaUrlOfTscCopy = (outDir, here) => ({
  name: 'import-meta-url-of-tsc-copy',
  setup(context) {
    context.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(distDir + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromOut = JSON.stringify(relative(outDir, args.path).split(sep).join('/'));
      return {
        contents: source.replaceAll('import.meta.url', `new URL(${fromOut}, ${here}).href`),
        loader: 'js',
      };
    });
  },
});

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

/** Every lazy import met so far (a module of ours, or a bundled package), by its bundle's name. */
const lazyEntries = {};
const lazyImportsToBundles = {
  name: 'lazy-imports-to-bundles',
  setup(context) {
    context.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.path.startsWith('node:')) return undefined;
      let name;
      let entry;
      if (/^\.\.?\//.test(args.path)) {
        entry = resolve(args.resolveDir, args.path);
        name = `bundle-${fromDist(entry).replace(/\.js$/, '').replaceAll('/', '-')}`;
      } else if (bundled(packageOf(args.path))) {
        entry = fileURLToPath(import.meta.resolve(args.path));
        name = `bundle-package-${args.path.replace(/^@/, '').replaceAll('/', '-')}`;
      } else return undefined;
      lazyEntries[name] = entry;
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
  plugins: [
    lazyImportsToBundles,
    packagesOutside,
    commanderChildProcessOnUse,
    importMetaUrlOfTscCopy(cliDir, "require('node:url').pathToFileURL(__filename)"),
  ],
};

// The input is tsc's dist/cli; the bundle replaces it, so it cannot be bundled again.
if (!existsSync(resolve(cliDir, 'commands'))) {
  console.error('bundle-cli: dist/cli is already bundled; run `npm run build` to rebuild it');
  process.exit(1);
}

// Built in memory, written once every bundle built: a failed build leaves tsc's dist/cli as it was.
const outputs = (
  await build({ ...options, entryPoints: { front: resolve(cliDir, 'main.js') }, write: false })
).outputFiles;
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

// The worker threads of a large `logs stats` run start from dist/proxy-config/shell/logs/log-range-thread.js:
// bundled in place into one ES module, a thread boots in about 25 ms instead of 40 (it loaded some
// twenty-five files).
const threadFile = resolve(distDir, 'proxy-config', 'shell', 'logs', 'log-range-thread.js');
const thread = await build({
  entryPoints: [threadFile],
  outfile: threadFile,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
  minifyWhitespace: true,
  legalComments: 'none',
  write: false,
  plugins: [packagesOutside, importMetaUrlOfTscCopy(dirname(threadFile), 'import.meta.url')],
});
outputs.push(...thread.outputFiles);

rmSync(cliDir, { recursive: true });
mkdirSync(cliDir);
for (const file of outputs) writeFileSync(file.path, file.contents, { mode: 0o755 });
writeFileSync(resolve(cliDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
// The entry turns on a compile cache before it requires the front (scripts/cli-entry.cjs). On Node 20
// it compiles our bundles itself and hands them a `require` that is the call alone: a bundle that
// used more of it (require.resolve, require.main) would break there, so none may.
for (const file of outputs)
  if (file.path.startsWith(cliDir + sep) && /\brequire\.[A-Za-z_$]/.test(file.text))
    throw new Error(`bundle-cli: ${file.path} uses require.*, which scripts/cli-entry.cjs does not give`);
// Each bundle's size and sha256, for the entry's compile cache on Node 20: npm gives every file the
// same mtime and a new version may keep a bundle's size, so the cache keys its entries by the digest,
// which the entry reads here rather than hash every bundle at each start.
const digests = {};
for (const file of outputs)
  if (dirname(file.path) === cliDir)
    digests[relative(cliDir, file.path)] = {
      size: file.contents.length,
      sha256: createHash('sha256').update(file.contents).digest('hex'),
    };
writeFileSync(resolve(cliDir, 'bundles.json'), `${JSON.stringify(digests)}\n`);
writeFileSync(resolve(cliDir, 'main.js'), readFileSync(resolve(rootDir, 'scripts', 'cli-entry.cjs')), {
  mode: 0o755,
});
