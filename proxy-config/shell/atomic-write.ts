import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Who a written file belongs to: its mode always, its owner when root writes it. */
export interface FileAccess {
  mode: number;
  uid?: number;
  gid?: number;
}

/**
 * The one atomic write of the repo: `path` becomes `text` by a rename, so a reader (nginx on
 * SIGHUP, a status command) sees the old bytes or the new ones, never half. The temp file sits in
 * the same directory, hidden (nginx's wildcards skip dot files) and ending in hex digits
 * (node_exporter's textfile collector skips it). It is opened O_EXCL|O_NOFOLLOW and its mode, owner
 * and data are set through that handle before the rename: the directory may be writable by
 * someone else, who could swap a path for a symlink between a close and a chmod by name. ACLs and
 * extended attributes of the file replaced are not carried over (docs/nginx-as-it-is.md).
 * `beforeRename` runs last, with the temp file complete: a check that the target is still what the
 * caller thinks it is, as close to the rename as can be.
 */
export async function writeFileAtomically(
  path: string,
  text: string,
  access: FileAccess,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.proxyops-${process.pid}-${randomBytes(4).toString('hex')}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  try {
    const handle = await open(temp, flags, access.mode & 0o777);
    try {
      await handle.writeFile(text);
      // The mode given at open is cut by the umask (and drops setuid bits): set it exactly.
      await handle.chmod(access.mode);
      // Only root may give a file away; a non-root owner keeps its own files anyway.
      if (process.getuid?.() === 0 && access.uid !== undefined)
        await handle.chown(access.uid, access.gid ?? -1);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeRename?.();
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** A rename (or unlink) is durable only once the directory holding it is flushed. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}
