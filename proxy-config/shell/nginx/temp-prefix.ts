import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throw-away nginx prefix with `logs/` and `temp/`, traversable by unprivileged workers. */
export async function createTempPrefix(label: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `proxyops-${label}-`));
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'logs'), { mode: 0o755 });
  await mkdir(join(dir, 'temp'), { mode: 0o755 });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
