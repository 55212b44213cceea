import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno, describePathInTheWay } from '../describe-path.js';

/**
 * Writes rendered files under `dir`, world-readable (nginx workers run as an unprivileged user),
 * or with the `modes` given (a private history: 0600 files in 0700 directories).
 * OUTPUT_UNWRITABLE, naming the path, when something is in the way or the place is not writable;
 * OUTPUT_FAILED when writing failed for another reason.
 */
export async function writeRenderedFiles(
  dir: string,
  files: Record<string, string>,
  modes = { file: 0o644, dir: 0o755 },
): Promise<string[]> {
  const written: string[] = [];
  let path = dir;
  try {
    await makeDirectory(dir, modes.dir);
    for (const name of Object.keys(files).sort()) {
      path = join(dir, name);
      await makeDirectory(dirname(path), modes.dir);
      await writeFile(path, files[name]!, { mode: modes.file });
      written.push(path);
    }
  } catch (error) {
    // A failed write() names no path, unlike a failed open() or mkdir().
    throw await unwritable(dir, (error as NodeJS.ErrnoException).path ?? path, error);
  }
  return written;
}

/**
 * Creates `dir` and its missing parents as `mode` (0755) whatever the umask, and leaves the mode of a
 * directory that already exists alone: it is the owner's (a shared 1777 directory keeps its
 * sticky bit). One level at a time: Node's recursive mkdir retries forever where mkdir says
 * ENOENT under a directory that exists (/proc/self/x).
 */
async function makeDirectory(dir: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let path = dir; !(await exists(path)); path = dirname(path)) missing.unshift(path);
  for (const path of missing) {
    try {
      await mkdir(path, { mode });
    } catch (error) {
      // Made meanwhile by someone else: theirs, mode included.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    await chmod(path, mode);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The caller's mistakes: a file in the way, a place they may not write. */
const UNWRITABLE = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS']);

/**
 * OUTPUT_UNWRITABLE (bad input) when the path is wrong for the caller, naming what is in the way;
 * NO_SPACE (exit 2) on a full disk; OUTPUT_FAILED when the write itself failed (an I/O error).
 */
async function unwritable(dir: string, path: string, error: unknown): Promise<ProxyopsError> {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // A full disk is the environment's, and the person can act on it: say what to do (exit 2).
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new ProxyopsError(
      'NO_SPACE',
      `cannot write the rendered config to ${dir}: ${path}: ${describeErrno(error)}; free some space on that file system and run it again`,
      { cause: error },
    );
  let why = `${path}: ${describeErrno(error)}`;
  if (code === 'EISDIR') why = `${path} is a directory`;
  else if (code === 'EEXIST' || code === 'ENOTDIR') why = (await describePathInTheWay(path)) ?? why;
  return new ProxyopsError(
    UNWRITABLE.has(code) ? 'OUTPUT_UNWRITABLE' : 'OUTPUT_FAILED',
    `cannot write the rendered config to ${dir}: ${why}`,
    { cause: error },
  );
}
