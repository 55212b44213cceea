import {
  cp,
  lstat,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
  mkdir,
} from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isProxyopsError, ProxyopsError } from '../../core/errors.js';
import { testNginxConfig } from './nginx-process.js';
import { createTempPrefix } from './temp-prefix.js';

/**
 * `nginx -t` on a hand-written tree as a change would leave it, before any byte of the real tree
 * changes: the directory of nginx.conf is copied (links as links) into a private directory, the
 * change is made there, and every path naming the tree (includes, a certificate, a link's target)
 * is pointed at the copy. The test runs with the live master's own binary.
 */

/** One file as the change leaves it: new text, or gone. */
export interface StagedFile {
  path: string;
  after: string;
  remove?: boolean;
}

/**
 * Copies the tree of `conf`, makes `changes` there and runs `binary -t` on it with the master's
 * `prefix` (paths relative to it, as Debian's `load_module modules/…`, must resolve as they do for
 * the master; none running: the binary's own); NGINX_TEST_FAILED with nginx's words. `cancel`
 * stops nginx -t (the copy is removed all the same).
 */
export async function testTreeCopy(
  conf: string,
  treeFiles: readonly string[],
  changes: readonly StagedFile[],
  nginx: { binary: string; prefix?: string },
  cancel?: AbortSignal,
): Promise<void> {
  const root = dirname(resolve(conf));
  const scratch = await createTempPrefix('tree');
  try {
    const copy = join(scratch.dir, 'conf');
    await cp(root, copy, { recursive: true, verbatimSymlinks: true });
    const outside = join(copy, '.outside');
    // Longest first, so a changed file outside the tree is mapped before a directory holding it.
    const moves: Array<[string, string]> = [[`${root}/`, `${copy}/`]];
    for (const { path } of changes) if (!isUnder(path, root)) moves.push([path, join(outside, path)]);
    moves.sort((a, b) => b[0].length - a[0].length);
    const remap = (text: string) => moves.reduce((t, [from, to]) => t.replaceAll(from, to), text);
    await repointLinks(copy, root);
    const byPath = new Map(changes.map((c) => [c.path, c]));
    for (const path of new Set([...treeFiles, ...byPath.keys()])) {
      const change = byPath.get(path);
      const text = change ? change.after : await readFile(path, 'utf8');
      const into = isUnder(path, root) ? join(copy, relative(root, path)) : join(outside, path);
      if (change?.remove) await rm(into, { force: true });
      else if (change || remap(text) !== text) await writeInCopy(copy, into, remap(text), path);
    }
    await assertReadsCopy(join(copy, relative(root, resolve(conf))), copy, byPath, remap);
    await runTest(nginx, scratch.dir, join(copy, relative(root, resolve(conf))), root, copy, cancel);
  } finally {
    await scratch.remove();
  }
}

const isUnder = (path: string, dir: string) => path.startsWith(`${dir}/`);

/**
 * Links must name in the copy what they name in the tree. One into the tree given absolute would
 * lead the test back to the live files: it points into the copy. One whose target resolves out of
 * the tree (sites-enabled/app -> ../../../srv/app.conf) would, relative, land beside the copy under
 * the temp dir, where a local user could plant a decoy: it becomes absolute, to the real file.
 */
async function repointLinks(copy: string, root: string): Promise<void> {
  for (const entry of await readdir(copy, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = join(entry.parentPath, entry.name);
    const target = await readlink(link);
    const inTree = resolve(dirname(join(root, relative(copy, link))), target);
    if (inTree === root || isUnder(inTree, root)) {
      if (!isAbsolute(target)) continue;
      await rm(link);
      await symlink(join(copy, relative(root, inTree)), link);
    } else {
      await rm(link);
      await symlink(await realpath(inTree).catch(() => inTree), link);
    }
  }
}

/** Writes a file of the copy as a regular file of the copy, never through a link out of it. */
async function writeInCopy(copy: string, into: string, text: string, path: string): Promise<void> {
  await mkdir(dirname(into), { recursive: true });
  const parent = await realpath(dirname(into));
  if (parent !== copy && !isUnder(parent, copy))
    throw new ProxyopsError(
      'TREE_UNTESTABLE',
      `cannot test the change on a copy: ${path} sits in a directory linked out of ${dirname(copy)}; nothing changed`,
    );
  const stats = await lstat(into).catch(() => undefined);
  if (stats?.isSymbolicLink()) await rm(into);
  await writeFile(into, text);
}

/**
 * The copy must be what nginx -t reads: a file still read from outside it (through a wildcard or a
 * link out of the tree) must be one the change leaves alone and that names nothing of the tree.
 */
async function assertReadsCopy(
  main: string,
  copy: string,
  changes: ReadonlyMap<string, StagedFile>,
  remap: (text: string) => string,
): Promise<void> {
  const { readNginxConfig } = await import('./read-nginx-config.js');
  const { files } = await readNginxConfig(main, { checkDirectives: false });
  // By realpath: a file named in the copy may be a link out of it.
  const realCopy = await realpath(copy);
  for (const file of files) {
    const real = await realpath(file).catch(() => file);
    if (isUnder(real, realCopy)) continue;
    const text = await readFile(file, 'utf8');
    if (!changes.has(file) && remap(text) === text) continue;
    throw new ProxyopsError(
      'TREE_UNTESTABLE',
      `cannot test the change on a copy: ${file} is reached in a way the copy cannot follow (a wildcard or a link out of the tree); nothing changed`,
    );
  }
}

async function runTest(
  nginx: { binary: string; prefix?: string },
  scratch: string,
  main: string,
  root: string,
  copy: string,
  cancel?: AbortSignal,
): Promise<void> {
  try {
    // The error log nginx writes before it has read the config's own: the scratch dir's.
    await testNginxConfig(
      {
        confPath: main,
        binary: nginx.binary,
        ...(nginx.prefix ? { prefix: nginx.prefix } : {}),
        startupErrorLog: join(scratch, 'logs', 'error.log'),
      },
      cancel,
    );
  } catch (error) {
    if (!isProxyopsError(error) || error.code !== 'NGINX_TEST_FAILED') throw error;
    // nginx names the copy's files: the person knows them by their real paths.
    const all = String((error.details as { output?: string } | undefined)?.output ?? error.message);
    throw testFailure(all.replaceAll(`${copy}/`, `${root}/`).trim(), process.getuid?.());
  }
}

/**
 * nginx's one line (its own [emerg]; the "test failed" trailer says nothing more) as a refusal. A
 * file it may not open while proxyops is not root says nothing about the change: it says who to run as.
 */
export function testFailure(output: string, uid: number | undefined): ProxyopsError {
  const lines = output.split('\n');
  const said = lines.find((l) => /\[(emerg|alert|crit)\]/.test(l)) ?? lines[0];
  if (uid !== 0 && /\(13: Permission denied\)/.test(output))
    return new ProxyopsError(
      'NGINX_TEST_NOT_PERMITTED',
      `nginx -t could not read the tree as uid ${uid}, so the change was not tested and nothing changed: ${said}; run as root, or as the user nginx runs as`,
      { details: { output } },
    );
  return new ProxyopsError(
    'NGINX_TEST_FAILED',
    `nginx -t refused the changed tree, nothing changed: ${said}`,
    {
      details: { output },
    },
  );
}
