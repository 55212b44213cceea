import { copyFile, readdir, readFile, rename, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { assertNginxMaster } from '../nginx/nginx-master.js';
import { isAlive } from '../process/proc-process-tree.js';

/** How the local stack bounds its logs: rotate a file past `maxBytes`, keep `keep` rotated copies. */
export interface SizeRotation {
  maxBytes: number;
  keep: number;
}

/** Shifts FILE.1..FILE.keep-1 up by one (dropping FILE.keep); FILE.1 is then free. */
async function shift(path: string, keep: number): Promise<void> {
  await rm(`${path}.${keep}`, { force: true });
  for (let i = keep - 1; i >= 1; i--) await rename(`${path}.${i}`, `${path}.${i + 1}`).catch(() => undefined);
}

async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

/**
 * Rotates the local stack's logs that passed the size: nginx's by move + USR1 (nginx reopens, as
 * `logs rotate` does); the instances' by copy + truncate, since an instance cannot be told to reopen
 * and its log is opened for appending (writes continue at the new end; a line written between the
 * copy and the truncation can be lost). Returns the files rotated.
 */
export async function rotateStackLogs(
  logsDir: string,
  nginxPidFile: string,
  rotation: SizeRotation,
): Promise<string[]> {
  const rotated: string[] = [];
  const pid = Number((await readFile(nginxPidFile, 'utf8').catch(() => '')).trim());
  if (
    pid > 0 &&
    isAlive(pid) &&
    (await assertNginxMaster(pid, nginxPidFile).then(
      () => true,
      () => false,
    ))
  ) {
    const nginxLogs = ['access.log', 'error.log'].map((name) => join(logsDir, name));
    const due = [];
    for (const path of nginxLogs) if ((await sizeOf(path)) >= rotation.maxBytes) due.push(path);
    for (const path of due) {
      await shift(path, rotation.keep);
      await rename(path, `${path}.1`);
      rotated.push(path);
    }
    if (due.length > 0) process.kill(pid, 'SIGUSR1');
  }
  const instanceLogs = (await readdir(logsDir).catch(() => [] as string[])).filter(
    (name) =>
      // instance-PORT.log (TCP instances) or instance-slot-N-….log (instances behind a slot).
      /^instance-[A-Za-z0-9._-]+\.log$/.test(name) && !/\.log\.\d+$/.test(name),
  );
  for (const name of instanceLogs) {
    const path = join(logsDir, name);
    if ((await sizeOf(path)) < rotation.maxBytes) continue;
    await shift(path, rotation.keep);
    await copyFile(path, `${path}.1`);
    await truncate(path, 0);
    rotated.push(path);
  }
  return rotated;
}
