import { readFile } from 'node:fs/promises';
import { isAlive, processFamily } from './proc-process-tree.js';

/** The master pid written in an nginx pid file, when that process is alive. */
export async function readLiveMasterPid(pidFile: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // EPERM counts as alive: another user's nginx still holds the pid file.
  return isAlive(pid) ? pid : undefined;
}

/** Pids of the direct children of `parentPid` (nginx workers and cache processes), from /proc. */
export async function readChildPids(parentPid: number): Promise<number[]> {
  const children = (await processFamily(parentPid)).filter((info) => info.pid !== parentPid);
  return children.map((info) => info.pid).sort((a, b) => a - b);
}

/**
 * True once a worker no longer takes new connections: it has exited, or it runs as
 * "worker process is shutting down" (closed its listeners, finishing what it has).
 */
export async function isWorkerRetired(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined || cmdline === '' || cmdline.includes('shutting down');
}

/** Sends SIGHUP: the master re-reads its config and starts new workers, or keeps the old ones on error. */
export function sendReload(masterPid: number): void {
  process.kill(masterPid, 'SIGHUP');
}
