import { readFile } from 'node:fs/promises';

/** What tells a process apart from a later one given the same pid: its start time (clock ticks after boot) and command line. */
export interface ProcessIdentity {
  startTime: string;
  cmdline: string;
}

/** The identity of `pid` from /proc; undefined when it is gone (or there is no /proc). */
export async function readProcessIdentity(pid: number): Promise<ProcessIdentity | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
    return { startTime: fields[19]!, cmdline };
  } catch {
    return undefined;
  }
}

/** True only when `pid` still is the process `identity` was read from. */
export async function isSameProcess(pid: number, identity: ProcessIdentity | undefined): Promise<boolean> {
  if (!identity) return false;
  const now = await readProcessIdentity(pid);
  return now !== undefined && now.startTime === identity.startTime && now.cmdline === identity.cmdline;
}
