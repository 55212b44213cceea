import { readFile } from 'node:fs/promises';

/**
 * What tells a process apart from a later one given the same pid: its start time (clock ticks after
 * boot), the boot it started in, and its command line.
 */
export interface ProcessIdentity {
  startTime: string;
  cmdline: string;
  /** /proc/sys/kernel/random/boot_id when the identity was read; absent in older records. */
  bootId?: string;
}

/** The identity of `pid` from /proc; undefined when it is gone (or there is no /proc). */
export async function readProcessIdentity(pid: number): Promise<ProcessIdentity | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
    const bootId = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => '')).trim();
    return { startTime: fields[19]!, cmdline, ...(bootId ? { bootId } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * True only when `pid` still is the process `identity` was read from. Within one boot, a pid and a
 * start time name one process (the kernel hands a pid out again only after cycling through all of
 * them, never within one clock tick), so its command line is not compared: app servers rewrite it
 * (gunicorn, puma, a Node `process.title`) and must not pass for strangers, which would have their
 * deploy rolled back as "exited", the supervisor start a second copy, and `down` leave them running.
 * A record without a boot id (an older proxyops) also needs the command line to match.
 */
export async function isSameProcess(pid: number, identity: ProcessIdentity | undefined): Promise<boolean> {
  if (!identity) return false;
  const now = await readProcessIdentity(pid);
  if (now === undefined || now.startTime !== identity.startTime) return false;
  if (identity.bootId !== undefined && now.bootId !== undefined) return now.bootId === identity.bootId;
  return now.cmdline === identity.cmdline;
}
