import { setTimeout as sleep } from 'node:timers/promises';
import { ProxyopsError } from '../../core/errors.js';
import { fileSize, readFileRange } from '../logs/read-file-range.js';
import { isWorkerRetired, readChildPids, sendReload } from './nginx-master.js';

/** Worker pids before and after a reload that took. */
export interface ReloadResult {
  masterPid: number;
  workersBefore: number[];
  workersAfter: number[];
}

const POLL_MS = 50;

/** After an [emerg], how long nginx may still take the config: it retries a failed bind() 5 times, 500 ms apart. */
const EMERG_GRACE_MS = 3_500;

/**
 * Reloads a running master and waits until new workers run and every old one has stopped taking
 * connections. nginx keeps the old workers when the new config fails to load (a port in use, an
 * unreadable certificate): that shows as an [emerg] in the error log and no new workers, and
 * becomes RELOAD_FAILED.
 */
export async function reloadAndConfirm(
  masterPid: number,
  errorLog: string | undefined,
  timeoutMs = 10_000,
): Promise<ReloadResult> {
  const workersBefore = await readChildPids(masterPid);
  const errorOffset = errorLog ? await fileSize(errorLog) : 0;
  sendReload(masterPid);
  let deadline = Date.now() + timeoutMs;
  let errors: string[] = [];
  for (;;) {
    const fresh = (await readChildPids(masterPid)).filter((pid) => !workersBefore.includes(pid));
    if (fresh.length > 0 && (await allRetired(workersBefore)))
      return { masterPid, workersBefore, workersAfter: fresh };
    if (errors.length === 0 && errorLog) {
      errors = emergencies(await readFileRange(errorLog, errorOffset));
      if (errors.length > 0 && fresh.length === 0) deadline = Math.min(deadline, Date.now() + EMERG_GRACE_MS);
    }
    if (Date.now() > deadline) {
      const why =
        errors.length > 0 ? errors.join('\n') : `no new worker processes within ${timeoutMs / 1000} s`;
      throw new ProxyopsError('RELOAD_FAILED', `nginx did not take the new config: ${why}`, {
        details: { masterPid, workersBefore },
      });
    }
    await sleep(POLL_MS);
  }
}

async function allRetired(pids: number[]): Promise<boolean> {
  for (const pid of pids) if (!(await isWorkerRetired(pid))) return false;
  return true;
}

function emergencies(text: string): string[] {
  return text.split('\n').filter((line) => /\[(emerg|alert)\]/.test(line));
}
