// Bundles the CLI's front (dist/cli/**: the entry, every command's options, commander) into
// dist/cli/main.js, over tsc's copy. `proxyops --help` then loads a handful of files instead of some
// thirty, which is most of what it costs above a bare node start (bench:cli).
//
// Only dist/cli is bundled. Every import that leaves it (dist/proxy-config, dist/api) stays an import
// of tsc's file, rewritten relative to dist/cli: those modules find their templates, WASM, workers and
// migrations next to themselves (import.meta.url), and each exists once, so an error class thrown there
// is the one the CLI checks for. Nothing outside dist/cli imports dist/cli, so no module is loaded
// twice. The commands' lazily imported work stays lazy: it is split into chunks beside main.js.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliDir = fileURLToPath(new URL('../dist/cli/', import.meta.url));

const keepOutsideCli = {
  name: 'keep-outside-cli',
  setup(context) {
    context.onResolve({ filter: /^\.\.?\// }, (args) => {
      // Packages' own relative imports (commander's) are bundled like the rest of the package.
      if (!args.importer.startsWith(cliDir)) return undefined;
      const target = resolve(args.resolveDir, args.path);
      if (target.startsWith(cliDir)) return undefined;
      const path = relative(cliDir, target).split(sep).join('/');
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
  },
};

// The input is tsc's main.js; a bundle cannot be bundled again (its chunks are removed just below).
if (readFileSync(resolve(cliDir, 'main.js'), 'utf8').includes('createRequireForBundle')) {
  console.error('bundle-cli: dist/cli/main.js is already bundled; run `npm run build` to rebuild it');
  process.exit(1);
}

// Chunks of an earlier build would pile up (their names carry a content hash).
for (const name of readdirSync(cliDir)) if (/^bundle-.*\.js$/.test(name)) rmSync(resolve(cliDir, name));

await build({
  entryPoints: [resolve(cliDir, 'main.js')],
  outdir: cliDir,
  entryNames: '[name]',
  // Chunks sit beside main.js, so the rewritten relative imports hold for them too.
  chunkNames: 'bundle-[name]-[hash]',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // commander is CommonJS: its require('node:events') needs a require in an ES module.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);",
  },
  plugins: [keepOutsideCli],
  logLevel: 'warning',
});
