import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { isAlive } from '../process/proc-process-tree.js';

const LOCK_FILE = '.proxyops.lock';

/** Holds TARGET/.proxyops.lock (our pid inside) while `work` runs, so two applies never interleave. */
export async function withTargetLock<T>(target: string, work: () => Promise<T>): Promise<T> {
  const path = join(target, LOCK_FILE);
  await acquire(path, target);
  try {
    return await work();
  } finally {
    await rm(path, { force: true });
  }
}

async function acquire(path: string, target: string): Promise<void> {
  await takePidLock(path, {
    busy: (holder) =>
      new ProxyopsError('TARGET_BUSY', `another proxyops (pid ${holder}) is changing ${target}`),
    stuck: () => new ProxyopsError('TARGET_BUSY', `cannot take the lock ${path}`),
    missing: (error) => new ProxyopsError('TARGET_MISSING', `${target} does not exist`, { cause: error }),
  });
}

/**
 * Creates `path` exclusively with this pid inside. A live holder (pid in the file) gets `busy`; a
 * lock left by a dead process is taken over; `missing` answers a missing directory when given.
 */
export async function takePidLock(
  path: string,
  errors: {
    busy: (holder: number) => Error;
    stuck: () => Error;
    missing?: (error: unknown) => Error;
  },
): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    let lock: FileHandle;
    try {
      lock = await open(path, 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && errors.missing) throw errors.missing(error);
      if (code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (holder > 0 && isAlive(holder)) throw errors.busy(holder);
      // The holder died without cleaning up: the lock is stale.
      await rm(path, { force: true });
      continue;
    }
    // Created but not written (a full disk): an empty lock would read as stale to the next run, but
    // it is still litter; remove it before saying why.
    try {
      await lock.writeFile(`${process.pid}\n`);
      await lock.close();
      return;
    } catch (error) {
      await lock.close().catch(() => undefined);
      await rm(path, { force: true });
      (error as NodeJS.ErrnoException).path ??= path;
      throw error;
    }
  }
  throw errors.stuck();
}
