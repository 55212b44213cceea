import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { HostTreeView } from '../../core/adopt/plan-tree-files.js';
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
 * `main` (the name of the spec's nginx.conf: DIR stands for its directory); TREE_NOT_UTF8 for a
 * file whose bytes are not UTF-8 text.
 */
export async function readTreeDir(dir: string, main: string): Promise<TreeDir> {
  const root = resolve(dir);
  const tree: TreeDir = { files: {}, links: {} };
  const unreadable = (path: string, error: unknown) =>
    new ProxyopsError('TREE_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, { cause: error });
  const readText = async (path: string): Promise<string> => {
    const bytes = await readFile(path).catch((error: unknown) => {
      throw unreadable(path, error);
    });
    const text = bytes.toString('utf8');
    // Files travel as text: bytes that are not UTF-8 would arrive changed.
    if (!Buffer.from(text, 'utf8').equals(bytes))
      throw new ProxyopsError(
        'TREE_NOT_UTF8',
        `${path} holds bytes that are not UTF-8: they would not arrive on the hosts as they are; convert it (iconv -f latin1 -t utf-8), or keep it out of the tree`,
      );
    return text;
  };
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
      else if (entry.isFile()) tree.files[name] = await readText(path);
    }
  };
  const stats = await lstat(root).catch((error: unknown) => {
    throw unreadable(root, error);
  });
  if (!stats.isDirectory())
    throw new ProxyopsError(
      'TREE_UNREADABLE',
      `${root} is not a directory: give the directory of nginx.conf`,
    );
  await walk(root);
  if (tree.files[main] === undefined)
    throw new ProxyopsError(
      'TREE_UNREADABLE',
      `${root} holds no ${main}: give the directory that stands for the one of the spec's nginx.conf`,
    );
  return tree;
}

/**
 * What this host holds at each path of a shipped tree, under `confDir` (the directory of its
 * nginx.conf): a file's text, a link's target, or nothing there; and whether each shipped link's
 * file is here.
 */
export async function readHostTreeView(confDir: string, shipped: TreeDir): Promise<HostTreeView> {
  const view = {
    files: {} as Record<string, string | undefined>,
    links: {} as Record<string, string | undefined>,
    linkedFiles: {} as Record<string, boolean>,
  };
  // Whether the file each shipped link would name is here: a link to a missing file is never advised.
  for (const [name, target] of Object.entries(shipped.links)) {
    const named = resolve(dirname(join(confDir, name)), target);
    view.linkedFiles[name] = (await stat(named).catch(() => undefined))?.isFile() === true;
  }
  for (const name of [...Object.keys(shipped.files), ...Object.keys(shipped.links)]) {
    const path = join(confDir, name);
    const stats = await lstat(path).catch(() => undefined);
    if (stats?.isSymbolicLink()) view.links[name] = await readlink(path);
    else if (stats?.isFile())
      view.files[name] = await readFile(path, 'utf8').catch((error: unknown) => {
        throw new ProxyopsError('TREE_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
          cause: error,
        });
      });
    else if (stats)
      throw new ProxyopsError(
        'TREE_LINK_DIFFERS',
        `${path} is not a file here, and the tree ships a file or link there; nothing changed`,
      );
  }
  return view;
}
