import { readFile } from 'node:fs/promises';
import { ProxyopsError } from '../../core/errors.js';
import { isAlive, processFamily } from '../process/proc-process-tree.js';

/**
 * Why `pid` is not an nginx master, or undefined when it is (or /proc cannot tell: then the pid file
 * is trusted). A pid file left by an nginx that died can name a pid the kernel has since given to
 * another process, and a signal meant for nginx (HUP, USR1, QUIT) would end that one.
 */
async function notNginxMaster(pid: number): Promise<string | undefined> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (cmdline === undefined || cmdline.startsWith('nginx: master process')) return undefined;
  const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
  if (comm === 'nginx') return undefined;
  return (cmdline.replaceAll('\0', ' ').trim() || comm || 'unknown').slice(0, 80);
}

/** Throws NOT_NGINX_MASTER when `pid`, read from `pidFile`, runs something other than an nginx master. */
export async function assertNginxMaster(pid: number, pidFile: string): Promise<void> {
  const other = await notNginxMaster(pid);
  if (other !== undefined)
    throw new ProxyopsError(
      'NOT_NGINX_MASTER',
      `${pidFile} names pid ${pid}, which is not an nginx master (${other}); refusing to signal it`,
    );
}

/**
 * The master pid written in an nginx pid file, when that process is alive and is nginx. A pid file
 * naming another process is stale (nginx died, the pid was reused): no nginx runs from it.
 */
export async function readLiveMasterPid(pidFile: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // EPERM counts as alive: another user's nginx still holds the pid file.
  if (!isAlive(pid) || (await notNginxMaster(pid)) !== undefined) return undefined;
  return pid;
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
