import { lstat, readFile, stat } from 'node:fs/promises';
import { isWorkerRetired, readChildPids } from './nginx-master.js';

/**
 * Whether a running nginx loaded the files on disk as they are now. nginx cannot dump what it
 * loaded (`nginx -T` reads the disk again), so the proof is the clock: a file of the tree changed
 * after the master's current workers started was not read by them.
 */

/** The kernel's USER_HZ: /proc's start times count these ticks (100 on every Linux ABI we run on). */
const TICKS_PER_SECOND = 100;

/**
 * When the master's current workers started (the earliest of those still taking connections), in
 * ms since the epoch, two ticks late: /proc gives whole ticks and the boot instant is known to a
 * tick, and a file written just before the reload that read it must not count as later. Undefined
 * when none runs.
 */
export async function workersStartedAt(masterPid: number): Promise<number | undefined> {
  const bootMs = await readBootInstant();
  let earliest: number | undefined;
  for (const pid of await readChildPids(masterPid)) {
    if (await isWorkerRetired(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    if (!Number.isFinite(ticks)) continue;
    earliest = Math.min(earliest ?? Infinity, ticks);
  }
  if (earliest === undefined) return undefined;
  return bootMs + ((earliest + 2) / TICKS_PER_SECOND) * 1000;
}

/** The files (or the links naming them) changed after `since` (ms since the epoch), with when. */
export async function filesChangedSince(
  paths: readonly string[],
  since: number,
): Promise<Array<{ path: string; changed: Date }>> {
  const found: Array<{ path: string; changed: Date }> = [];
  for (const path of paths) {
    // The file read through its links, and the link itself (a site re-pointed to another file).
    const times = await Promise.all([stat(path), lstat(path)].map((p) => p.catch(() => undefined)));
    const latest = Math.max(...times.map((t) => t?.mtimeMs ?? 0));
    if (latest > since) found.push({ path, changed: new Date(latest) });
  }
  return found;
}

/** The boot instant in ms since the epoch, to a tick (/proc/stat's btime is whole seconds: too coarse). */
async function readBootInstant(): Promise<number> {
  const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]);
  return Date.now() - uptime * 1000;
}
