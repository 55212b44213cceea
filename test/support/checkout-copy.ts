import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A copy of this checkout (its build and node_modules, without .git) that any user can run the
 * built CLI from, for the tests that run it as another uid: the checkout itself may sit below a
 * directory only root can traverse (a clone in /root or in a `mktemp -d`). Hard links, so it takes
 * a moment and no space; across file systems (a tmpfs /tmp) a full copy.
 */
export async function reachableCheckout(): Promise<{ root: string; cli: string; remove(): Promise<void> }> {
  const from = process.cwd();
  const root = await mkdtemp(join(tmpdir(), 'proxyops-checkout-'));
  await chmod(root, 0o755);
  const entries = (await readdir(from)).filter((name) => name !== '.git');
  const paths = entries.map((name) => join(from, name));
  try {
    execFileSync('cp', ['-al', ...paths, root]);
  } catch {
    execFileSync('cp', ['-a', ...paths, root]);
  }
  return {
    root,
    cli: join(root, 'dist', 'cli', 'main.js'),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
