import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';

/** A hand-written tree to ship (`config apply --tree DIR`): its files and links, by path relative to DIR. */
export interface TreeDir {
  files: Record<string, string>;
  /** Each symlink's target as written (a link is checked on the hosts, never made there). */
  links: Record<string, string>;
}

/**
 * Reads every regular file and symlink under `dir` (`.git` left out: such trees are often kept in
 * git). Links are not followed: the file a link names is shipped under its own path when it is in
 * the tree. TREE_UNREADABLE naming the path when any part cannot be read, or when the tree lacks
 * `main` (the name of the spec's nginx.conf: DIR stands for its directory).
 */
export async function readTreeDir(dir: string, main: string): Promise<TreeDir> {
  const root = resolve(dir);
  const tree: TreeDir = { files: {}, links: {} };
  const unreadable = (path: string, error: unknown) =>
    new ProxyopsError('TREE_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, { cause: error });
  const walk = async (at: string): Promise<void> => {
    const entries = await readdir(at, { withFileTypes: true }).catch((error: unknown) => {
      throw unreadable(at, error);
    });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(at, entry.name);
      const name = relative(root, path);
      if (entry.isDirectory()) {
        if (name !== '.git') await walk(path);
      } else if (entry.isSymbolicLink()) tree.links[name] = await readlink(path);
      else if (entry.isFile())
        tree.files[name] = await readFile(path, 'utf8').catch((error: unknown) => {
          throw unreadable(path, error);
        });
    }
  };
  const stats = await lstat(root).catch((error: unknown) => {
    throw unreadable(root, error);
  });
  if (!stats.isDirectory())
    throw new ProxyopsError('TREE_UNREADABLE', `${root} is not a directory: give the directory of nginx.conf`);
  await walk(root);
  if (tree.files[main] === undefined)
    throw new ProxyopsError(
      'TREE_UNREADABLE',
      `${root} holds no ${main}: give the directory that stands for the one of the spec's nginx.conf`,
    );
  return tree;
}
