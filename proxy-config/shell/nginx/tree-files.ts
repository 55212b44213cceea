import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, mkdir, open, readFile, realpath, rename, rm, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';

/**
 * Files of a hand-written nginx tree, changed in place: each write is a temp file in the real
 * file's own directory (a symlinked site stays a link; the file it names is rewritten), with the
 * old file's mode and owner, fsynced, then renamed over it. A reader (nginx on SIGHUP) sees the old
 * bytes or the new ones, never half.
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
  /** Kept so that a put-back file does not look edited since nginx loaded it. */
  atime: Date;
  mtime: Date;
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
  const stats = await lstat(real);
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
  };
}

/** Replaces the file `original` describes with `text`, atomically, keeping its mode and owner. */
export async function writeInPlace(original: OriginalFile, text: string): Promise<void> {
  const dir = dirname(original.realPath);
  if (!original.existed) await mkdir(dir, { recursive: true, mode: 0o755 });
  const temp = join(dir, `.${basename(original.realPath)}.proxyops-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', original.mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, original.mode);
    // Only root may give a file away; a non-root owner of the tree keeps its own files anyway.
    if (process.getuid?.() === 0) await chown(temp, original.uid, original.gid);
    await rename(temp, original.realPath);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ProxyopsError('TREE_WRITE_FAILED', `cannot write ${original.path}: ${describeErrno(error)}`, {
      cause: error,
    });
  }
  await syncDirectory(dir);
}

/** Puts the file back as it was: its bytes and times, or no file when the change created it. */
export async function putBack(original: OriginalFile): Promise<void> {
  if (!original.existed) {
    await rm(original.realPath, { force: true });
    return;
  }
  await writeInPlace(original, original.text);
  await utimes(original.realPath, original.atime, original.mtime);
}

/** Removes a file the change deletes (its original is kept to put back). */
export async function removeInPlace(original: OriginalFile): Promise<void> {
  await rm(original.realPath, { force: true });
  await syncDirectory(dirname(original.realPath));
}

/** The rename is durable only once the directory holding it is flushed. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

function unreadable(path: string, error: unknown): ProxyopsError {
  return new ProxyopsError('NGINX_CONFIG_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
    cause: error,
  });
}
