import { setTimeout as sleep } from 'node:timers/promises';
import { ProxyopsError } from '../core/errors.js';
import { gzipFile, moveLogAside, statLog } from '../shell/logs/log-file-moves.js';
import { assertNginxMaster } from '../shell/nginx/nginx-master.js';
import { holdsInode } from '../shell/process/proc-fds.js';
import { isAlive, processFamily, readPidFile, type ProcessInfo } from '../shell/process/proc-process-tree.js';
import { sendSignal } from '../shell/process/signal-process.js';

/** What `proxyops logs rotate` was given. */
export interface RotateOptions {
  log: string;
  pidFile: string;
  compress?: boolean;
  /** How long to wait for every nginx process to let go of the old file. */
  timeoutMs?: number;
  now?: Date;
}

/** What a rotation did. */
export interface RotateResult {
  log: string;
  movedTo: string;
  compressedTo: string | null;
  masterPid: number;
  /** Processes (master and workers) that held the old file before and released it. */
  released: number[];
  reopenMs: number;
}

/** Default bound of the wait for the reopen: nginx reopens within milliseconds unless a worker is stuck. */
export const REOPEN_TIMEOUT_MS = 5_000;
const POLL_MS = 25;

/** The processes of `family` that hold the file open (a reopen spawns no process, so the family is read once). */
async function holdersOf(
  family: readonly ProcessInfo[],
  file: { dev: number; ino: number },
): Promise<ProcessInfo[]> {
  const holds = await Promise.all(family.map((p) => holdsInode(p.pid, file.dev, file.ino)));
  return family.filter((_, i) => holds[i]);
}

async function nginxMaster(pidFile: string): Promise<number> {
  const pid = await readPidFile(pidFile);
  if (!isAlive(pid)) {
    throw new ProxyopsError(
      'NGINX_NOT_RUNNING',
      `nginx is not running: pid ${pid} from ${pidFile} does not exist`,
    );
  }
  await assertNginxMaster(pid, pidFile);
  return pid;
}

/**
 * Rotates one nginx log: moves it aside (never overwriting), sends USR1 to the master, waits
 * (bounded) until no nginx process holds the old file, then optionally gzips it. Nothing is ever
 * deleted before its content is safe: on any failure the moved file stays where the error says.
 */
export async function rotateLogs(options: RotateOptions): Promise<RotateResult> {
  const masterPid = await nginxMaster(options.pidFile);
  const old = await statLog(options.log, '--log');
  const before = await holdersOf(await processFamily(masterPid), old);
  if (before.length === 0) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `no process of nginx ${masterPid} has ${options.log} open; check --log and --pid-file (nothing was moved)`,
    );
  }
  const movedTo = await moveLogAside(options.log, options.now ?? new Date());
  const started = Date.now();
  try {
    sendSignal(masterPid, 'SIGUSR1');
  } catch (error) {
    throw new ProxyopsError(
      'NGINX_SIGNAL_FAILED',
      `${(error as Error).message}; the log is at ${movedTo} and nginx still writes to it`,
      {
        cause: error,
      },
    );
  }
  const deadline = started + (options.timeoutMs ?? REOPEN_TIMEOUT_MS);
  let holding = before;
  while (holding.length > 0 && Date.now() < deadline) {
    await sleep(POLL_MS);
    holding = await holdersOf(holding, old);
  }
  if (holding.length > 0) {
    throw new ProxyopsError(
      'ROTATE_NOT_REOPENED',
      `nginx did not reopen ${options.log} within ${options.timeoutMs ?? REOPEN_TIMEOUT_MS} ms: pid ${holding.map((p) => p.pid).join(', ')} still write(s) to ${movedTo}; nothing was compressed or lost`,
    );
  }
  const reopenMs = Date.now() - started;
  await statLog(options.log, '--log').catch((error: unknown) => {
    throw new ProxyopsError(
      'ROTATE_NOT_REOPENED',
      `nginx released the old file but did not recreate ${options.log}; the old content is at ${movedTo}`,
      {
        cause: error,
      },
    );
  });
  const compressedTo = options.compress ? await gzipFile(movedTo) : null;
  return {
    log: options.log,
    movedTo,
    compressedTo,
    masterPid,
    released: before.map((p) => p.pid),
    reopenMs,
  };
}
