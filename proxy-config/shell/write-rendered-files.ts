import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { ProxyopsError } from '../core/errors.js';

/**
 * Writes rendered files under `dir`, world-readable (nginx workers run as an unprivileged user).
 * OUTPUT_UNWRITABLE, naming the path, when something is in the way or the place is not writable.
 */
export async function writeRenderedFiles(dir: string, files: Record<string, string>): Promise<string[]> {
  const written: string[] = [];
  try {
    await makeDirectory(dir);
    for (const name of Object.keys(files).sort()) {
      const path = join(dir, name);
      await makeDirectory(dirname(path));
      await writeFile(path, files[name]!, { mode: 0o644 });
      written.push(path);
    }
  } catch (error) {
    throw unwritable(dir, error);
  }
  return written;
}

/**
 * Creates `dir` and its missing parents as 0755 whatever the umask, and leaves the mode of a
 * directory that already exists alone: it is the owner's (a shared 1777 directory keeps its
 * sticky bit).
 */
async function makeDirectory(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: 0o755 });
  if (first === undefined) return;
  let path = first;
  await chmod(path, 0o755);
  for (const part of relative(first, dir).split(sep).filter(Boolean)) {
    path = join(path, part);
    await chmod(path, 0o755);
  }
}

function unwritable(dir: string, error: unknown): ProxyopsError {
  const { code, path = dir } = error as NodeJS.ErrnoException;
  const why =
    code === 'EEXIST'
      ? `${path} exists and is not a directory`
      : code === 'ENOTDIR'
        ? `a part of ${path} is not a directory`
        : code === 'EISDIR'
          ? `${path} is a directory`
          : `${path}: ${code ?? String(error)}`;
  return new ProxyopsError('OUTPUT_UNWRITABLE', `cannot write the rendered config to ${dir}: ${why}`, {
    cause: error,
  });
}
