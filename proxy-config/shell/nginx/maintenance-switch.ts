import { chmod, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  maintenanceFlagPath,
  maintenanceRetryLinkPath,
  retryAfterDirName,
} from '../../core/maintenance/maintenance-files.js';

/**
 * Puts an upstream in maintenance: first the retry link (a fresh symlink renamed over the old one,
 * atomic), then the flag nginx tests. nginx reads both per request, so the next request sees them.
 */
export async function writeMaintenanceOn(dir: string, upstream: string, retryAfter: number): Promise<void> {
  const retryDir = join(dir, retryAfterDirName(retryAfter));
  await mkdir(retryDir, { recursive: true });
  // nginx's workers run unprivileged: they must be able to stat the flag and resolve the link.
  await chmod(dir, 0o755);
  await chmod(retryDir, 0o755);
  const link = maintenanceRetryLinkPath(dir, upstream);
  const fresh = `${link}.${process.pid}.tmp`;
  await rm(fresh, { force: true });
  await symlink(retryAfterDirName(retryAfter), fresh);
  await rename(fresh, link);
  const flag = maintenanceFlagPath(dir, upstream);
  const freshFlag = `${flag}.${process.pid}.tmp`;
  await writeFile(freshFlag, `maintenance on since ${new Date().toISOString()}\n`, { mode: 0o644 });
  await rename(freshFlag, flag);
}

/** Takes an upstream out of maintenance: removes the flag (one unlink); the retry link stays for requests that saw it. */
export async function writeMaintenanceOff(dir: string, upstream: string): Promise<boolean> {
  const flag = maintenanceFlagPath(dir, upstream);
  try {
    await rm(flag);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
