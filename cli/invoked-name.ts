import { delimiter, isAbsolute, relative, resolve, basename } from 'node:path';

/**
 * The command a person should type to run proxyops again, as they ran it this time: `./proxyops`
 * through the checkout's wrapper, `npx proxyops` through npx, `proxyops` when that name on PATH is what ran, else the script's path (through `node`
 * when it is the .js file). Every hint the CLI prints starts with it, so a copied hint runs as shown.
 */
export function invokedName(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
  cwd: string = process.cwd(),
): string {
  // The checkout's ./proxyops wrapper says how it was typed; it runs node on the bundle.
  if (env.PROXYOPS_INVOKED_AS) return quote(env.PROXYOPS_INVOKED_AS);
  // npm sets both for `npx proxyops …` and `npm exec proxyops …`.
  if (env.npm_command === 'exec' || env.npm_lifecycle_event === 'npx') return 'npx proxyops';
  const script = argv[1];
  if (script === undefined) return 'proxyops';
  const name = basename(script);
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && resolve(cwd, dir, name) === resolve(cwd, script));
  if (onPath) return name;
  const local = relative(cwd, script);
  const shown = local.startsWith('..') || isAbsolute(local) ? script : local;
  const path = quote(shown.includes('/') ? shown : `./${shown}`);
  return script.endsWith('.js') ? `node ${path}` : path;
}

/** Single-quotes a path for the shell when it holds anything but safe characters. */
function quote(path: string): string {
  return /^[\w./@+-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Rewrites the commands quoted in a message (`` `proxyops …` ``) to start with the invoked name. */
export function withInvokedName(text: string, name: string = invokedName()): string {
  return name === 'proxyops' ? text : text.replaceAll('`proxyops ', `\`${name} `);
}
