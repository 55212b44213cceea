// fs.promises is read at each call: importing node:fs/promises would load it (and readline) at start.
import { promises as fsp } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';

/** What a path is, for messages: `a directory`, `a FIFO`, … */
export function describeFileKind(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'an unknown kind of file';
}

/**
 * A file system error as its code and description (`ENOENT: no such file or directory`). Node appends
 * the call and the path (`, open '/etc/x'`); callers name the path themselves, in the user's words.
 */
export function describeErrno(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !error.message.startsWith(`${code}: `)) return error.message;
  return error.message.replace(/, \w+( '.*')?$/s, '');
}

/**
 * Names the first of `path` and the directories above it that exists and is not a directory
 * (`/srv/f is a regular file, not a directory`): ENOTDIR and EEXIST only say that one of them is
 * in the way, not which. Undefined when none is.
 */
export async function describePathInTheWay(path: string): Promise<string | undefined> {
  const chain = [path];
  while (dirname(chain[0]!) !== chain[0]) chain.unshift(dirname(chain[0]!));
  for (const part of chain) {
    const stats = await fsp.stat(part).catch(() => undefined);
    if (!stats) return undefined;
    if (!stats.isDirectory()) return `${part} is ${describeFileKind(stats)}, not a directory`;
  }
  return undefined;
}
