import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Every entry under `dir`: file contents, and symlink targets as `-> target`. */
export async function snapshotDir(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) out[path] = `-> ${await readlink(path)}`;
    else if (entry.isDirectory()) Object.assign(out, await snapshotDir(path));
    else out[path] = await readFile(path, 'utf8');
  }
  return out;
}
