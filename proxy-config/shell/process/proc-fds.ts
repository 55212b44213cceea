import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { DeletedOpenFile } from '../../core/diagnose/evidence.js';
import { ProxyopsError } from '../../core/errors.js';
import { listProcesses } from './proc-process-tree.js';

const DELETED = ' (deleted)';

/** The open file descriptors of a process with what they point at; empty when it is gone or unreadable. */
export async function listOpenFds(pid: number): Promise<Array<{ fd: number; target: string }>> {
  const names = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const entries = await Promise.all(
    names.map(async (name) => {
      const target = await readlink(`/proc/${pid}/fd/${name}`).catch(() => null);
      return target === null ? null : { fd: Number(name), target };
    }),
  );
  return entries.filter((entry): entry is { fd: number; target: string } => entry !== null);
}

/** The soft "Max open files" limit of a process from /proc/PID/limits; null when unlimited or unreadable. */
export async function readMaxOpenFiles(pid: number): Promise<number | null> {
  const text = await readFile(`/proc/${pid}/limits`, 'utf8').catch(() => '');
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  return soft === undefined || soft === 'unlimited' ? null : Number(soft);
}

/**
 * True when the process has a descriptor open on the file with this device and inode; false when it
 * has exited. PROC_UNREADABLE when /proc/PID/fd may not be read (another user's process, not root).
 */
export async function holdsInode(pid: number, dev: number, ino: number): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(`/proc/${pid}/fd`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ProxyopsError(
        'PROC_UNREADABLE',
        `cannot read /proc/${pid}/fd (${code}): run as root or as the user nginx runs as`,
        {
          cause: error,
        },
      );
    }
    return false;
  }
  for (const name of names) {
    const info = await stat(`/proc/${pid}/fd/${name}`).catch(() => null);
    if (info && info.ino === ino && info.dev === dev) return true;
  }
  return false;
}

function isUnder(path: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    const base = resolve(dir);
    return path === base || path.startsWith(base.endsWith(sep) ? base : `${base}${sep}`);
  });
}

/** Files deleted but still held open by any process, limited to those under `dirs` (all when empty). */
export async function listDeletedOpenFiles(dirs: readonly string[]): Promise<DeletedOpenFile[]> {
  const found: DeletedOpenFile[] = [];
  for (const proc of await listProcesses()) {
    for (const { fd, target } of await listOpenFds(proc.pid)) {
      if (!target.endsWith(DELETED)) continue;
      const path = target.slice(0, -DELETED.length);
      if (!path.startsWith('/') || (dirs.length > 0 && !isUnder(path, dirs))) continue;
      const info = await stat(`/proc/${proc.pid}/fd/${fd}`).catch(() => null);
      if (!info?.isFile()) continue;
      found.push({
        pid: proc.pid,
        command: proc.cmdline.split(' ')[0]?.replace(/:$/, '') ?? '',
        fd,
        path,
        sizeBytes: info.size,
      });
    }
  }
  return found;
}
