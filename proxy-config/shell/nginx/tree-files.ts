import { lstat, mkdir, readFile, realpath, rm, rmdir, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isProxyopsError, ProxyopsError } from '../../core/errors.js';
import { syncDirectory, writeFileAtomically } from '../atomic-write.js';
import { describeErrno } from '../describe-path.js';

/**
 * Files of a hand-written nginx tree, changed in place: each write is the repo's atomic write
 * (shell/atomic-write.ts) in the real file's own directory (a symlinked site stays a link; the file
 * it names is rewritten), with the old file's mode and owner. A reader (nginx on SIGHUP) sees the
 * old bytes or the new ones, never half.
 */

/** A file of the tree as it was before a change: what to put back. */
export interface OriginalFile {
  /** The path as nginx names it (may be a symlink). */
  path: string;
  /** The file actually written: the path with every link resolved. */
  realPath: string;
  /** False for a file the change creates: putting back removes it. */
  existed: boolean;
  text: string;
  mode: number;
  uid: number;
  gid: number;
  /** Put back with the bytes, for the people reading ls -l. */
  atime: Date;
  mtime: Date;
  /** The file as read at prepare: commit refuses to replace a file that is no longer this one. */
  ino?: number;
  ctimeMs?: number;
  /** For a new file: the first directory its write created, removed again by a put back. */
  madeDir?: string;
}

/** The file as it is now; its `text` must equal `expected`, else TREE_CHANGED (nothing written). */
export async function readOriginal(path: string, expected: string): Promise<OriginalFile> {
  const real = await realpath(path).catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? undefined : Promise.reject(unreadable(path, error)),
  );
  if (real === undefined) {
    if (expected !== '')
      throw new ProxyopsError(
        'TREE_CHANGED',
        `${path} is gone since the change was planned; nothing changed`,
      );
    const parent = await realpath(dirname(path)).catch(() => dirname(path));
    return {
      path,
      realPath: join(parent, basename(path)),
      existed: false,
      text: '',
      mode: 0o644,
      uid: process.getuid?.() ?? 0,
      gid: process.getgid?.() ?? 0,
      atime: new Date(),
      mtime: new Date(),
    };
  }
  // Taken before the read: an edit in between then shows as a changed ctime at commit.
  const stats = await lstat(real);
  const bytes = await readFile(real).catch((error: unknown) => Promise.reject(unreadable(path, error)));
  const text = bytes.toString('utf8');
  // Texts are whole strings: bytes that are not UTF-8 (a Latin-1 comment) would not survive the write.
  if (!Buffer.from(text, 'utf8').equals(bytes))
    throw new ProxyopsError(
      'TREE_NOT_UTF8',
      `${path} holds bytes that are not UTF-8 (a Latin-1 comment?): they would not be written back as they are; nothing changed. Convert the file to UTF-8 (iconv -f latin1 -t utf-8) and reload nginx first`,
    );
  if (text !== expected)
    throw new ProxyopsError(
      'TREE_CHANGED',
      `${path} was edited since the change was planned; nothing changed, run it again to plan on the new text`,
    );
  return {
    path,
    realPath: real,
    existed: true,
    text,
    mode: stats.mode & 0o7777,
    uid: stats.uid,
    gid: stats.gid,
    atime: stats.atime,
    mtime: stats.mtime,
    ino: stats.ino,
    ctimeMs: stats.ctimeMs,
  };
}

/**
 * Replaces the file `original` describes with `text`, atomically, keeping its mode and owner.
 * Just before the rename the file must still be the one read at prepare (same inode, ctime and
 * text; still absent for a new file): a hand edit made while nginx -t ran is never overwritten
 * (TREE_CHANGED). Records in `original.madeDir` the first directory it had to create.
 */
export async function writeInPlace(original: OriginalFile, text: string): Promise<void> {
  const dir = dirname(original.realPath);
  try {
    if (!original.existed) {
      const made = await mkdir(dir, { recursive: true, mode: 0o755 });
      if (made !== undefined) original.madeDir = made;
    }
    await writeFileAtomically(original.realPath, text, original, () => assertUnchanged(original));
  } catch (error) {
    if (isProxyopsError(error)) throw error;
    throw new ProxyopsError('TREE_WRITE_FAILED', `cannot write ${original.path}: ${describeErrno(error)}`, {
      cause: error,
    });
  }
}

/** Removes a file the change deletes (its original is kept to put back), if nobody edited it since. */
export async function removeInPlace(original: OriginalFile): Promise<void> {
  await assertUnchanged(original);
  await rm(original.realPath, { force: true });
  await syncDirectory(dirname(original.realPath));
}

/**
 * Puts every file back as it was (its bytes, mode, owner and times; no file, and no directory the
 * change made, when the change created it), newest first. One failure does not stop the rest: all
 * are tried, then TREE_PUT_BACK_FAILED names every file that could not be put back.
 */
export async function putBackAll(originals: readonly OriginalFile[]): Promise<void> {
  const failed: string[] = [];
  for (const original of [...originals].reverse())
    await putBack(original).catch((error: unknown) => {
      failed.push(`${original.path}: ${(error as Error).message}`);
    });
  if (failed.length > 0)
    throw new ProxyopsError(
      'TREE_PUT_BACK_FAILED',
      `could not put back ${failed.length} file(s), restore them by hand from the version's before/ copy: ${failed.join('; ')}`,
    );
}

async function putBack(original: OriginalFile): Promise<void> {
  if (!original.existed) {
    await rm(original.realPath, { force: true });
    await removeMadeDirs(original);
    return;
  }
  await writeFileAtomically(original.realPath, original.text, original);
  // The mtime a person sees in ls -l; the ctime moves anyway, so nginx must be reloaded onto it.
  await utimes(original.realPath, original.atime, original.mtime);
}

/** Removes the directories the change made for a new file, innermost first, each only if empty. */
async function removeMadeDirs(original: OriginalFile): Promise<void> {
  if (original.madeDir === undefined) return;
  for (let dir = dirname(original.realPath); ; dir = dirname(dir)) {
    // Someone else's file in it since: theirs, and the directory with it.
    const kept = await rmdir(dir).then(
      () => false,
      (error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' ? false : error.code === 'ENOTEMPTY' ? true : Promise.reject(error),
    );
    if (kept || dir === original.madeDir || dir === dirname(dir)) break;
  }
}

/** TREE_CHANGED when the file is no longer the one read at prepare. */
async function assertUnchanged(original: OriginalFile): Promise<void> {
  const now = await lstat(original.realPath).catch(() => undefined);
  if (!original.existed) {
    if (now === undefined) return;
    throw changedMeanwhile(original, 'was created');
  }
  const text = now?.isFile() ? await readFile(original.realPath, 'utf8').catch(() => undefined) : undefined;
  if (now === undefined || text === undefined) throw changedMeanwhile(original, 'was removed');
  if (now.ino !== original.ino || now.ctimeMs !== original.ctimeMs || text !== original.text)
    throw changedMeanwhile(original, 'was edited');
}

function changedMeanwhile(original: OriginalFile, what: string): ProxyopsError {
  return new ProxyopsError(
    'TREE_CHANGED',
    `${original.path} ${what} while the change was tested (a hand edit, or another proxyops): it was left as it is now and nothing of the change was kept; run it again to plan on the new text`,
  );
}

function unreadable(path: string, error: unknown): ProxyopsError {
  return new ProxyopsError('NGINX_CONFIG_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
    cause: error,
  });
}
