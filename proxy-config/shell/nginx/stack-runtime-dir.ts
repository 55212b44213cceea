import { chmod, lstat, mkdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { WorkerUser } from '../../core/apply/worker-access.js';
import { STACK_WORKER_DIRS, stackRuntimeDirs, stackWorkerPaths } from '../../core/deploy/local-stack-spec.js';
import { checkWorkerAccess } from './worker-access.js';

/**
 * The directory of `up`'s slots, temp files and logs, created (0755) and checked as nginx's workers:
 * `forced` (`--runtime-dir`) or the first of `stackRuntimeDirs` they can reach. Throws
 * WORKERS_CANNOT_REACH, naming the path, the user and the fix, before anything was started.
 */
export async function prepareStackRuntimeDir(
  dir: string,
  forced: string | undefined,
  workers: WorkerUser,
): Promise<string> {
  const candidates = forced ? [resolve(forced)] : stackRuntimeDirs(dir, process.geteuid?.() === 0);
  const fix = forced
    ? `pass a --runtime-dir that ${workers.name} can traverse (such as one under /run), or leave it out`
    : `let ${workers.name} traverse it (chmod o+x) or pass --runtime-dir DIR`;
  let refusal: unknown;
  for (const candidate of candidates) {
    try {
      // Its own directories get 0755 below; what is above them must already let the workers through.
      await checkWorkerAccess(
        [{ path: candidate, need: 'search', what: 'the directory of the slots, temp files and logs' }],
        workers,
        () => fix,
      );
      for (const sub of ['', ...STACK_WORKER_DIRS]) {
        await mkdir(join(candidate, sub), { recursive: true, mode: 0o755 });
        await chmod(join(candidate, sub), 0o755);
      }
      await checkWorkerAccess(stackWorkerPaths(candidate), workers, () => fix);
      return candidate;
    } catch (error) {
      refusal = error;
    }
  }
  throw refusal;
}

/**
 * Makes DIR/logs lead to the runtime directory's logs when they are elsewhere (a symlink), so the
 * paths people type (`logs stats .proxyops/logs/access.log`) work wherever the workers write. A real
 * directory there (logs of an older stack) is left alone; false then.
 */
export async function linkStackLogs(dir: string, runtimeDir: string): Promise<boolean> {
  const link = join(dir, 'logs');
  const existing = await lstat(link).catch(() => undefined);
  if (existing && !existing.isSymbolicLink()) return false;
  if (existing) await rm(link);
  await symlink(join(runtimeDir, 'logs'), link);
  return true;
}
